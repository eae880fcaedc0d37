// pes: 1 2 4
// timeout: 30
// expect-exit: 7
// Open MPI OSHMEM's globalexit(7) (its shmem-compat.h; not declared by rshmem's headers) is
// shmem_global_exit: PE 0 ends the whole job with status 7 while the others wait in a barrier.
#include <shmem.h>
#include <stdio.h>

void globalexit(int status);

int main(void)
{
    shmem_init();
    if (shmem_my_pe() == 0)
        globalexit(7);
    shmem_barrier_all();
    fprintf(stderr, "[PE %d] globalexit_oshmem: got past a barrier that PE 0 never entered\n", shmem_my_pe());
    shmem_finalize();
    return 3;
}
