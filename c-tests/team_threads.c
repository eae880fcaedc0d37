// pes: 1 2 3 4 8
// timeout: 120
// cflags: -pthread
// Barriers on different teams from different threads at once (SHMEM_THREAD_MULTIPLE): each PE
// runs THREADS threads, thread t on its own duplicate of the world team. Every round, thread t
// puts a round-stamped value into slot t of its right neighbour, quiets, syncs its team, checks
// what its left neighbour's thread t put, and syncs again before the next round overwrites it.
// Over the network (the suite's RSHMEM_TEST_TRANSPORT runs) the barrier signals of all threads
// share one signal worker: sends, first connections and receives from several threads at once.
#include <pthread.h>
#include <shmem.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

#define THREADS 3
#define ROUNDS 200

static int64_t slot[THREADS];
static shmem_team_t teams[THREADS];
static int me, npes;
static int errors;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;

/* A failed check, counted under the lock: the threads check at once. */
static void fail_check(int ok, int t, int round, const char *what, long long got, long long want)
{
    if (ok)
        return;
    pthread_mutex_lock(&count_lock);
    CHECK(0, "thread %d, round %d: %s %#llx, expected %#llx", t, round, what, got, want);
    pthread_mutex_unlock(&count_lock);
}

static void *run(void *arg)
{
    int t = (int)(intptr_t)arg;
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    // Every round runs on every thread whatever it found, so that no thread leaves its peers
    // waiting in a sync.
    for (int round = 1; round <= ROUNDS; round++) {
        shmem_int64_p(&slot[t], (int64_t)round << 16 | me, right);
        shmem_quiet();
        int rc = shmem_team_sync(teams[t]);
        fail_check(rc == 0, t, round, "shmem_team_sync returned", rc, 0);
        int64_t want = (int64_t)round << 16 | left;
        fail_check(slot[t] == want, t, round, "the slot reads", (long long)slot[t], (long long)want);
        rc = shmem_team_sync(teams[t]);
        fail_check(rc == 0, t, round, "shmem_team_sync returned", rc, 0);
    }
    return NULL;
}

int main(void)
{
    int provided = -1;
    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0)
        return 1;
    me = shmem_my_pe();
    npes = shmem_n_pes();
    REQUIRE(provided == SHMEM_THREAD_MULTIPLE);
    for (int t = 0; t < THREADS; t++)
        REQUIRE(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &teams[t]) == 0);
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++)
        REQUIRE(pthread_create(&threads[t], NULL, run, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    for (int t = 0; t < THREADS; t++)
        shmem_team_destroy(teams[t]);
    shmem_barrier_all();
    shmem_finalize();
    return errors != 0;
}
