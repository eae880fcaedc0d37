// pes: 2
// timeout: 60
// cflags: -pthread
// expect-stderr: [PE 1] wait: every other PE has left (shmem_finalize, or exit without it; PE 0 among them) while this PE has waited 10 s; at thread level SHMEM_THREAD_MULTIPLE another thread of this PE may still end the wait, so the job goes on
// As wait_local_thread, with the store 11 s after PE 0 finalized: PE 1's wait, alone for more than
// 10 s, says once why the job goes on, and still returns the stored value when the store comes.
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <shmem.h>
#include <stdatomic.h>
#include <time.h>
#include "check.h"

static long stored;

static void *helper(void *arg)
{
    (void)arg;
    struct timespec t = {11, 0};
    nanosleep(&t, NULL);
    atomic_store((_Atomic long *)&stored, 7);
    return NULL;
}

int main(void)
{
    int provided = -1, errors = 0;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    int me = shmem_my_pe();
    REQUIRE(provided == SHMEM_THREAD_MULTIPLE);
    shmem_barrier_all();
    if (me == 1) {
        pthread_t thread;
        REQUIRE(pthread_create(&thread, NULL, helper, NULL) == 0);
        shmem_long_wait_until(&stored, SHMEM_CMP_EQ, 7);
        CHECK(atomic_load((_Atomic long *)&stored) == 7, "stored: %ld, expected 7", stored);
        REQUIRE(pthread_join(thread, NULL) == 0);
    }
    shmem_finalize();
    return errors != 0;
}
