// pes: 2 4
// timeout: 30
// env: SHMEM_DEBUG=1
// expect-fail: collective arguments differ on team SHMEM_TEAM_WORLD
// expect-stderr: shmem_int_sum_reduce(nelems = 2)
// expect-stderr: shmem_int_max_reduce(nelems = 3)
// Under SHMEM_DEBUG the arguments of a collective call must agree across the team: first every
// PE makes the same reduction (which must pass the check and give the right sum), then the last
// PE calls another operation with another count. The library names both PEs and both calls.
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    static int src[3], dst[3];
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    src[0] = me;
    src[1] = 1;
    src[2] = 2;
    shmem_barrier_all();
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 2);
    if (dst[0] != npes * (npes - 1) / 2 || dst[1] != npes) {
        fprintf(stderr, "[PE %d] err_coll_op: agreed sum_reduce gave %d %d\n", me, dst[0], dst[1]);
        return 2;
    }
    if (me == npes - 1)
        shmem_int_max_reduce(SHMEM_TEAM_WORLD, dst, src, 3);
    else
        shmem_int_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 2);
    fprintf(stderr, "[PE %d] err_coll_op: mismatched reductions returned\n", me);
    shmem_finalize();
    return 0;
}
