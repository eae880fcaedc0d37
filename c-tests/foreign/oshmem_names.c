// Built with Open MPI OSHMEM 4.1's oshcc, run with rshmem preloaded: the names its headers route
// ordinary calls to and rshmem exports for it (the signed bitwise AMOs its C11 shmem_atomic_*
// picks for int, long and long long; my_pe, num_pes; the shmemx_ sized routines) do what their
// spec counterparts do. Without them the calls reach liboshmem, which stops: not initialized.
// build: oshmem
// pes: 2 4
// timeout: 60
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include "../check.h"

static int ibits;
static long lbits;
static long long llbits;
static int32_t x32;
static int64_t x64;
static uint32_t u32;
static int16_t s16;
static int32_t r32src, r32dst;
static int64_t r64src, r64dst;
static int16_t r16src, r16dst;
static long pSync[SHMEM_REDUCE_SYNC_SIZE];
static int64_t pWrk64[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
static int32_t pWrk32[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
static int16_t pWrk16[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];

int main(void) {
    shmem_init();
    int me = my_pe(), n = num_pes();
    REQUIRE(me == shmem_my_pe() && n == shmem_n_pes());
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++) pSync[i] = SHMEM_SYNC_VALUE;
    if (me == 0) {
        ibits = -1;
        lbits = -1;
        llbits = -1;
    }
    shmem_barrier_all();
    /* Every PE clears its own bit on PE 0, then sets bit 8 + me, then flips bit 20 + me. */
    shmem_int_atomic_and(&ibits, ~(1 << me), 0);
    shmem_ctx_long_atomic_and(SHMEM_CTX_DEFAULT, &lbits, ~(1L << me), 0);
    shmem_longlong_atomic_fetch_and(&llbits, ~(1LL << me), 0);
    shmem_barrier_all();
    shmem_int_atomic_fetch_or(&ibits, 0, 0);
    shmem_barrier_all();
    if (me == 0) {
        int want = -1;
        for (int p = 0; p < n; p++) want &= ~(1 << p);
        REQUIRE(ibits == want && lbits == (long)want && llbits == (long long)want);
        ibits = lbits = llbits = 0;
    }
    shmem_barrier_all();
    shmem_int_atomic_or(&ibits, 1 << (8 + me), 0);
    shmem_ctx_int_atomic_fetch_or(SHMEM_CTX_DEFAULT, &ibits, 0, 0);
    shmem_long_atomic_fetch_or(&lbits, 1L << (8 + me), 0);
    shmem_ctx_longlong_atomic_or(SHMEM_CTX_DEFAULT, &llbits, 1LL << (8 + me), 0);
    shmem_int_atomic_xor(&ibits, 1 << 20, 0);
    shmem_ctx_long_atomic_xor(SHMEM_CTX_DEFAULT, &lbits, 1L << 20, 0);
    shmem_longlong_atomic_fetch_xor(&llbits, 1LL << 20, 0);
    shmem_ctx_int_atomic_fetch_xor(SHMEM_CTX_DEFAULT, &ibits, 0, 0);
    shmem_ctx_long_atomic_fetch_xor(SHMEM_CTX_DEFAULT, &lbits, 0, 0);
    shmem_ctx_longlong_atomic_fetch_and(SHMEM_CTX_DEFAULT, &llbits, -1LL, 0);
    shmem_ctx_int_atomic_and(SHMEM_CTX_DEFAULT, &ibits, -1, 0);
    shmem_ctx_longlong_atomic_xor(SHMEM_CTX_DEFAULT, &llbits, 0, 0);
    shmem_ctx_long_atomic_or(SHMEM_CTX_DEFAULT, &lbits, 0, 0);
    shmem_long_atomic_xor(&lbits, 0, 0);
    shmem_ctx_int_atomic_or(SHMEM_CTX_DEFAULT, &ibits, 0, 0);
    shmem_ctx_long_atomic_fetch_and(SHMEM_CTX_DEFAULT, &lbits, -1L, 0);
    shmem_ctx_int_atomic_fetch_and(SHMEM_CTX_DEFAULT, &ibits, -1, 0);
    shmem_ctx_longlong_atomic_fetch_or(SHMEM_CTX_DEFAULT, &llbits, 0, 0);
    shmem_longlong_atomic_and(&llbits, -1LL, 0);
    shmem_longlong_atomic_fetch_or(&llbits, 0, 0);
    shmem_int_atomic_fetch_and(&ibits, -1, 0);
    shmem_int_atomic_fetch_xor(&ibits, 0, 0);
    shmem_long_atomic_fetch_and(&lbits, -1L, 0);
    shmem_long_atomic_fetch_xor(&lbits, 0, 0);
    shmem_long_atomic_and(&lbits, -1L, 0);
    shmem_long_atomic_or(&lbits, 0, 0);
    shmem_longlong_atomic_or(&llbits, 0, 0);
    shmem_longlong_atomic_xor(&llbits, 0, 0);
    shmem_barrier_all();
    if (me == 0) {
        long want = (n % 2) ? (1L << 20) : 0;
        for (int p = 0; p < n; p++) want |= 1L << (8 + p);
        REQUIRE(ibits == (int)want && lbits == want && llbits == (long long)want);
    }

    /* shmemx_ sized routines. */
    shmem_barrier_all();
    shmemx_int32_add(&x32, 2, 0);
    shmemx_int32_inc(&x32, 0);
    shmemx_int64_fadd(&x64, 5, 0);
    shmemx_int64_finc(&x64, 0);
    shmemx_uint32_atomic_or(&u32, 1u << me, 0);
    shmemx_int16_p(&s16, (int16_t)(7 + me), (me + 1) % n);
    shmem_barrier_all();
    REQUIRE(shmemx_int32_fetch(&x32, 0) == 3 * n);
    REQUIRE(shmemx_int64_g(&x64, 0) == 6 * n);
    REQUIRE(shmemx_uint32_atomic_fetch_or(&u32, 0, 0) == (uint32_t)((1ull << n) - 1));
    REQUIRE(s16 == 7 + (me + n - 1) % n);
    REQUIRE(shmemx_int16_g(&s16, (me + 1) % n) == 7 + me);
    shmem_barrier_all();
    if (me == 0) {
        REQUIRE(shmemx_int32_swap(&x32, 42, 1) == 0);
        REQUIRE(shmemx_int32_cswap(&x32, 42, 43, 1) == 42);
        shmemx_int64_set(&x64, -9, 1);
        shmemx_int32_p(&x32, 44, 1);
        shmemx_int64_p(&x64, -10, 1);
        REQUIRE(shmemx_int32_g(&x32, 1) == 44);
        REQUIRE(shmemx_int64_swap(&x64, 11, 1) == -10);
        REQUIRE(shmemx_int64_cswap(&x64, 11, 12, 1) == 11);
        REQUIRE(shmemx_int32_finc(&x32, 1) == 44);
        REQUIRE(shmemx_int64_fetch(&x64, 1) == 12);
        shmemx_int32_set(&x32, 45, 1);
        shmemx_int64_add(&x64, 1, 1);
        shmemx_int64_inc(&x64, 1);
        REQUIRE(shmemx_int32_fadd(&x32, 0, 1) == 45);
        REQUIRE(shmemx_int64_atomic_fetch_and(&x64, 14, 1) == 14);
        shmemx_int64_atomic_or(&x64, 1, 1);
        shmemx_int64_atomic_xor(&x64, 2, 1);
        REQUIRE(shmemx_int64_atomic_fetch_xor(&x64, 0, 1) == 13);
        shmemx_int32_atomic_and(&x32, 5, 1);
        shmemx_int32_atomic_or(&x32, 2, 1);
        shmemx_int32_atomic_xor(&x32, 1, 1);
        REQUIRE(shmemx_int32_atomic_fetch_or(&x32, 0, 1) == 6);
        REQUIRE(shmemx_int32_atomic_fetch_and(&x32, -1, 1) == 6);
        REQUIRE(shmemx_int32_atomic_fetch_xor(&x32, 0, 1) == 6);
        shmemx_uint32_atomic_and(&u32, 1, 1);
        shmemx_uint32_atomic_xor(&u32, 2, 1);
        REQUIRE(shmemx_uint32_atomic_fetch_and(&u32, 3, 1) == 2);
        REQUIRE(shmemx_uint32_atomic_fetch_xor(&u32, 0, 1) == 2);
        uint64_t u64 = shmemx_uint64_atomic_fetch_or((uint64_t *)&x64, 0, 1);
        REQUIRE(u64 == 13);
        shmemx_uint64_atomic_and((uint64_t *)&x64, 15, 1);
        shmemx_uint64_atomic_or((uint64_t *)&x64, 0, 1);
        shmemx_uint64_atomic_xor((uint64_t *)&x64, 0, 1);
        REQUIRE(shmemx_uint64_atomic_fetch_and((uint64_t *)&x64, 15, 1) == 13);
        REQUIRE(shmemx_uint64_atomic_fetch_xor((uint64_t *)&x64, 0, 1) == 13);
        shmemx_int32_p(&x32, 1000, 1);
        shmemx_int64_p(&x64, 2000, 1);
    }
    if (me == 1) {
        shmemx_int32_wait_until(&x32, SHMEM_CMP_EQ, 1000);
        shmemx_int64_wait(&x64, 13);
        shmemx_int64_wait_until(&x64, SHMEM_CMP_GE, 2000);
        shmemx_int32_wait(&x32, 0);
    }
    /* Sized reductions, with OSHMEM's pSync and pWrk sizes. */
    r16src = (int16_t)(me + 1);
    r32src = me + 1;
    r64src = me + 1;
    shmem_barrier_all();
    shmemx_int16_sum_to_all(&r16dst, &r16src, 1, 0, 0, n, pWrk16, pSync);
    shmem_barrier_all();
    REQUIRE(r16dst == n * (n + 1) / 2);
    shmemx_int32_prod_to_all(&r32dst, &r32src, 1, 0, 0, n, pWrk32, pSync);
    shmem_barrier_all();
    int32_t fact = 1;
    for (int p = 1; p <= n; p++) fact *= p;
    REQUIRE(r32dst == fact);
    shmemx_int64_max_to_all(&r64dst, &r64src, 1, 0, 0, n, pWrk64, pSync);
    shmem_barrier_all();
    REQUIRE(r64dst == n);
    shmemx_int64_min_to_all(&r64dst, &r64src, 1, 0, 0, n, pWrk64, pSync);
    shmem_barrier_all();
    REQUIRE(r64dst == 1);
    shmemx_int32_or_to_all(&r32dst, &r32src, 1, 0, 0, n, pWrk32, pSync);
    shmem_barrier_all();
    int32_t ors = 0, xors = 0;
    for (int p = 1; p <= n; p++) ors |= p, xors ^= p;
    REQUIRE(r32dst == ors);
    shmemx_int32_xor_to_all(&r32dst, &r32src, 1, 0, 0, n, pWrk32, pSync);
    shmem_barrier_all();
    REQUIRE(r32dst == xors);
    shmemx_int16_and_to_all(&r16dst, &r16src, 1, 0, 0, n, pWrk16, pSync);
    shmem_barrier_all();
    REQUIRE(r16dst == (n == 1 ? 1 : 0));
    shmemx_int64_sum_to_all(&r64dst, &r64src, 1, 0, 0, n, pWrk64, pSync);
    shmem_barrier_all();
    REQUIRE(r64dst == n * (n + 1) / 2);
    shmemx_int16_max_to_all(&r16dst, &r16src, 1, 0, 0, n, pWrk16, pSync);
    shmem_barrier_all();
    REQUIRE(r16dst == n);
    shmemx_int16_min_to_all(&r16dst, &r16src, 1, 0, 0, n, pWrk16, pSync);
    shmem_barrier_all();
    REQUIRE(r16dst == 1);
    shmemx_int16_prod_to_all(&r16dst, &r16src, 1, 0, 0, n, pWrk16, pSync);
    shmem_barrier_all();
    REQUIRE(r16dst == (int16_t)fact);
    shmemx_int16_or_to_all(&r16dst, &r16src, 1, 0, 0, n, pWrk16, pSync);
    shmem_barrier_all();
    REQUIRE(r16dst == ors);
    shmemx_int16_xor_to_all(&r16dst, &r16src, 1, 0, 0, n, pWrk16, pSync);
    shmem_barrier_all();
    REQUIRE(r16dst == xors);
    shmemx_int32_sum_to_all(&r32dst, &r32src, 1, 0, 0, n, pWrk32, pSync);
    shmem_barrier_all();
    REQUIRE(r32dst == n * (n + 1) / 2);
    shmemx_int32_and_to_all(&r32dst, &r32src, 1, 0, 0, n, pWrk32, pSync);
    shmem_barrier_all();
    REQUIRE(r32dst == (n == 1 ? 1 : 0));
    shmemx_int32_max_to_all(&r32dst, &r32src, 1, 0, 0, n, pWrk32, pSync);
    shmem_barrier_all();
    REQUIRE(r32dst == n);
    shmemx_int32_min_to_all(&r32dst, &r32src, 1, 0, 0, n, pWrk32, pSync);
    shmem_barrier_all();
    REQUIRE(r32dst == 1);
    shmemx_int64_prod_to_all(&r64dst, &r64src, 1, 0, 0, n, pWrk64, pSync);
    shmem_barrier_all();
    REQUIRE(r64dst == fact);
    shmemx_int64_and_to_all(&r64dst, &r64src, 1, 0, 0, n, pWrk64, pSync);
    shmem_barrier_all();
    REQUIRE(r64dst == (n == 1 ? 1 : 0));
    shmemx_int64_or_to_all(&r64dst, &r64src, 1, 0, 0, n, pWrk64, pSync);
    shmem_barrier_all();
    REQUIRE(r64dst == ors);
    shmemx_int64_xor_to_all(&r64dst, &r64src, 1, 0, 0, n, pWrk64, pSync);
    shmem_barrier_all();
    REQUIRE(r64dst == xors);
    if (me == 0) printf("oshmem_names: ok on %d PEs\n", n);
    shmem_finalize();
    return 0;
}
