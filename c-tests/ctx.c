// pes: 1 2 3 4 5 8
// timeout: 120
// cflags: -pthread
// Contexts: creation with each option (and failure with an unknown one), ctx_get_team, sessions,
// a context on a strided team taking team-relative PE numbers, per-context quiet publishing data
// before a flag, and contexts created, used and destroyed by several threads at once under
// SHMEM_THREAD_MULTIPLE.
#include <pthread.h>
#include <sched.h>
#include <shmem.h>
#include <stdio.h>
#define CHECK_COUNT() (__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED) < CHECK_LIMIT)
#include "check.h"

enum { THREADS = 4, ITERS = 200, WORDS = 64 };

static int me, npes;
static long errors;
static long box[THREADS][WORDS];
static long flag[THREADS];
static long team_box[2];

/* Each thread, on its own context: rounds of WORDS puts to the next PE, quiet on that context,
 * then a flag; the next PE's thread of the same number waits for the flag and checks the words. */
static void *worker(void *arg)
{
    int tid = (int)(long)arg;
    int to = (me + 1) % npes, from = (me + npes - 1) % npes;
    shmem_ctx_t ctx;
    long options = tid % 2 ? SHMEM_CTX_PRIVATE : SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE;
    CHECK(shmem_ctx_create(options, &ctx) == 0 && ctx != SHMEM_CTX_INVALID,
          "thread %d: ctx_create failed", tid);
    shmem_ctx_session_start(ctx, SHMEM_CTX_SESSION_BATCH, NULL, 0);
    long src[WORDS];
    for (long round = 1; round <= ITERS; round++) {
        /* Wait until the receiver has taken the previous round. */
        while (shmem_ctx_long_atomic_fetch(ctx, &flag[tid], to) != 0)
            sched_yield();
        for (int k = 0; k < WORDS; k++)
            src[k] = round * 1000 + me * 10 + k;
        shmem_ctx_long_put(ctx, box[tid], src, WORDS, to);
        shmem_ctx_quiet(ctx);
        shmem_ctx_long_atomic_set(ctx, &flag[tid], round, to);
        /* Receive the round from the previous PE. */
        while (shmem_ctx_long_atomic_fetch(ctx, &flag[tid], me) != round)
            sched_yield();
        for (int k = 0; k < WORDS; k++)
            CHECK(box[tid][k] == round * 1000 + from * 10 + k,
                  "thread %d round %ld: word %d is %ld after the flag", tid, round, k, box[tid][k]);
        shmem_ctx_long_atomic_set(ctx, &flag[tid], 0, me);
    }
    shmem_ctx_session_stop(ctx);
    shmem_ctx_destroy(ctx);
    return NULL;
}

int main(void)
{
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided %d", provided);

    shmem_team_t team;
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &team) == 0 && team == SHMEM_TEAM_WORLD,
          "the default context is not on SHMEM_TEAM_WORLD");
    CHECK(shmem_ctx_create(1L << 20, &ctx) != 0 && ctx == SHMEM_CTX_INVALID,
          "ctx_create with an unknown option succeeded");
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx) != 0 && ctx == SHMEM_CTX_INVALID,
          "team_create_ctx on SHMEM_TEAM_INVALID succeeded");
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &team) != 0 && team == SHMEM_TEAM_INVALID,
          "ctx_get_team of SHMEM_CTX_INVALID succeeded");
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    CHECK(shmem_ctx_create(0, &ctx) == 0, "ctx_create(0) failed");
    CHECK(shmem_ctx_get_team(ctx, &team) == 0 && team == SHMEM_TEAM_WORLD,
          "a created context is not on SHMEM_TEAM_WORLD");
    shmem_ctx_destroy(ctx);

    /* A context on the odd PEs (or on PE 0 alone): team PE numbers. */
    shmem_team_t odd;
    int nodd = npes > 1 ? npes / 2 : 1;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, npes > 1 ? 1 : 0, 2, nodd, NULL, 0, &odd);
    if (odd != SHMEM_TEAM_INVALID) {
        shmem_ctx_t tc;
        CHECK(shmem_team_create_ctx(odd, SHMEM_CTX_PRIVATE, &tc) == 0, "team_create_ctx failed");
        CHECK(shmem_ctx_get_team(tc, &team) == 0 && team == odd, "ctx_get_team of a team context");
        int i = shmem_team_my_pe(odd);
        int next = (i + 1) % nodd;
        long mine = me;
        shmem_ctx_long_put(tc, &team_box[0], &mine, 1, next);
        shmem_ctx_long_p(tc, &team_box[1], mine + 100, next);
        shmem_ctx_quiet(tc);
        shmem_team_sync(odd);
        int prev_world = shmem_team_translate_pe(odd, (i + nodd - 1) % nodd, SHMEM_TEAM_WORLD);
        CHECK(team_box[0] == prev_world && team_box[1] == prev_world + 100,
              "team context put: got %ld/%ld, expected %d", team_box[0], team_box[1], prev_world);
        long got = shmem_ctx_long_g(tc, &team_box[0], next);
        CHECK(got == me, "team context g from team PE %d: %ld, expected %d", next, got, me);
        shmem_ctx_destroy(tc);
        shmem_team_destroy(odd);
    }
    shmem_barrier_all();

    pthread_t threads[THREADS];
    for (long t = 0; t < THREADS; t++)
        pthread_create(&threads[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);

    shmem_barrier_all();
    if (errors)
        fprintf(stderr, "[PE %d] ctx: %ld errors\n", me, errors);
    shmem_finalize();
    return errors ? 1 : 0;
}
