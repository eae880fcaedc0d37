// pes: 1 2 3 4
// timeout: 60
// The shmemx_ extensions of Sandia OpenSHMEM's and Open MPI OSHMEM's shmemx.h that rshmem
// implements (declared by rshmem's shmemx.h), checked by value: the block-strided puts and gets
// (typed, sized, context and C11 generic forms), the sum scans, shmemx_wtime,
// shmemx_malloc_with_hint, shmemx_alltoall_global_nb and shmemx_register_gettid.
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include "check.h"

#define N 12

static int isrc[N], idst[N];
static long lsrc[N];
static int32_t s32[N], d32[N];
static int64_t s64[N];
static double dsrc[N], ddst[N];
static int scan_src[4], in_dst[4], ex_dst[4];
static long a2a_src[2 * 8], a2a_dst[2 * 8];
static long counter;

static uint64_t my_gettid(void) { return 1; }

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), errors = 0;
    int right = (me + 1) % n, left = (me + n - 1) % n;

    for (int i = 0; i < N; i++) {
        isrc[i] = me * 100 + i;
        idst[i] = -1;
        lsrc[i] = me * 100 + i;
        s32[i] = me * 100 + i;
        d32[i] = -1;
        s64[i] = me * 100 + i;
        dsrc[i] = me * 100 + i + 0.5;
        ddst[i] = -1;
    }
    shmem_barrier_all();
    /* Three blocks of two: block b of the source starts at b * 3, of the target at b * 4. */
    shmemx_int_ibput(idst, isrc, 4, 3, 2, 3, right);
    shmemx_ibput32(d32, s32, 4, 3, 2, 3, right);
    shmemx_ibput(SHMEM_CTX_DEFAULT, ddst, dsrc, 4, 3, 2, 3, right);
    shmem_barrier_all();
    for (int i = 0; i < N; i++) {
        int b = i / 4, k = i % 4;
        int want = (b < 3 && k < 2) ? left * 100 + b * 3 + k : -1;
        CHECK(idst[i] == want, "shmemx_int_ibput: idst[%d] = %d, want %d", i, idst[i], want);
        CHECK(d32[i] == want, "shmemx_ibput32: d32[%d] = %d, want %d", i, (int)d32[i], want);
        double dwant = want == -1 ? -1 : want + 0.5;
        CHECK(ddst[i] == dwant, "shmemx_ibput (ctx, double): ddst[%d] = %g, want %g", i, ddst[i], dwant);
    }
    /* Gets: block b of the source (on the left PE) starts at b * 4, of the target at b * 3. */
    long lget[N];
    int64_t g64[N];
    int gint[N];
    for (int i = 0; i < N; i++)
        lget[i] = g64[i] = gint[i] = -1;
    shmemx_long_ibget(lget, lsrc, 3, 4, 2, 3, left);
    shmemx_ctx_ibget64(SHMEM_CTX_DEFAULT, g64, s64, 3, 4, 2, 3, left);
    shmemx_ibget(gint, isrc, 3, 4, 2, 3, left);
    for (int i = 0; i < N; i++) {
        int b = i / 3, k = i % 3;
        long want = (b < 3 && k < 2) ? left * 100 + b * 4 + k : -1;
        CHECK(lget[i] == want, "shmemx_long_ibget: lget[%d] = %ld, want %ld", i, lget[i], want);
        CHECK(g64[i] == want, "shmemx_ctx_ibget64: g64[%d] = %ld, want %ld", i, (long)g64[i], want);
        CHECK(gint[i] == want, "shmemx_ibget (int): gint[%d] = %d, want %ld", i, gint[i], want);
    }

    /* Scans over the world team: source[i] = pe + 1 + i. */
    for (int i = 0; i < 4; i++)
        scan_src[i] = me + 1 + i;
    shmem_barrier_all();
    CHECK(shmemx_int_sum_inscan(SHMEM_TEAM_WORLD, in_dst, scan_src, 4) == 0, "inscan failed");
    CHECK(shmemx_sum_exscan(SHMEM_TEAM_WORLD, ex_dst, scan_src, 4) == 0, "exscan failed");
    for (int i = 0; i < 4; i++) {
        int in_want = (me + 1) * (me + 2) / 2 + (me + 1) * i;
        int ex_want = me * (me + 1) / 2 + me * i;
        CHECK(in_dst[i] == in_want, "shmemx_int_sum_inscan: [%d] = %d, want %d", i, in_dst[i], in_want);
        if (me > 0)
            CHECK(ex_dst[i] == ex_want, "shmemx_sum_exscan: [%d] = %d, want %d", i, ex_dst[i], ex_want);
    }

    /* shmemx_wtime: seconds, never decreasing, advancing. */
    double t0 = shmemx_wtime(), prev = t0, t = t0;
    for (long i = 0; i < 100000000 && t < t0 + 0.01; i++) {
        t = shmemx_wtime();
        CHECK(t >= prev, "shmemx_wtime went back from %.9f to %.9f", prev, t);
        prev = t;
    }
    CHECK(t >= t0 + 0.01 && t < t0 + 10, "shmemx_wtime: %.9f s after %.9f", t, t0);

    /* shmemx_malloc_with_hint: a usable symmetric block. */
    long *blk = shmemx_malloc_with_hint(64 * sizeof(long), SHMEM_HINT_PSYNC | SHMEM_HINT_LOW_LAT_MEM);
    REQUIRE(blk != NULL);
    for (int i = 0; i < 64; i++)
        blk[i] = 0;
    shmem_barrier_all();
    shmem_long_p(&blk[me % 64], me + 1, right);
    shmem_barrier_all();
    CHECK(blk[left % 64] == left + 1, "shmemx_malloc_with_hint block: [%d] = %ld", left % 64, blk[left % 64]);
    shmem_free(blk);

    /* shmemx_alltoall_global_nb: PE me's block j goes to PE j at me's slot; the counter counts
     * the blocks that arrived. */
    if (n <= 8) {
        for (int j = 0; j < n; j++)
            for (int k = 0; k < 2; k++) {
                a2a_src[j * 2 + k] = me * 1000 + j * 10 + k;
                a2a_dst[j * 2 + k] = -1;
            }
        counter = 0;
        shmem_barrier_all();
        shmemx_alltoall_global_nb(a2a_dst, a2a_src, 2 * sizeof(long), &counter);
        shmem_long_wait_until(&counter, SHMEM_CMP_EQ, n);
        for (int p = 0; p < n; p++)
            for (int k = 0; k < 2; k++) {
                long want = p * 1000 + me * 10 + k;
                CHECK(a2a_dst[p * 2 + k] == want, "shmemx_alltoall_global_nb: [%d] = %ld, want %ld",
                      p * 2 + k, a2a_dst[p * 2 + k], want);
            }
        shmem_barrier_all();
    }

    shmemx_register_gettid(my_gettid);
    shmem_finalize();
    return errors != 0;
}
