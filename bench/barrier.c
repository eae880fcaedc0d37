/* barrier.c: shmem_barrier_all latency at the PE count it is started with (bench/compare runs it
 * at 2, 4 and 8 PEs). Figure barrier_all, "size" = number of PEs, unit us per barrier as seen
 * by PE 0. Every PE runs the same number of barriers per batch: PE 0 calibrates it and sends it to
 * the others with shmem_long_p (outside the timed part).
 */
#include "bench.h"
#include <shmem.h>

static long ctl; /* symmetric: barriers per batch decided by PE 0 (0 = keep calibrating) */

static void share(long v, int me, int npes) {
    if (me == 0)
        for (int pe = 0; pe < npes; pe++) shmem_long_p(&ctl, v, pe);
    shmem_quiet();
    shmem_barrier_all();
}

int main(int argc, char **argv) {
    struct bench_cfg c = bench_parse(argc, argv);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    double ns[BENCH_MAX_SAMPLES];

    for (int i = 0; i < 10; i++) shmem_barrier_all(); /* warm-up */

    /* calibration: all PEs run k barriers; PE 0 decides whether that was long enough */
    long k = 1;
    for (;;) {
        shmem_barrier_all();
        double t0 = bench_now_ns();
        for (long i = 0; i < k; i++) shmem_barrier_all();
        double dt = bench_now_ns() - t0;
        long decision = 0;
        if (me == 0 && (dt >= c.target_ns / 4 || k >= (1L << 20))) {
            decision = (long)((double)k * c.target_ns / (dt > 1 ? dt : 1));
            if (decision < 1) decision = 1;
        }
        share(decision, me, npes);
        if (ctl > 0) {
            k = ctl;
            break;
        }
        k *= 4;
    }

    for (int b = 0; b < c.batches; b++) {
        shmem_barrier_all();
        double t0 = bench_now_ns();
        for (long i = 0; i < k; i++) shmem_barrier_all();
        ns[b] = (bench_now_ns() - t0) / (double)k;
    }
    if (me == 0) bench_report("barrier_all", (size_t)npes, "us", ns, c.batches, 0);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
