// pes: 1 2 3 4
// timeout: 30
// env: SHMEM_LOG=init=info
// expect-stderr: spread: local PE 0 of
// SHMEM_SPREAD (on by default) gives each PE a home core where the node's PEs do not outnumber
// its cores and moves the thread in shmem_init there, but nothing may stay bound: the thread's
// affinity after shmem_init must be the one it had before, and a thread started afterwards (as
// OpenMP starts its workers) must be allowed every core the main thread was. Waits that yield
// (barriers with more PEs than cores, here at 3 and 4 PEs on 2 cores) must not change it either.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cpu_set_t before;

/* Whether the calling thread's affinity is still `before`; says what differs after `when`. */
static int kept(int me, const char *when)
{
    cpu_set_t now;
    if (sched_getaffinity(0, sizeof now, &now) != 0) {
        perror("sched_getaffinity");
        exit(2);
    }
    if (CPU_EQUAL(&before, &now))
        return 1;
    fprintf(stderr, "PE %d: the affinity after %s (%d cores) is not the one before (%d)\n", me, when,
            CPU_COUNT(&now), CPU_COUNT(&before));
    return 0;
}

static void *child(void *arg)
{
    cpu_set_t *out = arg;
    if (sched_getaffinity(0, sizeof *out, out) != 0) {
        perror("sched_getaffinity in a thread");
        exit(2);
    }
    return NULL;
}

int main(void)
{
    if (sched_getaffinity(0, sizeof before, &before) != 0) {
        perror("sched_getaffinity");
        return 2;
    }
    shmem_init();
    int me = shmem_my_pe();
    int errors = 0;

    errors += !kept(me, "shmem_init");

    cpu_set_t inherited;
    pthread_t t;
    if (pthread_create(&t, NULL, child, &inherited) != 0 || pthread_join(t, NULL) != 0) {
        fprintf(stderr, "PE %d: pthread_create failed\n", me);
        return 2;
    }
    if (!CPU_EQUAL(&before, &inherited)) {
        fprintf(stderr, "PE %d: a thread started after shmem_init may run on %d cores, not %d\n", me,
                CPU_COUNT(&inherited), CPU_COUNT(&before));
        errors++;
    }

    /* Waits that yield, many of them. */
    for (int i = 0; i < 2000; i++)
        shmem_barrier_all();
    errors += !kept(me, "2000 barriers");

    shmem_finalize();
    if (errors == 0 && me == 0)
        printf("spread_affinity: affinity kept (%d cores)\n", CPU_COUNT(&before));
    return errors ? 1 : 0;
}
