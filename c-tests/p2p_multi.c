// pes: 1 2 3 4 8
// timeout: 120
// The array forms of point-to-point synchronization for every type of stdamotypes: wait_until_all,
// _any, _some and their _vector forms, and the test_ twins, with status masks.
//  - Nothing included (nelems 0, or every status entry non-zero): _any returns SIZE_MAX, _some 0,
//    _all (wait) returns and test_all returns 1, without blocking although nothing is satisfied.
//  - Nothing satisfied: test_any SIZE_MAX, test_some 0, test_all 0 (test_* never block: the
//    test would hang otherwise).
//  - The left neighbour puts 1 into element 2, then (after a pause) into element 5; with element 2
//    masked, wait_until_any must return 5 and wait_until_some exactly {5}; wait_until_all on the
//    two returns once both are there.
//  - Vector forms: cmp_values[i] = i, the left neighbour puts i into the odd elements; with the even
//    ones masked, the waits return the odd indices.
//  - After every put is complete, every test_ form, with and without masks, for every cmp, agrees
//    with a serial reference; the C11 generics are called alongside. The spec leaves open which
//    satisfied index _any returns (rshmem rotates, see p2p_any_fair.c), so an _any result is
//    checked to be a satisfied index, or SIZE_MAX exactly when none is.
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "generated/types.h"

#define MAX_PES 1024
#define N 8

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

static void report(const char *where, const char *op, const char *type, const char *what, long long expected,
                   long long got)
{
    if (errors++ < 30)
        fprintf(stderr, "[PE %d] p2p_multi: %s %s %s %s: expected %lld, got %lld\n", me, where, op, type, what,
                expected, got);
}

#define EXPECT(op, what, expected, got)                                                      \
    do {                                                                                     \
        long long e_ = (long long)(expected), g_ = (long long)(got);                         \
        if (e_ != g_)                                                                        \
            report(where, op, type, what, e_, g_);                                           \
    } while (0)

/* Checks an _any result: a satisfied index, or SIZE_MAX when none is satisfied. */
static void check_any(const char *where, const char *op, const char *type, size_t got, const int *sat)
{
    int any = 0;
    for (int i = 0; i < N; i++)
        any |= sat[i] != 0;
    if (!any)
        EXPECT(op, "index (none satisfied)", SIZE_MAX, got);
    else if (got >= N || !sat[got])
        EXPECT(op, "index (not a satisfied one)", -1, got);
}

/* Checks a _some result: n indices, strictly increasing, equal to the expected set. */
static void check_some(const char *where, const char *op, const char *type, const size_t *idx, size_t n,
                       const int *expected_set)
{
    size_t want = 0;
    for (int i = 0; i < N; i++)
        want += expected_set[i] != 0;
    EXPECT(op, "count", want, n);
    for (size_t j = 0; j < n && j < N; j++) {
        if (idx[j] >= N || !expected_set[idx[j]] || (j > 0 && idx[j] <= idx[j - 1]))
            EXPECT(op, "index (not expected, or not increasing)", -1, idx[j]);
    }
}

#define DEFINE_MULTI(TYPE, NAME)                                                                            \
    static TYPE NAME##_global[N];                                                                           \
    static int ref_##NAME(int k, TYPE a, TYPE b)                                                            \
    {                                                                                                       \
        switch (k) {                                                                                        \
        case 0: return a == b;                                                                              \
        case 1: return a != b;                                                                              \
        case 2: return a > b;                                                                               \
        case 3: return a <= b;                                                                              \
        case 4: return a < b;                                                                               \
        default: return a >= b;                                                                             \
        }                                                                                                   \
    }                                                                                                       \
    /* Every test_ form against the reference, on the current (stable) values. */                          \
    static void reference_##NAME(TYPE *iv, const int *status, const char *where)                            \
    {                                                                                                       \
        const char *type = #TYPE;                                                                           \
        TYPE cvs[N];                                                                                        \
        size_t idx[N];                                                                                      \
        for (int i = 0; i < N; i++)                                                                         \
            cvs[i] = (TYPE)i;                                                                               \
        for (int k = 0; k < 6; k++) {                                                                       \
            for (int vec = 0; vec < 2; vec++) {                                                             \
                int sat[N], all = 1;                                                                        \
                size_t first = SIZE_MAX;                                                                    \
                for (int i = 0; i < N; i++) {                                                               \
                    int on = status == NULL || status[i] == 0;                                              \
                    sat[i] = on && ref_##NAME(k, iv[i], vec ? cvs[i] : (TYPE)1);                            \
                    if (on && !sat[i])                                                                      \
                        all = 0;                                                                            \
                    if (sat[i] && first == SIZE_MAX)                                                        \
                        first = (size_t)i;                                                                  \
                }                                                                                           \
                int ta;                                                                                     \
                size_t tn, ts;                                                                              \
                if (vec) {                                                                                  \
                    ta = shmem_##NAME##_test_all_vector(iv, N, status, cmps[k], cvs);                       \
                    tn = shmem_##NAME##_test_any_vector(iv, N, status, cmps[k], cvs);                       \
                    ts = shmem_##NAME##_test_some_vector(iv, N, idx, status, cmps[k], cvs);                 \
                } else {                                                                                    \
                    ta = shmem_##NAME##_test_all(iv, N, status, cmps[k], (TYPE)1);                          \
                    tn = shmem_##NAME##_test_any(iv, N, status, cmps[k], (TYPE)1);                          \
                    ts = shmem_##NAME##_test_some(iv, N, idx, status, cmps[k], (TYPE)1);                    \
                }                                                                                           \
                EXPECT(vec ? "test_all_vector" : "test_all", "result", all, ta);                            \
                check_any(where, vec ? "test_any_vector" : "test_any", type, tn, sat);                      \
                check_some(where, vec ? "test_some_vector" : "test_some", type, idx, ts, sat);              \
                /* with nothing to wait for, the waits return the same at once */                           \
                if (all) {                                                                                  \
                    if (vec)                                                                                \
                        shmem_##NAME##_wait_until_all_vector(iv, N, status, cmps[k], cvs);                  \
                    else                                                                                    \
                        shmem_wait_until_all(iv, N, status, cmps[k], (TYPE)1);                              \
                }                                                                                           \
                if (first != SIZE_MAX) {                                                                    \
                    size_t w = vec ? shmem_wait_until_any_vector(iv, N, status, cmps[k], cvs)               \
                                   : shmem_##NAME##_wait_until_any(iv, N, status, cmps[k], (TYPE)1);        \
                    check_any(where, vec ? "wait_until_any_vector" : "wait_until_any", type, w, sat);       \
                    w = vec ? shmem_##NAME##_wait_until_some_vector(iv, N, idx, status, cmps[k], cvs)       \
                            : shmem_wait_until_some(iv, N, idx, status, cmps[k], (TYPE)1);                  \
                    check_some(where, vec ? "wait_until_some_vector" : "wait_until_some", type, idx, w,     \
                               sat);                                                                        \
                }                                                                                           \
            }                                                                                               \
        }                                                                                                   \
        /* the generics of the test_ forms */                                                               \
        EXPECT("test_all (generic)", "result", shmem_##NAME##_test_all(iv, N, status, SHMEM_CMP_GE, (TYPE)0),  \
               shmem_test_all(iv, N, status, SHMEM_CMP_GE, (TYPE)0));                                       \
        {                                                                                                   \
            size_t typed_ = shmem_##NAME##_test_any(iv, N, status, SHMEM_CMP_NE, (TYPE)0);                   \
            size_t gen_ = shmem_test_any(iv, N, status, SHMEM_CMP_NE, (TYPE)0);                              \
            EXPECT("test_any (generic)", "SIZE_MAX as the typed one", typed_ == SIZE_MAX, gen_ == SIZE_MAX);     \
            if (gen_ != SIZE_MAX)                                                                             \
                EXPECT("test_any (generic)", "satisfied index", 1,                                          \
                       gen_ < N && (status == NULL || status[gen_] == 0) && iv[gen_] != (TYPE)0);                 \
        }                                                                                                   \
        EXPECT("test_some (generic)", "count",                                                              \
               shmem_##NAME##_test_some(iv, N, idx, status, SHMEM_CMP_NE, (TYPE)0),                          \
               shmem_test_some(iv, N, idx, status, SHMEM_CMP_NE, (TYPE)0));                                 \
        EXPECT("test_all_vector (generic)", "result",                                                       \
               shmem_##NAME##_test_all_vector(iv, N, status, SHMEM_CMP_LE, cvs),                             \
               shmem_test_all_vector(iv, N, status, SHMEM_CMP_LE, cvs));                                    \
        {                                                                                                   \
            size_t typed_ = shmem_##NAME##_test_any_vector(iv, N, status, SHMEM_CMP_EQ, cvs);                  \
            size_t gen_ = shmem_test_any_vector(iv, N, status, SHMEM_CMP_EQ, cvs);                           \
            EXPECT("test_any_vector (generic)", "SIZE_MAX as the typed one", typed_ == SIZE_MAX,               \
                   gen_ == SIZE_MAX);                                                                         \
            if (gen_ != SIZE_MAX)                                                                             \
                EXPECT("test_any_vector (generic)", "satisfied index", 1,                                   \
                       gen_ < N && (status == NULL || status[gen_] == 0) && iv[gen_] == cvs[gen_]);                 \
        }                                                                                                   \
        EXPECT("test_some_vector (generic)", "count",                                                       \
               shmem_##NAME##_test_some_vector(iv, N, idx, status, SHMEM_CMP_EQ, cvs),                       \
               shmem_test_some_vector(iv, N, idx, status, SHMEM_CMP_EQ, cvs));                              \
        shmem_wait_until_all_vector(iv, 0, status, SHMEM_CMP_EQ, cvs);                                      \
    }                                                                                                       \
    static void multi_##NAME(TYPE *iv, const char *where)                                                   \
    {                                                                                                       \
        const char *type = #TYPE;                                                                           \
        const int none[N] = {1, 1, 1, 1, 1, 1, 1, 1};                                                       \
        const int odd[N] = {1, 0, 1, 0, 1, 0, 1, 0};                                                        \
        int status[N] = {0, 0, 1, 0, 0, 0, 0, 0}; /* element 2 masked */                                   \
        int only25[N] = {1, 1, 0, 1, 1, 0, 1, 1};                                                           \
        int set5[N] = {0, 0, 0, 0, 0, 1, 0, 0};                                                             \
        int set_odd[N] = {0, 1, 0, 1, 0, 1, 0, 1};                                                          \
        TYPE cvs[N];                                                                                        \
        size_t idx[N];                                                                                      \
        for (int i = 0; i < N; i++) {                                                                       \
            iv[i] = 0;                                                                                      \
            cvs[i] = (TYPE)i;                                                                               \
        }                                                                                                   \
        shmem_barrier_all();                                                                                \
        /* nothing included: immediate results although nothing is satisfied */                            \
        EXPECT("wait_until_any, nelems 0", "index", SIZE_MAX, shmem_##NAME##_wait_until_any(iv, 0, NULL, SHMEM_CMP_EQ, 1)); \
        EXPECT("wait_until_some, nelems 0", "count", 0, shmem_##NAME##_wait_until_some(iv, 0, idx, NULL, SHMEM_CMP_EQ, 1)); \
        shmem_##NAME##_wait_until_all(iv, 0, NULL, SHMEM_CMP_EQ, 1);                                        \
        EXPECT("test_all, nelems 0", "result", 1, shmem_##NAME##_test_all(iv, 0, NULL, SHMEM_CMP_EQ, 1));   \
        EXPECT("wait_until_any, all masked", "index", SIZE_MAX, shmem_##NAME##_wait_until_any(iv, N, none, SHMEM_CMP_EQ, 1)); \
        EXPECT("wait_until_any_vector, all masked", "index", SIZE_MAX,                                      \
               shmem_##NAME##_wait_until_any_vector(iv, N, none, SHMEM_CMP_EQ, cvs));                       \
        EXPECT("wait_until_some, all masked", "count", 0, shmem_##NAME##_wait_until_some(iv, N, idx, none, SHMEM_CMP_EQ, 1)); \
        EXPECT("wait_until_some_vector, all masked", "count", 0,                                            \
               shmem_##NAME##_wait_until_some_vector(iv, N, idx, none, SHMEM_CMP_GT, cvs));                 \
        shmem_##NAME##_wait_until_all(iv, N, none, SHMEM_CMP_EQ, 1);                                        \
        shmem_##NAME##_wait_until_all_vector(iv, N, none, SHMEM_CMP_GT, cvs);                               \
        EXPECT("test_all, all masked", "result", 1, shmem_##NAME##_test_all(iv, N, none, SHMEM_CMP_EQ, 1));  \
        EXPECT("test_any, all masked", "index", SIZE_MAX, shmem_##NAME##_test_any(iv, N, none, SHMEM_CMP_EQ, 0)); \
        EXPECT("test_some, all masked", "count", 0, shmem_##NAME##_test_some(iv, N, idx, none, SHMEM_CMP_EQ, 0)); \
        /* nothing satisfied: the tests return at once */                                                 \
        for (int r = 0; r < 1000; r++) {                                                                    \
            EXPECT("test_any, unsatisfied", "index", SIZE_MAX, shmem_##NAME##_test_any(iv, N, NULL, SHMEM_CMP_EQ, 1)); \
            EXPECT("test_some, unsatisfied", "count", 0, shmem_##NAME##_test_some(iv, N, idx, NULL, SHMEM_CMP_GT, 0)); \
            EXPECT("test_all, unsatisfied", "result", 0, shmem_##NAME##_test_all(iv, N, NULL, SHMEM_CMP_NE, 0)); \
            EXPECT("test_all_vector, unsatisfied", "result", 0,                                             \
                   shmem_##NAME##_test_all_vector(iv, N, NULL, SHMEM_CMP_EQ, cvs));                         \
            EXPECT("test_any_vector, unsatisfied", "index", SIZE_MAX,                                       \
                   shmem_##NAME##_test_any_vector(iv, N, odd, SHMEM_CMP_GE, cvs));                          \
            EXPECT("test_some_vector, unsatisfied", "count", 0,                                             \
                   shmem_##NAME##_test_some_vector(iv, N, idx, NULL, SHMEM_CMP_GT, cvs));                   \
        }                                                                                                   \
        shmem_barrier_all();                                                                                \
        /* element 2, then element 5, from the left neighbour; 2 is masked */                              \
        shmem_##NAME##_p(&iv[2], 1, right);                                                                 \
        shmem_quiet();                                                                                      \
        if (right == 0 && npes > 1)                                                                         \
            pause_2ms();                                                                                   \
        shmem_##NAME##_p(&iv[5], 1, right);                                                                 \
        size_t got = shmem_##NAME##_wait_until_any(iv, N, status, SHMEM_CMP_EQ, 1);                         \
        EXPECT("wait_until_any (2 masked)", "index", 5, got);                                               \
        got = shmem_##NAME##_wait_until_some(iv, N, idx, status, SHMEM_CMP_EQ, 1);                          \
        check_some(where, "wait_until_some (2 masked)", type, idx, got, set5);                              \
        shmem_##NAME##_wait_until_all(iv, N, only25, SHMEM_CMP_EQ, 1);                                      \
        EXPECT("wait_until_all (2 and 5)", "iv[2]", 1, iv[2]);                                              \
        EXPECT("wait_until_all (2 and 5)", "iv[5]", 1, iv[5]);                                              \
        shmem_barrier_all();                                                                                \
        reference_##NAME(iv, NULL, where);                                                                  \
        reference_##NAME(iv, status, where);                                                                \
        shmem_barrier_all();                                                                                \
        /* vector forms: odd elements become i */                                                           \
        for (int i = 0; i < N; i++)                                                                         \
            iv[i] = (TYPE)(N + 1);                                                                          \
        shmem_barrier_all();                                                                                \
        if (right == 0 && npes > 1)                                                                         \
            pause_2ms();                                                                                   \
        for (int i = 1; i < N; i += 2)                                                                      \
            shmem_##NAME##_p(&iv[i], (TYPE)i, right);                                                       \
        got = shmem_##NAME##_wait_until_any_vector(iv, N, odd, SHMEM_CMP_EQ, cvs);                          \
        if (got >= N || got % 2 == 0)                                                                       \
            EXPECT("wait_until_any_vector (evens masked)", "index (odd)", 1, got);                          \
        shmem_##NAME##_wait_until_all_vector(iv, N, odd, SHMEM_CMP_EQ, cvs);                                \
        for (int i = 1; i < N; i += 2)                                                                      \
            EXPECT("wait_until_all_vector (evens masked)", "odd element", i, iv[i]);                        \
        got = shmem_##NAME##_wait_until_some_vector(iv, N, idx, odd, SHMEM_CMP_EQ, cvs);                    \
        check_some(where, "wait_until_some_vector (evens masked)", type, idx, got, set_odd);                \
        shmem_barrier_all();                                                                                \
        reference_##NAME(iv, NULL, where);                                                                  \
        reference_##NAME(iv, odd, where);                                                                   \
        reference_##NAME(iv, status, where);                                                                \
        shmem_barrier_all();                                                                                \
    }
RSHMEM_STDAMO_TYPES(DEFINE_MULTI)

#define RUN_MULTI(TYPE, NAME)                                                          \
    do {                                                                               \
        multi_##NAME(NAME##_global, "global");                                         \
        TYPE *h = shmem_calloc(N, sizeof *h);                                          \
        if (h == NULL) {                                                               \
            fprintf(stderr, "[PE %d] p2p_multi: shmem_calloc returned NULL\n", me);    \
            shmem_global_exit(1);                                                      \
        }                                                                              \
        multi_##NAME(h, "heap");                                                       \
        shmem_free(h);                                                                 \
    } while (0);

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    if (npes > MAX_PES) {
        fprintf(stderr, "[PE %d] p2p_multi: this test handles at most %d PEs\n", me, MAX_PES);
        shmem_global_exit(1);
    }

    RSHMEM_STDAMO_TYPES(RUN_MULTI)

    shmem_long_p(&all_errors[me], errors, 0);
    shmem_barrier_all();
    if (me == 0) {
        long total = 0;
        for (int pe = 0; pe < npes; pe++)
            total += all_errors[pe];
        if (total == 0)
            printf("p2p_multi: passed on %d PEs\n", npes);
        else
            fprintf(stderr, "p2p_multi: %ld mismatches in all\n", total);
    }
    shmem_finalize();
    return errors != 0;
}
