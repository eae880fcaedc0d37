// Built with Sandia OpenSHMEM 1.5's names and a stand-in libsma.so, run with rshmem preloaded: its
// shmemx_ block-strided puts and gets, sum scans (on SOS's team handles) and shmemx_wtime are
// rshmem's and give SOS's values. Without them the calls reach libsma, never initialized.
// build: sos
// pes: 2 4
// timeout: 60
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include "../check.h"

#define N 12

static int isrc[N], idst[N];
static long lsrc[N];
static long scan_src[3], in_dst[3], ex_dst[3];

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), errors = 0;
    int right = (me + 1) % n, left = (me + n - 1) % n;
    for (int i = 0; i < N; i++) {
        isrc[i] = lsrc[i] = me * 100 + i;
        idst[i] = -1;
    }
    shmem_barrier_all();
    shmemx_int_ibput(idst, isrc, 4, 3, 2, 3, right);
    shmem_barrier_all();
    long lget[N];
    for (int i = 0; i < N; i++)
        lget[i] = -1;
    shmemx_ctx_long_ibget(SHMEM_CTX_DEFAULT, lget, lsrc, 3, 4, 2, 3, left);
    for (int i = 0; i < N; i++) {
        int b = i / 4, k = i % 4;
        int want = (b < 3 && k < 2) ? left * 100 + b * 3 + k : -1;
        CHECK(idst[i] == want, "shmemx_int_ibput: idst[%d] = %d, want %d", i, idst[i], want);
        b = i / 3, k = i % 3;
        long lwant = (b < 3 && k < 2) ? left * 100 + b * 4 + k : -1;
        CHECK(lget[i] == lwant, "shmemx_ctx_long_ibget: lget[%d] = %ld, want %ld", i, lget[i], lwant);
    }
    for (int i = 0; i < 3; i++)
        scan_src[i] = me + 1 + i;
    shmem_barrier_all();
    CHECK(shmemx_long_sum_inscan(SHMEM_TEAM_WORLD, in_dst, scan_src, 3) == 0, "inscan failed");
    CHECK(shmemx_sum_exscan(SHMEM_TEAM_WORLD, ex_dst, scan_src, 3) == 0, "exscan failed");
    for (int i = 0; i < 3; i++) {
        long in_want = (me + 1) * (me + 2) / 2 + (me + 1) * i, ex_want = me * (me + 1) / 2 + me * i;
        CHECK(in_dst[i] == in_want, "shmemx_long_sum_inscan: [%d] = %ld, want %ld", i, in_dst[i], in_want);
        if (me > 0)
            CHECK(ex_dst[i] == ex_want, "shmemx_sum_exscan: [%d] = %ld, want %ld", i, ex_dst[i], ex_want);
    }
    double t0 = shmemx_wtime(), t1 = shmemx_wtime();
    CHECK(t1 >= t0, "shmemx_wtime went back: %f then %f", t0, t1);
    shmem_finalize();
    return errors != 0;
}
