// pes: 1 2 4 8
// timeout: 30
// expect-exit: 7
// shmem_global_exit(7) on PE 0 while the other PEs wait in a barrier that can never complete: the
// whole job must stop with status 7, well before the timeout.
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    if (shmem_my_pe() == 0)
        shmem_global_exit(7);
    shmem_barrier_all();
    fprintf(stderr, "[PE %d] global_exit: got past a barrier that PE 0 never entered\n", shmem_my_pe());
    shmem_finalize();
    return 3;
}
