// Built with Open MPI OSHMEM 4.1's oshcc, run with rshmem preloaded: the active-set collectives
// with pSync arrays of OSHMEM's sizes (1 to 3 longs) filled with its SHMEM_SYNC_VALUE (-1), reused
// back to back, and shmem_ptr to every PE's copy of a static variable.
// build: oshmem
// pes: 2 4
// timeout: 60
#include <shmem.h>
#include <stdio.h>
#include "../check.h"

#define N 4
static long bar_sync[SHMEM_BARRIER_SYNC_SIZE];
static long bcast_sync[SHMEM_BCAST_SYNC_SIZE];
static long coll_sync[SHMEM_COLLECT_SYNC_SIZE];
static long red_sync[SHMEM_REDUCE_SYNC_SIZE];
static long a2a_sync[SHMEM_ALLTOALL_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];
static long src[N], dst[64 * N], red[N];
static int shared_int;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    REQUIRE(SHMEM_SYNC_VALUE == -1 && SHMEM_BARRIER_SYNC_SIZE == 1 && SHMEM_REDUCE_SYNC_SIZE == 3);
    long *syncs[] = {bar_sync, bcast_sync, coll_sync, red_sync, a2a_sync};
    int sizes[] = {SHMEM_BARRIER_SYNC_SIZE, SHMEM_BCAST_SYNC_SIZE, SHMEM_COLLECT_SYNC_SIZE,
                   SHMEM_REDUCE_SYNC_SIZE, SHMEM_ALLTOALL_SYNC_SIZE};
    for (int s = 0; s < 5; s++)
        for (int i = 0; i < sizes[s]; i++) syncs[s][i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++) src[i] = 10 * me + i + round;
        shmem_barrier(0, 0, n, bar_sync);
        shmem_broadcast64(dst, src, N, 0, 0, 0, n, bcast_sync);
        shmem_barrier(0, 0, n, bar_sync);
        if (me != 0)
            for (int i = 0; i < N; i++) REQUIRE(dst[i] == i + round);
        shmem_fcollect64(dst, src, N, 0, 0, n, coll_sync);
        for (int p = 0; p < n; p++)
            for (int i = 0; i < N; i++) REQUIRE(dst[p * N + i] == 10 * p + i + round);
        shmem_barrier(0, 0, n, bar_sync);
        shmem_collect64(dst, src, 1 + me % 2, 0, 0, n, coll_sync);
        int at = 0;
        for (int p = 0; p < n; p++)
            for (int i = 0; i < 1 + p % 2; i++) REQUIRE(dst[at++] == 10 * p + i + round);
        shmem_long_sum_to_all(red, src, N, 0, 0, n, pwrk, red_sync);
        for (int i = 0; i < N; i++) REQUIRE(red[i] == 10L * n * (n - 1) / 2 + (long)n * (i + round));
        shmem_long_max_to_all(red, src, N, 0, 0, n, pwrk, red_sync);
        for (int i = 0; i < N; i++) REQUIRE(red[i] == 10L * (n - 1) + i + round);
        shmem_barrier(0, 0, n, bar_sync);
        shmem_alltoall64(dst, src, 1, 0, 0, n, a2a_sync);
        for (int p = 0; p < n; p++) REQUIRE(dst[p] == 10 * p + me + round);
        shmem_barrier(0, 0, n, bar_sync);
    }
    shared_int = 1000 + me;
    shmem_barrier_all();
    for (int p = 0; p < n; p++) {
        int *q = shmem_ptr(&shared_int, p);
        REQUIRE(q != NULL && *q == 1000 + p);
    }
    shmem_barrier_all();
    if (me == 0) printf("oshmem_coll: ok on %d PEs\n", n);
    shmem_finalize();
    return 0;
}
