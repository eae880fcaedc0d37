// pes: 1 2 3 5 6 7
// timeout: 240
// env: SHMEM_TRANSPORT=ucx
// env: UCX_TLS=tcp,self
// Broadcasts, reductions and fcollects back to back with no barrier between them, every PE on the UCX route
// (each PE its own node, so every PE leads one: the node leaders' messages of
// src/collectives/message.rs), at leader counts that are and are not powers of two. A broadcast's
// root runs ahead of its readers there, its messages waiting at the readers until their own call
// takes them, until the window of message::RUN_AHEAD (8 MiB) is full and a call waits for the
// readers instead. Each round:
// - a team broadcast of a size that cycles from 8 bytes to 20000 (past 16 KiB), from a
//   root that changes every round, into the same destination every time, read right after;
// - a long sum and a double sum (of multiples of 1/8: exact in any order) on the world team, of 1,
//   16, 2048 and 2049 elements;
// - the same broadcast and long sum through the active-set routines (pSync arrays alternating),
//   and a broadcast on the team of the odd PEs, whose calls interleave with the world's;
// - fcollect on the world team and through fcollect64, of blocks whose total is on both sides of
//   the message limit;
// - collect on the world team, of lengths that differ between the PEs and the rounds (some 0), in
//   all on both sides of what the first exchange of a collect carries with the nodes' totals;
// Three of the rounds add a broadcast of 1 MiB (by messages in chunks from 4 leaders on), and calls
// past the largest message (4 MiB): a broadcast and a long sum, by team and by active set, which go
// as a sequence of pieces where the ring does not take them (2 and 3 leaders), and an fcollect and
// a collect, which take the ring's gets.
// Then a root far ahead of a slow reader (run_ahead, below), crossing that window, and alltoalls
// back to back, on both sides of the most a leader sends by messages (alltoalls, below).
// Every element is checked by every PE.
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "check.h"

enum { ROUNDS = 300, MAXN = 2600 };

static int me, npes;
static long errors;
static unsigned char bsrc[1 << 20], bdst[1 << 20];
static long lsrc[MAXN], ldst[MAXN];
static double dsrc[MAXN], ddst[MAXN];
static unsigned char fdst[8 * 4000];
static unsigned char cdst[8 * 12004];
/* Broadcasts use the first two, reductions the last two, each pair alternating. */
static long psync[4][SHMEM_REDUCE_SYNC_SIZE];
static long pwrk[2][MAXN / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];

/* Past the largest message: 4 MiB, and a few elements more. */
enum { LARGE = (4 << 20) + 24 };

static unsigned char byte(int round, size_t k) { return check_byte((unsigned long long)round, k); }
static long lval(int round, int pe, int k) { return (long)round * 100000 + pe * 1000 + k; }

static void broadcast_round(shmem_team_t team, int tme, int tsize, int round, size_t len) {
    int root = round % tsize;
    if (tme == root)
        for (size_t k = 0; k < len; k++) bsrc[k] = byte(round, k);
    shmem_broadcastmem(team, bdst, bsrc, len, root);
    size_t bad = 0;
    for (size_t k = 0; k < len; k++) bad += bdst[k] != byte(round, k);
    CHECK(bad == 0, "round %d: team broadcast of %zu bytes from member %d: %zu bytes wrong", round,
          len, root, bad);
}

/* The calls past the largest message, in round `round`, in symmetric buffers of LARGE bytes (`fd`:
 * npes blocks of LARGE / npes rounded up to 8; `cd`: LARGE and 16 bytes a PE). */
static void large_round(int round, unsigned char *bs, unsigned char *bd, long *ls, long *ld,
                        long *wrk, unsigned char *fd, unsigned char *cd) {
    int root = (round / 7 + 1) % npes;
    /* 1 MiB and 8 bytes: from 4 leaders the ring's chunks, by messages, of unequal sizes. */
    for (int form = 0; form < 2; form++) {
        size_t mid = (1 << 20) + 8;
        if (me == root)
            for (size_t k = 0; k < mid; k++) bs[k] = byte(round + 2 + form, k);
        if (form == 0)
            shmem_broadcastmem(SHMEM_TEAM_WORLD, bd, bs, mid, root);
        else
            shmem_broadcast64(bd, bs, mid / 8, root, 0, 0, npes, psync[round & 1]);
        size_t bad = 0;
        if (form == 0 || me != root)
            for (size_t k = 0; k < mid; k++) bad += bd[k] != byte(round + 2 + form, k);
        CHECK(bad == 0, "round %d: %s of %zu bytes from PE %d: %zu wrong", round,
              form ? "broadcast64" : "team broadcast", mid, root, bad);
    }
    if (me == root)
        for (size_t k = 0; k < LARGE; k++) bs[k] = byte(round, k);
    shmem_broadcastmem(SHMEM_TEAM_WORLD, bd, bs, LARGE, root);
    size_t bad = 0;
    for (size_t k = 0; k < LARGE; k++) bad += bd[k] != byte(round, k);
    CHECK(bad == 0, "round %d: team broadcast of %d bytes from PE %d: %zu wrong", round, LARGE,
          root, bad);
    if (me == root)
        for (size_t k = 0; k < LARGE; k++) bs[k] = byte(round + 1, k);
    shmem_broadcast64(bd, bs, LARGE / 8, root, 0, 0, npes, psync[round & 1]);
    bad = 0;
    if (me != root)
        for (size_t k = 0; k < LARGE; k++) bad += bd[k] != byte(round + 1, k);
    CHECK(bad == 0, "round %d: broadcast64 of %d words from PE %d: %zu bytes wrong", round,
          LARGE / 8, root, bad);

    int n = LARGE / 8;
    for (int k = 0; k < n; k++) ls[k] = lval(round, me, k);
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, ld, ls, n);
    long base = 0;
    for (int pe = 0; pe < npes; pe++) base += lval(round, pe, 0);
    bad = 0;
    for (int k = 0; k < n; k++) bad += ld[k] != base + (long)npes * k;
    CHECK(bad == 0, "round %d: long sum of %d elements: %zu wrong", round, n, bad);
    shmem_long_sum_to_all(ld, ls, n, 0, 0, npes, wrk, psync[2 + (round & 1)]);
    bad = 0;
    for (int k = 0; k < n; k++) bad += ld[k] != base + (long)npes * k;
    CHECK(bad == 0, "round %d: long_sum_to_all of %d elements: %zu wrong", round, n, bad);

    size_t block = (LARGE / npes + 7) / 8 * 8;
    for (size_t k = 0; k < block; k++) bs[k] = byte(round + me, k);
    shmem_fcollectmem(SHMEM_TEAM_WORLD, fd, bs, block);
    bad = 0;
    for (int pe = 0; pe < npes; pe++)
        for (size_t k = 0; k < block; k++) bad += fd[pe * block + k] != byte(round + pe, k);
    CHECK(bad == 0, "round %d: fcollectmem of %zu bytes a PE: %zu wrong", round, block, bad);

    /* collect of more than the largest message in all (each leader then gets the other nodes'
     * runs), the contributions of three lengths. */
    size_t mine = (size_t)(LARGE / npes + 8 * (me % 3)), at = 0;
    for (size_t k = 0; k < mine; k++) bs[k] = byte(round + 3 * me, k);
    shmem_collectmem(SHMEM_TEAM_WORLD, cd, bs, mine);
    bad = 0;
    for (int pe = 0; pe < npes; pe++)
        for (size_t k = 0; k < (size_t)(LARGE / npes + 8 * (pe % 3)); k++)
            bad += cd[at++] != byte(round + 3 * pe, k);
    CHECK(bad == 0, "round %d: collectmem of about %zu bytes a PE: %zu wrong", round, mine, bad);
}

/* A root far ahead of a slow reader: RUN calls back to back from PE 0, by team and by active set,
 * each stretch crossing the window a root may run ahead (8 MiB of messages, each counted 512 bytes
 * more, and 4 KiB at least: 2048 calls of 8 bytes fill it): 17000 of 8 bytes, then 600
 * alternating 8 bytes and 64 KiB (which UCX sends at once over TCP: full every 240 calls or so),
 * then 40 alternating 8 bytes and 1 MiB (which UCX moves once the reader has posted its receive:
 * full every 15 calls or so). The last PE sleeps before its first call, so the root's messages wait
 * at it in the network's queue; every reader checks every call's data. */
enum { SMALL = 17000, MEDIUM = SMALL + 600, RUN = MEDIUM + 40 };
static void run_ahead(void) {
    shmem_barrier_all();
    if (me == npes - 1 && npes > 1) {
        struct timespec nap = {0, 50 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    for (int form = 0; form < 2; form++) {
        long bad = 0, wrong_at = -1;
        for (int i = 0; i < RUN; i++) {
            size_t len = i < SMALL ? 8 : i % 2 == 0 ? 8 : i < MEDIUM ? 65536 : sizeof bsrc;
            if (me == 0) {
                for (size_t k = 0; k < len; k += 8) bsrc[k] = byte(i + form, k);
                bsrc[len - 1] = (unsigned char)i;
            }
            if (form == 0)
                shmem_broadcastmem(SHMEM_TEAM_WORLD, bdst, bsrc, len, 0);
            else
                shmem_broadcast64(bdst, bsrc, len / 8, 0, 0, 0, npes, psync[i & 1]);
            if (me == 0) continue;
            long off = 0;
            for (size_t k = 0; k < len; k += 8) off += bdst[k] != byte(i + form, k);
            off += bdst[len - 1] != (unsigned char)i;
            if (off && wrong_at < 0) wrong_at = i;
            bad += off;
        }
        CHECK(bad == 0, "%s %d calls from PE 0 back to back: %ld bytes wrong (first in call %ld)",
              form ? "broadcast64" : "team broadcastmem", RUN, bad, wrong_at);
    }
    shmem_barrier_all();
}

/* Alltoalls back to back with no barrier between them (by messages between the node leaders,
 * every PE a leader where each is its own node: src/collectives/pairwise.rs), on the world team,
 * the odd PEs' team and through alltoall64 (pSync alternating), some in place, of blocks of 8
 * bytes, 1000 (not a multiple of 8), 32 KiB (with 2 PEs a node, 4 blocks: the largest message a
 * leader of several members packs, 128 KiB), 128 KiB + 8 (one PE a node: an eager message; 2 PEs a
 * node: the flat algorithm's gets) and 300008 (one PE a node: a message that moves only once its
 * receive is posted). The last PE sleeps before its first call, so the others' messages wait at
 * it. Then two calls whose blocks are past what a leader sends by messages in one call (8 MiB in
 * all, in any layout of the PEs on nodes): the flat algorithm's gets. Every byte is checked by
 * every PE. */
enum { A2A_ROUNDS = 120, PAST = (8 << 20) + 8 };
static long apsync[2][SHMEM_ALLTOALL_SYNC_SIZE];
static unsigned char a2a(int round, int from, int to, size_t k) {
    return check_byte((unsigned long long)round << 32 | (unsigned long long)from << 16 | (unsigned)to, k);
}

/* One alltoall of round `round`: on the world team, the odd team or through alltoall64 (form 0,
 * 1, 2), from src or in place in dst; checked. */
static void alltoall_round(int round, shmem_team_t team, int form, int in_place, size_t b,
                           unsigned char *src, unsigned char *dst) {
    int tme = shmem_team_my_pe(team), tn = shmem_team_n_pes(team);
    if (form == 2) b = b / 8 * 8;
    unsigned char *s = in_place ? dst : src;
    for (int to = 0; to < tn; to++)
        for (size_t k = 0; k < b; k++) s[to * b + k] = a2a(round, tme, to, k);
    if (form == 2)
        shmem_alltoall64(dst, s, b / 8, 0, 0, npes, apsync[round & 1]);
    else
        shmem_alltoallmem(team, dst, s, b);
    size_t bad = 0;
    for (int from = 0; from < tn; from++)
        for (size_t k = 0; k < b; k++) bad += dst[from * b + k] != a2a(round, from, tme, k);
    CHECK(bad == 0, "round %d: %s%s of %zu-byte blocks: %zu bytes wrong", round,
          form == 2 ? "alltoall64" : form ? "odd team's alltoallmem" : "alltoallmem",
          in_place ? " in place" : "", b, bad);
}

static void alltoalls(shmem_team_t odd, unsigned char *src, unsigned char *dst) {
    static const size_t blocks[] = {8, 1000, 32768, 131080, 300008};
    shmem_barrier_all();
    if (me == npes - 1 && npes > 1) {
        struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    for (int round = 0; round < A2A_ROUNDS; round++) {
        int form = (round / 5) % 3; /* world team, odd team, alltoall64 */
        shmem_team_t team = form == 1 ? odd : SHMEM_TEAM_WORLD;
        if (team == SHMEM_TEAM_INVALID) continue;
        alltoall_round(round, team, form, (round / 15) % 2, blocks[round % 5], src, dst);
    }
    if (npes > 1) {
        size_t past = PAST / (npes - 1);
        unsigned char *ps = shmem_malloc(npes * past), *pd = shmem_malloc(npes * past);
        if (!(ps && pd)) {
            CHECK(0, "shmem_malloc of %d blocks of %zu bytes failed", npes, past);
            shmem_global_exit(1);
        }
        for (int round = A2A_ROUNDS; round < A2A_ROUNDS + 2; round++)
            alltoall_round(round, SHMEM_TEAM_WORLD, 0, round & 1, past, ps, pd);
        shmem_free(pd);
        shmem_free(ps);
    }
    shmem_barrier_all();
}

int main(void) {
    static const size_t lens[] = {8, 100, 4096, 16384, 20000};
    static const int counts[] = {1, 16, 2048, 2049};
    /* At 7 PEs the last is past the message limit (16 KiB in all). */
    static const size_t fblocks[] = {8, 104, 2000, 4000};
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < SHMEM_REDUCE_SYNC_SIZE; k++) psync[i][k] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < SHMEM_ALLTOALL_SYNC_SIZE; k++) apsync[i][k] = SHMEM_SYNC_VALUE;
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    shmem_team_t odd = SHMEM_TEAM_INVALID;
    if (npes > 1)
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd);
    unsigned char *bs = shmem_malloc(LARGE), *bd = shmem_malloc(LARGE);
    long *ls = shmem_malloc(LARGE), *ld = shmem_malloc(LARGE);
    long *wrk = shmem_malloc((LARGE / 16 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE) * sizeof(long));
    unsigned char *fd = shmem_malloc((size_t)npes * ((LARGE / npes + 7) / 8 * 8));
    unsigned char *cd = shmem_malloc(LARGE + 16 * (size_t)npes);
    if (!(bs && bd && ls && ld && wrk && fd && cd)) {
        CHECK(0, "shmem_malloc of the large buffers failed");
        shmem_global_exit(1);
    }
    shmem_barrier_all();
    for (int round = 0; round < ROUNDS; round++) {
        if (round % 149 == 0) large_round(round, bs, bd, ls, ld, wrk, fd, cd);
        size_t len = lens[round % 5];
        broadcast_round(SHMEM_TEAM_WORLD, me, npes, round, len);
        if (odd != SHMEM_TEAM_INVALID)
            broadcast_round(odd, shmem_team_my_pe(odd), shmem_team_n_pes(odd), round, len / 2);

        int n = counts[round % 4];
        for (int k = 0; k < n; k++) {
            lsrc[k] = lval(round, me, k);
            dsrc[k] = (me + 1) * 0.125 + k;
        }
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, ldst, lsrc, n);
        shmem_double_sum_reduce(SHMEM_TEAM_WORLD, ddst, dsrc, n);
        int bad = 0, dbad = 0;
        for (int k = 0; k < n; k++) {
            long want = 0;
            double dwant = 0;
            for (int pe = 0; pe < npes; pe++) {
                want += lval(round, pe, k);
                dwant += (pe + 1) * 0.125 + k;
            }
            bad += ldst[k] != want;
            dbad += ddst[k] != dwant;
        }
        CHECK(bad == 0, "round %d: long sum of %d elements: %d wrong", round, n, bad);
        CHECK(dbad == 0, "round %d: double sum of %d elements: %d wrong", round, n, dbad);

        /* The active-set forms: broadcast64 (the root's dest untouched) and long_sum_to_all. */
        int root = (round * 7) % npes;
        size_t words = len / 8;
        if (me == root)
            for (size_t k = 0; k < len; k++) bsrc[k] = byte(round + 1, k);
        shmem_broadcast64(bdst, bsrc, words, root, 0, 0, npes, psync[round & 1]);
        if (me != root) {
            size_t wrong = 0;
            for (size_t k = 0; k < words * 8; k++) wrong += bdst[k] != byte(round + 1, k);
            CHECK(wrong == 0, "round %d: broadcast64 of %zu words from PE %d: %zu bytes wrong",
                  round, words, root, wrong);
        }
        for (int k = 0; k < n; k++) lsrc[k] = lval(round + 1, me, k);
        shmem_long_sum_to_all(ldst, lsrc, n, 0, 0, npes, pwrk[round & 1], psync[2 + (round & 1)]);
        bad = 0;
        for (int k = 0; k < n; k++) {
            long want = 0;
            for (int pe = 0; pe < npes; pe++) want += lval(round + 1, pe, k);
            bad += ldst[k] != want;
        }
        CHECK(bad == 0, "round %d: long_sum_to_all of %d elements: %d wrong", round, n, bad);

        /* fcollect on the world team and through fcollect64, blocks of a size that cycles. */
        size_t block = fblocks[round % 4];
        for (size_t k = 0; k < block; k++) bsrc[k] = byte(round + me, k);
        shmem_fcollectmem(SHMEM_TEAM_WORLD, fdst, bsrc, block);
        size_t wrong = 0;
        for (int pe = 0; pe < npes; pe++)
            for (size_t k = 0; k < block; k++) wrong += fdst[pe * block + k] != byte(round + pe, k);
        CHECK(wrong == 0, "round %d: fcollectmem of %zu bytes a PE: %zu bytes wrong", round, block,
              wrong);
        shmem_fcollect64(fdst, bsrc, block / 8, 0, 0, npes, psync[round & 1]);
        wrong = 0;
        for (int pe = 0; pe < npes; pe++)
            for (size_t k = 0; k < block / 8 * 8; k++)
                wrong += fdst[pe * (block / 8 * 8) + k] != byte(round + pe, k);
        CHECK(wrong == 0, "round %d: fcollect64 of %zu words a PE: %zu bytes wrong", round,
              block / 8, wrong);

        /* collect of lengths that differ between the PEs and the rounds, some of them 0, in all
         * on both sides of what its first exchange carries with the totals (16 KiB), a node's
         * and a group's alone too. */
        size_t len_of[64], total = 0, scale = (size_t)1000 << round % 3;
        for (int pe = 0; pe < npes; pe++)
            total += len_of[pe] = (size_t)((round + pe) % 4) * scale + pe % 2;
        for (size_t k = 0; k < len_of[me]; k++) bsrc[k] = byte(round + 5 * me, k);
        shmem_collectmem(SHMEM_TEAM_WORLD, cdst, bsrc, len_of[me]);
        wrong = 0;
        size_t at = 0;
        for (int pe = 0; pe < npes; pe++)
            for (size_t k = 0; k < len_of[pe]; k++) wrong += cdst[at++] != byte(round + 5 * pe, k);
        CHECK(wrong == 0, "round %d: collectmem of %zu bytes in all: %zu bytes wrong", round, total,
              wrong);
    }
    run_ahead();
    alltoalls(odd, bs, bd);
    if (odd != SHMEM_TEAM_INVALID) shmem_team_destroy(odd);
    shmem_free(cd);
    shmem_free(fd);
    shmem_free(wrk);
    shmem_free(ld);
    shmem_free(ls);
    shmem_free(bd);
    shmem_free(bs);
    shmem_finalize();
    if (me == 0 && errors == 0) printf("coll_messages: %d rounds on %d PEs: OK\n", ROUNDS, npes);
    return errors != 0;
}
