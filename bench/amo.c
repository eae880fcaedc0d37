/* amo.c: atomic memory operation latency (2 PEs), in its own program because an implementation
 * without AMOs fails to build it and bench/compare then shows these figures for the other one only.
 *
 * PE 0 operates on a symmetric long of PE 1 (the last PE), which waits in shmem_barrier_all.
 * Figures (us per operation, each one a completed round trip or followed by shmem_quiet):
 *   amo_fetch_add      shmem_long_atomic_fetch_add
 *   amo_inc            shmem_long_atomic_inc + shmem_quiet
 *   amo_compare_swap   shmem_long_atomic_compare_swap (alternating so that it succeeds)
 *   amo_fetch          shmem_long_atomic_fetch
 */
#include "bench.h"
#include <shmem.h>

struct amo_arg {
    long *target;
    int pe;
    long n;
};
static volatile long sink;

static void op_fadd(void *a) {
    struct amo_arg *r = a;
    sink = shmem_long_atomic_fetch_add(r->target, 1, r->pe);
}
static void op_inc(void *a) {
    struct amo_arg *r = a;
    shmem_long_atomic_inc(r->target, r->pe);
    shmem_quiet();
}
static void op_cswap(void *a) {
    struct amo_arg *r = a;
    long old = shmem_long_atomic_compare_swap(r->target, r->n, r->n + 1, r->pe);
    r->n = old + 1;
}
static void op_fetch(void *a) {
    struct amo_arg *r = a;
    sink = shmem_long_atomic_fetch(r->target, r->pe);
}

int main(int argc, char **argv) {
    struct bench_cfg c = bench_parse(argc, argv);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *target = shmem_malloc(sizeof(long));
    *target = 0;
    double ns[BENCH_MAX_SAMPLES];
    shmem_barrier_all();
    if (me == 0 && npes > 1) {
        struct amo_arg a = {target, npes - 1, 0};
        struct {
            const char *name;
            bench_op op;
        } figs[] = {
            {"amo_fetch_add", op_fadd},
            {"amo_inc", op_inc},
            {"amo_compare_swap", op_cswap},
            {"amo_fetch", op_fetch},
        };
        for (size_t f = 0; f < sizeof figs / sizeof figs[0]; f++) {
            a.n = shmem_long_atomic_fetch(target, npes - 1);
            bench_measure(figs[f].op, &a, &c, ns);
            bench_report(figs[f].name, 8, "us", ns, c.batches, 0);
        }
    }
    shmem_barrier_all();
    shmem_free(target);
    shmem_finalize();
    return 0;
}
