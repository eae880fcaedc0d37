// pes: 1 2 3 4 5 8
// timeout: 180
// broadcast, collect, fcollect, alltoall and alltoalls for every type of the RMA table and in mem
// form, on the world, on the odd PEs (a strided team, often of a size that is not a power of two)
// and on the columns of a 2-D split of width 3; from every root, with zero-length and uneven
// collect contributions, back to back on the same team without a barrier between them. Every
// result is compared with what the PE numbers say it must be.
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#include "generated/types.h"
#define CHECK_LIMIT 30
#include "check.h"

enum { N = 7, DST = 2, SST = 3, BYTES = 16384 };

static int me, npes;
static long errors;
static char *sbuf, *dbuf;

/* Element k of team PE i's contribution, and element k of what team PE i sends to PE j. */
static int val(int i, int k) { return (i * 13 + k + 1) % 100; }
static int val2(int i, int j, int k) { return (i * 7 + j * 3 + k + 1) % 100; }

#define SENTINEL 111

#define TEST(TYPE, NAME)                                                                           \
    static void test_##NAME(shmem_team_t t, const char *team)                                      \
    {                                                                                              \
        int n = shmem_team_n_pes(t), i = shmem_team_my_pe(t);                                      \
        TYPE *s = (TYPE *)sbuf, *d = (TYPE *)dbuf;                                                 \
        for (int r = 0; r < n; r++) {                                                              \
            for (int k = 0; k < N; k++) {                                                          \
                s[k] = (TYPE)val(i, k);                                                            \
                d[k] = (TYPE)SENTINEL;                                                             \
            }                                                                                      \
            CHECK(shmem_##NAME##_broadcast(t, d, s, N, r) == 0, "%s broadcast failed", #NAME);     \
            for (int k = 0; k < N; k++)                                                            \
                CHECK(d[k] == (TYPE)val(r, k), "%s %s broadcast root %d: dest[%d] wrong", team,    \
                      #NAME, r, k);                                                                \
        }                                                                                          \
        d[0] = (TYPE)SENTINEL;                                                                     \
        shmem_##NAME##_broadcast(t, d, s, 0, 0);                                                   \
        CHECK(d[0] == (TYPE)SENTINEL, "%s %s zero-length broadcast wrote", team, #NAME);           \
        /* In place: dest is source. */                                                            \
        for (int k = 0; k < N; k++)                                                                \
            s[k] = (TYPE)val(i, k);                                                                \
        shmem_##NAME##_broadcast(t, s, s, N, n - 1);                                               \
        for (int k = 0; k < N; k++)                                                                \
            CHECK(s[k] == (TYPE)val(n - 1, k), "%s %s in-place broadcast: [%d] wrong", team,       \
                  #NAME, k);                                                                       \
        for (int k = 0; k < N; k++)                                                                \
            s[k] = (TYPE)val(i, k);                                                                \
        for (int k = 0; k < n * N + 1; k++)                                                        \
            d[k] = (TYPE)SENTINEL;                                                                 \
        CHECK(shmem_##NAME##_fcollect(t, d, s, N) == 0, "%s fcollect failed", #NAME);              \
        for (int j = 0; j < n; j++)                                                                \
            for (int k = 0; k < N; k++)                                                            \
                CHECK(d[j * N + k] == (TYPE)val(j, k), "%s %s fcollect: [%d][%d] wrong", team,     \
                      #NAME, j, k);                                                                \
        CHECK(d[n * N] == (TYPE)SENTINEL, "%s %s fcollect wrote past the end", team, #NAME);       \
        /* collect: PE j contributes j % 3 elements (some none). */                                \
        int total = 0;                                                                             \
        for (int j = 0; j < n; j++)                                                                \
            total += j % 3;                                                                        \
        for (int k = 0; k < total + 1; k++)                                                        \
            d[k] = (TYPE)SENTINEL;                                                                 \
        CHECK(shmem_##NAME##_collect(t, d, s, i % 3) == 0, "%s collect failed", #NAME);            \
        for (int j = 0, at = 0; j < n; at += j % 3, j++)                                           \
            for (int k = 0; k < j % 3; k++)                                                        \
                CHECK(d[at + k] == (TYPE)val(j, k), "%s %s collect: PE %d [%d] wrong", team,       \
                      #NAME, j, k);                                                                \
        CHECK(d[total] == (TYPE)SENTINEL, "%s %s collect wrote past the end", team, #NAME);        \
        for (int j = 0; j < n; j++)                                                                \
            for (int k = 0; k < N; k++)                                                            \
                s[j * N + k] = (TYPE)val2(i, j, k);                                                \
        CHECK(shmem_##NAME##_alltoall(t, d, s, N) == 0, "%s alltoall failed", #NAME);              \
        for (int j = 0; j < n; j++)                                                                \
            for (int k = 0; k < N; k++)                                                            \
                CHECK(d[j * N + k] == (TYPE)val2(j, i, k), "%s %s alltoall: [%d][%d] wrong", team, \
                      #NAME, j, k);                                                                \
        for (int j = 0; j < n; j++)                                                                \
            for (int k = 0; k < N; k++)                                                            \
                s[(j * N + k) * SST] = (TYPE)val2(i, j, k);                                        \
        for (int k = 0; k < n * N * DST; k++)                                                      \
            d[k] = (TYPE)SENTINEL;                                                                 \
        CHECK(shmem_##NAME##_alltoalls(t, d, s, DST, SST, N) == 0, "%s alltoalls failed", #NAME);  \
        for (int j = 0; j < n; j++)                                                                \
            for (int k = 0; k < N; k++) {                                                          \
                CHECK(d[(j * N + k) * DST] == (TYPE)val2(j, i, k),                                 \
                      "%s %s alltoalls: [%d][%d] wrong", team, #NAME, j, k);                       \
                CHECK(d[(j * N + k) * DST + 1] == (TYPE)SENTINEL,                                  \
                      "%s %s alltoalls wrote between elements", team, #NAME);                      \
            }                                                                                      \
    }
RSHMEM_STDRMA_TYPES(TEST)
#undef TEST

static void test_mem(shmem_team_t t, const char *team)
{
    int n = shmem_team_n_pes(t), i = shmem_team_my_pe(t);
    unsigned char *s = (unsigned char *)sbuf, *d = (unsigned char *)dbuf;
    for (int k = 0; k < n * N; k++)
        s[k] = (unsigned char)val2(i, k / N, k % N);
    memset(d, SENTINEL, (size_t)(n * N));
    shmem_broadcastmem(t, d, s, N, 0);
    for (int k = 0; k < N; k++)
        CHECK(d[k] == (unsigned char)val2(0, 0, k), "%s broadcastmem [%d]", team, k);
    shmem_fcollectmem(t, d, s, N);
    for (int k = 0; k < n * N; k++)
        CHECK(d[k] == (unsigned char)val2(k / N, 0, k % N), "%s fcollectmem [%d]", team, k);
    shmem_collectmem(t, d, s, (size_t)(i + 1));
    for (int j = 0, at = 0; j < n; at += j + 1, j++)
        for (int k = 0; k <= j; k++)
            CHECK(d[at + k] == (unsigned char)val2(j, k / N, k % N), "%s collectmem PE %d [%d]", team, j,
                  k);
    shmem_alltoallmem(t, d, s, N);
    for (int k = 0; k < n * N; k++)
        CHECK(d[k] == (unsigned char)val2(k / N, i, k % N), "%s alltoallmem [%d]", team, k);
    for (int k = 0; k < n * N; k++)
        s[k * SST] = (unsigned char)val2(i, k / N, k % N);
    shmem_alltoallsmem(t, d, s, DST, SST, N);
    for (int k = 0; k < n * N; k++)
        CHECK(d[k * DST] == (unsigned char)val2(k / N, i, k % N), "%s alltoallsmem [%d]", team, k);
}

static void test_team(shmem_team_t t, const char *team)
{
#define RUN(TYPE, NAME) test_##NAME(t, team);
    RSHMEM_STDRMA_TYPES(RUN)
#undef RUN
    test_mem(t, team);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    sbuf = shmem_malloc(BYTES);
    dbuf = shmem_malloc(BYTES);
    shmem_team_t odd, x, y;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, npes > 1 ? 1 : 0, 2, npes > 1 ? npes / 2 : 1, NULL, 0,
                             &odd);
    shmem_team_split_2d(SHMEM_TEAM_WORLD, 3, NULL, 0, &x, NULL, 0, &y);
    CHECK(sbuf && dbuf, "shmem_malloc failed");

    test_team(SHMEM_TEAM_WORLD, "world");
    if (odd != SHMEM_TEAM_INVALID)
        test_team(odd, "odd");
    test_team(y, "column");
    test_team(x, "row");
    CHECK(shmem_int_broadcast(SHMEM_TEAM_INVALID, (int *)dbuf, (int *)sbuf, 1, 0) != 0,
          "broadcast on SHMEM_TEAM_INVALID returned 0");

    shmem_barrier_all();
    if (errors)
        fprintf(stderr, "[PE %d] coll: %ld errors\n", me, errors);
    shmem_finalize();
    return errors ? 1 : 0;
}
