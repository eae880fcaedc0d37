// pes: 1 2 3 4 8
// timeout: 120
// Many non-blocking fetching atomics in flight at once, completed by one quiet (the edges of the
// _nbi AMOs that amo_types.c, one call and one quiet at a time, does not reach):
//  - every PE issues OPS fetch_inc_nbi, spread over every PE's counter, half on the default
//    context and half on a private one, then one shmem_ctx_quiet and one shmem_quiet. Across
//    the job the values fetched from each counter must be exactly 0..n-1 (a permutation: no
//    update lost or duplicated, every fetched value delivered) and each counter must end at n;
//  - every PE issues one compare_swap_nbi (-1 -> its number) on every PE's word before the
//    quiets; on each word exactly one PE fetches -1, the word holds that PE's number, and every
//    other PE fetched it;
//  - fetch_nbi and swap_nbi in flight with them: each PE swaps its own word on every PE (one
//    swap per word, so the fetched value and the word's end are exact), and fetches a word set
//    before the barrier.
// OPS is above the UCX lane's bound of requests in flight (1024), so the oldest are waited for
// while later ones are issued.
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#define CHECK_LIMIT 30
#include "check.h"

#define OPS 3000
#define MAX_PES 64

static long counter;
static long word = -1;
static long own[MAX_PES];
static long fixed = 4242;
static int errors, me, npes;

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes > MAX_PES) {
        if (me == 0)
            fprintf(stderr, "amo_nbi_many: at most %d PEs\n", MAX_PES);
        shmem_finalize();
        return 1;
    }
    for (int i = 0; i < MAX_PES; i++)
        own[i] = 1000 * i;
    /* What each PE fetched: OPS counter values, then the cswap results, one per target. */
    size_t per_pe = OPS + (size_t)npes;
    long *mine = shmem_malloc(per_pe * sizeof(long));
    long *all = shmem_malloc(per_pe * (size_t)npes * sizeof(long));
    long swapped[MAX_PES], fetched[MAX_PES];
    shmem_ctx_t ctx;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
        CHECK(0, "shmem_ctx_create(SHMEM_CTX_PRIVATE) failed: half the operations on the default");
        ctx = SHMEM_CTX_DEFAULT;
    }
    shmem_barrier_all();

    for (int i = 0; i < OPS; i++) {
        int t = (me + i) % npes;
        if (i % 2)
            shmem_ctx_long_atomic_fetch_inc_nbi(ctx, &mine[i], &counter, t);
        else
            shmem_long_atomic_fetch_inc_nbi(&mine[i], &counter, t);
    }
    for (int t = 0; t < npes; t++) {
        shmem_long_atomic_compare_swap_nbi(&mine[OPS + t], &word, -1, me, t);
        shmem_long_atomic_swap_nbi(&swapped[t], &own[me], 1000 * me + 1 + t, t);
        shmem_long_atomic_fetch_nbi(&fetched[t], &fixed, t);
    }
    shmem_ctx_quiet(ctx);
    shmem_quiet();

    for (int t = 0; t < npes; t++) {
        CHECK(swapped[t] == 1000 * me, "swap_nbi on PE %d fetched %ld, expected %d", t, swapped[t],
              1000 * me);
        CHECK(fetched[t] == 4242, "fetch_nbi from PE %d fetched %ld", t, fetched[t]);
    }
    shmem_fcollect(SHMEM_TEAM_WORLD, all, mine, per_pe * sizeof(long) / sizeof(long));

    /* How many fetch_inc went to each counter: PE p's op i went to (p + i) % npes. */
    long expected = 0;
    for (int p = 0; p < npes; p++)
        for (int i = 0; i < OPS; i++)
            expected += (p + i) % npes == me;
    CHECK(counter == expected, "counter ends at %ld, expected %ld", counter, expected);
    /* The values fetched from this PE's counter, over the job: 0..expected-1, each once. */
    char *seen = calloc((size_t)expected + 1, 1);
    for (int p = 0; p < npes; p++)
        for (int i = 0; i < OPS; i++) {
            if ((p + i) % npes != me)
                continue;
            long v = all[(size_t)p * per_pe + (size_t)i];
            if (v < 0 || v >= expected)
                CHECK(0, "PE %d op %d fetched %ld from this counter (of %ld)", p, i, v, expected);
            else if (seen[v]++)
                CHECK(0, "value %ld fetched twice from this counter", v);
        }
    free(seen);

    /* compare_swap_nbi: exactly one PE found -1 on this PE's word, and the word is its number. */
    int winners = 0;
    for (int p = 0; p < npes; p++) {
        long v = all[(size_t)p * per_pe + OPS + (size_t)me];
        if (v == -1) {
            winners++;
            CHECK(word == p, "PE %d won the word but it holds %ld", p, word);
        } else {
            CHECK(v >= 0 && v < npes && v == word, "PE %d fetched %ld from the word (holds %ld)", p,
                  v, word);
        }
    }
    CHECK(winners == 1, "%d PEs fetched -1 from the word", winners);
    /* own[p] here was swapped once, by PE p. */
    for (int p = 0; p < npes; p++)
        CHECK(own[p] == 1000 * p + 1 + me, "own[%d] is %ld, expected %d", p, own[p],
              1000 * p + 1 + me);

    shmem_barrier_all();
    if (ctx != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(ctx);
    if (me == 0 && errors == 0)
        printf("amo_nbi_many: %d PEs, %d fetch_inc_nbi each, ok\n", npes, OPS);
    shmem_free(all);
    shmem_free(mine);
    shmem_finalize();
    return errors != 0;
}
