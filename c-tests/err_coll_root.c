// pes: 2 4
// timeout: 30
// env: SHMEM_DEBUG=1
// expect-fail: collective arguments differ on team SHMEM_TEAM_WORLD
// expect-stderr: shmem_long_broadcast(PE_root = 0, nelems = 4)
// expect-stderr: shmem_long_broadcast(PE_root = 1, nelems = 4)
// Under SHMEM_DEBUG the arguments of a collective call must agree across the team: the last PE
// names another root than the others. The library reports both PEs and both calls instead of
// letting the broadcast hang or copy the wrong data. Without SHMEM_DEBUG nothing is checked.
#include <shmem.h>
#include <stdio.h>

int main(void) {
    static long src[4], dst[4];
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int i = 0; i < 4; i++)
        src[i] = me * 10 + i;
    shmem_barrier_all();
    int root = me == npes - 1 ? 1 : 0;
    shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 4, root);
    fprintf(stderr, "[PE %d] err_coll_root: a broadcast with mismatched roots returned\n", me);
    shmem_finalize();
    return 0;
}
