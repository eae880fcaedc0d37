// pes: 1 2 3 4 8
// timeout: 120
// All PEs update the same words on PE 0 at once: fetch_add and inc on a long, fetch_inc on an
// int32_t (global data), fetch_add_nbi on a uint64_t (heap), and a counter built from
// compare_swap alone. After a barrier every total must be exact, and the values one PE fetched
// from a counter must be strictly increasing (no update lost or duplicated).
#include <sched.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

#define ITERS 10000
#define CSWAP_ITERS 2000

static int me, npes;
static long errors;
static long counter;
static int32_t counter32;
static long cswap_counter;

static void check(const char *op, const char *type, long long expected, long long got)
{
    if (expected != got && errors++ < 20)
        fprintf(stderr, "[PE %d] amo_concurrent: %s %s: expected %lld, got %lld\n", me, op, type,
                expected, got);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    uint64_t *counter64 = shmem_calloc(1, sizeof(uint64_t));
    if (counter64 == NULL) {
        fprintf(stderr, "[PE %d] amo_concurrent: shmem_calloc returned NULL\n", me);
        shmem_global_exit(1);
    }
    shmem_barrier_all();

    long last = -1;
    int32_t last32 = -1;
    uint64_t last64 = 0;
    int have64 = 0;
    for (int i = 0; i < ITERS; i++) {
        long old = shmem_long_atomic_fetch_add(&counter, 3, 0);
        if (old <= last)
            check("fetch_add (fetched values increase)", "long", last + 1, old);
        last = old;
        shmem_long_atomic_inc(&counter, 0);
        int32_t old32 = shmem_ctx_int32_atomic_fetch_inc(SHMEM_CTX_DEFAULT, &counter32, 0);
        if (old32 <= last32)
            check("fetch_inc (fetched values increase)", "int32_t", last32 + 1, old32);
        last32 = old32;
        uint64_t old64;
        shmem_uint64_atomic_fetch_add_nbi(&old64, counter64, 5, 0);
        shmem_quiet();
        if (have64 && old64 <= last64)
            check("fetch_add_nbi (fetched values increase)", "uint64_t", (long long)last64 + 1,
                  (long long)old64);
        last64 = old64;
        have64 = 1;
    }

    /* A counter from compare_swap: read, try to install old+1, retry with what was there. */
    long seen = shmem_long_atomic_fetch(&cswap_counter, 0);
    for (int i = 0; i < CSWAP_ITERS; i++) {
        for (;;) {
            long was = shmem_long_atomic_compare_swap(&cswap_counter, seen, seen + 1, 0);
            if (was == seen) {
                seen++;
                break;
            }
            seen = was;
            sched_yield();
        }
    }

    shmem_barrier_all();
    check("fetch_add + inc total", "long", (long long)npes * ITERS * 4,
          shmem_long_atomic_fetch(&counter, 0));
    check("fetch_inc total", "int32_t", (long long)npes * ITERS,
          shmem_int32_atomic_fetch(&counter32, 0));
    check("fetch_add_nbi total", "uint64_t", (long long)npes * ITERS * 5,
          (long long)shmem_uint64_atomic_fetch(counter64, 0));
    check("compare_swap counter total", "long", (long long)npes * CSWAP_ITERS,
          shmem_long_atomic_fetch(&cswap_counter, 0));

    static long all_errors;
    shmem_long_atomic_add(&all_errors, errors, 0);
    shmem_barrier_all();
    if (me == 0) {
        if (all_errors == 0)
            printf("amo_concurrent: passed on %d PEs\n", npes);
        else
            fprintf(stderr, "amo_concurrent: %ld mismatches in all\n", all_errors);
    }
    shmem_free(counter64);
    shmem_finalize();
    return errors != 0;
}
