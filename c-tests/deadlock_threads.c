// pes: 1 2 3 4
// timeout: 30
// cflags: -pthread
// env: SHMEM_DEADLOCK=1
// expect-stderr: [PE 0] every PE has waited in the library for 1 s and no wait has ended: the job looks deadlocked (each PE says where it waits); a thread level above SHMEM_THREAD_SINGLE lets another thread end a wait, so the job goes on
// expect-stderr: [PE 0] shmem_long_wait_until: ivar=0x
// At SHMEM_THREAD_MULTIPLE every PE waits for a word that only a thread of its own stores, and
// that 4 s later: for the library that is every PE waiting with no wait ending, but another thread
// may end a wait, so after SHMEM_DEADLOCK=1 s the job is only said to look deadlocked (with each PE's
// report) and goes on; every wait must then end with the stored value and the job exit 0.
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <shmem.h>
#include <stdatomic.h>
#include <time.h>
#include "check.h"

static long flag;

static void *helper(void *arg)
{
    (void)arg;
    struct timespec t = {4, 0};
    nanosleep(&t, NULL);
    atomic_store((_Atomic long *)&flag, 5);
    return NULL;
}

int main(void)
{
    int provided = -1, errors = 0;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    int me = shmem_my_pe();
    REQUIRE(provided == SHMEM_THREAD_MULTIPLE);
    shmem_barrier_all();
    pthread_t thread;
    REQUIRE(pthread_create(&thread, NULL, helper, NULL) == 0);
    shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 5);
    CHECK(atomic_load((_Atomic long *)&flag) == 5, "flag: %ld, expected 5", flag);
    REQUIRE(pthread_join(thread, NULL) == 0);
    shmem_finalize();
    return errors != 0;
}
