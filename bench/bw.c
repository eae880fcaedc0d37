/* bw.c: put and get bandwidth and message rate with streams of shmem_putmem_nbi (or
 * shmem_getmem_nbi) + shmem_quiet (2 PEs).
 *
 * PE 0 issues a window of non-blocking puts to PE 1 (the last PE), then one shmem_quiet; one
 * "operation" below is one such window. Consecutive puts of a window go to consecutive offsets of a
 * 4 MiB symmetric heap buffer (wrapping around), from a private source buffer. The gets read the
 * same offsets of PE 1's buffer into the private one.
 * Figures:
 *   put_bw       MB/s (1e6 bytes/s) by message size, window = enough puts for >= 1 MiB (max 64)
 *   put_msgrate  million messages/s for small sizes, window of 256 puts
 *   get_bw, get_msgrate  the same with shmem_getmem_nbi
 *   p_msgrate    million messages/s of blocking shmem_long_p to consecutive words, window of 256
 */
#include "bench.h"
#include <shmem.h>

#define MAXSZ ((size_t)4 << 20)

struct bw_arg {
    char *remote;
    char *local;
    size_t size;
    int window;
    int pe;
};

static void op_window(void *a) {
    struct bw_arg *r = a;
    size_t off = 0;
    for (int i = 0; i < r->window; i++) {
        shmem_putmem_nbi(r->remote + off, r->local + off, r->size, r->pe);
        off += r->size;
        if (off + r->size > MAXSZ) off = 0;
    }
    shmem_quiet();
}

static void op_p_window(void *a) {
    struct bw_arg *r = a;
    long *remote = (long *)r->remote;
    for (int i = 0; i < r->window; i++) shmem_long_p(&remote[i], i, r->pe);
    shmem_quiet();
}

static void op_get_window(void *a) {
    struct bw_arg *r = a;
    size_t off = 0;
    for (int i = 0; i < r->window; i++) {
        shmem_getmem_nbi(r->local + off, r->remote + off, r->size, r->pe);
        off += r->size;
        if (off + r->size > MAXSZ) off = 0;
    }
    shmem_quiet();
}

int main(int argc, char **argv) {
    struct bench_cfg c = bench_parse(argc, argv);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int peer = npes - 1;
    char *heap = shmem_malloc(MAXSZ);
    /* Page aligned, like the symmetric buffers: a local buffer 16 bytes past a page boundary makes
       memcpy hit 4K aliasing in one direction and measures that instead of the library. */
    char *local = aligned_alloc(4096, MAXSZ);
    if (!heap || !local) {
        fprintf(stderr, "bw: allocation failed\n");
        shmem_global_exit(1);
    }
    memset(local, 1, MAXSZ);
    memset(heap, 0, MAXSZ);
    double ns[BENCH_MAX_SAMPLES];
    shmem_barrier_all();

    struct {
        const char *bw, *rate;
        void (*op)(void *);
    } kinds[] = {{"put_bw", "put_msgrate", op_window}, {"get_bw", "get_msgrate", op_get_window}};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        for (size_t sz = bench_first_size(&c); sz; sz = bench_next_size(&c, sz)) {
            if (me == 0 && npes > 1) {
                int w = (int)(((size_t)1 << 20) / sz);
                if (w < 1) w = 1;
                if (w > 64) w = 64;
                struct bw_arg a = {heap, local, sz, w, peer};
                bench_measure(kinds[k].op, &a, &c, ns);
                /* ns = time per window; bytes per window = w*sz; MB/s = bytes / us = bytes*1e3/ns */
                bench_report(kinds[k].bw, sz, "MB/s", ns, c.batches, (double)w * (double)sz * 1e3);
            }
            shmem_barrier_all();
        }
        size_t rate_sizes[] = {8, 64, 512};
        for (size_t i = 0; i < sizeof rate_sizes / sizeof rate_sizes[0]; i++) {
            if (me == 0 && npes > 1) {
                struct bw_arg a = {heap, local, rate_sizes[i], 256, peer};
                bench_measure(kinds[k].op, &a, &c, ns);
                /* Mmsg/s = messages / us = 256 * 1e3 / ns */
                bench_report(kinds[k].rate, rate_sizes[i], "Mmsg/s", ns, c.batches, 256.0 * 1e3);
            }
            shmem_barrier_all();
        }
    }
    /* Blocking shmem_long_p, element by element to consecutive words. */
    if (me == 0 && npes > 1) {
        struct bw_arg a = {heap, local, 8, 256, peer};
        bench_measure(op_p_window, &a, &c, ns);
        bench_report("p_msgrate", 8, "Mmsg/s", ns, c.batches, 256.0 * 1e3);
    }
    shmem_barrier_all();
    shmem_free(heap);
    free(local);
    shmem_finalize();
    return 0;
}
