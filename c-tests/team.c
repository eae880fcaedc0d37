// pes: 1 2 3 4 5 8
// timeout: 120
// Teams: the predefined teams, translate_pe, get_config, team_ptr, strided splits (stride 1, 2 and
// negative), 2-D splits of the world and of a strided team, invalid arguments (nonzero and
// SHMEM_TEAM_INVALID on every PE), many teams alive at once, and a sync and a sum on each team,
// checked against what the PE numbers say. SHMEM_TEAM_SHARED must be the PEs shmem_ptr reaches.
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include "check.h"

static int me, npes;
static long errors;

static long src, dst;

/* Checks a team whose members are world PEs first + i * stride, i < size (this PE among them). */
static void check_team(const char *what, shmem_team_t t, int first, int stride, int size)
{
    int i = (me - first) / stride;
    CHECK(t != SHMEM_TEAM_INVALID, "%s: SHMEM_TEAM_INVALID for a member", what);
    if (t == SHMEM_TEAM_INVALID)
        return;
    CHECK(shmem_team_n_pes(t) == size, "%s: n_pes %d, expected %d", what, shmem_team_n_pes(t), size);
    CHECK(shmem_team_my_pe(t) == i, "%s: my_pe %d, expected %d", what, shmem_team_my_pe(t), i);
    for (int k = 0; k < size; k++) {
        int w = shmem_team_translate_pe(t, k, SHMEM_TEAM_WORLD);
        CHECK(w == first + k * stride, "%s: translate %d -> %d, expected %d", what, k, w,
              first + k * stride);
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, w, t) == k, "%s: translate back %d", what, w);
        CHECK(shmem_team_ptr(t, &src, k) == shmem_ptr(&src, w), "%s: team_ptr(%d)", what, k);
    }
    CHECK(shmem_team_ptr(t, &src, size) == NULL, "%s: team_ptr past the team", what);
    CHECK(shmem_team_sync(t) == 0, "%s: team_sync failed", what);
    src = me + 1;
    CHECK(shmem_long_sum_reduce(t, &dst, &src, 1) == 0, "%s: sum_reduce failed", what);
    long expect = 0;
    for (int k = 0; k < size; k++)
        expect += first + k * stride + 1;
    CHECK(dst == expect, "%s: sum of world PE + 1 is %ld, expected %ld", what, dst, expect);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();

    check_team("SHMEM_TEAM_WORLD", SHMEM_TEAM_WORLD, 0, 1, npes);
    /* SHMEM_TEAM_SHARED: exactly the PEs whose memory this PE addresses with shmem_ptr (every PE
     * under oshrun; only itself when SHMEM_TRANSPORT=ucx; the PEs of its host across hosts). */
    int shared[64], nshared = 0;
    for (int w = 0; w < npes && nshared < 64; w++)
        if (shmem_ptr(&src, w) != NULL)
            shared[nshared++] = w;
    CHECK(nshared >= 1, "shmem_ptr is NULL for every PE, this one too");
    if (nshared >= 1) {
        int stride = nshared > 1 ? shared[1] - shared[0] : 1;
        for (int k = 1; k < nshared; k++)
            CHECK(shared[k] - shared[k - 1] == stride, "the PEs shmem_ptr reaches are not evenly spaced");
        check_team("SHMEM_TEAM_SHARED", SHMEM_TEAM_SHARED, shared[0], stride, nshared);
    }
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1, "my_pe(INVALID) != -1");
    CHECK(shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1, "n_pes(INVALID) != -1");
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, npes, SHMEM_TEAM_WORLD) == -1,
          "translate of PE npes != -1");
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD) == -1,
          "translate from INVALID != -1");

    /* The even PEs, with a configuration. */
    shmem_team_config_t conf = {.num_contexts = 3}, got = {0};
    shmem_team_t even;
    int neven = (npes + 1) / 2;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, neven, &conf, SHMEM_TEAM_NUM_CONTEXTS,
                                      &even);
    CHECK(rc == 0, "split even: %d", rc);
    if (me % 2 == 0) {
        check_team("even", even, 0, 2, neven);
        CHECK(shmem_team_get_config(even, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 &&
                  got.num_contexts == 3,
              "get_config: num_contexts %d", got.num_contexts);
        /* A split of a split: every other even PE, in reverse order. */
        shmem_team_t rev;
        int nrev = (neven + 1) / 2;
        int last = (nrev - 1) * 2; /* team number in `even` */
        rc = shmem_team_split_strided(even, last, -2, nrev, NULL, 0, &rev);
        CHECK(rc == 0, "split reverse: %d", rc);
        if ((me / 2) % 2 == 0)
            check_team("reverse", rev, last * 2, -4, nrev);
        else
            CHECK(rev == SHMEM_TEAM_INVALID, "reverse: non-member got a team");
        shmem_team_destroy(rev);
    } else {
        CHECK(even == SHMEM_TEAM_INVALID, "even: odd PE got a team");
    }

    /* Invalid arguments: nonzero and SHMEM_TEAM_INVALID everywhere, no communication. */
    shmem_team_t bad = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes + 1, NULL, 0, &bad) != 0 &&
              bad == SHMEM_TEAM_INVALID,
          "split of npes + 1 PEs succeeded");
    bad = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, -1, 1, 1, NULL, 0, &bad) != 0 &&
              bad == SHMEM_TEAM_INVALID,
          "split from PE -1 succeeded");
    bad = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &bad) != 0 &&
              bad == SHMEM_TEAM_INVALID,
          "split of SHMEM_TEAM_INVALID succeeded");
    shmem_team_t bx = SHMEM_TEAM_WORLD, by = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &bx, NULL, 0, &by) != 0 &&
              bx == SHMEM_TEAM_INVALID && by == SHMEM_TEAM_INVALID,
          "split_2d with xrange 0 succeeded");

    /* 2-D splits for several widths, over the world and over the even team. */
    for (int xr = 1; xr <= npes + 1; xr++) {
        shmem_team_t x, y;
        rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, xr, NULL, 0, &x, NULL, 0, &y);
        CHECK(rc == 0, "split_2d(%d): %d", xr, rc);
        int w = xr > npes ? npes : xr;
        int row = me / w, col = me % w;
        char name[64];
        snprintf(name, sizeof name, "x axis of width %d", xr);
        check_team(name, x, row * w, 1, (npes - row * w) < w ? npes - row * w : w);
        snprintf(name, sizeof name, "y axis of width %d", xr);
        check_team(name, y, col, w, (npes - col + w - 1) / w);
        shmem_team_destroy(x);
        shmem_team_destroy(y);
    }
    if (me % 2 == 0 && neven > 1) {
        shmem_team_t x, y;
        rc = shmem_team_split_2d(even, 2, NULL, 0, &x, NULL, 0, &y);
        CHECK(rc == 0, "split_2d of even: %d", rc);
        int e = me / 2, row = e / 2, col = e % 2;
        check_team("x axis of even", x, 2 * (row * 2), 2, (neven - row * 2) < 2 ? 1 : 2);
        check_team("y axis of even", y, 2 * col, 4, (neven - col + 1) / 2);
        shmem_team_destroy(x);
        shmem_team_destroy(y);
    }

    /* Many teams alive at once: every PE prefix [0, k) for k = 1..npes, three times over. */
    enum { ROUNDS = 3 };
    shmem_team_t many[ROUNDS][8];
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 1; k <= npes && k <= 8; k++) {
            rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, k, NULL, 0, &many[r][k - 1]);
            CHECK(rc == 0, "prefix %d (round %d): %d", k, r, rc);
        }
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 1; k <= npes && k <= 8; k++) {
            if (me < k)
                check_team("prefix", many[r][k - 1], 0, 1, k);
            else
                CHECK(many[r][k - 1] == SHMEM_TEAM_INVALID, "prefix %d: non-member got a team", k);
        }
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 1; k <= npes && k <= 8; k++)
            shmem_team_destroy(many[r][k - 1]);
    shmem_team_destroy(even);

    /* Slots come back: create and destroy more teams than there are slots. */
    for (int i = 0; i < 100; i++) {
        shmem_team_t t;
        rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
        CHECK(rc == 0 && t != SHMEM_TEAM_INVALID, "create #%d: %d", i, rc);
        CHECK(shmem_team_sync(t) == 0, "sync on #%d", i);
        shmem_team_destroy(t);
    }

    shmem_barrier_all();
    if (errors)
        fprintf(stderr, "[PE %d] team: %ld errors\n", me, errors);
    shmem_finalize();
    return errors ? 1 : 0;
}
