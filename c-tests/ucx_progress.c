// pes: 2
// timeout: 30
// env: SHMEM_TRANSPORT=ucx
// env: UCX_TLS=tcp
// Progress over UCX TCP, where the target's side of every get and atomic runs in software: PE 1
// computes for 2 s without calling the library while PE 0 does gets and atomics on its memory.
// They must all complete while PE 1 still computes (its progress thread answers them: without it
// the first get would wait 2 s), within 1.5 s even on a loaded machine, and the whole exchange
// must end within 2.5 s of the start.
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <time.h>

#define OPS 50

static long counter;
static long data[64];

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int errors = 0;
    for (int i = 0; i < 64; i++)
        data[i] = 1000 * me + i;
    shmem_barrier_all();
    double start = now();
    if (me == 1) {
        /* Compute for 2 s: no library call, not even a progress call. */
        volatile double x = 0;
        while (now() - start < 2.0)
            for (int i = 0; i < 1000; i++)
                x += i * 0.5;
    } else {
        long got[64];
        for (int k = 0; k < OPS; k++) {
            shmem_long_get(got, data, 64, 1);
            for (int i = 0; i < 64; i++)
                if (got[i] != 1000 + i && errors++ < 10)
                    fprintf(stderr, "[PE 0] ucx_progress: get %d: data[%d] = %ld, expected %d\n", k, i,
                            got[i], 1000 + i);
            long old = shmem_long_atomic_fetch_add(&counter, 1, 1);
            if (old != k && errors++ < 10)
                fprintf(stderr, "[PE 0] ucx_progress: fetch_add %d returned %ld\n", k, old);
        }
        double took = now() - start;
        if (took > 1.5) {
            fprintf(stderr, "[PE 0] ucx_progress: %d gets and atomics on a computing PE took %.3f s\n", OPS,
                    took);
            errors++;
        }
        printf("ucx_progress: %d gets + %d fetch_adds on a computing PE in %.3f s\n", OPS, OPS, took);
    }
    shmem_barrier_all();
    double total = now() - start;
    if (me == 1 && counter != OPS) {
        fprintf(stderr, "[PE 1] ucx_progress: counter = %ld, expected %d\n", counter, OPS);
        errors++;
    }
    if (total > 2.5) {
        fprintf(stderr, "[PE %d] ucx_progress: the exchange took %.3f s, more than 2.5 s\n", me, total);
        errors++;
    }
    shmem_finalize();
    return errors != 0;
}
