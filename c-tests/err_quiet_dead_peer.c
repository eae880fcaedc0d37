// pes: 4
// timeout: 30
// env: SHMEM_TRANSPORT=ucx
// env: UCX_TLS=tcp,self
// expect-fail: [PE 1] shmem_quiet: network operation on PE 3 failed
// A PE dies while PE 1 streams small non-blocking puts to it, each followed by a quiet: the quiet
// that fails names PE 3, whose connection failed, not PE 1, the caller (it used to name the
// caller). The puts are combined into one run that the quiet sends and flushes, so the failure
// comes from the flush of the whole worker, which does not say which peer it was. So that PE 1
// sees the failure before the launcher stops the job, PE 3 stops its launcher (SIGSTOP) before it
// kills itself, and PE 0 lets the launcher go on (SIGCONT) 3 s later.
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
    static long target[64];
    long value = 1;
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    /* Every connection is set up before PE 3 dies (UCX 1.13 can die of an assertion when a
     * connection fails while it is being set up). */
    for (int pe = 0; pe < npes; pe++)
        shmem_long_put(&target[me], &value, 1, pe);
    shmem_quiet();
    shmem_barrier_all();
    shmem_barrier_all();
    if (me == 3) {
        struct timespec nap = {0, 300 * 1000000L};
        nanosleep(&nap, NULL);
        kill(getppid(), SIGSTOP);
        kill(getpid(), SIGKILL);
    } else if (me == 1) {
        double until = now() + 10.0;
        while (now() < until) {
            for (int i = 0; i < 64; i++)
                shmem_long_put_nbi(&target[i], &value, 1, 3);
            shmem_quiet();
        }
        fprintf(stderr, "[PE 1] err_quiet_dead_peer: no quiet failed in 10 s after PE 3 died\n");
    } else if (me == 0) {
        struct timespec nap = {3, 0};
        nanosleep(&nap, NULL);
        kill(getppid(), SIGCONT);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
