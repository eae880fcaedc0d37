// pes: 1 2 3 4 8
// timeout: 60
// env: SHMEM_DEADLOCK=1
// Long waits that are no deadlock, with SHMEM_DEADLOCK=1: every PE but the last waits 3 s in a
// barrier while the last computes (a loop outside the library) before it enters; then PE 0 waits 3 s
// in a wait_until for the value the last PE puts after sleeping. A PE outside the library is never
// stalled, so the job must run to its end and exit 0 (the detection would end it with exit 1).
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <time.h>
#include "check.h"

static long value;

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void)
{
    int errors = 0;
    shmem_init();
    int me = shmem_my_pe(), last = shmem_n_pes() - 1;
    shmem_barrier_all();
    if (me == last) {
        volatile unsigned long spin = 0;
        for (double start = seconds(); seconds() - start < 3.0;)
            spin++;
    }
    shmem_barrier_all();
    if (me == last) {
        struct timespec t = {3, 0};
        nanosleep(&t, NULL);
        shmem_long_p(&value, 42, 0);
    }
    if (me == 0) {
        shmem_long_wait_until(&value, SHMEM_CMP_EQ, 42);
        CHECK(value == 42, "value: %ld, expected 42", value);
    }
    shmem_finalize();
    return errors != 0;
}
