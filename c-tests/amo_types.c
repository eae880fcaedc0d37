// pes: 1 2 3 4 8
// timeout: 120
// Every atomic memory operation on every type of its spec table, against a serial reference: the
// standard AMOs (fetch_inc, inc, fetch_add, add, compare_swap) over stdamotypes, the extended ones
// (fetch, set, swap) over extamotypes, the bitwise ones (fetch_and/or/xor, and/or/xor) over
// bitamotypes, the fetching _nbi forms, plain and shmem_ctx_ forms, on global data and on the
// symmetric heap. The values cross zero and wrap around the type's range. Each PE works on its own
// slot of an array on its right neighbour, so the results are exact.
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#include "generated/types.h"

#define MAX_PES 1024

static int me, npes, right;
static long errors;
static long all_errors[MAX_PES];

#define IS_SIGNED(x) _Generic((x), int: 1, long: 1, long long: 1, default: 0)
#define IS_FLOAT(x) _Generic((x), float: 1, double: 1, default: 0)

/* The largest value of x's type. */
#define MAX_OF(TYPE) ((TYPE)(IS_SIGNED((TYPE)0) ? ~0ULL >> (65 - 8 * sizeof(TYPE)) : ~0ULL))
/* a + b with wrap-around (no signed overflow in the reference itself). */
#define WRAP_ADD(TYPE, a, b) ((TYPE)((unsigned long long)(a) + (unsigned long long)(b)))

static void report(const char *where, const char *op, const char *type, long double expected,
                   long double got, unsigned long long ebits, unsigned long long gbits)
{
    if (errors++ < 30)
        fprintf(stderr, "[PE %d] amo_types: %s %s %s: expected %Lg (bits %#llx), got %Lg (bits %#llx)\n",
                me, where, op, type, expected, ebits, got, gbits);
}

/* The bits of a value, for comparing exactly and for the message (floats by their representation). */
static unsigned long long bits(const void *p, size_t n)
{
    unsigned long long b = 0;
    memcpy(&b, p, n);
    return b;
}

#define CHECK(TYPE, where, op, expected, got)                                                  \
    do {                                                                                       \
        TYPE e_ = (expected), g_ = (got);                                                      \
        if (bits(&e_, sizeof e_) != bits(&g_, sizeof g_))                                      \
            report(where, op, #TYPE, (long double)e_, (long double)g_, bits(&e_, sizeof e_),   \
                   bits(&g_, sizeof g_));                                                      \
    } while (0)

/* The same call in its plain or its context form. */
#define CALL(NAME, OP, ...) \
    (ctx ? shmem_ctx_##NAME##_atomic_##OP(SHMEM_CTX_DEFAULT, __VA_ARGS__) : shmem_##NAME##_atomic_##OP(__VA_ARGS__))
#define CALLV(NAME, OP, ...)                                                  \
    do {                                                                      \
        if (ctx)                                                              \
            shmem_ctx_##NAME##_atomic_##OP(SHMEM_CTX_DEFAULT, __VA_ARGS__);   \
        else                                                                  \
            shmem_##NAME##_atomic_##OP(__VA_ARGS__);                          \
    } while (0)

/* The remote slot's value, read with a plain get (not with the AMO under test). */
#define PEEK(TYPE, NAME, slot) shmem_##NAME##_g(slot, right)

/* Standard AMOs. */
#define DEFINE_STD(TYPE, NAME)                                                                    \
    static TYPE NAME##_std_global[MAX_PES];                                                       \
    static void std_##NAME(TYPE *arr, const char *where, int ctx)                                 \
    {                                                                                             \
        TYPE *slot = &arr[me];                                                                    \
        const TYPE max = MAX_OF(TYPE);                                                            \
        TYPE ref = (TYPE)(-3 - me), got, fetched;                                                 \
        shmem_##NAME##_p(slot, ref, right);                                                       \
        shmem_quiet();                                                                            \
        /* fetch_inc / inc, across zero */                                                        \
        for (int k = 0; k < 5; k++) {                                                             \
            got = CALL(NAME, fetch_inc, slot, right);                                             \
            CHECK(TYPE, where, "fetch_inc (returned)", ref, got);                                 \
            ref = WRAP_ADD(TYPE, ref, 1);                                                         \
            CALLV(NAME, inc, slot, right);                                                        \
            ref = WRAP_ADD(TYPE, ref, 1);                                                         \
            CHECK(TYPE, where, "inc", ref, PEEK(TYPE, NAME, slot));                               \
        }                                                                                         \
        /* wrap-around at the top of the range */                                                 \
        shmem_##NAME##_p(slot, max, right);                                                       \
        shmem_quiet();                                                                            \
        got = CALL(NAME, fetch_inc, slot, right);                                                 \
        CHECK(TYPE, where, "fetch_inc at max (returned)", max, got);                              \
        CHECK(TYPE, where, "fetch_inc at max (wrapped)", WRAP_ADD(TYPE, max, 1), PEEK(TYPE, NAME, slot)); \
        ref = WRAP_ADD(TYPE, max, 1);                                                             \
        /* fetch_add / add with negative, large and wrapping values */                            \
        const TYPE values[] = {(TYPE)-7, (TYPE)100, max, (TYPE)(max - 2), (TYPE)1, (TYPE)(-1)};   \
        for (unsigned k = 0; k < sizeof values / sizeof values[0]; k++) {                         \
            got = CALL(NAME, fetch_add, slot, values[k], right);                                  \
            CHECK(TYPE, where, "fetch_add (returned)", ref, got);                                 \
            ref = WRAP_ADD(TYPE, ref, values[k]);                                                 \
            CHECK(TYPE, where, "fetch_add (result)", ref, PEEK(TYPE, NAME, slot));                \
            CALLV(NAME, add, slot, values[k], right);                                             \
            ref = WRAP_ADD(TYPE, ref, values[k]);                                                 \
            CHECK(TYPE, where, "add", ref, PEEK(TYPE, NAME, slot));                               \
        }                                                                                         \
        /* compare_swap: a failing condition leaves the value, a matching one replaces it */      \
        got = CALL(NAME, compare_swap, slot, WRAP_ADD(TYPE, ref, 1), (TYPE)42, right);            \
        CHECK(TYPE, where, "compare_swap mismatch (returned)", ref, got);                         \
        CHECK(TYPE, where, "compare_swap mismatch (unchanged)", ref, PEEK(TYPE, NAME, slot));     \
        got = CALL(NAME, compare_swap, slot, ref, (TYPE)-42, right);                              \
        CHECK(TYPE, where, "compare_swap match (returned)", ref, got);                            \
        ref = (TYPE)-42;                                                                          \
        CHECK(TYPE, where, "compare_swap match (stored)", ref, PEEK(TYPE, NAME, slot));           \
        /* the _nbi fetching forms (complete by quiet) */                                         \
        fetched = 0;                                                                              \
        CALLV(NAME, fetch_inc_nbi, &fetched, slot, right);                                        \
        shmem_quiet();                                                                            \
        CHECK(TYPE, where, "fetch_inc_nbi (fetched)", ref, fetched);                              \
        ref = WRAP_ADD(TYPE, ref, 1);                                                             \
        CALLV(NAME, fetch_add_nbi, &fetched, slot, max, right);                                   \
        shmem_quiet();                                                                            \
        CHECK(TYPE, where, "fetch_add_nbi (fetched)", ref, fetched);                              \
        ref = WRAP_ADD(TYPE, ref, max);                                                           \
        CALLV(NAME, compare_swap_nbi, &fetched, slot, ref, (TYPE)7, right);                       \
        shmem_quiet();                                                                            \
        CHECK(TYPE, where, "compare_swap_nbi (fetched)", ref, fetched);                           \
        ref = 7;                                                                                  \
        CHECK(TYPE, where, "after the _nbi forms", ref, PEEK(TYPE, NAME, slot));                  \
    }

/* Extended AMOs (floating point included). */
#define DEFINE_EXT(TYPE, NAME)                                                                    \
    static TYPE NAME##_ext_global[MAX_PES];                                                       \
    static void ext_##NAME(TYPE *arr, const char *where, int ctx)                                 \
    {                                                                                             \
        TYPE *slot = &arr[me];                                                                    \
        const TYPE values[] = {(TYPE)-1, (TYPE)(me + 1), IS_FLOAT((TYPE)0) ? (TYPE)-2.5 : (TYPE)0, \
                               (TYPE)123456789, (TYPE)-987654321, (TYPE)0};                       \
        TYPE ref = (TYPE)5, got, fetched;                                                         \
        CALLV(NAME, set, slot, ref, right);                                                       \
        CHECK(TYPE, where, "set", ref, PEEK(TYPE, NAME, slot));                                   \
        for (unsigned k = 0; k < sizeof values / sizeof values[0]; k++) {                         \
            got = CALL(NAME, fetch, slot, right);                                                 \
            CHECK(TYPE, where, "fetch", ref, got);                                                \
            got = CALL(NAME, swap, slot, values[k], right);                                       \
            CHECK(TYPE, where, "swap (returned)", ref, got);                                      \
            ref = values[k];                                                                      \
            CHECK(TYPE, where, "swap (stored)", ref, PEEK(TYPE, NAME, slot));                     \
            CALLV(NAME, fetch_nbi, &fetched, slot, right);                                        \
            shmem_quiet();                                                                        \
            CHECK(TYPE, where, "fetch_nbi (fetched)", ref, fetched);                              \
            CALLV(NAME, swap_nbi, &fetched, slot, (TYPE)(k * 3), right);                          \
            shmem_quiet();                                                                        \
            CHECK(TYPE, where, "swap_nbi (fetched)", ref, fetched);                               \
            ref = (TYPE)(k * 3);                                                                  \
            CALLV(NAME, set, slot, values[k], right);                                             \
            ref = values[k];                                                                      \
            CHECK(TYPE, where, "set", ref, PEEK(TYPE, NAME, slot));                               \
        }                                                                                         \
    }

/* Bitwise AMOs. */
#define DEFINE_BIT(TYPE, NAME)                                                                    \
    static TYPE NAME##_bit_global[MAX_PES];                                                       \
    static void bit_##NAME(TYPE *arr, const char *where, int ctx)                                 \
    {                                                                                             \
        TYPE *slot = &arr[me];                                                                    \
        const TYPE masks[] = {(TYPE)0xF0F0F0F0F0F0F0F0ULL, (TYPE)0x8000000180000001ULL,           \
                              (TYPE)~0ULL, (TYPE)0, (TYPE)(0x123456789ABCDEFULL * (me + 1))};     \
        TYPE ref = (TYPE)0xFFFF0000FFFF0000ULL, got, fetched;                                     \
        shmem_##NAME##_p(slot, ref, right);                                                       \
        shmem_quiet();                                                                            \
        for (unsigned k = 0; k < sizeof masks / sizeof masks[0]; k++) {                           \
            TYPE m = masks[k];                                                                    \
            got = CALL(NAME, fetch_or, slot, m, right);                                           \
            CHECK(TYPE, where, "fetch_or (returned)", ref, got);                                  \
            ref |= m;                                                                             \
            CALLV(NAME, xor, slot, (TYPE)(m >> 3), right);                                        \
            ref ^= (TYPE)(m >> 3);                                                                \
            CHECK(TYPE, where, "xor", ref, PEEK(TYPE, NAME, slot));                               \
            got = CALL(NAME, fetch_and, slot, (TYPE)~(m << 1), right);                            \
            CHECK(TYPE, where, "fetch_and (returned)", ref, got);                                 \
            ref &= (TYPE)~(m << 1);                                                               \
            got = CALL(NAME, fetch_xor, slot, m, right);                                          \
            CHECK(TYPE, where, "fetch_xor (returned)", ref, got);                                 \
            ref ^= m;                                                                             \
            CALLV(NAME, or, slot, (TYPE)(m >> 7), right);                                         \
            ref |= (TYPE)(m >> 7);                                                                \
            CHECK(TYPE, where, "or", ref, PEEK(TYPE, NAME, slot));                                \
            CALLV(NAME, and, slot, (TYPE)~m, right);                                              \
            ref &= (TYPE)~m;                                                                      \
            CHECK(TYPE, where, "and", ref, PEEK(TYPE, NAME, slot));                               \
            CALLV(NAME, fetch_and_nbi, &fetched, slot, m, right);                                 \
            shmem_quiet();                                                                        \
            CHECK(TYPE, where, "fetch_and_nbi (fetched)", ref, fetched);                          \
            ref &= m;                                                                             \
            CALLV(NAME, fetch_or_nbi, &fetched, slot, (TYPE)(m ^ (TYPE)0x5A5A5A5A5A5A5A5AULL), right); \
            shmem_quiet();                                                                        \
            CHECK(TYPE, where, "fetch_or_nbi (fetched)", ref, fetched);                           \
            ref |= (TYPE)(m ^ (TYPE)0x5A5A5A5A5A5A5A5AULL);                                       \
            CALLV(NAME, fetch_xor_nbi, &fetched, slot, (TYPE)(m + 1), right);                     \
            shmem_quiet();                                                                        \
            CHECK(TYPE, where, "fetch_xor_nbi (fetched)", ref, fetched);                          \
            ref ^= (TYPE)(m + 1);                                                                 \
            CHECK(TYPE, where, "after the _nbi forms", ref, PEEK(TYPE, NAME, slot));              \
        }                                                                                         \
    }

RSHMEM_STDAMO_TYPES(DEFINE_STD)
RSHMEM_EXTAMO_TYPES(DEFINE_EXT)
RSHMEM_BITAMO_TYPES(DEFINE_BIT)

/* Each test on global data and on the heap, plain and with a context. */
#define RUN(KIND, TYPE, NAME)                                                          \
    do {                                                                               \
        TYPE *heap = shmem_calloc(MAX_PES, sizeof(TYPE));                              \
        if (heap == NULL) {                                                            \
            fprintf(stderr, "[PE %d] amo_types: shmem_calloc returned NULL\n", me);    \
            shmem_global_exit(1);                                                      \
        }                                                                              \
        for (int ctx = 0; ctx < 2; ctx++) {                                            \
            KIND##_##NAME(NAME##_##KIND##_global, ctx ? "global ctx" : "global", ctx); \
            KIND##_##NAME(heap, ctx ? "heap ctx" : "heap", ctx);                       \
        }                                                                              \
        shmem_barrier_all();                                                           \
        shmem_free(heap);                                                              \
    } while (0);
#define RUN_STD(TYPE, NAME) RUN(std, TYPE, NAME)
#define RUN_EXT(TYPE, NAME) RUN(ext, TYPE, NAME)
#define RUN_BIT(TYPE, NAME) RUN(bit, TYPE, NAME)

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    if (npes > MAX_PES) {
        fprintf(stderr, "[PE %d] amo_types: this test handles at most %d PEs\n", me, MAX_PES);
        shmem_global_exit(1);
    }

    RSHMEM_STDAMO_TYPES(RUN_STD)
    RSHMEM_EXTAMO_TYPES(RUN_EXT)
    RSHMEM_BITAMO_TYPES(RUN_BIT)

    /* Every PE's count on PE 0, so that it can say whether the whole job passed. */
    shmem_long_p(&all_errors[me], errors, 0);
    shmem_barrier_all();
    if (me == 0) {
        long total = 0;
        for (int pe = 0; pe < npes; pe++)
            total += all_errors[pe];
        if (total == 0)
            printf("amo_types: passed on %d PEs\n", npes);
        else
            fprintf(stderr, "amo_types: %ld mismatches in all\n", total);
    }
    shmem_finalize();
    return errors != 0;
}
