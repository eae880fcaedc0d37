/* lock.c: shmem_set_lock + shmem_clear_lock (us per acquire/release pair), on a symmetric long.
 *
 *   lock_uncontended   PE 0 alone takes and releases the lock (the other PEs wait in a barrier)
 *   lock_contended     every PE takes and releases the same lock in a loop; PE 0's time per pair
 *                      (with 2 PEs, each pair includes waiting for the other PE's turn)
 */
#include "bench.h"
#include <shmem.h>

static long lock_word;

static void op_lock(void *a) {
    (void)a;
    shmem_set_lock(&lock_word);
    shmem_clear_lock(&lock_word);
}

int main(int argc, char **argv) {
    struct bench_cfg c = bench_parse(argc, argv);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    double ns[BENCH_MAX_SAMPLES];
    shmem_barrier_all();
    if (me == 0) {
        bench_measure(op_lock, NULL, &c, ns);
        bench_report("lock_uncontended", 8, "us", ns, c.batches, 0);
    }
    shmem_barrier_all();
    /* Every PE measures the same way; the batches overlap in time, so the lock is contended. */
    bench_measure(op_lock, NULL, &c, ns);
    if (me == 0 && npes > 1)
        bench_report("lock_contended", 8, "us", ns, c.batches, 0);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
