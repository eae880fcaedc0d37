// pes: 1 2 3 4 8
// timeout: 120
// The C11 generic AMO selectors (shmem_atomic_fetch, _set, _swap, _compare_swap, _fetch_inc,
// _inc, _fetch_add, _add, _fetch_and/_or/_xor, _and/_or/_xor and the fetching _nbi ones), with and
// without a context, for every type of their tables; then the deprecated typed names
// (shmem_int_fadd, shmem_long_finc, shmem_longlong_cswap, shmem_double_swap, ...) and the
// deprecated generics (shmem_fadd, shmem_finc, shmem_cswap, shmem_swap, ...). Each PE works on its
// own slot on its right neighbour; the word after the slot is a guard that must stay untouched, so
// a selector that picks the routine of another width is caught.
#include <shmem.h>
#include <stdio.h>

#include "generated/types.h"

#define MAX_PES 1024

static int me, npes, right;
static long errors;
static long all_errors[MAX_PES];

static void report(const char *op, const char *type, long double expected, long double got)
{
    if (errors++ < 30)
        fprintf(stderr, "[PE %d] amo_generic: %s %s: expected %Lg, got %Lg\n", me, op, type, expected, got);
}

#define CHECK(TYPE, op, expected, got)                              \
    do {                                                            \
        TYPE e_ = (expected), g_ = (got);                           \
        if (e_ != g_)                                               \
            report(op, #TYPE, (long double)e_, (long double)g_);    \
    } while (0)

/* Selects the context form or the plain one of a generic. */
#define GEN(G, ...) (ctx ? G(SHMEM_CTX_DEFAULT, __VA_ARGS__) : G(__VA_ARGS__))
#define GENV(G, ...)                              \
    do {                                          \
        if (ctx)                                  \
            G(SHMEM_CTX_DEFAULT, __VA_ARGS__);    \
        else                                      \
            G(__VA_ARGS__);                       \
    } while (0)

#define GUARD(TYPE) ((TYPE)77)
#define GUARD_CHECK(TYPE, NAME, op) CHECK(TYPE, op " (guard word)", GUARD(TYPE), shmem_##NAME##_g(slot + 1, right))
#define PEEK(NAME) shmem_##NAME##_g(slot, right)
#define PREPARE(TYPE, NAME, arr)                                \
    TYPE *slot = &(arr)[2 * me];                                \
    shmem_##NAME##_p(slot + 1, GUARD(TYPE), right);             \
    shmem_quiet()

#define DEFINE_EXT(TYPE, NAME)                                                       \
    static TYPE NAME##_ext[2 * MAX_PES];                                             \
    static void ext_##NAME(int ctx)                                                  \
    {                                                                                \
        PREPARE(TYPE, NAME, NAME##_ext);                                             \
        TYPE fetched;                                                                \
        GENV(shmem_atomic_set, slot, (TYPE)-9, right);                               \
        CHECK(TYPE, "shmem_atomic_set", (TYPE)-9, PEEK(NAME));                       \
        CHECK(TYPE, "shmem_atomic_fetch", (TYPE)-9, GEN(shmem_atomic_fetch, slot, right)); \
        const TYPE *cslot = slot;                                                    \
        CHECK(TYPE, "shmem_atomic_fetch (const)", (TYPE)-9, GEN(shmem_atomic_fetch, cslot, right)); \
        CHECK(TYPE, "shmem_atomic_swap", (TYPE)-9, GEN(shmem_atomic_swap, slot, (TYPE)12, right)); \
        GENV(shmem_atomic_fetch_nbi, &fetched, slot, right);                         \
        shmem_quiet();                                                               \
        CHECK(TYPE, "shmem_atomic_fetch_nbi", (TYPE)12, fetched);                    \
        GENV(shmem_atomic_swap_nbi, &fetched, slot, (TYPE)-1, right);                \
        shmem_quiet();                                                               \
        CHECK(TYPE, "shmem_atomic_swap_nbi", (TYPE)12, fetched);                     \
        CHECK(TYPE, "after shmem_atomic_swap_nbi", (TYPE)-1, PEEK(NAME));            \
        GUARD_CHECK(TYPE, NAME, "extended");                                         \
    }

#define DEFINE_STD(TYPE, NAME)                                                       \
    static TYPE NAME##_std[2 * MAX_PES];                                             \
    static void std_##NAME(int ctx)                                                  \
    {                                                                                \
        PREPARE(TYPE, NAME, NAME##_std);                                             \
        TYPE fetched;                                                                \
        shmem_##NAME##_p(slot, (TYPE)-2, right);                                     \
        shmem_quiet();                                                               \
        CHECK(TYPE, "shmem_atomic_fetch_inc", (TYPE)-2, GEN(shmem_atomic_fetch_inc, slot, right)); \
        GENV(shmem_atomic_inc, slot, right);                                         \
        CHECK(TYPE, "shmem_atomic_fetch_add", (TYPE)0, GEN(shmem_atomic_fetch_add, slot, (TYPE)-5, right)); \
        GENV(shmem_atomic_add, slot, (TYPE)9, right);                                \
        CHECK(TYPE, "shmem_atomic_compare_swap", (TYPE)4, GEN(shmem_atomic_compare_swap, slot, (TYPE)4, (TYPE)-6, right)); \
        GENV(shmem_atomic_fetch_inc_nbi, &fetched, slot, right);                     \
        shmem_quiet();                                                               \
        CHECK(TYPE, "shmem_atomic_fetch_inc_nbi", (TYPE)-6, fetched);                \
        GENV(shmem_atomic_fetch_add_nbi, &fetched, slot, (TYPE)10, right);           \
        shmem_quiet();                                                               \
        CHECK(TYPE, "shmem_atomic_fetch_add_nbi", (TYPE)-5, fetched);                \
        GENV(shmem_atomic_compare_swap_nbi, &fetched, slot, (TYPE)5, (TYPE)1, right); \
        shmem_quiet();                                                               \
        CHECK(TYPE, "shmem_atomic_compare_swap_nbi", (TYPE)5, fetched);              \
        CHECK(TYPE, "after the standard generics", (TYPE)1, PEEK(NAME));             \
        GUARD_CHECK(TYPE, NAME, "standard");                                         \
    }

#define DEFINE_BIT(TYPE, NAME)                                                       \
    static TYPE NAME##_bit[2 * MAX_PES];                                             \
    static void bit_##NAME(int ctx)                                                  \
    {                                                                                \
        PREPARE(TYPE, NAME, NAME##_bit);                                             \
        TYPE fetched;                                                                \
        shmem_##NAME##_p(slot, (TYPE)0xF0, right);                                   \
        shmem_quiet();                                                               \
        CHECK(TYPE, "shmem_atomic_fetch_and", (TYPE)0xF0, GEN(shmem_atomic_fetch_and, slot, (TYPE)0x3C, right)); \
        CHECK(TYPE, "shmem_atomic_fetch_or", (TYPE)0x30, GEN(shmem_atomic_fetch_or, slot, (TYPE)0x101, right)); \
        CHECK(TYPE, "shmem_atomic_fetch_xor", (TYPE)0x131, GEN(shmem_atomic_fetch_xor, slot, (TYPE)0x11, right)); \
        GENV(shmem_atomic_and, slot, (TYPE)0x1F0, right);                            \
        GENV(shmem_atomic_or, slot, (TYPE)0x6, right);                               \
        GENV(shmem_atomic_xor, slot, (TYPE)0x102, right);                            \
        CHECK(TYPE, "and, or, xor", (TYPE)0x24, PEEK(NAME));                         \
        GENV(shmem_atomic_fetch_and_nbi, &fetched, slot, (TYPE)0xF, right);          \
        shmem_quiet();                                                               \
        CHECK(TYPE, "shmem_atomic_fetch_and_nbi", (TYPE)0x24, fetched);              \
        GENV(shmem_atomic_fetch_or_nbi, &fetched, slot, (TYPE)0x80, right);          \
        shmem_quiet();                                                               \
        CHECK(TYPE, "shmem_atomic_fetch_or_nbi", (TYPE)0x4, fetched);                \
        GENV(shmem_atomic_fetch_xor_nbi, &fetched, slot, (TYPE)0x85, right);         \
        shmem_quiet();                                                               \
        CHECK(TYPE, "shmem_atomic_fetch_xor_nbi", (TYPE)0x84, fetched);              \
        CHECK(TYPE, "after the bitwise generics", (TYPE)0x1, PEEK(NAME));            \
        GUARD_CHECK(TYPE, NAME, "bitwise");                                          \
    }

RSHMEM_EXTAMO_TYPES(DEFINE_EXT)
RSHMEM_STDAMO_TYPES(DEFINE_STD)
RSHMEM_BITAMO_TYPES(DEFINE_BIT)

/* The deprecated names: typed, then through the deprecated generics. */
#define DEPRECATED_STD_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define DEPRECATED_EXT_TYPES(X) X(float, float) X(double, double) DEPRECATED_STD_TYPES(X)

#define DEFINE_OLD_STD(TYPE, NAME)                                                   \
    static TYPE NAME##_old_std[2 * MAX_PES];                                         \
    static void old_std_##NAME(void)                                                 \
    {                                                                                \
        PREPARE(TYPE, NAME, NAME##_old_std);                                         \
        shmem_##NAME##_p(slot, (TYPE)-3, right);                                     \
        shmem_quiet();                                                               \
        CHECK(TYPE, "shmem_" #NAME "_finc", (TYPE)-3, shmem_##NAME##_finc(slot, right)); \
        shmem_##NAME##_inc(slot, right);                                             \
        CHECK(TYPE, "shmem_" #NAME "_fadd", (TYPE)-1, shmem_##NAME##_fadd(slot, (TYPE)4, right)); \
        shmem_##NAME##_add(slot, (TYPE)-10, right);                                  \
        CHECK(TYPE, "shmem_" #NAME "_cswap", (TYPE)-7, shmem_##NAME##_cswap(slot, (TYPE)-7, (TYPE)20, right)); \
        CHECK(TYPE, "shmem_finc", (TYPE)20, shmem_finc(slot, right));                \
        shmem_inc(slot, right);                                                      \
        CHECK(TYPE, "shmem_fadd", (TYPE)22, shmem_fadd(slot, (TYPE)-30, right));     \
        shmem_add(slot, (TYPE)3, right);                                             \
        CHECK(TYPE, "shmem_cswap", (TYPE)-5, shmem_cswap(slot, (TYPE)-5, (TYPE)8, right)); \
        CHECK(TYPE, "after the deprecated standard names", (TYPE)8, PEEK(NAME));     \
        GUARD_CHECK(TYPE, NAME, "deprecated standard");                              \
    }

#define DEFINE_OLD_EXT(TYPE, NAME)                                                   \
    static TYPE NAME##_old_ext[2 * MAX_PES];                                         \
    static void old_ext_##NAME(void)                                                 \
    {                                                                                \
        PREPARE(TYPE, NAME, NAME##_old_ext);                                         \
        shmem_##NAME##_set(slot, (TYPE)-4, right);                                   \
        CHECK(TYPE, "shmem_" #NAME "_fetch", (TYPE)-4, shmem_##NAME##_fetch(slot, right)); \
        CHECK(TYPE, "shmem_" #NAME "_swap", (TYPE)-4, shmem_##NAME##_swap(slot, (TYPE)6, right)); \
        shmem_set(slot, (TYPE)16, right);                                            \
        CHECK(TYPE, "shmem_fetch", (TYPE)16, shmem_fetch(slot, right));              \
        CHECK(TYPE, "shmem_swap", (TYPE)16, shmem_swap(slot, (TYPE)-2, right));      \
        CHECK(TYPE, "after the deprecated extended names", (TYPE)-2, PEEK(NAME));    \
        GUARD_CHECK(TYPE, NAME, "deprecated extended");                              \
    }

DEPRECATED_STD_TYPES(DEFINE_OLD_STD)
DEPRECATED_EXT_TYPES(DEFINE_OLD_EXT)

#define RUN_EXT(TYPE, NAME) ext_##NAME(0); ext_##NAME(1);
#define RUN_STD(TYPE, NAME) std_##NAME(0); std_##NAME(1);
#define RUN_BIT(TYPE, NAME) bit_##NAME(0); bit_##NAME(1);
#define RUN_OLD_STD(TYPE, NAME) old_std_##NAME();
#define RUN_OLD_EXT(TYPE, NAME) old_ext_##NAME();

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    if (npes > MAX_PES) {
        fprintf(stderr, "[PE %d] amo_generic: this test handles at most %d PEs\n", me, MAX_PES);
        shmem_global_exit(1);
    }

    RSHMEM_EXTAMO_TYPES(RUN_EXT)
    RSHMEM_STDAMO_TYPES(RUN_STD)
    RSHMEM_BITAMO_TYPES(RUN_BIT)
    DEPRECATED_STD_TYPES(RUN_OLD_STD)
    DEPRECATED_EXT_TYPES(RUN_OLD_EXT)

    /* Every PE's count on PE 0, so that it can say whether the whole job passed. */
    shmem_long_p(&all_errors[me], errors, 0);
    shmem_barrier_all();
    if (me == 0) {
        long total = 0;
        for (int pe = 0; pe < npes; pe++)
            total += all_errors[pe];
        if (total == 0)
            printf("amo_generic: passed on %d PEs\n", npes);
        else
            fprintf(stderr, "amo_generic: %ld mismatches in all\n", total);
    }
    shmem_finalize();
    return errors != 0;
}
