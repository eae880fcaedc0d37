/* rma.c: blocking put/get latency by size, and shmem_long_p / shmem_long_g latency (2 PEs).
 *
 * PE 0 is the only active PE; its target is PE 1 (the last PE), which waits in shmem_barrier_all.
 * Figures (unit us per operation):
 *   put_heap    shmem_putmem into a shmem_malloc'd buffer, followed by shmem_quiet (completed put)
 *   put_global  the same into a global (static) array
 *   get_heap    shmem_getmem from a shmem_malloc'd buffer
 *   get_global  shmem_getmem from a global array
 *   long_p      shmem_long_p + shmem_quiet (size 8)
 *   long_g      shmem_long_g (size 8)
 * The local side (source of a put, destination of a get) is a private malloc'd buffer.
 */
#include "bench.h"
#include <shmem.h>

#define MAXSZ ((size_t)4 << 20)

static char global_buf[MAXSZ];
static long global_long;

struct rma_arg {
    void *remote;
    void *local;
    size_t size;
    int pe;
};

static void op_put(void *a) {
    struct rma_arg *r = a;
    shmem_putmem(r->remote, r->local, r->size, r->pe);
    shmem_quiet();
}
static void op_get(void *a) {
    struct rma_arg *r = a;
    shmem_getmem(r->local, r->remote, r->size, r->pe);
}
static void op_long_p(void *a) {
    struct rma_arg *r = a;
    shmem_long_p((long *)r->remote, 42, r->pe);
    shmem_quiet();
}
static volatile long sink;
static void op_long_g(void *a) {
    struct rma_arg *r = a;
    sink = shmem_long_g((long *)r->remote, r->pe);
}

int main(int argc, char **argv) {
    struct bench_cfg c = bench_parse(argc, argv);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int peer = npes - 1;
    char *heap = shmem_malloc(MAXSZ);
    long *heap_long = shmem_malloc(sizeof(long));
    /* Page aligned, like the symmetric buffers: a local buffer 16 bytes past a page boundary makes
       memcpy hit 4K aliasing in one direction and measures that instead of the library. */
    char *local = aligned_alloc(4096, MAXSZ);
    if (!heap || !heap_long || !local) {
        fprintf(stderr, "rma: allocation failed\n");
        shmem_global_exit(1);
    }
    memset(local, 1, MAXSZ);
    memset(heap, 0, MAXSZ);
    double ns[BENCH_MAX_SAMPLES];
    shmem_barrier_all();

    struct {
        const char *name;
        bench_op op;
        void *remote;
    } figs[] = {
        {"put_heap", op_put, heap},
        {"put_global", op_put, global_buf},
        {"get_heap", op_get, heap},
        {"get_global", op_get, global_buf},
    };
    for (size_t f = 0; f < sizeof figs / sizeof figs[0]; f++) {
        for (size_t sz = bench_first_size(&c); sz; sz = bench_next_size(&c, sz)) {
            if (me == 0 && npes > 1) {
                struct rma_arg a = {figs[f].remote, local, sz, peer};
                bench_measure(figs[f].op, &a, &c, ns);
                bench_report(figs[f].name, sz, "us", ns, c.batches, 0);
            }
            shmem_barrier_all();
        }
    }
    if (me == 0 && npes > 1) {
        struct rma_arg a = {heap_long, NULL, 8, peer};
        bench_measure(op_long_p, &a, &c, ns);
        bench_report("long_p", 8, "us", ns, c.batches, 0);
        bench_measure(op_long_g, &a, &c, ns);
        bench_report("long_g", 8, "us", ns, c.batches, 0);
        a.remote = &global_long;
        bench_measure(op_long_p, &a, &c, ns);
        bench_report("long_p_global", 8, "us", ns, c.batches, 0);
        bench_measure(op_long_g, &a, &c, ns);
        bench_report("long_g_global", 8, "us", ns, c.batches, 0);
    }
    shmem_barrier_all();
    shmem_free(heap_long);
    shmem_free(heap);
    free(local);
    shmem_finalize();
    return 0;
}
