// pes: 4
// timeout: 30
// args: exit3
// expect-exit: 3
// expect-stderr: PE 1
// The fault program of tests/faults.rs and tests/launchers.rs: PE 1 (argument 2, default 1) commits
// the fault named by argument 1 while the other PEs wait in a barrier that can never complete, so
// the launcher must stop them. Before the fault the victim prints `fault-at <ns>` (CLOCK_REALTIME)
// on stderr, which the tests use to time how fast the job ends. Faults: segv (a real invalid
// store), kill (SIGKILL to itself), exit3 (exit(3) without shmem_finalize), global_exit (7),
// early-kill (SIGKILL before shmem_init, while the others wait inside it), early-exit0 (returns 0
// from main before shmem_init, while the others wait inside it), late-init (sleeps 10 s before
// shmem_init, for the timeout's report of who is in shmem_init), hang (every PE sleeps,
// for the Ctrl-C and timeout tests), ok (a clean run). Misuses of the library's own memory (the
// control block below the heap's program range): put-below, get-below and amo-below at 4 KiB below
// the first shmem_malloc block, iput-negative (an iput from that block with stride -1), each of
// which must be refused. orphan: every PE waits in the library for good (PE 1 in a wait_until, the
// others in a barrier), so that killing the launcher leaves them nobody to end them. return0 and
// exit0: PE 1 leaves without shmem_finalize (returns from main, calls exit(0)) while the others
// wait for it in a barrier: its implicit finalize must not complete their barrier. deadlock (4 PEs
// or more): PE 2 waits in shmem_int_wait_until for a value nobody stores, PE 3 computes forever
// without calling the library, the others wait in a barrier that PE 2 and 3 never enter; the
// hang-report tests expect each PE to say where it is. alone: PE 1 waits in shmem_int_wait_until
// for a value nobody stores while the others finalize; once they all have, nobody can store it.
// return0-reduce: as return0, but the others wait in a sum of 1 MiB (whose messages across nodes
// go by rendezvous: a sender waits for its partner to post the receive) instead of a barrier.
// And segv-seen-late, the order in which a dying PE's peer can report it: the victim shuts its
// launcher connection down (PMI_FD), as the kernel closes a dying process's sockets before its
// exit can be collected, has PE victim+1 abort the job (shmem_global_exit(1)), as a peer that saw
// its connection to the victim fail would, and segfaults 50 ms later: the launcher must report
// the segfault, the cause, not the abort. sleep3: every PE sleeps 3 s (sleep(3)), checks that the
// sleep lasted its whole time (a hang report asked meanwhile must not cut it short), then
// finalizes; under `oshrun --timeout 1` the job still exits 124. mid-amo, mid-get, mid-put,
// mid-barrier, mid-coll: the victim kills itself (SIGKILL) 300 ms after a barrier while every
// other PE streams atomics, gets, puts with quiets to it, waits in a barrier or in sums: across
// hosts (scripts/netns-hosts) with a launcher that does not stop the others, their waits must
// notice the broken connection and end the job naming the victim. cut-wait: the PEs from the
// victim on stay out of the library (a sleep) while the others wait for them in a barrier, and
// scripts/netns-hosts --cut-after cuts their host off the network: the others must end the job
// naming one of them.
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void nap_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void announce(int me)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    fprintf(stderr, "[PE %d] fault-at %lld\n", me, (long long)t.tv_sec * 1000000000LL + t.tv_nsec);
    fflush(stderr);
}

/* The rank before shmem_init, from whichever launcher started us. */
static int launcher_rank(void)
{
    const char *names[] = {"PMI_RANK", "PMIX_RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (v != NULL)
            return atoi(v);
    }
    return -1;
}

int main(int argc, char **argv)
{
    const char *fault = argc > 1 ? argv[1] : "ok";
    int victim = argc > 2 ? atoi(argv[2]) : 1;

    if (strcmp(fault, "early-exit0") == 0 && launcher_rank() == victim) {
        nap_ms(200);
        announce(victim);
        return 0;
    }
    if (strcmp(fault, "late-init") == 0 && launcher_rank() == victim)
        nap_ms(10000);
    if (strcmp(fault, "early-kill") == 0 && launcher_rank() == victim) {
        nap_ms(200); /* let the others create their segments and wait in init */
        announce(victim);
        kill(getpid(), SIGKILL);
    }
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    static long told;
    shmem_barrier_all();

    if (strcmp(fault, "hang") == 0) {
        if (me == 0) {
            printf("hanging\n");
            fflush(stdout);
        }
        for (;;)
            pause();
    }
    if (strcmp(fault, "cut-wait") == 0) {
        /* The PEs from the victim on (a host of their own under scripts/netns-hosts --cut-after)
         * stay out of the library while the others wait for them in a barrier; their host is cut
         * off the network meanwhile, and the others must find that out. */
        static long word;
        for (int pe = 0; pe < npes; pe++)
            shmem_long_atomic_fetch_add(&word, 1, pe);
        shmem_barrier_all();
        if (me >= victim)
            sleep(300);
        shmem_barrier_all();
        fprintf(stderr, "[PE %d] launch_fault: got past the barrier with PE %d cut off\n", me, victim);
        return 99;
    }
    if (strcmp(fault, "sleep3") == 0) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        unsigned left = sleep(3);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double slept = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
        if (left != 0 || slept < 2.99) {
            fprintf(stderr, "[PE %d] launch_fault: sleep(3) returned after %.2f s (%u s left)\n", me,
                    slept, left);
            return 98;
        }
        shmem_finalize();
        return 0;
    }
    if (strncmp(fault, "mid-", 4) == 0) {
        static long word;
        static long sums[2][64];
        long local_value = 1;
        /* Every connection the loops use is set up before the victim dies: UCX 1.13 can die of
         * an assertion (`got REP message`) when a connection fails while being set up. */
        for (int pe = 0; pe < npes; pe++) {
            shmem_long_atomic_fetch_add(&word, 1, pe);
            shmem_long_put(&word, &local_value, 1, pe);
        }
        shmem_quiet();
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sums[1], sums[0], 64);
        shmem_barrier_all();
        if (me == victim) {
            nap_ms(300);
            announce(me);
            kill(getpid(), SIGKILL);
        }
        for (long i = 0; i < 1000000000L; i++) {
            if (strcmp(fault, "mid-amo") == 0)
                shmem_long_atomic_fetch_add(&word, 1, victim);
            else if (strcmp(fault, "mid-get") == 0)
                shmem_long_get(&local_value, &word, 1, victim);
            else if (strcmp(fault, "mid-put") == 0) {
                shmem_long_put(&word, &local_value, 1, victim);
                shmem_quiet();
            } else if (strcmp(fault, "mid-barrier") == 0)
                shmem_barrier_all();
            else if (strcmp(fault, "mid-coll") == 0)
                shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sums[1], sums[0], 64);
            else
                return 97;
        }
        fprintf(stderr, "[PE %d] launch_fault: got past %s with PE %d dead\n", me, fault, victim);
        return 99;
    }
    long *first = shmem_malloc(8 * sizeof(long));
    long *below = (long *)((char *)first - 4096);
    /* return0-reduce's buffers, allocated by every PE before the victim leaves. */
    size_t big_n = ((size_t)1 << 20) / sizeof(long);
    long *big_in = NULL, *big_out = NULL;
    if (strcmp(fault, "return0-reduce") == 0) {
        big_in = shmem_calloc(big_n, sizeof(long));
        big_out = shmem_calloc(big_n, sizeof(long));
        if (big_in == NULL || big_out == NULL)
            return 98;
    }
    long local[8] = {0};
    if (strcmp(fault, "orphan") == 0) {
        static int never;
        if (me == 0) {
            printf("waiting\n");
            fflush(stdout);
        }
        if (me == victim)
            shmem_int_wait_until(&never, SHMEM_CMP_EQ, 1);
        shmem_barrier_all();
        return 99;
    }
    if (strcmp(fault, "deadlock") == 0) {
        static int never;
        if (me == 0) {
            printf("deadlocked\n");
            fflush(stdout);
        }
        if (me == 2)
            shmem_int_wait_until(&never, SHMEM_CMP_EQ, 1);
        if (me == 3) {
            volatile unsigned long work = 0;
            for (;;) {
                for (int i = 0; i < 100000; i++)
                    work += (unsigned long)i * 7u;
                nap_ms(1);
            }
        }
        shmem_barrier_all();
        return 99;
    }
    if (strcmp(fault, "alone") == 0) {
        static int never;
        if (me == victim) {
            announce(me);
            shmem_int_wait_until(&never, SHMEM_CMP_EQ, 1);
            fprintf(stderr, "[PE %d] launch_fault: got past a wait nobody could satisfy\n", me);
            return 99;
        }
        nap_ms(100);
        shmem_finalize();
        return 0;
    }
    if (me == victim) {
        if (strcmp(fault, "put-below") == 0) {
            announce(me);
            shmem_long_put(below, local, 1, 0);
        } else if (strcmp(fault, "get-below") == 0) {
            announce(me);
            shmem_long_get(local, below, 1, 0);
        } else if (strcmp(fault, "amo-below") == 0) {
            announce(me);
            shmem_long_atomic_add(below, 1, 0);
        } else if (strcmp(fault, "iput-negative") == 0) {
            announce(me);
            shmem_long_iput(first, local, -1, 1, 2, 0);
        } else if (strcmp(fault, "return0") == 0 || strcmp(fault, "return0-reduce") == 0) {
            announce(me);
            return 0;
        } else if (strcmp(fault, "exit0") == 0) {
            announce(me);
            exit(0);
        } else if (strcmp(fault, "segv") == 0) {
            announce(me);
            *(volatile int *)(uintptr_t)16 = 1;
        } else if (strcmp(fault, "kill") == 0) {
            announce(me);
            kill(getpid(), SIGKILL);
        } else if (strcmp(fault, "exit3") == 0) {
            announce(me);
            exit(3);
        } else if (strcmp(fault, "global_exit") == 0) {
            announce(me);
            shmem_global_exit(7);
        } else if (strcmp(fault, "segv-seen-late") == 0) {
            const char *pmi_fd = getenv("PMI_FD");
            if (pmi_fd != NULL)
                shutdown(atoi(pmi_fd), SHUT_RDWR);
            announce(me);
            shmem_long_p(&told, 1, (me + 1) % npes);
            shmem_quiet();
            nap_ms(50);
            *(volatile int *)(uintptr_t)16 = 1;
        }
    } else if (strcmp(fault, "segv-seen-late") == 0 && me == (victim + 1) % npes) {
        shmem_long_wait_until(&told, SHMEM_CMP_EQ, 1);
        shmem_global_exit(1);
    }
    if (strcmp(fault, "return0-reduce") == 0) {
        /* Only the victim's leaving can end this reduction: it never takes part. */
        nap_ms(100);
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, big_out, big_in, big_n);
        fprintf(stderr, "[PE %d] launch_fault: got past a reduction PE %d never entered\n", me, victim);
        return 99;
    }
    if (strcmp(fault, "ok") != 0) {
        /* Only the victim's fault can end this barrier: the launcher must stop us. */
        nap_ms(100);
        shmem_barrier_all();
        fprintf(stderr, "[PE %d] launch_fault: got past a barrier PE %d never entered\n", me, victim);
        return 99;
    }
    shmem_finalize();
    return 0;
}
