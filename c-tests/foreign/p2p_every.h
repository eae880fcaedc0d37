/* The body of the every-family point-to-point test, compiled three times: with rshmem's own header
 * (c-tests/p2p_every.c), with Open MPI OSHMEM's (foreign/oshmem_p2p_every.c) and with Sandia
 * OpenSHMEM's values (foreign/sos_p2p_every.c), so that each personality answers every routine
 * family the way the program's own header means it. Each routine's result is compared with a
 * reference computed here in C from the same header's SHMEM_CMP_* values:
 *   - wait_until and test for every type the header has, every comparison, values on both sides;
 *   - the deprecated waits (shmem_{short,int,long,longlong}_wait, shmem_wait), which wait while the
 *     variable equals the value: one that must return at once, then a real wait on a value the
 *     left neighbour puts after a pause (an inverted comparison returns early with stale data);
 *   - the 1.4 _all/_any/_some forms, the 1.5 _vector forms and shmem_signal_wait_until where the
 *     header has them.
 * The including file defines P2P_EVERY_NAME (the program's name, for messages) and includes its
 * header first. */
#ifndef P2P_EVERY_H
#define P2P_EVERY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h> /* clock */

/* The array forms and the signal wait: rshmem (1.6) and SOS (1.5) have them; OSHMEM 4.1 (1.4)
 * has none of them. */
#if SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5
#define P2P_EVERY_MANY 1
#else
#define P2P_EVERY_MANY 0
#endif

static int me, npes;
static int errors;

static int holds(int cmp, long long a, long long b) {
    if (cmp == SHMEM_CMP_EQ) return a == b;
    if (cmp == SHMEM_CMP_NE) return a != b;
    if (cmp == SHMEM_CMP_GT) return a > b;
    if (cmp == SHMEM_CMP_GE) return a >= b;
    if (cmp == SHMEM_CMP_LT) return a < b;
    if (cmp == SHMEM_CMP_LE) return a <= b;
    fprintf(stderr, "[PE %d] %s: no comparison has the value %d\n", me, P2P_EVERY_NAME, cmp);
    exit(2);
}

static const struct {
    const char *name;
    int cmp;
} cmps[] = {
    {"EQ", SHMEM_CMP_EQ}, {"NE", SHMEM_CMP_NE}, {"GT", SHMEM_CMP_GT},
    {"GE", SHMEM_CMP_GE}, {"LT", SHMEM_CMP_LT}, {"LE", SHMEM_CMP_LE},
};
#define NCMPS (sizeof cmps / sizeof cmps[0])

/* The variable holds 4; it is compared with each of these. */
static const long long against[] = {3, 4, 5};
#define NAGAINST (sizeof against / sizeof against[0])

static void wrong(const char *routine, const char *cmp, long long v, long long a, long long got,
                  long long want) {
    fprintf(stderr, "[PE %d] %s: %s(%lld %s %lld) gave %lld, want %lld\n", me, P2P_EVERY_NAME,
            routine, v, cmp, a, got, want);
    errors++;
}

/* test and (where it holds) wait_until on one variable of type T holding 4. */
#define SINGLE(T, NAME)                                                                            \
    do {                                                                                           \
        static T var;                                                                              \
        for (size_t c = 0; c < NCMPS; c++)                                                         \
            for (size_t a = 0; a < NAGAINST; a++) {                                                \
                var = (T)4;                                                                        \
                int want = holds(cmps[c].cmp, 4, against[a]);                                      \
                int got = shmem_##NAME##_test(&var, cmps[c].cmp, (T)against[a]);                   \
                if (got != want)                                                                   \
                    wrong("shmem_" #NAME "_test", cmps[c].name, 4, against[a], got, want);         \
                if (want) shmem_##NAME##_wait_until(&var, cmps[c].cmp, (T)against[a]);             \
            }                                                                                      \
    } while (0)

/* A deprecated wait that must return at once (4 != 3), then one that must really wait: the left
 * neighbour puts 9 after a pause; returning while the variable is still 0 is the inversion. */
#define DEPRECATED(T, CALL, PUT)                                                                   \
    do {                                                                                           \
        static T var;                                                                              \
        var = (T)4;                                                                                \
        CALL(&var, (T)3);                                                                          \
        var = (T)0;                                                                                \
        shmem_barrier_all();                                                                       \
        if (me == 0) nap();                                                                        \
        PUT(&var, (T)9, (me + 1) % npes);                                                          \
        CALL(&var, (T)0);                                                                          \
        if (var != (T)9) wrong(#CALL, "(wait while ==)", (long long)var, 0, (long long)var, 9);    \
        shmem_barrier_all();                                                                       \
    } while (0)

#if P2P_EVERY_MANY
/* The array forms on three variables holding 4, with and without a status mask. */
#define MANY(T, NAME)                                                                              \
    do {                                                                                           \
        static T vars[3];                                                                          \
        T values[3];                                                                               \
        int status[3] = {0, 1, 0};                                                                 \
        size_t idx[3];                                                                             \
        for (size_t c = 0; c < NCMPS; c++)                                                         \
            for (size_t a = 0; a < NAGAINST; a++) {                                                \
                vars[0] = vars[1] = vars[2] = (T)4;                                                \
                values[0] = values[1] = values[2] = (T)against[a];                                 \
                int want = holds(cmps[c].cmp, 4, against[a]);                                      \
                const char *op = cmps[c].name;                                                     \
                long long got = shmem_##NAME##_test_all(vars, 3, NULL, cmps[c].cmp, (T)against[a]); \
                if (got != want) wrong("shmem_" #NAME "_test_all", op, 4, against[a], got, want);  \
                got = shmem_##NAME##_test_all_vector(vars, 3, status, cmps[c].cmp, values);        \
                if (got != want)                                                                   \
                    wrong("shmem_" #NAME "_test_all_vector", op, 4, against[a], got, want);        \
                size_t any = shmem_##NAME##_test_any(vars, 3, status, cmps[c].cmp, (T)against[a]); \
                if ((any != SIZE_MAX) != want || (want && any == 1))                               \
                    wrong("shmem_" #NAME "_test_any", op, 4, against[a], (long long)any, want);    \
                any = shmem_##NAME##_test_any_vector(vars, 3, NULL, cmps[c].cmp, values);          \
                if ((any != SIZE_MAX) != want)                                                     \
                    wrong("shmem_" #NAME "_test_any_vector", op, 4, against[a], (long long)any,    \
                          want);                                                                   \
                size_t some = shmem_##NAME##_test_some(vars, 3, idx, status, cmps[c].cmp,          \
                                                       (T)against[a]);                             \
                if (some != (want ? 2u : 0u))                                                      \
                    wrong("shmem_" #NAME "_test_some", op, 4, against[a], (long long)some,         \
                          want ? 2 : 0);                                                           \
                some = shmem_##NAME##_test_some_vector(vars, 3, idx, NULL, cmps[c].cmp, values);   \
                if (some != (want ? 3u : 0u))                                                      \
                    wrong("shmem_" #NAME "_test_some_vector", op, 4, against[a], (long long)some,  \
                          want ? 3 : 0);                                                           \
                if (!want) continue;                                                               \
                shmem_##NAME##_wait_until_all(vars, 3, NULL, cmps[c].cmp, (T)against[a]);         \
                shmem_##NAME##_wait_until_all_vector(vars, 3, status, cmps[c].cmp, values);        \
                any = shmem_##NAME##_wait_until_any(vars, 3, status, cmps[c].cmp, (T)against[a]);  \
                if (any != 0 && any != 2)                                                          \
                    wrong("shmem_" #NAME "_wait_until_any", op, 4, against[a], (long long)any, 0); \
                any = shmem_##NAME##_wait_until_any_vector(vars, 3, NULL, cmps[c].cmp, values);    \
                if (any > 2)                                                                       \
                    wrong("shmem_" #NAME "_wait_until_any_vector", op, 4, against[a],              \
                          (long long)any, 0);                                                      \
                some = shmem_##NAME##_wait_until_some(vars, 3, idx, NULL, cmps[c].cmp,             \
                                                      (T)against[a]);                              \
                if (some != 3)                                                                     \
                    wrong("shmem_" #NAME "_wait_until_some", op, 4, against[a], (long long)some,   \
                          3);                                                                      \
                some = shmem_##NAME##_wait_until_some_vector(vars, 3, idx, status, cmps[c].cmp,    \
                                                             values);                              \
                if (some != 2)                                                                     \
                    wrong("shmem_" #NAME "_wait_until_some_vector", op, 4, against[a],             \
                          (long long)some, 2);                                                     \
            }                                                                                      \
    } while (0)
#endif

/* A pause of about 50 ms of processor time (clock() is in C11 itself: the SOS build includes the
 * system headers before the program can ask for POSIX). */
static void nap(void) {
    clock_t start = clock();
    while (clock() - start < CLOCKS_PER_SEC / 20) {
    }
}

static int p2p_every(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();

    SINGLE(short, short);
    SINGLE(int, int);
    SINGLE(long, long);
    SINGLE(long long, longlong);
    SINGLE(unsigned short, ushort);
    SINGLE(unsigned int, uint);
    SINGLE(unsigned long, ulong);
    SINGLE(unsigned long long, ulonglong);
    SINGLE(int32_t, int32);
    SINGLE(int64_t, int64);
    SINGLE(uint32_t, uint32);
    SINGLE(uint64_t, uint64);
    SINGLE(size_t, size);
    SINGLE(ptrdiff_t, ptrdiff);

    DEPRECATED(short, shmem_short_wait, shmem_short_p);
    DEPRECATED(int, shmem_int_wait, shmem_int_p);
    DEPRECATED(long, shmem_long_wait, shmem_long_p);
    DEPRECATED(long long, shmem_longlong_wait, shmem_longlong_p);
    DEPRECATED(long, shmem_wait, shmem_long_p);

#if P2P_EVERY_MANY
    MANY(int, int);
    MANY(long, long);
    MANY(long long, longlong);
    MANY(unsigned int, uint);
    MANY(uint64_t, uint64);
    MANY(size_t, size);

    static uint64_t sig;
    for (size_t c = 0; c < NCMPS; c++)
        for (size_t a = 0; a < NAGAINST; a++) {
            if (!holds(cmps[c].cmp, 4, against[a])) continue;
            sig = 4;
            uint64_t got = shmem_signal_wait_until(&sig, cmps[c].cmp, (uint64_t)against[a]);
            if (got != 4)
                wrong("shmem_signal_wait_until", cmps[c].name, 4, against[a], (long long)got, 4);
        }
#endif

    shmem_barrier_all();
    if (errors == 0 && me == 0) printf("%s: every family agrees on %d PEs\n", P2P_EVERY_NAME, npes);
    shmem_finalize();
    return errors != 0;
}

#endif
