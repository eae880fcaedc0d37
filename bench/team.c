/* team.c: collective latency with the team-based routines of OpenSHMEM 1.5 on SHMEM_TEAM_WORLD
 * (an implementation without them fails to build this program; bench/compare then shows rshmem
 * only). Every PE calls every collective; the time per call (us) is that of the PE that took
 * longest over a batch of calls, as in coll.c. Sizes are bytes per PE, as in coll.c:
 *
 *   team_sync        shmem_team_sync (size 0)
 *   team_broadcast   shmem_broadcastmem from PE 0
 *   team_reduce_sum  shmem_long_sum_reduce
 *   team_fcollect    shmem_fcollectmem
 *   team_collect     shmem_collectmem, the same size from every PE (the path of varying sizes)
 *   team_alltoall    shmem_alltoallmem
 *
 * -s SIZES measures those sizes only (multiples of 8 up to 1 MiB; with -q up to 64 KiB).
 * -w: each call also writes its source first and reads what it received after, as in coll.c.
 * -n CALLS: that many calls back to back in each batch (by default 8 MiB of data a batch, 4 to 2000
 * calls, each batch after a barrier).
 * -f NAME,...: only those collectives (names as printed, without the `@NPE`).
 */
#include <shmem.h>
#include "bench.h"

#define MAX_BYTES ((size_t)1 << 20)

static void op_sync(void *a, long i) {
    (void)a, (void)i;
    shmem_team_sync(SHMEM_TEAM_WORLD);
}
static void op_broadcast(void *a, long i) {
    struct bench_coll *c = a;
    bench_coll_before(c, c->me == 0 ? c->bytes : 0, i);
    shmem_broadcastmem(SHMEM_TEAM_WORLD, c->dst, c->src, c->bytes, 0);
    bench_coll_after(c, c->me == 0 ? 0 : c->bytes);
}
static void op_reduce(void *a, long i) {
    struct bench_coll *c = a;
    bench_coll_before(c, c->bytes, i);
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, c->dst, c->src, c->bytes / sizeof(long));
    bench_coll_after(c, c->bytes);
}
static void op_fcollect(void *a, long i) {
    struct bench_coll *c = a;
    bench_coll_before(c, c->bytes, i);
    shmem_fcollectmem(SHMEM_TEAM_WORLD, c->dst, c->src, c->bytes);
    bench_coll_after(c, c->bytes * (size_t)c->npes);
}
static void op_collect(void *a, long i) {
    struct bench_coll *c = a;
    bench_coll_before(c, c->bytes, i);
    shmem_collectmem(SHMEM_TEAM_WORLD, c->dst, c->src, c->bytes);
    bench_coll_after(c, c->bytes * (size_t)c->npes);
}
static void op_alltoall(void *a, long i) {
    struct bench_coll *c = a;
    bench_coll_before(c, c->bytes * (size_t)c->npes, i);
    shmem_alltoallmem(SHMEM_TEAM_WORLD, c->dst, c->src, c->bytes);
    bench_coll_after(c, c->bytes * (size_t)c->npes);
}

int main(int argc, char **argv) {
    struct bench_cfg cfg = bench_parse(argc, argv);
    shmem_init();
    int npes = shmem_n_pes();
    size_t room = MAX_BYTES * (size_t)npes;
    struct bench_coll c = {npes, shmem_my_pe(), cfg.use_data, 0, shmem_malloc(room), shmem_malloc(room)};
    if (!c.src || !c.dst) {
        fprintf(stderr, "team: shmem_malloc of %zu bytes failed\n", room);
        shmem_global_exit(1);
    }
    memset(c.src, 1, room);
    double ns[BENCH_MAX_SAMPLES];
    shmem_barrier_all();

    bench_collective("team_sync", 0, npes, 0, &cfg, ns, op_sync, &c);
    size_t top = cfg.quick ? (size_t)64 << 10 : MAX_BYTES;
    /* -s picks the sizes (multiples of 8, at most 1 MiB), as in coll.c; otherwise powers of 4
       (quick: 16). */
    for (size_t sz = cfg.nsizes ? bench_first_size(&cfg) : 8; sz && sz <= top;
         sz = cfg.nsizes ? bench_next_size(&cfg, sz) : sz * (cfg.quick ? 16 : 4)) {
        if (sz % 8) continue;
        c.bytes = sz;
        bench_collective("team_broadcast", sz, npes, 0, &cfg, ns, op_broadcast, &c);
        bench_collective("team_reduce_sum", sz, npes, 0, &cfg, ns, op_reduce, &c);
        bench_collective("team_fcollect", sz, npes, 0, &cfg, ns, op_fcollect, &c);
        bench_collective("team_collect", sz, npes, 0, &cfg, ns, op_collect, &c);
        bench_collective("team_alltoall", sz, npes, 0, &cfg, ns, op_alltoall, &c);
    }
    shmem_barrier_all();
    shmem_free(c.dst);
    shmem_free(c.src);
    shmem_finalize();
    return 0;
}
