/* counts.c: one collective, repeated, for counting its network messages and bytes per PE
 * (bench/counts).
 *
 *   counts COLLECTIVE ITERATIONS [BYTES]
 *
 * COLLECTIVE is one of
 *   none        nothing between shmem_init and shmem_finalize (the baseline of the others)
 *   barrier     shmem_barrier_all
 *   broadcast   shmem_broadcastmem on SHMEM_TEAM_WORLD from PE 0, BYTES bytes (default 8)
 *   reduce      shmem_long_sum_reduce on SHMEM_TEAM_WORLD, BYTES / 8 longs (default one)
 *   dreduce     shmem_double_sum_reduce on SHMEM_TEAM_WORLD, BYTES / 8 doubles (default one)
 *   fcollect    shmem_fcollectmem on SHMEM_TEAM_WORLD, BYTES / npes bytes from each PE (at least
 *               8), so that every PE receives about BYTES
 *   collect     shmem_collectmem on SHMEM_TEAM_WORLD, as fcollect but 8 bytes more from the PEs
 *               of odd number
 *   alltoall    shmem_alltoallmem on SHMEM_TEAM_WORLD, blocks of BYTES / npes bytes (at least 8),
 *               so that every PE sends about BYTES
 *   scan        shmem_long_sum_inscan on SHMEM_TEAM_WORLD, BYTES / 8 longs (default one)
 * Every PE checks every element of each result (a wrong one ends the job with status 1); PE 0
 * prints
 *   counts: COLLECTIVE ITERATIONS us-per-call
 * Run under SHMEM_COUNTS=1, every PE prints its network operations and bytes at shmem_finalize:
 * the counts of a run less those of `none` at the same shape, divided by ITERATIONS, are those of
 * one call. The first call is not timed (it connects what the later ones use).
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void fail(const char *what, long i, long k, double expected, double got) {
    fprintf(stderr, "counts: PE %d: %s call %ld element %ld: expected %.17g, got %.17g\n",
            shmem_my_pe(), what, i, k, expected, got);
    shmem_global_exit(1);
}

static size_t bytes;
static unsigned char *bsrc, *bdst;
static long *lsrc, *ldst;
static double *dsrc, *ddst;

static void one(const char *what, long i, int me, int npes) {
    size_t n = bytes / 8;
    if (strcmp(what, "barrier") == 0) {
        shmem_barrier_all();
    } else if (strcmp(what, "broadcast") == 0) {
        if (me == 0)
            for (size_t k = 0; k < bytes; k++) bsrc[k] = (unsigned char)(i + k);
        shmem_broadcastmem(SHMEM_TEAM_WORLD, bdst, bsrc, bytes, 0);
        for (size_t k = 0; k < bytes; k++)
            if (bdst[k] != (unsigned char)(i + k)) fail(what, i, (long)k, (unsigned char)(i + k), bdst[k]);
    } else if (strcmp(what, "reduce") == 0) {
        for (size_t k = 0; k < n; k++) lsrc[k] = i * 1000 + me + (long)k;
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, ldst, lsrc, n);
        for (size_t k = 0; k < n; k++) {
            long expected = (i * 1000 + (long)k) * npes + (long)npes * (npes - 1) / 2;
            if (ldst[k] != expected) fail(what, i, (long)k, (double)expected, (double)ldst[k]);
        }
    } else if (strcmp(what, "fcollect") == 0) {
        size_t each = bytes / (size_t)npes < 8 ? 8 : bytes / (size_t)npes;
        for (size_t k = 0; k < each; k++) bsrc[k] = (unsigned char)(i + me * 3 + (long)k);
        shmem_fcollectmem(SHMEM_TEAM_WORLD, bdst, bsrc, each);
        for (int pe = 0; pe < npes; pe++)
            for (size_t k = 0; k < each; k++) {
                unsigned char want = (unsigned char)(i + pe * 3 + (long)k);
                if (bdst[(size_t)pe * each + k] != want)
                    fail(what, i, (long)((size_t)pe * each + k), want, bdst[(size_t)pe * each + k]);
            }
    } else if (strcmp(what, "collect") == 0) {
        size_t each = bytes / (size_t)npes < 8 ? 8 : bytes / (size_t)npes;
        size_t mine = each + (size_t)(me % 2) * 8;
        for (size_t k = 0; k < mine; k++) bsrc[k] = (unsigned char)(i + me * 3 + (long)k);
        shmem_collectmem(SHMEM_TEAM_WORLD, bdst, bsrc, mine);
        size_t at = 0;
        for (int pe = 0; pe < npes; pe++)
            for (size_t k = 0; k < each + (size_t)(pe % 2) * 8; k++, at++) {
                unsigned char want = (unsigned char)(i + pe * 3 + (long)k);
                if (bdst[at] != want) fail(what, i, (long)at, want, bdst[at]);
            }
    } else if (strcmp(what, "alltoall") == 0) {
        size_t each = bytes / (size_t)npes < 8 ? 8 : bytes / (size_t)npes;
        for (int pe = 0; pe < npes; pe++)
            for (size_t k = 0; k < each; k++)
                bsrc[(size_t)pe * each + k] = (unsigned char)(i + me * 3 + pe * 5 + (long)k);
        shmem_alltoallmem(SHMEM_TEAM_WORLD, bdst, bsrc, each);
        for (int pe = 0; pe < npes; pe++)
            for (size_t k = 0; k < each; k++) {
                unsigned char want = (unsigned char)(i + pe * 3 + me * 5 + (long)k);
                if (bdst[(size_t)pe * each + k] != want)
                    fail(what, i, (long)((size_t)pe * each + k), want, bdst[(size_t)pe * each + k]);
            }
    } else if (strcmp(what, "scan") == 0) {
        for (size_t k = 0; k < n; k++) lsrc[k] = i * 1000 + me + (long)k;
        shmem_long_sum_inscan(SHMEM_TEAM_WORLD, ldst, lsrc, n);
        for (size_t k = 0; k < n; k++) {
            long expected = (i * 1000 + (long)k) * (me + 1) + (long)me * (me + 1) / 2;
            if (ldst[k] != expected) fail(what, i, (long)k, (double)expected, (double)ldst[k]);
        }
    } else if (strcmp(what, "dreduce") == 0) {
        /* Small integers: the sum is exact in any order of combination. */
        for (size_t k = 0; k < n; k++) dsrc[k] = (double)(i + me + (long)(k % 1000));
        shmem_double_sum_reduce(SHMEM_TEAM_WORLD, ddst, dsrc, n);
        for (size_t k = 0; k < n; k++) {
            double expected = (double)((i + (long)(k % 1000)) * npes + (long)npes * (npes - 1) / 2);
            if (ddst[k] != expected) fail(what, i, (long)k, expected, ddst[k]);
        }
    }
}

int main(int argc, char **argv) {
    const char *names[] = {"none",     "barrier", "broadcast", "reduce", "dreduce",
                           "fcollect", "collect", "alltoall",  "scan"};
    int known = 0;
    for (int k = 0; argc >= 3 && k < 9; k++) known |= strcmp(argv[1], names[k]) == 0;
    if ((argc != 3 && argc != 4) || !known) {
        fprintf(stderr,
                "usage: %s none|barrier|broadcast|reduce|dreduce|fcollect|collect|alltoall|scan "
                "ITERATIONS "
                "[BYTES]\n",
                argv[0]);
        return 2;
    }
    long iters = atol(argv[2]);
    bytes = argc == 4 ? (size_t)atol(argv[3]) : 8;
    if (bytes < 8) bytes = 8;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    /* fcollect, collect and alltoall: at most max(8, bytes / npes) + 8 bytes from (to) each PE. */
    size_t blen = (bytes < (size_t)npes * 8 ? (size_t)npes * 8 : bytes) + (size_t)npes * 8;
    bsrc = shmem_malloc(blen);
    bdst = shmem_malloc(blen);
    lsrc = shmem_malloc(bytes);
    ldst = shmem_malloc(bytes);
    dsrc = shmem_malloc(bytes);
    ddst = shmem_malloc(bytes);
    if (!bsrc || !bdst || !lsrc || !ldst || !dsrc || !ddst) {
        fprintf(stderr, "counts: PE %d: shmem_malloc of %zu bytes failed\n", me, bytes);
        shmem_global_exit(1);
    }
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
