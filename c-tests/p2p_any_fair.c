// pes: 1 2 3 4 8
// timeout: 60
// Fairness of the _any forms: the spec requires that a series of calls eventually returns every
// satisfied index, so a server that keeps serving without masking what it served reaches every
// client.
//  1. Every PE raises its own flag on PE 0 and keeps it raised. Once all are up, PE 0 calls
//     test_any, wait_until_any, test_any_vector and wait_until_any_vector npes times each on the
//     unchanged flags: each series must return npes distinct indices (rshmem starts each scan
//     after the index it returned last on that array). With half of the flags masked the series
//     returns the unmasked ones only. The short forms of the C11 generics are not in the spec's
//     _any family (standard AMO types only), so int and long are used.
//     Then test_any and wait_until_any alternate on the same array: the fairness holds per
//     routine, so each routine's series alone must return npes distinct indices (a cursor shared
//     by both gave one routine the even indices and the other the odd ones).
//  2. A server loop in the style of the spec's example: each client posts R requests one at a
//     time (flag = 1, then wait for the reply); PE 0 serves with wait_until_any over the flags
//     of all clients, clears the flag and replies. It must finish (the harness timeout catches a
//     hang) and serve exactly R requests per client.
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_PES 64
#define R 200

static int flags[MAX_PES];
static long lflags[MAX_PES];
static int req[MAX_PES];
static long reply;
static int me, npes, errors;

/* Checks that `got` holds n distinct indices < npes, each allowed by `mask` (NULL: all). */
static void distinct(const char *op, const size_t *got, int n, const int *mask)
{
    int seen[MAX_PES] = {0};
    for (int j = 0; j < n; j++) {
        size_t i = got[j];
        if (i >= (size_t)npes || (mask && mask[i]) || seen[i]) {
            if (errors++ < 20)
                fprintf(stderr, "[PE %d] p2p_any_fair: %s: call %d of %d returned %zu (repeated, masked or out of range)\n",
                        me, op, j + 1, n, i);
            return;
        }
        seen[i] = 1;
    }
}

static void series(const int *mask, int active)
{
    size_t got[MAX_PES] = {0};
    int ivals[MAX_PES];
    long lvals[MAX_PES];
    for (int i = 0; i < npes; i++) {
        ivals[i] = 1;
        lvals[i] = 7;
    }
    for (int j = 0; j < active; j++)
        got[j] = shmem_int_test_any(flags, npes, mask, SHMEM_CMP_EQ, 1);
    distinct("shmem_int_test_any", got, active, mask);
    for (int j = 0; j < active; j++)
        got[j] = shmem_wait_until_any(flags, npes, mask, SHMEM_CMP_EQ, 1);
    distinct("shmem_wait_until_any (generic, int)", got, active, mask);
    for (int j = 0; j < active; j++)
        got[j] = shmem_int_test_any_vector(flags, npes, mask, SHMEM_CMP_EQ, ivals);
    distinct("shmem_int_test_any_vector", got, active, mask);
    for (int j = 0; j < active; j++)
        got[j] = shmem_long_wait_until_any_vector(lflags, npes, mask, SHMEM_CMP_EQ, lvals);
    distinct("shmem_long_wait_until_any_vector", got, active, mask);
    for (int j = 0; j < active; j++)
        got[j] = shmem_test_any(lflags, npes, mask, SHMEM_CMP_GT, 0L);
    distinct("shmem_test_any (generic, long)", got, active, mask);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes > MAX_PES) {
        if (me == 0)
            fprintf(stderr, "p2p_any_fair: at most %d PEs\n", MAX_PES);
        shmem_global_exit(2);
    }

    /* 1. Raised flags, never lowered. */
    shmem_int_atomic_set(&flags[me], 1, 0);
    shmem_long_atomic_set(&lflags[me], 7, 0);
    if (me == 0) {
        shmem_int_wait_until_all(flags, npes, NULL, SHMEM_CMP_EQ, 1);
        shmem_long_wait_until_all(lflags, npes, NULL, SHMEM_CMP_EQ, 7);
        series(NULL, npes);
        int mask[MAX_PES];
        int active = 0;
        for (int i = 0; i < npes; i++) {
            mask[i] = i % 2;
            active += mask[i] == 0;
        }
        series(mask, active);
        /* Twice over the same array: the second round sees every index again. */
        series(NULL, npes);
        /* Two routines in turn on one array: each keeps its own place. */
        size_t by_test[MAX_PES], by_wait[MAX_PES];
        for (int j = 0; j < npes; j++) {
            by_test[j] = shmem_int_test_any(flags, npes, NULL, SHMEM_CMP_EQ, 1);
            by_wait[j] = shmem_int_wait_until_any(flags, npes, NULL, SHMEM_CMP_EQ, 1);
        }
        distinct("shmem_int_test_any (alternating with wait_until_any)", by_test, npes, NULL);
        distinct("shmem_int_wait_until_any (alternating with test_any)", by_wait, npes, NULL);
    }
    shmem_barrier_all();

    /* 2. The server loop. */
    if (me == 0) {
        int served[MAX_PES] = {0};
        int mask[MAX_PES] = {0};
        mask[0] = 1; /* PE 0 serves, it does not ask */
        long total = 0;
        while (total < (long)(npes - 1) * R) {
            size_t i = shmem_int_wait_until_any(req, npes, mask, SHMEM_CMP_EQ, 1);
            if (i == 0 || i >= (size_t)npes) {
                fprintf(stderr, "[PE 0] p2p_any_fair: server: wait_until_any returned %zu\n", i);
                shmem_global_exit(1);
            }
            shmem_int_atomic_set(&req[i], 0, 0);
            served[i]++;
            total++;
            shmem_long_atomic_inc(&reply, (int)i);
        }
        for (int i = 1; i < npes; i++) {
            if (served[i] != R && errors++ < 20)
                fprintf(stderr, "[PE 0] p2p_any_fair: server: PE %d was served %d times, expected %d\n", i,
                        served[i], R);
        }
    } else {
        for (long r = 0; r < R; r++) {
            shmem_int_atomic_set(&req[me], 1, 0);
            shmem_long_wait_until(&reply, SHMEM_CMP_EQ, r + 1);
        }
    }

    shmem_barrier_all();
    if (errors) {
        fprintf(stderr, "[PE %d] p2p_any_fair: %d errors\n", me, errors);
        shmem_global_exit(1);
    }
    if (me == 0)
        printf("p2p_any_fair: %d PEs ok\n", npes);
    shmem_finalize();
    return 0;
}
