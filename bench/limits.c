/* limits.c: the physical limits of this machine, no SHMEM (build with plain cc -O2 -pthread).
 *
 * Figures:
 *   memcpy          us per memcpy of `size` bytes on one core (same private buffers every time,
 *                   so small sizes are cache resident, like the benchmarks' buffers)
 *   memcpy_bw       the same as MB/s
 *   atomic_local    us per __atomic fetch-add on a line that stays in this core's cache: the floor
 *                   of an uncontended AMO whose target nobody else touches (as in amo.c)
 *   pingpong_rtt    round trip of one cache line between two threads pinned to cores 0 and 1
 *                   (thread A stores, thread B sees it and stores back, A sees the answer)
 *   pingpong_oneway half of pingpong_rtt: one cache-line transfer between cores
 */
#include "bench.h"
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#define MAXSZ ((size_t)4 << 20)

struct memcpy_arg {
    char *dst, *src;
    size_t size;
};
static void op_memcpy(void *a) {
    struct memcpy_arg *m = a;
    memcpy(m->dst, m->src, m->size);
    __asm__ volatile("" ::: "memory");
}

#define STOP (-1L)
static _Alignas(128) _Atomic long flag;
static int pinned = 1;

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) pinned = 0;
}

static void *responder(void *unused) {
    (void)unused;
    pin(1);
    for (;;) {
        long v;
        while (((v = atomic_load_explicit(&flag, memory_order_acquire)) & 1) == 0)
            ;
        if (v == STOP) break; /* STOP is odd (-1) */
        atomic_store_explicit(&flag, v + 1, memory_order_release);
    }
    return NULL;
}

static _Alignas(128) long local_word;
static void op_atomic_local(void *unused) {
    (void)unused;
    __atomic_fetch_add(&local_word, 1, __ATOMIC_SEQ_CST);
}

static long counter;
static void op_pingpong(void *unused) {
    (void)unused;
    long v = counter * 2 + 1;
    counter++;
    atomic_store_explicit(&flag, v, memory_order_release);
    while (atomic_load_explicit(&flag, memory_order_acquire) != v + 1)
        ;
}

int main(int argc, char **argv) {
    struct bench_cfg c = bench_parse(argc, argv);
    double ns[BENCH_MAX_SAMPLES];
    char *src = aligned_alloc(4096, MAXSZ), *dst = aligned_alloc(4096, MAXSZ);
    if (!src || !dst) return 1;
    memset(src, 1, MAXSZ);
    memset(dst, 0, MAXSZ);
    pin(0);
    /* every power of two even in quick mode (cheap), so that each benchmark size has its limit */
    struct bench_cfg all = c;
    all.size_step = 2;
    for (size_t sz = bench_first_size(&all); sz; sz = bench_next_size(&all, sz)) {
        struct memcpy_arg m = {dst, src, sz};
        bench_measure(op_memcpy, &m, &c, ns);
        double copy[BENCH_MAX_SAMPLES];
        memcpy(copy, ns, sizeof(double) * (size_t)c.batches);
        bench_report("memcpy", sz, "us", ns, c.batches, 0);
        bench_report("memcpy_bw", sz, "MB/s", copy, c.batches, (double)sz * 1e3);
    }

    bench_measure(op_atomic_local, NULL, &c, ns);
    bench_report("atomic_local", 8, "us", ns, c.batches, 0);

    atomic_store(&flag, 0);
    pthread_t t;
    if (pthread_create(&t, NULL, responder, NULL) != 0) return 1;
    bench_measure(op_pingpong, NULL, &c, ns);
    double half[BENCH_MAX_SAMPLES];
    for (int i = 0; i < c.batches; i++) half[i] = ns[i] / 2;
    bench_report("pingpong_rtt", 64, "us", ns, c.batches, 0);
    bench_report("pingpong_oneway", 64, "us", half, c.batches, 0);
    atomic_store(&flag, STOP);
    pthread_join(t, NULL);
    if (!pinned) fprintf(stderr, "limits: could not pin threads to cores 0 and 1\n");
    free(src);
    free(dst);
    return 0;
}
