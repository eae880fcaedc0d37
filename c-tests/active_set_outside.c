// pes: 2 3 4 8
// timeout: 60
// env: SHMEM_DEBUG=1
// expect-stderr: shmem_barrier: returns at once: this PE is not in the active set (PE_start = 0, logPE_stride = 1, PE_size =
// expect-stderr: shmem_long_sum_to_all: returns at once: this PE is not in the active set
// Every PE calls the deprecated active-set collectives on the set of even PEs, the odd PEs too:
// the spec leaves a call from outside the set undefined, OSHMEM returns at once and programs
// written for it (its own test suite) rely on that. Checked over three rounds: the members get
// the right results, a PE outside the set gets its dest untouched, and a barrier over the whole
// world and a reduction on the team world still work between and after the rounds.
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include "check.h"

enum { N = 3, MAXPE = 8, UNTOUCHED = -7 };

static int me, npes;
static long errors;
static long psync[SHMEM_REDUCE_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static int64_t src64[MAXPE * N], dst64[MAXPE * N];
static int32_t src32[MAXPE * N], dst32[MAXPE * N];
static long lsrc[N], ldst[N];

static void fill(void)
{
    for (int k = 0; k < MAXPE * N; k++) {
        src64[k] = 1000 * me + k;
        src32[k] = 1000 * me + k;
        dst64[k] = UNTOUCHED;
        dst32[k] = UNTOUCHED;
    }
    shmem_barrier_all();
}

/* Members: dest as the collective defines it; others: dest as it was. */
static void expect(const char *what, int member, int64_t got, int64_t want)
{
    if (!member)
        want = UNTOUCHED;
    CHECK(got == want, "%s: %lld, expected %lld", what, (long long)got, (long long)want);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    const int size = (npes + 1) / 2, member = me % 2 == 0, i = me / 2;
    shmem_barrier_all();

    for (int round = 0; round < 3; round++) {
        shmem_barrier(0, 1, size, psync);
        shmem_sync(0, 1, size, psync);

        fill();
        shmem_broadcast64(dst64, src64, N, size - 1, 0, 1, size, psync);
        const int root_pe = 2 * (size - 1);
        for (int k = 0; k < N; k++)
            expect("broadcast64", member && me != root_pe, dst64[k], 1000 * root_pe + k);

        fill();
        shmem_fcollect32(dst32, src32, N, 0, 1, size, psync);
        for (int j = 0; j < size; j++)
            for (int k = 0; k < N; k++)
                expect("fcollect32", member, dst32[j * N + k], 1000 * (2 * j) + k);

        fill();
        /* Member j contributes j + 1 elements. */
        shmem_collect64(dst64, src64, member ? i + 1 : 0, 0, 1, size, psync);
        for (int j = 0, at = 0; j < size; at += j + 1, j++)
            for (int k = 0; k <= j; k++)
                expect("collect64", member, dst64[at + k], 1000 * (2 * j) + k);

        fill();
        shmem_alltoall64(dst64, src64, N, 0, 1, size, psync);
        for (int j = 0; j < size; j++)
            for (int k = 0; k < N; k++)
                expect("alltoall64", member, dst64[j * N + k], 1000 * (2 * j) + i * N + k);

        fill();
        shmem_alltoalls32(dst32, src32, 1, 1, 1, 0, 1, size, psync);
        for (int j = 0; j < size; j++)
            expect("alltoalls32", member, dst32[j], 1000 * (2 * j) + i);

        for (int k = 0; k < N; k++) {
            lsrc[k] = me + k;
            ldst[k] = UNTOUCHED;
        }
        shmem_barrier_all();
        shmem_long_sum_to_all(ldst, lsrc, N, 0, 1, size, pwrk, psync);
        /* The even PEs 0, 2, .., 2 (size - 1) sum to size (size - 1), plus k each. */
        for (int k = 0; k < N; k++)
            expect("long_sum_to_all", member, ldst[k], (int64_t)size * (size - 1) + (int64_t)size * k);

        /* The whole world still synchronizes and reduces. */
        shmem_barrier_all();
        lsrc[0] = 1;
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, ldst, lsrc, 1);
        CHECK(ldst[0] == npes, "world sum after round %d: %ld", round, ldst[0]);
    }

    shmem_barrier_all();
    if (errors) {
        fprintf(stderr, "[PE %d] active_set_outside: %ld errors\n", me, errors);
        shmem_global_exit(1);
    }
    if (me == 0)
        printf("active_set_outside: %d PEs ok\n", npes);
    shmem_finalize();
    return 0;
}
