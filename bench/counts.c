/* counts.c: one collective, repeated, for counting its network messages per PE (bench/counts).
 *
 *   counts COLLECTIVE ITERATIONS
 *
 * COLLECTIVE is one of
 *   none        nothing between shmem_init and shmem_finalize (the baseline of the others)
 *   barrier     shmem_barrier_all
 *   broadcast   shmem_broadcastmem on SHMEM_TEAM_WORLD from PE 0, 8 bytes
 *   reduce      shmem_long_sum_reduce on SHMEM_TEAM_WORLD, one long (8 bytes)
 * Every PE checks each result (a wrong one ends the job with status 1); PE 0 prints
 *   counts: COLLECTIVE ITERATIONS us-per-call
 * Run under SHMEM_COUNTS=1, every PE prints its network operations at shmem_finalize: the counts
 * of a run less those of `none` at the same shape, divided by ITERATIONS, are the messages of one
 * call. The first call is not timed (it connects what the later ones use).
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long src, dst;
static unsigned char bsrc[8], bdst[8];

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void fail(const char *what, long i, long expected, long got) {
    fprintf(stderr, "counts: PE %d: %s call %ld: expected %ld, got %ld\n", shmem_my_pe(), what, i,
            expected, got);
    shmem_global_exit(1);
}

static void one(const char *what, long i, int me, int npes) {
    if (strcmp(what, "barrier") == 0) {
        shmem_barrier_all();
    } else if (strcmp(what, "broadcast") == 0) {
        if (me == 0)
            for (int k = 0; k < 8; k++) bsrc[k] = (unsigned char)(i + k);
        shmem_broadcastmem(SHMEM_TEAM_WORLD, bdst, bsrc, 8, 0);
        for (int k = 0; k < 8; k++)
            if (bdst[k] != (unsigned char)(i + k)) fail(what, i, (unsigned char)(i + k), bdst[k]);
    } else if (strcmp(what, "reduce") == 0) {
        src = i * 1000 + me;
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &dst, &src, 1);
        long expected = i * 1000 * npes + (long)npes * (npes - 1) / 2;
        if (dst != expected) fail(what, i, expected, dst);
    }
}

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[1], "none") && strcmp(argv[1], "barrier") &&
                      strcmp(argv[1], "broadcast") && strcmp(argv[1], "reduce"))) {
        fprintf(stderr, "usage: %s none|barrier|broadcast|reduce ITERATIONS\n", argv[0]);
        return 2;
    }
    long iters = atol(argv[2]);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    double t = 0;
    if (strcmp(argv[1], "none") != 0 && iters > 0) {
        one(argv[1], 0, me, npes);
        double start = now_us();
        for (long i = 1; i < iters; i++) one(argv[1], i, me, npes);
        t = iters > 1 ? (now_us() - start) / (double)(iters - 1) : 0;
    }
    if (me == 0) printf("counts: %s %ld %.1f\n", argv[1], iters, t);
    shmem_finalize();
    return 0;
}
