// Built with Sandia OpenSHMEM 1.5's names and a stand-in libsma.so, run with rshmem preloaded: the
// pre-1.4 AMO names for the sized and unsigned types that its C11 generics select, its signed
// bitwise team reductions, its short array waits and tests and its shmemx_ signal routines are
// rshmem's, and do what the spec routines do.
// build: sos
// pes: 2 4
// timeout: 60
#include <shmem.h>
#include <stdio.h>
#include "../check.h"

static int32_t a32;
static uint64_t u64;
static unsigned int ui;
static unsigned long ul;
static size_t sz;
static int64_t s64;
static uint32_t u32;
static ptrdiff_t pd;
static int isrc, idst;
static long lsrc, ldst;
static short ssrc, sdst;
static uint64_t sig;
static short sflags[3];
static unsigned short uflags[3];

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_barrier_all();
    shmem_int32_fadd(&a32, 3, 0);
    shmem_uint_finc(&ui, 0);
    shmem_ulong_add(&ul, 2, 0);
    shmem_size_inc(&sz, 0);
    shmem_barrier_all();
    if (me == 0) {
        REQUIRE(a32 == 3 * n && ui == (unsigned)n && ul == 2ul * n && sz == (size_t)n);
        REQUIRE(shmem_uint64_cswap(&u64, 0, 7, 1) == 0);
        REQUIRE(shmem_uint64_cswap(&u64, 0, 8, 1) == 7);
        REQUIRE(shmem_int64_swap(&s64, -4, 1) == 0);
        shmem_ptrdiff_set(&pd, -6, 1);
        REQUIRE(shmem_uint32_fetch(&u32, 1) == 0);
        REQUIRE(shmem_int64_swap(&s64, 0, 1) == -4);
    }
    shmem_barrier_all();
    isrc = ~(1 << me);
    lsrc = 1L << me;
    ssrc = (short)(1 << me);
    REQUIRE(shmem_int_and_reduce(SHMEM_TEAM_WORLD, &idst, &isrc, 1) == 0);
    REQUIRE(shmem_long_or_reduce(SHMEMX_TEAM_NODE, &ldst, &lsrc, 1) == 0);
    REQUIRE(shmem_short_xor_reduce(SHMEM_TEAM_WORLD, &sdst, &ssrc, 1) == 0);
    int iwant = -1;
    for (int p = 0; p < n; p++) iwant &= ~(1 << p);
    REQUIRE(idst == iwant && ldst == (1L << n) - 1 && sdst == (short)((1 << n) - 1));
    if (me == 1) REQUIRE(pd == -6 && u64 == 7);
    shmem_barrier_all();
    shmemx_signal_add(&sig, 2, (me + 1) % n);
    REQUIRE(shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 2) == 2);
    shmem_barrier_all();
    shmemx_ctx_signal_set(SHMEM_CTX_DEFAULT, &sig, 9, (me + 1) % n);
    REQUIRE(shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 9) == 9);
    shmem_barrier_all();
    // The short array waits and tests, with SOS's comparison values: the left neighbour raises
    // element 1 of each array to 5.
    shmem_short_p(&sflags[1], 5, (me + 1) % n);
    shmem_ushort_p(&uflags[1], 5, (me + 1) % n);
    int only1[3] = {1, 0, 1};
    shmem_short_wait_until_all(sflags, 3, only1, SHMEM_CMP_EQ, 5);
    REQUIRE(shmem_ushort_wait_until_any(uflags, 3, NULL, SHMEM_CMP_GE, 5) == 1);
    size_t idx[3];
    REQUIRE(shmem_short_test_some(sflags, 3, idx, NULL, SHMEM_CMP_LT, 5) == 2);
    REQUIRE(idx[0] == 0 && idx[1] == 2);
    unsigned short want[3] = {0, 5, 0};
    REQUIRE(shmem_ushort_test_all_vector(uflags, 3, NULL, SHMEM_CMP_EQ, want) == 1);
    REQUIRE(shmem_ushort_test_all_vector(uflags, 3, NULL, SHMEM_CMP_NE, want) == 0);
    shmem_barrier_all();
    if (me == 0) printf("sos_names: ok on %d PEs\n", n);
    shmem_finalize();
    return 0;
}
