// pes: 1 2 3 4 8
// timeout: 120
// wait_until and test for every type of the point-to-point tables and every comparison: test
// against a serial reference on values that cross zero and reach the type's limits (signed and
// unsigned compare differently there), then wait_until on a value the left neighbour puts, each
// cmp with a start value that does not satisfy it (test must say 0 before the put). The left
// neighbour of PE 0 sleeps before its put, so PE 0 really waits. Current names over stdamotypes,
// their C11 generics, the deprecated short/ushort names, shmem_TYPENAME_wait, shmem_wait and the
// long-typed shmem_wait_until; on global data and on the symmetric heap.
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <time.h>

#include "generated/types.h"

#define MAX_PES 1024

static int me, npes, right;

/* A pause, so that the PE waiting for this one's put really waits. */
static void pause_2ms(void)
{
    struct timespec t = {0, 2000000};
    nanosleep(&t, NULL);
}
static long errors;
static long all_errors[MAX_PES];

static const int cmps[6] = {SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT, SHMEM_CMP_LE, SHMEM_CMP_LT, SHMEM_CMP_GE};
static const char *cmp_names[6] = {"EQ", "NE", "GT", "LE", "LT", "GE"};

static void report(const char *where, const char *op, const char *type, const char *cmp, long long v,
                   long long cv, long long expected, long long got)
{
    if (errors++ < 30)
        fprintf(stderr, "[PE %d] p2p_types: %s %s %s cmp %s (value %lld, cmp_value %lld): expected %lld, got %lld\n",
                me, where, op, type, cmp, v, cv, expected, got);
}

/* Start value, comparison value and final value of each cmp for the waits: the start value does
 * not satisfy the comparison, the final value does. -5 < -3 < -2 also as unsigned values. */
static const long long wait_init[6] = {-5, -3, -5, -2, -2, -5};
static const long long wait_cv[6] = {-2, -3, -3, -3, -3, -3};
static const long long wait_fin[6] = {-2, -2, -2, -5, -5, -3};

#define DEFINE_P2P(TYPE, NAME, GENERIC, GEN_TEST, GEN_WAIT_UNTIL)                                                                  \
    static TYPE NAME##_global;                                                                           \
    static int ref_##NAME(int k, TYPE a, TYPE b)                                                         \
    {                                                                                                    \
        switch (k) {                                                                                     \
        case 0: return a == b;                                                                           \
        case 1: return a != b;                                                                           \
        case 2: return a > b;                                                                            \
        case 3: return a <= b;                                                                           \
        case 4: return a < b;                                                                            \
        default: return a >= b;                                                                          \
        }                                                                                                \
    }                                                                                                    \
    static void p2p_##NAME(TYPE *ivar, const char *where)                                                \
    {                                                                                                    \
        const TYPE top = (TYPE)(1ULL << (8 * sizeof(TYPE) - 1));                                         \
        const TYPE values[7] = {(TYPE)-2, (TYPE)-1, 0, 1, 2, top, (TYPE)((unsigned long long)top - 1)};                      \
        /* test against the reference; nobody else writes ivar in this phase */                        \
        for (int a = 0; a < 7; a++)                                                                      \
            for (int b = 0; b < 7; b++)                                                                  \
                for (int k = 0; k < 6; k++) {                                                            \
                    *ivar = values[a];                                                                   \
                    int expected = ref_##NAME(k, values[a], values[b]);                                  \
                    int got = shmem_##NAME##_test(ivar, cmps[k], values[b]);                             \
                    if (got != expected)                                                                 \
                        report(where, "shmem_" #NAME "_test", #TYPE, cmp_names[k], (long long)values[a], \
                               (long long)values[b], expected, got);                                     \
                    if (GENERIC) {                                                                       \
                        got = GEN_TEST(ivar, cmps[k], values[b]);                                      \
                        if (got != expected)                                                             \
                            report(where, "shmem_test (generic)", #TYPE, cmp_names[k],                   \
                                   (long long)values[a], (long long)values[b], expected, got);           \
                    }                                                                                    \
                }                                                                                        \
        /* wait_until on a value put by the left neighbour */                                            \
        for (int k = 0; k < 6; k++) {                                                                    \
            const TYPE init = (TYPE)wait_init[k], cv = (TYPE)wait_cv[k], fin = (TYPE)wait_fin[k];        \
            *ivar = init;                                                                                \
            shmem_barrier_all();                                                                         \
            int got = shmem_##NAME##_test(ivar, cmps[k], cv);                                            \
            if (got != 0)                                                                                \
                report(where, "shmem_" #NAME "_test before the put", #TYPE, cmp_names[k],                \
                       (long long)init, (long long)cv, 0, got);                                          \
            shmem_barrier_all();                                                                         \
            if (right == 0 && npes > 1)                                                                  \
                pause_2ms();                                                                            \
            shmem_##NAME##_p(ivar, fin, right);                                                          \
            if (GENERIC && k % 2)                                                                        \
                GEN_WAIT_UNTIL(ivar, cmps[k], cv);                                                       \
            else                                                                                         \
                shmem_##NAME##_wait_until(ivar, cmps[k], cv);                                            \
            TYPE seen = *ivar;                                                                           \
            if (seen != fin)                                                                             \
                report(where, GENERIC && k % 2 ? "shmem_wait_until (generic)" : "shmem_" #NAME "_wait_until", \
                       #TYPE, cmp_names[k], (long long)init, (long long)cv, (long long)fin, (long long)seen); \
            shmem_barrier_all();                                                                         \
        }                                                                                                \
    }

#define DEFINE_CURRENT(TYPE, NAME) DEFINE_P2P(TYPE, NAME, 1, shmem_test, shmem_wait_until)
RSHMEM_STDAMO_TYPES(DEFINE_CURRENT)
/* Deprecated since 1.5: short and unsigned short (no generic: the typed calls stand in). */
DEFINE_P2P(short, short, 0, shmem_short_test, shmem_short_wait_until)
DEFINE_P2P(unsigned short, ushort, 0, shmem_ushort_test, shmem_ushort_wait_until)

/* The deprecated shmem_TYPENAME_wait: returns once ivar differs from cmp_value. */
#define DEFINE_WAIT(TYPE, NAME)                                                                  \
    static TYPE NAME##_wait_global;                                                              \
    static void wait_##NAME(TYPE *ivar, const char *where)                                       \
    {                                                                                            \
        *ivar = (TYPE)-7;                                                                        \
        shmem_barrier_all();                                                                     \
        if (right == 0 && npes > 1)                                                              \
            pause_2ms();                                                                        \
        shmem_##NAME##_p(ivar, (TYPE)(me + 1), right);                                           \
        shmem_##NAME##_wait(ivar, (TYPE)-7);                                                     \
        TYPE seen = *ivar;                                                                       \
        int left = (me + npes - 1) % npes;                                                       \
        if (seen != (TYPE)(left + 1))                                                            \
            report(where, "shmem_" #NAME "_wait", #TYPE, "NE", -7, -7, left + 1, (long long)seen); \
        shmem_barrier_all();                                                                     \
    }
DEFINE_WAIT(short, short)
DEFINE_WAIT(int, int)
DEFINE_WAIT(long, long)
DEFINE_WAIT(long long, longlong)

static long plain_wait_global;

/* The long-typed deprecated shmem_wait and shmem_wait_until (the function, not the generic). */
static void wait_plain(long *ivar, const char *where)
{
    int left = (me + npes - 1) % npes;
    *ivar = -1;
    shmem_barrier_all();
    shmem_long_p(ivar, 11 + me, right); /* the right PE sees 11 + its left */
    shmem_wait(ivar, -1);
    if (*ivar != 11 + left)
        report(where, "shmem_wait", "long", "NE", -1, -1, 11 + left, *ivar);
    shmem_barrier_all();
    shmem_long_p(ivar, 100 + me, right);
    (shmem_wait_until)(ivar, SHMEM_CMP_GE, 100);
    if (*ivar != 100 + left)
        report(where, "shmem_wait_until (function)", "long", "GE", -1, 100, 100 + left, *ivar);
    shmem_barrier_all();
}

#define RUN(NAME, FN, HEAP_TYPE)                                                         \
    do {                                                                                 \
        FN(&NAME, "global");                                                             \
        HEAP_TYPE *h = shmem_calloc(1, sizeof *h);                                       \
        if (h == NULL) {                                                                 \
            fprintf(stderr, "[PE %d] p2p_types: shmem_calloc returned NULL\n", me);      \
            shmem_global_exit(1);                                                        \
        }                                                                                \
        FN(h, "heap");                                                                   \
        shmem_free(h);                                                                   \
    } while (0);
#define RUN_P2P(TYPE, NAME) RUN(NAME##_global, p2p_##NAME, TYPE)
#define RUN_WAIT(TYPE, NAME) RUN(NAME##_wait_global, wait_##NAME, TYPE)

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    if (npes > MAX_PES) {
        fprintf(stderr, "[PE %d] p2p_types: this test handles at most %d PEs\n", me, MAX_PES);
        shmem_global_exit(1);
    }

    RSHMEM_STDAMO_TYPES(RUN_P2P)
    RUN_P2P(short, short)
    RUN_P2P(unsigned short, ushort)
    RUN_WAIT(short, short)
    RUN_WAIT(int, int)
    RUN_WAIT(long, long)
    RUN_WAIT(long long, longlong)
    RUN(plain_wait_global, wait_plain, long)

    shmem_long_p(&all_errors[me], errors, 0);
    shmem_barrier_all();
    if (me == 0) {
        long total = 0;
        for (int pe = 0; pe < npes; pe++)
            total += all_errors[pe];
        if (total == 0)
            printf("p2p_types: passed on %d PEs\n", npes);
        else
            fprintf(stderr, "p2p_types: %ld mismatches in all\n", total);
    }
    shmem_finalize();
    return errors != 0;
}
