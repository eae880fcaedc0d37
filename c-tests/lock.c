// pes: 1 2 3 4 8
// timeout: 120
// Distributed locks, with the lock on the symmetric heap and in global data.
//  - Mutual exclusion: every PE increments a counter on PE 0 with a non-atomic get, a pause and a
//    put under the lock, and marks an owner word (an atomic swap that must find it free); the
//    counter must come out exact. Bounded to a few seconds: a fixed number of rounds per PE
//    (1000, or argument 1: scripts/netns-hosts runs fewer, where every round crosses TCP).
//  - The same with the lock taken by spinning on shmem_test_lock.
//  - test_lock semantics: 0 and the lock taken when it is free, 1 (at once) when another PE or
//    this PE holds it; after clear_lock the next PE gets it.
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_PES 1024
#define ROUNDS 1000

static int me, npes, rounds = ROUNDS;
static long errors;
static long all_errors[MAX_PES];

static long global_lock;
static long counter;
static int owner;

static void report(const char *where, const char *op, long long expected, long long got)
{
    if (errors++ < 30)
        fprintf(stderr, "[PE %d] lock: lock %s, %s: expected %lld, got %lld\n", me, where, op, expected, got);
}

static void critical(const char *where, const char *how)
{
    int prev = shmem_int_atomic_swap(&owner, me + 1, 0);
    if (prev != 0)
        report(where, how, 0, prev); /* another PE was inside */
    long v = shmem_long_g(&counter, 0);
    for (volatile int spin = 0; spin < 50; spin++)
        ;
    shmem_long_p(&counter, v + 1, 0);
    prev = shmem_int_atomic_swap(&owner, 0, 0);
    if (prev != me + 1)
        report(where, how, me + 1, prev);
}

static void exclusion(long *lock, const char *where, int by_test)
{
    const char *how = by_test ? "mutual exclusion (test_lock spin)" : "mutual exclusion (set_lock)";
    if (me == 0)
        counter = 0;
    shmem_barrier_all();
    for (int r = 0; r < rounds; r++) {
        if (by_test) {
            while (shmem_test_lock(lock) != 0)
                sched_yield(); /* 8 PEs share 2 cores in the tests */
        } else {
            shmem_set_lock(lock);
        }
        critical(where, how);
        shmem_clear_lock(lock);
    }
    shmem_barrier_all();
    if (me == 0 && counter != (long)rounds * npes)
        report(where, how, (long long)rounds * npes, counter);
    shmem_barrier_all();
}

static void test_semantics(long *lock, const char *where)
{
    /* PE 0 holds the lock: everyone else finds it set, PE 0 too */
    if (me == 0)
        shmem_set_lock(lock);
    shmem_barrier_all();
    int got = shmem_test_lock(lock);
    if (got != 1)
        report(where, "test_lock while PE 0 holds it", 1, got);
    shmem_barrier_all();
    if (me == 0)
        shmem_clear_lock(lock);
    shmem_barrier_all();
    /* each PE in turn: test_lock takes the free lock, a second test_lock finds it set */
    for (int pe = 0; pe < npes; pe++) {
        if (me == pe) {
            got = shmem_test_lock(lock);
            if (got != 0)
                report(where, "test_lock on a free lock", 0, got);
            got = shmem_test_lock(lock);
            if (got != 1)
                report(where, "test_lock on a lock this PE holds", 1, got);
        }
        shmem_barrier_all();
        if (me != pe) {
            got = shmem_test_lock(lock);
            if (got != 1)
                report(where, "test_lock on a lock another PE holds", 1, got);
        }
        shmem_barrier_all();
        if (me == pe)
            shmem_clear_lock(lock);
        shmem_barrier_all();
    }
}

static void run(long *lock, const char *where)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    exclusion(lock, where, 0);
    exclusion(lock, where, 1);
    test_semantics(lock, where);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (me == 0)
        printf("lock: %s lock, %d PEs x %d rounds x 2: %.3f s\n", where, npes, rounds,
               (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        rounds = atoi(argv[1]);
    if (rounds < 1) {
        fprintf(stderr, "lock: the rounds (argument 1) must be a positive number\n");
        return 2;
    }
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes > MAX_PES) {
        fprintf(stderr, "[PE %d] lock: this test handles at most %d PEs\n", me, MAX_PES);
        shmem_global_exit(1);
    }
    long *heap_lock = shmem_calloc(1, sizeof *heap_lock);
    if (heap_lock == NULL) {
        fprintf(stderr, "[PE %d] lock: shmem_calloc returned NULL\n", me);
        shmem_global_exit(1);
    }
    shmem_barrier_all();

    run(heap_lock, "heap");
    run(&global_lock, "global");

    shmem_long_p(&all_errors[me], errors, 0);
    shmem_barrier_all();
    if (me == 0) {
        long total = 0;
        for (int pe = 0; pe < npes; pe++)
            total += all_errors[pe];
        if (total == 0)
            printf("lock: passed on %d PEs\n", npes);
        else
            fprintf(stderr, "lock: %ld mismatches in all\n", total);
    }
    shmem_free(heap_lock);
    shmem_finalize();
    return errors != 0;
}
