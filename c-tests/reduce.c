// pes: 1 2 3 4 5 8
// timeout: 180
// Every reduction operation for every type of the teamreducetypes table (complex included),
// out of place and in place, on the world and on the PEs of even number (a strided team);
// sum_inscan and sum_exscan; the deprecated *_to_all forms for every type of asetreducetypes on the
// whole world and on the active set of even PEs. Each result is compared with a serial reference
// computed here in team order. Calls follow each other on a team without a barrier.
#include <complex.h>
#include <shmem.h>
#include <stdio.h>

#include "generated/types.h"
#define CHECK_LIMIT 30
#include "check.h"

enum { N = 9 };

static int me, npes;
static long errors;
static long double src[N], dst[N]; /* long double: aligned and large enough for every type */
static long double work[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long psync[SHMEM_REDUCE_SYNC_SIZE];

/* The imaginary unit for complex types, 0 for the others. */
#define IMAG(TYPE) _Generic((TYPE)0, double _Complex: I, float _Complex: I, default: 0)

/* Element k of team PE i's input for each operation. */
#define IN_SUM(TYPE, i, k) ((TYPE)(((i) + (k)) % 5) + (TYPE)((i) % 2) * IMAG(TYPE))
#define IN_PROD(TYPE, i, k) ((TYPE)(((i) + (k)) % 3 == 0 ? 2 : 1) + (TYPE)((k) % 2) * IMAG(TYPE))
#define IN_MAX(TYPE, i, k) ((TYPE)((TYPE)(((i) * 7 + (k) * 3) % 11) - (TYPE)5))
#define IN_BITS(TYPE, i, k) ((TYPE)((((i) + 1) * ((k) + 3)) & 0x7f))

#define OP_SUM(a, b) ((a) + (b))
#define OP_PROD(a, b) ((a) * (b))
#define OP_MAX(a, b) ((b) > (a) ? (b) : (a))
#define OP_MIN(a, b) ((b) < (a) ? (b) : (a))
#define OP_AND(a, b) ((a) & (b))
#define OP_OR(a, b) ((a) | (b))
#define OP_XOR(a, b) ((a) ^ (b))

/* One team reduction of TYPE with operation op (input IN), out of place then in place. */
#define TEAM_REDUCE(TYPE, NAME, op, OP, IN)                                                        \
    static void team_##op##_##NAME(shmem_team_t t, const char *team)                               \
    {                                                                                              \
        int n = shmem_team_n_pes(t), i = shmem_team_my_pe(t);                                      \
        TYPE *s = (TYPE *)src, *d = (TYPE *)dst, ref[N];                                           \
        for (int k = 0; k < N; k++) {                                                              \
            ref[k] = IN(TYPE, 0, k);                                                               \
            for (int j = 1; j < n; j++)                                                            \
                ref[k] = (TYPE)OP(ref[k], IN(TYPE, j, k));                                         \
        }                                                                                          \
        for (int pass = 0; pass < 2; pass++) {                                                     \
            TYPE *out = pass ? s : d;                                                              \
            for (int k = 0; k < N; k++)                                                            \
                s[k] = IN(TYPE, i, k);                                                             \
            CHECK(shmem_##NAME##_##op##_reduce(t, out, s, N) == 0, "%s %s failed", #NAME, #op);    \
            for (int k = 0; k < N; k++)                                                            \
                CHECK(out[k] == ref[k], "%s %s_%s_reduce%s: [%d] wrong", team, #NAME, #op,         \
                      pass ? " in place" : "", k);                                                 \
        }                                                                                          \
    }

#define SUM(TYPE, NAME) TEAM_REDUCE(TYPE, NAME, sum, OP_SUM, IN_SUM)
#define PROD(TYPE, NAME) TEAM_REDUCE(TYPE, NAME, prod, OP_PROD, IN_PROD)
#define MAX(TYPE, NAME) TEAM_REDUCE(TYPE, NAME, max, OP_MAX, IN_MAX)
#define MIN(TYPE, NAME) TEAM_REDUCE(TYPE, NAME, min, OP_MIN, IN_MAX)
#define AND(TYPE, NAME) TEAM_REDUCE(TYPE, NAME, and, OP_AND, IN_BITS)
#define OR(TYPE, NAME) TEAM_REDUCE(TYPE, NAME, or, OP_OR, IN_BITS)
#define XOR(TYPE, NAME) TEAM_REDUCE(TYPE, NAME, xor, OP_XOR, IN_BITS)
RSHMEM_TEAMREDUCE_SUM_TYPES(SUM)
RSHMEM_TEAMREDUCE_PROD_TYPES(PROD)
RSHMEM_TEAMREDUCE_MAX_TYPES(MAX)
RSHMEM_TEAMREDUCE_MIN_TYPES(MIN)
RSHMEM_TEAMREDUCE_AND_TYPES(AND)
RSHMEM_TEAMREDUCE_OR_TYPES(OR)
RSHMEM_TEAMREDUCE_XOR_TYPES(XOR)
#undef SUM
#undef PROD
#undef MAX
#undef MIN
#undef AND
#undef OR
#undef XOR

/* Scans of TYPE: inclusive and exclusive, out of place and in place. */
#define SCAN(TYPE, NAME)                                                                           \
    static void scan_##NAME(shmem_team_t t, const char *team)                                      \
    {                                                                                              \
        int i = shmem_team_my_pe(t);                                                               \
        TYPE *s = (TYPE *)src, *d = (TYPE *)dst;                                                   \
        for (int pass = 0; pass < 4; pass++) {                                                     \
            int inclusive = pass % 2 == 0;                                                         \
            TYPE *out = pass >= 2 ? s : d;                                                         \
            for (int k = 0; k < N; k++)                                                            \
                s[k] = IN_SUM(TYPE, i, k);                                                         \
            int rc = inclusive ? shmem_##NAME##_sum_inscan(t, out, s, N)                           \
                               : shmem_##NAME##_sum_exscan(t, out, s, N);                          \
            CHECK(rc == 0, "%s scan failed", #NAME);                                               \
            for (int k = 0; k < N; k++) {                                                          \
                TYPE ref = (TYPE)0;                                                                \
                for (int j = 0; j < i + inclusive; j++)                                            \
                    ref = ref + IN_SUM(TYPE, j, k);                                                \
                CHECK(out[k] == ref, "%s %s_sum_%s%s: [%d] wrong", team, #NAME,                   \
                      inclusive ? "inscan" : "exscan", pass >= 2 ? " in place" : "", k);           \
            }                                                                                      \
        }                                                                                          \
    }
RSHMEM_TEAMREDUCE_SUM_TYPES(SCAN)
#undef SCAN

/* Deprecated active-set reduction over PEs start + j * 2^log, j < size. */
#define TO_ALL(TYPE, NAME, op, OP, IN)                                                             \
    static void set_##op##_##NAME(int start, int log, int size)                                    \
    {                                                                                              \
        int i = (me - start) >> log;                                                               \
        TYPE *s = (TYPE *)src, *d = (TYPE *)dst, ref[N];                                           \
        for (int k = 0; k < N; k++) {                                                              \
            ref[k] = IN(TYPE, 0, k);                                                               \
            for (int j = 1; j < size; j++)                                                         \
                ref[k] = (TYPE)OP(ref[k], IN(TYPE, j, k));                                         \
        }                                                                                          \
        for (int pass = 0; pass < 2; pass++) {                                                     \
            TYPE *out = pass ? s : d;                                                              \
            for (int k = 0; k < N; k++)                                                            \
                s[k] = IN(TYPE, i, k);                                                             \
            shmem_##NAME##_##op##_to_all(out, s, N, start, log, size, (TYPE *)work, psync);        \
            for (int k = 0; k < N; k++)                                                            \
                CHECK(out[k] == ref[k], "%s_%s_to_all (%d, %d, %d)%s: [%d] wrong", #NAME, #op,     \
                      start, log, size, pass ? " in place" : "", k);                               \
        }                                                                                          \
    }
#define SUM(TYPE, NAME) TO_ALL(TYPE, NAME, sum, OP_SUM, IN_SUM)
#define PROD(TYPE, NAME) TO_ALL(TYPE, NAME, prod, OP_PROD, IN_PROD)
#define MAX(TYPE, NAME) TO_ALL(TYPE, NAME, max, OP_MAX, IN_MAX)
#define MIN(TYPE, NAME) TO_ALL(TYPE, NAME, min, OP_MIN, IN_MAX)
#define AND(TYPE, NAME) TO_ALL(TYPE, NAME, and, OP_AND, IN_BITS)
#define OR(TYPE, NAME) TO_ALL(TYPE, NAME, or, OP_OR, IN_BITS)
#define XOR(TYPE, NAME) TO_ALL(TYPE, NAME, xor, OP_XOR, IN_BITS)
RSHMEM_ASETREDUCE_SUM_TYPES(SUM)
RSHMEM_ASETREDUCE_PROD_TYPES(PROD)
RSHMEM_ASETREDUCE_MAX_TYPES(MAX)
RSHMEM_ASETREDUCE_MIN_TYPES(MIN)
RSHMEM_ASETREDUCE_AND_TYPES(AND)
RSHMEM_ASETREDUCE_OR_TYPES(OR)
RSHMEM_ASETREDUCE_XOR_TYPES(XOR)
#undef SUM
#undef PROD
#undef MAX
#undef MIN
#undef AND
#undef OR
#undef XOR

static void team_all(shmem_team_t t, const char *team)
{
#define SUM(TYPE, NAME) team_sum_##NAME(t, team);
#define PROD(TYPE, NAME) team_prod_##NAME(t, team);
#define MAX(TYPE, NAME) team_max_##NAME(t, team);
#define MIN(TYPE, NAME) team_min_##NAME(t, team);
#define AND(TYPE, NAME) team_and_##NAME(t, team);
#define OR(TYPE, NAME) team_or_##NAME(t, team);
#define XOR(TYPE, NAME) team_xor_##NAME(t, team);
#define SCAN(TYPE, NAME) scan_##NAME(t, team);
    RSHMEM_TEAMREDUCE_SUM_TYPES(SUM)
    RSHMEM_TEAMREDUCE_PROD_TYPES(PROD)
    RSHMEM_TEAMREDUCE_MAX_TYPES(MAX)
    RSHMEM_TEAMREDUCE_MIN_TYPES(MIN)
    RSHMEM_TEAMREDUCE_AND_TYPES(AND)
    RSHMEM_TEAMREDUCE_OR_TYPES(OR)
    RSHMEM_TEAMREDUCE_XOR_TYPES(XOR)
    RSHMEM_TEAMREDUCE_SUM_TYPES(SCAN)
#undef SUM
#undef PROD
#undef MAX
#undef MIN
#undef AND
#undef OR
#undef XOR
#undef SCAN
}

static void set_all(int start, int log, int size)
{
#define SUM(TYPE, NAME) set_sum_##NAME(start, log, size);
#define PROD(TYPE, NAME) set_prod_##NAME(start, log, size);
#define MAX(TYPE, NAME) set_max_##NAME(start, log, size);
#define MIN(TYPE, NAME) set_min_##NAME(start, log, size);
#define AND(TYPE, NAME) set_and_##NAME(start, log, size);
#define OR(TYPE, NAME) set_or_##NAME(start, log, size);
#define XOR(TYPE, NAME) set_xor_##NAME(start, log, size);
    RSHMEM_ASETREDUCE_SUM_TYPES(SUM)
    RSHMEM_ASETREDUCE_PROD_TYPES(PROD)
    RSHMEM_ASETREDUCE_MAX_TYPES(MAX)
    RSHMEM_ASETREDUCE_MIN_TYPES(MIN)
    RSHMEM_ASETREDUCE_AND_TYPES(AND)
    RSHMEM_ASETREDUCE_OR_TYPES(OR)
    RSHMEM_ASETREDUCE_XOR_TYPES(XOR)
#undef SUM
#undef PROD
#undef MAX
#undef MIN
#undef AND
#undef OR
#undef XOR
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    shmem_team_t even;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);

    team_all(SHMEM_TEAM_WORLD, "world");
    if (even != SHMEM_TEAM_INVALID)
        team_all(even, "even");
    set_all(0, 0, npes);
    if (me % 2 == 0)
        set_all(0, 1, (npes + 1) / 2);

    shmem_barrier_all();
    if (errors)
        fprintf(stderr, "[PE %d] reduce: %ld errors\n", me, errors);
    shmem_finalize();
    return errors ? 1 : 0;
}
