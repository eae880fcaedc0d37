// pes: 2 3
// timeout: 30
// expect-stderr: received SIGQUIT, asking every PE where it is
// expect-stderr: [PE 0] not blocked in the library
// A hang report asked while the program sleeps does not cut its sleeps short: PE 0 sleeps in
// sleep(), nanosleep() and poll() (POSIX restarts none of them after a signal handler, whatever
// SA_RESTART says) while the last PE asks for reports four times, twice by SIGQUIT to oshrun (its
// parent under the test harness) and twice by the report signal (SIGURG) sent to PE 0 itself; each
// sleep must last its whole time. Only the signal's arrival is checked here; what a report says
// is tests/faults.rs's business.
#define _POSIX_C_SOURCE 200809L
#include <poll.h>
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int me;
static int errors;
#include "check.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void nap_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

int main(void)
{
    static long pid0;
    shmem_init();
    me = shmem_my_pe();
    int last = shmem_n_pes() - 1;
    if (me == 0)
        shmem_long_p(&pid0, (long)getpid(), last);
    shmem_barrier_all();
    if (me == 0) {
        double t = now();
        unsigned left = sleep(2);
        double slept = now() - t;
        CHECK(left == 0 && slept > 1.99, "sleep(2) returned after %.3f s, %u s left", slept, left);

        struct timespec want = {1, 500 * 1000000L}, rest = {0, 0};
        t = now();
        int rc = nanosleep(&want, &rest);
        slept = now() - t;
        CHECK(rc == 0 && slept > 1.49, "nanosleep(1.5 s) returned %d after %.3f s", rc, slept);

        t = now();
        rc = poll(NULL, 0, 1500);
        slept = now() - t;
        CHECK(rc == 0 && slept > 1.49, "poll(1500 ms) returned %d after %.3f s", rc, slept);
    } else if (me == last) {
        /* Inside sleep(), inside nanosleep(), twice inside poll(). */
        const long at_ms[4] = {500, 2500, 3800, 4300};
        long done = 0;
        for (int i = 0; i < 4; i++) {
            nap_ms(at_ms[i] - done);
            done = at_ms[i];
            if (i % 2 == 0)
                kill(getppid(), SIGQUIT);
            else
                kill((pid_t)pid0, SIGURG);
        }
    }
    shmem_barrier_all();
    shmem_finalize();
    return errors != 0;
}
