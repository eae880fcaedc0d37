// pes: 1 2 3 4 8
// timeout: 240
// Back-to-back collectives of every kind (broadcast, collect, fcollect, alltoall, alltoalls, sum
// and max reductions, in place too, inclusive and exclusive scans) and of many sizes, from staged
// ones to ones larger than any scratch buffer, on three overlapping teams and on two active sets,
// with the root moving and never a barrier between calls. After each call the PE checks its whole
// destination, then overwrites its source and destination at once (a library still reading the
// source, or writing the destination late, would show in a later check), and on some calls one PE
// dawdles before entering while the others run ahead: its destination, filled with a sentinel,
// must be untouched until it enters.
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "check.h"

enum { CALLS = 420, MAXB = 40000, MAXPES = 8 };

static int me, npes;
static long errors;
static unsigned char *src, *dst;
static long psync[2][2][SHMEM_BCAST_SYNC_SIZE > SHMEM_REDUCE_SYNC_SIZE ? SHMEM_BCAST_SYNC_SIZE
                                                                          : SHMEM_REDUCE_SYNC_SIZE];
static long pwrk[MAXB / 8 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long aset_calls[2]; /* calls on each active set, for its pSync pair */

/* Byte k of team PE i's contribution to call c. */
static unsigned char byte(int c, int i, size_t k) { return check_byte((unsigned long long)c << 32 | (unsigned)i, k); }
/* Element k of team PE i's contribution to a reduction in call c. */
static long elem(int c, int i, size_t k) { return (long)((c * 5 + i * 11 + k * 3) % 1000) - 300; }

static const size_t sizes[] = {1, 8, 24, 100, 1000, 2048, 4096, 9000, 16384, 17000, 40000};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

struct group {
    shmem_team_t team; /* SHMEM_TEAM_INVALID for an active set */
    int start, logstride, size, me, aset, psi; /* psi: which pSync pair (active sets) */
};

static void fill_src(int c, int i, size_t n) {
    for (size_t k = 0; k < n; k++) src[k] = byte(c, i, k);
}

/* Overwrites source and destination right after a call: the call must be done with both. */
static void scribble(size_t n) {
    memset(src, 0xA5, n);
    memset(dst, 0x5A, n);
}

static void run(int c, struct group *g) {
    int n = g->size, i = g->me, kind = c % 9;
    size_t bytes = sizes[(c / 9 + c) % NSIZES];
    int root = (c * 7 + c / 5) % n;
    long *ls = (long *)src, *ld = (long *)dst;
    size_t nl = (bytes + 7) / 8, total = 0;
    long *ps = psync[g->psi][aset_calls[g->psi]++ & 1];

    /* A sentinel in the destination; one member dawdles before entering. */
    memset(dst, 0xEE, MAXB * (size_t)MAXPES);
    if (i == c % n && c % 3 == 0) nanosleep(&(struct timespec){0, 2000000}, NULL);
    for (size_t k = 0; k < MAXB * (size_t)MAXPES; k++)
        if (dst[k] != 0xEE) {
            CHECK(0, "call %d (kind %d): destination byte %zu is %#x before this PE entered", c, kind, k,
                  dst[k]);
            break;
        }

    switch (kind) {
    case 0: /* broadcast */
        bytes = g->aset ? nl * 8 : bytes;
        fill_src(c, i == root ? 0 : i + 100, bytes);
        if (g->aset) {
            shmem_broadcast64(dst, src, nl, root, g->start, g->logstride, n, ps);
            for (size_t k = 0; k < bytes && i == root; k++)
                if (dst[k] != 0xEE) {
                    CHECK(0, "call %d broadcast64: the root's destination byte %zu changed", c, k);
                    break;
                }
        } else
            shmem_broadcastmem(g->team, dst, src, bytes, root);
        for (size_t k = 0; k < bytes && i != root; k++)
            if (dst[k] != byte(c, 0, k)) {
                CHECK(0, "call %d broadcast %zu B from %d: byte %zu is %#x, want %#x", c, bytes, root, k,
                      dst[k], byte(c, 0, k));
                break;
            }
        if (!g->aset && i == root)
            CHECK(memcmp(dst, src, bytes) == 0, "call %d broadcast: the root's destination differs", c);
        total = bytes;
        break;
    case 1: /* fcollect */
        bytes = g->aset ? nl * 8 : bytes;
        fill_src(c, i, bytes);
        if (g->aset)
            shmem_fcollect64(dst, src, nl, g->start, g->logstride, n, ps);
        else
            shmem_fcollectmem(g->team, dst, src, bytes);
        for (int j = 0; j < n; j++)
            for (size_t k = 0; k < bytes; k++)
                if (dst[j * bytes + k] != byte(c, j, k)) {
                    CHECK(0, "call %d fcollect %zu B: block %d byte %zu is %#x", c, bytes, j, k,
                          dst[j * bytes + k]);
                    j = n;
                    break;
                }
        total = n * bytes;
        break;
    case 2: { /* collect, uneven (some empty) */
        size_t mine = (bytes * (size_t)(i + c % 3)) % (bytes + 1);
        mine = g->aset ? mine / 8 * 8 : mine;
        fill_src(c, i, mine);
        if (g->aset)
            shmem_collect64(dst, src, mine / 8, g->start, g->logstride, n, ps);
        else
            shmem_collectmem(g->team, dst, src, mine);
        size_t at = 0;
        for (int j = 0; j < n; j++) {
            size_t len = (bytes * (size_t)(j + c % 3)) % (bytes + 1);
            len = g->aset ? len / 8 * 8 : len;
            for (size_t k = 0; k < len; k++)
                if (dst[at + k] != byte(c, j, k)) {
                    CHECK(0, "call %d collect: block %d (%zu B at %zu) byte %zu is %#x", c, j, len, at,
                          k, dst[at + k]);
                    break;
                }
            at += len;
        }
        total = at;
        break;
    }
    case 3: { /* alltoall: block j of the source goes to member j */
        size_t b = bytes / n / 8 * 8 + 8;
        for (int j = 0; j < n; j++)
            for (size_t k = 0; k < b; k++) src[j * b + k] = byte(c, i * MAXPES + j, k);
        if (g->aset)
            shmem_alltoall64(dst, src, b / 8, g->start, g->logstride, n, ps);
        else
            shmem_alltoallmem(g->team, dst, src, b);
        for (int j = 0; j < n; j++)
            for (size_t k = 0; k < b; k++)
                if (dst[j * b + k] != byte(c, j * MAXPES + i, k)) {
                    CHECK(0, "call %d alltoall %zu B: block %d byte %zu is %#x", c, b, j, k, dst[j * b + k]);
                    j = n;
                    break;
                }
        total = n * b;
        break;
    }
    case 4: { /* alltoalls of longs, strides 2 (dest) and 3 (source) */
        size_t ne = nl / (size_t)n / 3 + 1;
        for (int j = 0; j < n; j++)
            for (size_t k = 0; k < ne; k++) ls[(j * ne + k) * 3] = elem(c, i * MAXPES + j, k);
        if (g->aset)
            shmem_alltoalls64(dst, src, 2, 3, ne, g->start, g->logstride, n, ps);
        else
            shmem_long_alltoalls(g->team, ld, ls, 2, 3, ne);
        for (int j = 0; j < n; j++)
            for (size_t k = 0; k < ne; k++)
                if (ld[(j * ne + k) * 2] != elem(c, j * MAXPES + i, k)) {
                    CHECK(0, "call %d alltoalls %zu: from %d element %zu is %ld", c, ne, j, k,
                          ld[(j * ne + k) * 2]);
                    j = n;
                    break;
                }
        total = (n * ne) * 16;
        break;
    }
    case 5:   /* sum reduction */
    case 6: { /* max reduction in place */
        for (size_t k = 0; k < nl; k++) ls[k] = elem(c, i, k);
        long *out = kind == 6 ? ls : ld;
        if (g->aset && kind == 5)
            shmem_long_sum_to_all(out, ls, (int)nl, g->start, g->logstride, n, pwrk, ps);
        else if (g->aset)
            shmem_long_max_to_all(out, ls, (int)nl, g->start, g->logstride, n, pwrk, ps);
        else if (kind == 5)
            shmem_long_sum_reduce(g->team, out, ls, nl);
        else
            shmem_long_max_reduce(g->team, out, ls, nl);
        for (size_t k = 0; k < nl; k++) {
            long want = kind == 5 ? 0 : elem(c, 0, k);
            for (int j = 0; j < n; j++) {
                long v = elem(c, j, k);
                want = kind == 5 ? want + v : (v > want ? v : want);
            }
            if (out[k] != want) {
                CHECK(0, "call %d %s of %zu: element %zu is %ld, want %ld", c, kind == 5 ? "sum" : "max", nl,
                      k, out[k], want);
                break;
            }
        }
        total = nl * 8;
        break;
    }
    case 7:   /* inclusive scan (teams), or another broadcast on an active set */
    case 8: { /* exclusive scan */
        if (g->aset) {
            fill_src(c, i == root ? 0 : i + 100, bytes);
            shmem_broadcast32(dst, src, bytes / 4, root, g->start, g->logstride, n, ps);
            for (size_t k = 0; k < bytes / 4 * 4 && i != root; k++)
                if (dst[k] != byte(c, 0, k)) {
                    CHECK(0, "call %d broadcast32 from %d: byte %zu is %#x", c, root, k, dst[k]);
                    break;
                }
            total = bytes;
            break;
        }
        for (size_t k = 0; k < nl; k++) ls[k] = elem(c, i, k);
        if (kind == 7)
            shmem_long_sum_inscan(g->team, ld, ls, nl);
        else
            shmem_long_sum_exscan(g->team, ld, ls, nl);
        for (size_t k = 0; k < nl && (kind == 7 || i > 0); k++) {
            long want = 0;
            for (int j = 0; j < i + (kind == 7); j++) want += elem(c, j, k);
            if (ld[k] != want) {
                CHECK(0, "call %d %s of %zu: element %zu is %ld, want %ld", c, kind == 7 ? "inscan" : "exscan",
                      nl, k, ld[k], want);
                break;
            }
        }
        total = nl * 8;
        break;
    }
    }
    scribble(total > MAXB ? MAXB * (size_t)MAXPES : MAXB);
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes > MAXPES) {
        if (me == 0) fprintf(stderr, "coll_stress: at most %d PEs\n", MAXPES);
        shmem_global_exit(1);
    }
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            for (size_t k = 0; k < sizeof psync[0][0] / sizeof(long); k++) psync[a][b][k] = SHMEM_SYNC_VALUE;
    src = shmem_malloc(MAXB * (size_t)MAXPES);
    dst = shmem_malloc(MAXB * (size_t)MAXPES);
    CHECK(src && dst, "shmem_malloc failed");

    /* Teams: the world, the even PEs, PEs 1..n-1 (these two overlap); active sets: all PEs, and
     * the PEs 0, 2, 4, ... */
    struct group g[5];
    int ng = 0;
    shmem_team_t evens, upper;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens);
    shmem_team_split_strided(SHMEM_TEAM_WORLD, npes > 1, 1, npes > 1 ? npes - 1 : 1, NULL, 0, &upper);
    shmem_team_t teams[3] = {SHMEM_TEAM_WORLD, evens, upper};
    for (int t = 0; t < 3; t++)
        g[ng++] = (struct group){teams[t], 0, 0, shmem_team_n_pes(teams[t]), shmem_team_my_pe(teams[t]), 0, 0};
    g[ng++] = (struct group){SHMEM_TEAM_INVALID, 0, 0, npes, me, 1, 0};
    g[ng++] = (struct group){SHMEM_TEAM_INVALID, 0, 1, (npes + 1) / 2, me % 2 ? -1 : me / 2, 1, 1};
    shmem_barrier_all();

    int done = 0;
    for (int c = 0; c < CALLS; c++) {
        struct group *gr = &g[(c + c / 7) % ng];
        if (gr->me < 0 || gr->size < 1) continue;
        run(c, gr);
        done++;
    }
    shmem_barrier_all();
    long total_errors = errors;
    static long sum_in, sum_out;
    sum_in = total_errors;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &sum_out, &sum_in, 1);
    if (me == 0 && sum_out == 0) printf("coll_stress: %d PEs passed (%d calls on PE 0)\n", npes, done);
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return sum_out != 0;
}
