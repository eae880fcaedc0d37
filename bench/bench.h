/* bench.h: timing and statistics helpers shared by the bench programs (header only).
 *
 * Every figure is measured as a series of timed batches. A batch repeats one operation `k` times,
 * where `k` is calibrated once per (figure, size) so that a batch lasts about `target_ns`; the
 * per-operation time of each batch is one sample. Reported: median, p10 and p90 of the samples.
 *
 * Output, one line per (figure, size), tab separated, read by bench/compare:
 *     figure  size  unit  median  p10  p90
 * unit is "us" (time per operation, lower is better), "MB/s" or "Mmsg/s" (higher is better).
 * For rate units p10/p90 are the 10th/90th percentiles of the rate (p10 the slower end).
 *
 * Options common to all programs (none of them changes what a figure measures, only how many
 * samples are taken and at which sizes):
 *   -q        quick: fewer sizes, fewer and shorter batches
 *   -t US     one batch lasts about US microseconds (default 1000, quick 200); slow transports
 *             (UCX over TCP, ~1000x shared memory) want longer batches so that one holds more
 *             than a handful of operations
 *   -b N      N batches per figure and size (default 41, quick 15; at most BENCH_MAX_SAMPLES)
 *   -s LIST   message sizes in bytes, comma separated, ascending, at most BENCH_MAX_SIZE each
 *             (e.g. -s 8,64,1024,65536,1048576); default: powers of 2 (quick: of 4) from 8 B
 *             to BENCH_MAX_SIZE
 * Size loops read `for (sz = bench_first_size(&c); sz; sz = bench_next_size(&c, sz))`.
 */
#ifndef RSHMEM_BENCH_H
#define RSHMEM_BENCH_H

#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_MAX_SAMPLES 256
#define BENCH_MAX_SIZE ((size_t)4 << 20) /* the programs' buffers are this large */
#define BENCH_MAX_SIZES 32

struct bench_cfg {
    int quick;
    int batches;        /* samples per figure and size */
    double target_ns;   /* desired duration of one batch */
    size_t max_size;    /* largest message size */
    int size_step;      /* multiply the size by this between points */
    int nsizes;         /* > 0: the sizes come from -s, in sizes[] */
    int use_data;       /* -w (coll.c, team.c): each call's source written before, dest read after */
    long calls;         /* -n (coll.c, team.c): > 0: calls per batch of a collective */
    const char *only;   /* -f (coll.c, team.c): the collectives measured, by name, comma-separated */
    size_t sizes[BENCH_MAX_SIZES];
};

static inline double bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline void bench_usage(const char *prog, const char *why) {
    fprintf(stderr, "%s: %s\nusage: %s [-q] [-w] [-t US] [-b N] [-n CALLS] [-f NAME,...] [-s SIZE,...]\n", prog,
            why, prog);
    exit(2);
}

/* Reads the common options; exits with a message on a bad one. */
static inline struct bench_cfg bench_parse(int argc, char **argv) {
    struct bench_cfg c;
    memset(&c, 0, sizeof c);
    double target_us = 0;
    int batches = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-q") == 0) {
            c.quick = 1;
            continue;
        }
        if (strcmp(a, "-w") == 0) {
            c.use_data = 1;
            continue;
        }
        if (strcmp(a, "-t") != 0 && strcmp(a, "-b") != 0 && strcmp(a, "-n") != 0 &&
            strcmp(a, "-f") != 0 && strcmp(a, "-s") != 0)
            bench_usage(argv[0], "unknown option");
        if (i + 1 >= argc) bench_usage(argv[0], "option needs a value");
        const char *v = argv[++i];
        char *end;
        if (a[1] == 't') {
            target_us = strtod(v, &end);
            if (*end || !(target_us > 0)) bench_usage(argv[0], "-t wants microseconds > 0");
        } else if (a[1] == 'b') {
            long n = strtol(v, &end, 10);
            if (*end || n < 1 || n > BENCH_MAX_SAMPLES) bench_usage(argv[0], "-b wants 1..256");
            batches = (int)n;
        } else if (a[1] == 'f') {
            c.only = v;
        } else if (a[1] == 'n') {
            long n = strtol(v, &end, 10);
            if (*end || n < 1 || n > 10000000) bench_usage(argv[0], "-n wants 1..10000000 calls");
            c.calls = n;
        } else {
            c.nsizes = 0;
            for (;;) {
                unsigned long long n = strtoull(v, &end, 10);
                if (end == v || n == 0 || n > BENCH_MAX_SIZE || c.nsizes == BENCH_MAX_SIZES ||
                    (c.nsizes > 0 && n <= c.sizes[c.nsizes - 1]))
                    bench_usage(argv[0], "-s wants ascending sizes in 1..4194304, at most 32");
                c.sizes[c.nsizes++] = (size_t)n;
                if (*end == 0) break;
                if (*end != ',') bench_usage(argv[0], "-s wants sizes separated by commas");
                v = end + 1;
            }
        }
    }
    c.batches = batches ? batches : c.quick ? 15 : 41;
    c.target_ns = target_us > 0 ? target_us * 1e3 : c.quick ? 200e3 : 1000e3;
    c.max_size = c.nsizes ? c.sizes[c.nsizes - 1] : BENCH_MAX_SIZE;
    c.size_step = c.quick ? 4 : 2;
    return c;
}

static int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of a sorted array. */
static inline double bench_pct(const double *sorted, int n, double p) {
    int i = (int)(p * (n - 1) + 0.5);
    if (i < 0) i = 0;
    if (i >= n) i = n - 1;
    return sorted[i];
}

/* Print one result line from per-operation times in ns. If `rate_scale` > 0 the values are turned
 * into rates: rate = rate_scale / time_ns (e.g. bytes*1e3 / ns = MB/s). */
static inline void bench_report(const char *figure, size_t size, const char *unit, double *ns,
                                int n, double rate_scale) {
    qsort(ns, (size_t)n, sizeof(double), bench_cmp_double);
    double med = bench_pct(ns, n, 0.5), p10 = bench_pct(ns, n, 0.1), p90 = bench_pct(ns, n, 0.9);
    if (rate_scale > 0) {
        /* slowest time = lowest rate: p10 of the rate is the p90 of the time */
        double r_med = rate_scale / med, r_p10 = rate_scale / p90, r_p90 = rate_scale / p10;
        printf("%s\t%zu\t%s\t%.4f\t%.4f\t%.4f\n", figure, size, unit, r_med, r_p10, r_p90);
    } else {
        printf("%s\t%zu\t%s\t%.4f\t%.4f\t%.4f\n", figure, size, unit, med / 1e3, p10 / 1e3,
               p90 / 1e3);
    }
    fflush(stdout);
}

/* The first message size of a size loop. */
static inline size_t bench_first_size(const struct bench_cfg *c) {
    return c->nsizes ? c->sizes[0] : 8;
}

/* The message size after `sz`, or 0 after the last. Without -s: `sz` times the step, the largest
 * size always included. */
static inline size_t bench_next_size(const struct bench_cfg *c, size_t sz) {
    if (c->nsizes) {
        for (int i = 0; i + 1 < c->nsizes; i++)
            if (c->sizes[i] == sz) return c->sizes[i + 1];
        return 0;
    }
    if (sz >= c->max_size) return 0;
    size_t n = sz * (size_t)c->size_step;
    return n > c->max_size ? c->max_size : n;
}

/* Calibrate how many repetitions of `op` make one batch last about target_ns. `op(arg)` runs the
 * operation once. Runs a warm-up too. */
typedef void (*bench_op)(void *arg);

static inline long bench_calibrate(bench_op op, void *arg, double target_ns) {
    for (int i = 0; i < 3; i++) op(arg); /* warm-up: page faults, connections, caches */
    long k = 1;
    for (;;) {
        double t0 = bench_now_ns();
        for (long i = 0; i < k; i++) op(arg);
        double dt = bench_now_ns() - t0;
        if (dt >= target_ns / 4 || k >= (1L << 24)) {
            long want = (long)((double)k * target_ns / (dt > 1 ? dt : 1));
            if (want < 1) want = 1;
            if (want > (1L << 24)) want = 1L << 24;
            return want;
        }
        k *= 4;
    }
}

/* Measure `op` alone on this PE: fills ns[] with per-op times of `batches` batches. */
static inline void bench_measure(bench_op op, void *arg, const struct bench_cfg *c, double *ns) {
    long k = bench_calibrate(op, arg, c->target_ns);
    for (int b = 0; b < c->batches; b++) {
        double t0 = bench_now_ns();
        for (long i = 0; i < k; i++) op(arg);
        ns[b] = (bench_now_ns() - t0) / (double)k;
    }
}

/* -w in the collective programs: a program writes what it sends and reads what it receives. The
 * source rewritten before every call is in the writer's cache, not in a reader's that kept it from
 * the call before; the destination read after the call is then in the reader's cache, not the
 * writer's. Without -w the same bytes stay put from call to call, which favours whichever
 * algorithm finds them where it left them. */
static volatile unsigned long bench_sink;

/* The buffers of a collective program (coll.c, team.c): `bytes` per PE, `use_data` from -w. */
struct bench_coll {
    int npes, me, use_data;
    size_t bytes;
    void *src, *dst;
};

/* With -w: `out` bytes of the source written before call `i` (the byte value changes per call). */
static inline void bench_coll_before(struct bench_coll *c, size_t out, long i) {
    if (c->use_data && out) memset(c->src, (int)(i & 0x7f) + 1, out);
}

/* With -w: `in` bytes of the destination read after the call. */
static inline void bench_coll_after(struct bench_coll *c, size_t in) {
    if (!c->use_data) return;
    const unsigned long *w = c->dst;
    unsigned long sum = 0;
    for (size_t k = 0; k < in / sizeof *w; k++) sum += w[k];
    bench_sink += sum;
}

#ifdef SHMEM_MAJOR_VERSION /* the OpenSHMEM programs (limits.c is plain C) */
/* Time a collective that every PE calls: a fixed number of calls per batch, the same on every PE
 * (fewer for bigger messages), a barrier before each batch. A batch's time is that of the PE that
 * took longest: a collective has completed when every PE has returned from it, and a PE that
 * returns early (the root of a broadcast, which need not wait for its readers) measures only its
 * own part. PE `reporter` reports. `op(arg, i)` makes call number i (for alternating pSync arrays
 * and the like). Needs <shmem.h> included first. */
typedef void (*bench_coll_op)(void *arg, long i);

#define BENCH_MAX_PES 64
/* Every PE's batch times, gathered at the reporter (symmetric: a global). */
static double bench_pe_ns[BENCH_MAX_PES][BENCH_MAX_SAMPLES];

static inline void bench_collective(const char *figure, size_t bytes, int npes, int reporter,
                                    const struct bench_cfg *c, double *ns, bench_coll_op op,
                                    void *arg) {
    if (c->only) { /* every PE skips the same figures */
        size_t len = strlen(figure);
        const char *at = c->only;
        while (at && !(strncmp(at, figure, len) == 0 && (at[len] == ',' || at[len] == 0))) {
            at = strchr(at, ',');
            if (at) at++;
        }
        if (!at) return;
    }
    long per_batch = (long)((c->quick ? 2 : 8) * ((size_t)1 << 20) / (bytes + 4096) / npes);
    if (per_batch < 4) per_batch = 4;
    if (per_batch > 2000) per_batch = 2000;
    if (c->calls > 0) per_batch = c->calls;
    long call = 0;
    for (int b = -1; b < c->batches; b++) { /* batch -1 warms up */
        shmem_barrier_all();
        double t0 = bench_now_ns();
        for (long i = 0; i < per_batch; i++) op(arg, call++);
        if (b >= 0) ns[b] = (bench_now_ns() - t0) / (double)per_batch;
    }
    int me = shmem_my_pe();
    if (npes > BENCH_MAX_PES) {
        fprintf(stderr, "bench_collective: at most %d PEs\n", BENCH_MAX_PES);
        shmem_global_exit(1);
    }
    shmem_putmem(bench_pe_ns[me], ns, (size_t)c->batches * sizeof(double), reporter);
    shmem_barrier_all();
    if (me == reporter) {
        for (int b = 0; b < c->batches; b++)
            for (int pe = 0; pe < npes; pe++)
                if (bench_pe_ns[pe][b] > ns[b]) ns[b] = bench_pe_ns[pe][b];
        /* One row per PE count: bench/compare runs these programs at several. */
        char name[128];
        snprintf(name, sizeof name, "%s@%dPE", figure, npes);
        bench_report(name, bytes, "us", ns, c->batches, 0);
    }
    /* The reporter has read every PE's times before the next figure's puts overwrite them. */
    shmem_barrier_all();
}
#endif

#endif
