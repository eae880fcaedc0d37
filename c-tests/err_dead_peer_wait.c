// pes: 4
// timeout: 30
// env: SHMEM_TRANSPORT=ucx
// env: UCX_TLS=tcp,self
// expect-fail: [PE 2] wait: the connection to PE 3 failed while this PE waits
// expect-stderr: [PE 1] shmem_long_atomic_fetch_add: network operation on PE 3 failed
// A PE dies while the others wait for the network, and the launcher does not stop them (as
// Hydra with -disable-auto-cleanup, or a launcher on another host that is slow to): PE 1 in an
// atomic towards it, PE 2 in a barrier it never enters. Each notices the broken connection
// (UCX's endpoint error) and ends the job naming PE 3; they used to wait until killed. The
// launcher is held back as in err_quiet_dead_peer.c: PE 3 stops oshrun (SIGSTOP) before it kills
// itself, PE 0 lets oshrun go on (SIGCONT) 5 s later.
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
    static long target[64];
    long value = 1;
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    /* Every connection is set up before PE 3 dies. */
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
        for (long i = 0; i < 100000000L; i++)
            shmem_long_atomic_fetch_add(&target[0], 1, 3);
        fprintf(stderr, "[PE 1] err_dead_peer_wait: no atomic failed after PE 3 died\n");
    } else if (me == 0) {
        struct timespec nap = {5, 0};
        nanosleep(&nap, NULL);
        kill(getppid(), SIGCONT);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
