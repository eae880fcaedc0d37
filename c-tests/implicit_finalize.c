// pes: 1 2 3 4 8
// timeout: 60
// A correct program in which the odd PEs call shmem_finalize and the even ones return from main
// without it (finalized implicitly at exit): the explicit and implicit finalizes meet each other
// and the job exits 0. Before that every PE checks a ring of puts.
#include <shmem.h>
#include <stdio.h>

static long box;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_long_p(&box, me, (me + 1) % npes);
    shmem_barrier_all();
    if (box != (me + npes - 1) % npes) {
        fprintf(stderr, "[PE %d] implicit_finalize: got %ld\n", me, box);
        return 1;
    }
    if (me == 0)
        printf("implicit_finalize: %d PEs passed\n", npes);
    if (me % 2 == 1)
        shmem_finalize();
    return 0;
}
