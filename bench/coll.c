/* coll.c: collective latency with the active-set (pSync) routines, which both OpenSHMEM 1.4-era
 * and current libraries have, at the PE counts bench/compare runs it with. Every PE calls every
 * collective; the time per call (us) is that of the PE that took longest over a batch of calls (a
 * broadcast's root may return before its readers have the data). Sizes are bytes per PE:
 *
 *   barrier        shmem_barrier over all PEs (size 0)
 *   broadcast      shmem_broadcast64 from PE 0, `size` bytes
 *   reduce_sum     shmem_long_sum_to_all, `size` bytes of longs
 *   fcollect       shmem_fcollect64, `size` bytes from every PE
 *   collect        shmem_collect64, `size` bytes from every PE (the path of sizes that may differ)
 *   alltoall       shmem_alltoall64, `size` bytes to every PE
 *
 * Consecutive calls alternate between two pSync arrays, as the spec allows without a barrier.
 * -s SIZES measures those sizes only (multiples of 8 up to 1 MiB; with -q up to 64 KiB).
 * -w: each call also writes its source first (the root's, for broadcast) and reads what it
 * received after, as a program would (bench.h, bench_coll_before); the figures keep their names.
 * -n CALLS: that many calls back to back in each batch (by default 8 MiB of data a batch, 4 to 2000
 * calls, each batch after a barrier).
 * -f NAME,...: only those collectives (names as printed, without the `@NPE`).
 * team.c measures the same with the team-based routines of OpenSHMEM 1.5.
 */
#include <shmem.h>
#include "bench.h"

#define MAX_PES 64
#define MAX_BYTES ((size_t)1 << 20)
#define PSYNC_LEN 1024 /* >= every SHMEM_*_SYNC_SIZE of the libraries measured */

static long psync[2][PSYNC_LEN];
static long pwrk[MAX_BYTES / sizeof(long) / 2 + 64];

static void op_barrier(void *a, long i) {
    struct bench_coll *c = a;
    shmem_barrier(0, 0, c->npes, psync[i & 1]);
}
static void op_broadcast(void *a, long i) {
    struct bench_coll *c = a;
    bench_coll_before(c, c->me == 0 ? c->bytes : 0, i);
    shmem_broadcast64(c->dst, c->src, c->bytes / 8, 0, 0, 0, c->npes, psync[i & 1]);
    bench_coll_after(c, c->me == 0 ? 0 : c->bytes); /* the root's dest is not written */
}
static void op_reduce(void *a, long i) {
    struct bench_coll *c = a;
    bench_coll_before(c, c->bytes, i);
    shmem_long_sum_to_all(c->dst, c->src, (int)(c->bytes / sizeof(long)), 0, 0, c->npes, pwrk,
                          psync[i & 1]);
    bench_coll_after(c, c->bytes);
}
static void op_fcollect(void *a, long i) {
    struct bench_coll *c = a;
    bench_coll_before(c, c->bytes, i);
    shmem_fcollect64(c->dst, c->src, c->bytes / 8, 0, 0, c->npes, psync[i & 1]);
    bench_coll_after(c, c->bytes * (size_t)c->npes);
}
static void op_collect(void *a, long i) {
    struct bench_coll *c = a;
    bench_coll_before(c, c->bytes, i);
    shmem_collect64(c->dst, c->src, c->bytes / 8, 0, 0, c->npes, psync[i & 1]);
    bench_coll_after(c, c->bytes * (size_t)c->npes);
}
static void op_alltoall(void *a, long i) {
    struct bench_coll *c = a;
    bench_coll_before(c, c->bytes * (size_t)c->npes, i);
    shmem_alltoall64(c->dst, c->src, c->bytes / 8, 0, 0, c->npes, psync[i & 1]);
    bench_coll_after(c, c->bytes * (size_t)c->npes);
}

int main(int argc, char **argv) {
    struct bench_cfg cfg = bench_parse(argc, argv);
    shmem_init();
    int npes = shmem_n_pes();
    if (npes > MAX_PES) {
        fprintf(stderr, "coll: at most %d PEs\n", MAX_PES);
        shmem_global_exit(1);
    }
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < PSYNC_LEN; i++) psync[s][i] = SHMEM_SYNC_VALUE;
    size_t room = MAX_BYTES * (size_t)npes;
    struct bench_coll c = {npes, shmem_my_pe(), cfg.use_data, 0, shmem_malloc(room), shmem_malloc(room)};
    if (!c.src || !c.dst) {
        fprintf(stderr, "coll: shmem_malloc of %zu bytes failed\n", room);
        shmem_global_exit(1);
    }
    memset(c.src, 1, room);
    double ns[BENCH_MAX_SAMPLES];
    shmem_barrier_all();

    bench_collective("barrier", 0, npes, 0, &cfg, ns, op_barrier, &c);
    size_t top = cfg.quick ? (size_t)64 << 10 : MAX_BYTES;
    /* -s picks the sizes (multiples of 8, at most 1 MiB); otherwise powers of 4 (quick: 16). */
    for (size_t sz = cfg.nsizes ? bench_first_size(&cfg) : 8; sz && sz <= top;
         sz = cfg.nsizes ? bench_next_size(&cfg, sz) : sz * (cfg.quick ? 16 : 4)) {
        if (sz % 8) continue;
        c.bytes = sz;
        bench_collective("broadcast", sz, npes, 0, &cfg, ns, op_broadcast, &c);
        bench_collective("reduce_sum", sz, npes, 0, &cfg, ns, op_reduce, &c);
        bench_collective("fcollect", sz, npes, 0, &cfg, ns, op_fcollect, &c);
        bench_collective("collect", sz, npes, 0, &cfg, ns, op_collect, &c);
        bench_collective("alltoall", sz, npes, 0, &cfg, ns, op_alltoall, &c);
    }
    shmem_barrier_all();
    shmem_free(c.dst);
    shmem_free(c.src);
    shmem_finalize();
    return 0;
}
