/* shmem4py.c: the calls of shmem4py-compat/bench.py made directly in C, measured the same way
 * (bench.h: calibrated batches, median per operation), so that the two tables line up and their
 * difference is the cost of the Python binding. Run on 2 PEs; shmem4py-compat/bench.py builds it
 * and prints both side by side.
 *
 * PE 0 targets PE 1 (the last PE), which waits in shmem_barrier_all, except for barrier_all, which
 * every PE runs. Figures (us per operation), with the routine shmem4py calls for the same Python
 * call on a NumPy array of C longs:
 *   put       shmem.put(dst, src, 1); shmem.quiet()  ->  shmem_long_put + shmem_quiet (8 B, 1 MiB)
 *   get       shmem.get(dst, src, 1)                 ->  shmem_long_get (8 B, 1 MiB)
 *   fetch_add shmem.atomic_fetch_add(t, 1, 1)        ->  shmem_long_atomic_fetch_add
 *   barrier   shmem.barrier_all()                    ->  shmem_barrier_all (size = PEs)
 * The local side (source of a put, destination of a get) is private memory, as a NumPy array is.
 */
#include "bench.h"
#include <shmem.h>

#define BIG ((size_t)1 << 20)

struct arg {
    long *remote;
    long *local;
    size_t nelems;
    int pe;
};

static void op_put(void *a) {
    struct arg *r = a;
    shmem_long_put(r->remote, r->local, r->nelems, r->pe);
    shmem_quiet();
}
static void op_get(void *a) {
    struct arg *r = a;
    shmem_long_get(r->local, r->remote, r->nelems, r->pe);
}
static volatile long sink;
static void op_fetch_add(void *a) {
    struct arg *r = a;
    sink = shmem_long_atomic_fetch_add(r->remote, 1, r->pe);
}

static long ctl; /* symmetric: barriers per batch decided by PE 0 (0 = keep calibrating) */

int main(int argc, char **argv) {
    struct bench_cfg c = bench_parse(argc, argv);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *remote = shmem_calloc(BIG / sizeof(long), sizeof(long));
    long *local = aligned_alloc(4096, BIG);
    if (!remote || !local) {
        fprintf(stderr, "shmem4py bench: allocation failed\n");
        shmem_global_exit(1);
    }
    memset(local, 1, BIG);
    double ns[BENCH_MAX_SAMPLES];
    shmem_barrier_all();
    if (me == 0 && npes > 1) {
        struct {
            const char *name;
            bench_op op;
            size_t bytes;
        } figs[] = {
            {"put", op_put, 8},   {"put", op_put, BIG},         {"get", op_get, 8},
            {"get", op_get, BIG}, {"fetch_add", op_fetch_add, 8},
        };
        for (size_t f = 0; f < sizeof figs / sizeof figs[0]; f++) {
            struct arg a = {remote, local, figs[f].bytes / sizeof(long), npes - 1};
            bench_measure(figs[f].op, &a, &c, ns);
            bench_report(figs[f].name, figs[f].bytes, "us", ns, c.batches, 0);
        }
    }

    /* barrier_all: PE 0 calibrates the batch length and tells the others (as in barrier.c) */
    for (int i = 0; i < 10; i++) shmem_barrier_all();
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
        if (me == 0)
            for (int pe = 0; pe < npes; pe++) shmem_long_p(&ctl, decision, pe);
        shmem_quiet();
        shmem_barrier_all();
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
    free(local);
    shmem_free(remote);
    shmem_finalize();
    return 0;
}
