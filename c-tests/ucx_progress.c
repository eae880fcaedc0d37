// pes: 2
// timeout: 90
// env: SHMEM_TRANSPORT=ucx
// env: UCX_TLS=tcp
// Progress over UCX TCP, where the target's side of every get, put and atomic runs in software:
// PE 1 computes, without calling the library, for at least 2 s and until PE 0 has finished its
// gets and atomics on PE 1's memory and told it so with a put into PE 1's `done` word. Those only
// complete if PE 1's progress thread answers them, so without it PE 1 computes until its 60 s
// limit and reports that nothing arrived. The gets must see PE 1's data and the fetch_adds must
// count from 0 to OPS - 1.
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <time.h>
#include "clock.h"

#define OPS 50
#define LIMIT 60.0

static long counter;
static long data[64];
static long done;

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
        /* Compute: no library call, not even a progress call; `done` is read as plain memory. */
        volatile long *flag = &done;
        volatile double x = 0;
        while ((*flag == 0 || now() - start < 2.0) && now() - start < LIMIT)
            for (int i = 0; i < 1000; i++)
                x += i * 0.5;
        if (*flag == 0) {
            fprintf(stderr,
                    "[PE 1] ucx_progress: PE 0's operations did not complete in %.0f s while this PE "
                    "computed (no progress at the target)\n",
                    LIMIT);
            errors++;
        } else {
            printf("ucx_progress: PE 0's gets, fetch_adds and put completed while PE 1 computed\n");
        }
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
        shmem_long_p(&done, 1, 1);
        shmem_quiet();
        printf("ucx_progress: %d gets + %d fetch_adds on a computing PE in %.3f s\n", OPS, OPS,
               now() - start);
    }
    shmem_barrier_all();
    if (me == 1 && counter != OPS) {
        fprintf(stderr, "[PE 1] ucx_progress: counter = %ld, expected %d\n", counter, OPS);
        errors++;
    }
    shmem_finalize();
    return errors != 0;
}
