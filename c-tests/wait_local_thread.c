// pes: 1 2 3 4 8
// timeout: 60
// cflags: -pthread
// At SHMEM_THREAD_MULTIPLE a wait of the last PE is ended by another thread of that PE after every
// other PE has finalized: first by a plain store (C11 atomic) to the waited-for word, then by an
// atomic set the thread makes on its own PE. The others finalize at once; the thread waits 300 ms
// before each store, so the waits find every other PE gone first. That is no deadlock: the job
// must not be ended ("every other PE has left"), and each wait must return with the stored value.
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <shmem.h>
#include <stdatomic.h>
#include <time.h>
#include "check.h"

static long stored, set;

static void nap_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void *helper(void *arg)
{
    int me = *(int *)arg;
    nap_ms(300);
    atomic_store((_Atomic long *)&stored, 7);
    nap_ms(300);
    shmem_long_atomic_set(&set, 9, me);
    return NULL;
}

int main(void)
{
    int provided = -1, errors = 0;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    REQUIRE(provided == SHMEM_THREAD_MULTIPLE);
    shmem_barrier_all();
    if (me == npes - 1) {
        pthread_t thread;
        REQUIRE(pthread_create(&thread, NULL, helper, &me) == 0);
        shmem_long_wait_until(&stored, SHMEM_CMP_EQ, 7);
        CHECK(atomic_load((_Atomic long *)&stored) == 7, "stored: %ld, expected 7", stored);
        shmem_long_wait_until(&set, SHMEM_CMP_NE, 0);
        CHECK(shmem_long_atomic_fetch(&set, me) == 9, "set: %ld, expected 9", set);
        REQUIRE(pthread_join(thread, NULL) == 0);
    }
    shmem_finalize();
    return errors != 0;
}
