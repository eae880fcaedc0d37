// pes: 1 2 3 4 5 8
// timeout: 240
// Broadcasts, reductions, fcollect, collect and scans at the sizes where a team on several nodes
// changes algorithm (the leaders' binomial tree, or scatter or reduce-scatter then all-gather among
// the node leaders from 4 leaders and 32 KiB per leader up: 128 KiB, 16384 longs, at 4 nodes):
// element counts on both sides of that threshold and a prime that no team size divides, on the
// world, on the odd PEs and on every third PE (other node shapes under scripts/netns-hosts), in
// place and out of place, from several roots, and through the deprecated active-set forms. Each
// element is checked:
// - long sums, broadcasts and scans exactly;
// - double sums of small multiples of 1/4, exact in any order of combination, exactly;
// - double sums of values whose rounding depends on the order: the spec promises an associative
//   operation, not an order, so the check is that every PE of the team holds the same bits (PE 0's
//   result broadcast and compared) and that the value is within the rounding bound of the serial
//   sum (n * 2^-52 * sum of |x|), not that it equals the serial member-order sum bit for bit;
//   a double scan, within that bound of the serial prefix.
#include <shmem.h>
#include <stdio.h>
#include <string.h>
#define CHECK_LIMIT 30
#include "check.h"

static int me, npes;
static long errors;
enum { MAXN = 40009 };
static long psync[SHMEM_REDUCE_SYNC_SIZE], psync_bcast[SHMEM_BCAST_SYNC_SIZE];
/* pWrk: max(nreduce / 2 + 1, SHMEM_REDUCE_MIN_WRKDATA_SIZE) elements. */
static long pwrk_l[MAXN / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static double pwrk_d[MAXN / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE];
/* Element counts: one, small, just below and at 128 KiB of longs, and a large prime. */
static const int sizes[] = {1, 2049, 16383, 16384, MAXN};

static double magnitude(double x) { return x < 0 ? -x : x; }
static long lval(int i, int k) { return (long)((i * 7919 + k * 31) % 10007) - 5000; }
static double exact(int i, int k) { return (double)((i * 13 + k) % 1024) * 0.25; }
static double inexact(int i, int k) { return 1.0 / (double)(i + 3) + (double)(k % 97) * 0.1; }

static long *ls, *ld, *fd;
static double *ds, *dd, *db;
static unsigned char *bs, *bd;

static void reductions(shmem_team_t t, const char *team, int n)
{
    int size = shmem_team_n_pes(t), i = shmem_team_my_pe(t);
    for (int k = 0; k < n; k++) {
        ls[k] = lval(i, k);
        ld[k] = -1;
        ds[k] = exact(i, k);
        dd[k] = -1.0;
    }
    shmem_long_sum_reduce(t, ld, ls, n);
    shmem_double_sum_reduce(t, dd, ds, n);
    for (int k = 0; k < n; k++) {
        long lsum = 0;
        double dsum = 0;
        for (int j = 0; j < size; j++) {
            lsum += lval(j, k);
            dsum += exact(j, k);
        }
        CHECK(ld[k] == lsum, "%s n %d long sum [%d] = %ld, expected %ld", team, n, k, ld[k], lsum);
        CHECK(dd[k] == dsum, "%s n %d exact double sum [%d] = %.17g, expected %.17g", team, n, k,
              dd[k], dsum);
    }
    /* In place. */
    for (int k = 0; k < n; k++) {
        ls[k] = lval(i, k);
        ds[k] = exact(i, k);
    }
    shmem_long_sum_reduce(t, ls, ls, n);
    shmem_double_sum_reduce(t, ds, ds, n);
    for (int k = 0; k < n; k++) {
        long lsum = 0;
        double dsum = 0;
        for (int j = 0; j < size; j++) {
            lsum += lval(j, k);
            dsum += exact(j, k);
        }
        CHECK(ls[k] == lsum, "%s n %d in-place long sum [%d] = %ld, expected %ld", team, n, k,
              ls[k], lsum);
        CHECK(ds[k] == dsum, "%s n %d in-place exact double sum [%d] = %.17g, expected %.17g",
              team, n, k, ds[k], dsum);
    }
    /* Rounding that depends on the order: one result everywhere, near the serial one. */
    for (int k = 0; k < n; k++) {
        ds[k] = inexact(i, k);
        dd[k] = -1.0;
    }
    shmem_double_sum_reduce(t, dd, ds, n);
    shmem_double_broadcast(t, db, dd, n, 0);
    for (int k = 0; k < n; k++) {
        double serial = 0, bound = 0;
        for (int j = 0; j < size; j++) {
            serial += inexact(j, k);
            bound += magnitude(inexact(j, k));
        }
        bound *= (double)size * 0x1p-52;
        CHECK(memcmp(&dd[k], &db[k], sizeof(double)) == 0,
              "%s n %d double sum [%d] = %.17g here, %.17g on the team's PE 0", team, n, k, dd[k],
              db[k]);
        CHECK(magnitude(dd[k] - serial) <= bound, "%s n %d double sum [%d] = %.17g, serial %.17g", team,
              n, k, dd[k], serial);
    }
}

static void broadcasts(shmem_team_t t, const char *team, int n)
{
    int size = shmem_team_n_pes(t), i = shmem_team_my_pe(t);
    size_t nbytes = (size_t)n * sizeof(long) + 3; /* odd: chunks of every length */
    int roots[3] = {0, size - 1, size / 2};
    for (int r = 0; r < 3; r++) {
        int root = roots[r];
        if (r > 0 && (root == roots[0] || root == roots[r - 1]))
            continue;
        for (size_t k = 0; k < nbytes; k++) {
            bs[k] = check_byte((unsigned long long)i << 16 | (unsigned)root, k);
            bd[k] = 0xee;
        }
        shmem_broadcastmem(t, bd, bs, nbytes, root);
        for (size_t k = 0; k < nbytes; k++) {
            unsigned char want = check_byte((unsigned long long)root << 16 | (unsigned)root, k);
            CHECK(bd[k] == want, "%s n %d broadcast root %d [%zu] = %d, expected %d", team, n,
                  root, k, bd[k], want);
        }
        /* In place: the root's source is every destination. */
        for (int k = 0; k < n; k++)
            ls[k] = i == root ? lval(root, k) : -2;
        shmem_long_broadcast(t, ls, ls, n, root);
        for (int k = 0; k < n; k++)
            CHECK(ls[k] == lval(root, k), "%s n %d in-place broadcast root %d [%d] = %ld", team, n,
                  root, k, ls[k]);
    }
}

/* fcollect of n / size + 1 longs from each PE (the destination holds MAXN + size longs). */
static void fcollects(shmem_team_t t, const char *team, int n)
{
    int size = shmem_team_n_pes(t), i = shmem_team_my_pe(t);
    int each = n / size + 1;
    for (int k = 0; k < each; k++)
        ls[k] = lval(i, k) * 3 + i;
    for (int k = 0; k < each * size; k++)
        fd[k] = -9;
    shmem_long_fcollect(t, fd, ls, (size_t)each);
    for (int j = 0; j < size; j++)
        for (int k = 0; k < each; k++)
            CHECK(fd[j * each + k] == lval(j, k) * 3 + j, "%s n %d fcollect [%d] = %ld, expected %ld",
                  team, n, j * each + k, fd[j * each + k], lval(j, k) * 3 + j);
}

/* collect of a different number of longs from each PE (none from some), up to n / size + 1. */
static int collect_len(int i, int n, int size) { return (i * 7 + n) % (n / size + 2); }

static void collects(shmem_team_t t, const char *team, int n)
{
    int size = shmem_team_n_pes(t), i = shmem_team_my_pe(t);
    int mine = collect_len(i, n, size);
    for (int k = 0; k < mine; k++)
        ls[k] = lval(i, k) * 5 - i;
    for (int k = 0; k < n + size; k++)
        fd[k] = -9;
    shmem_long_collect(t, fd, ls, (size_t)mine);
    int at = 0;
    for (int j = 0; j < size; j++)
        for (int k = 0; k < collect_len(j, n, size); k++, at++)
            CHECK(fd[at] == lval(j, k) * 5 - j, "%s n %d collect [%d] (PE %d's %d) = %ld, expected %ld",
                  team, n, at, j, k, fd[at], lval(j, k) * 5 - j);
    for (int k = at; k < n + size; k++)
        CHECK(fd[k] == -9, "%s n %d collect wrote [%d] past the %d collected", team, n, k, at);
}

/* Scans: long sums exactly, inclusive and exclusive (0 on the team's PE 0), out of place and in
   place; double sums of values whose rounding depends on the order within the rounding bound of
   the serial prefix. */
static void scans(shmem_team_t t, const char *team, int n)
{
    int i = shmem_team_my_pe(t);
    for (int pass = 0; pass < 4; pass++) {
        int inclusive = pass % 2 == 0, in_place = pass >= 2;
        long *out = in_place ? ls : ld;
        for (int k = 0; k < n; k++) {
            ls[k] = lval(i, k);
            ld[k] = -3;
        }
        int rc = inclusive ? shmem_long_sum_inscan(t, out, ls, (size_t)n)
                           : shmem_long_sum_exscan(t, out, ls, (size_t)n);
        CHECK(rc == 0, "%s n %d long scan returned %d", team, n, rc);
        for (int k = 0; k < n; k++) {
            long want = 0;
            for (int j = 0; j < i + inclusive; j++)
                want += lval(j, k);
            CHECK(out[k] == want, "%s n %d long sum_%s%s [%d] = %ld, expected %ld", team, n,
                  inclusive ? "inscan" : "exscan", in_place ? " in place" : "", k, out[k], want);
        }
    }
    for (int k = 0; k < n; k++) {
        ds[k] = inexact(i, k);
        dd[k] = -1.0;
    }
    int rc = shmem_double_sum_inscan(t, dd, ds, (size_t)n);
    CHECK(rc == 0, "%s n %d double inscan returned %d", team, n, rc);
    for (int k = 0; k < n; k++) {
        double serial = 0, bound = 0;
        for (int j = 0; j <= i; j++) {
            serial += inexact(j, k);
            bound += magnitude(inexact(j, k));
        }
        bound *= (double)(i + 1) * 0x1p-52;
        CHECK(magnitude(dd[k] - serial) <= bound, "%s n %d double inscan [%d] = %.17g, serial %.17g",
              team, n, k, dd[k], serial);
    }
}

/* The deprecated forms on the active set of all PEs: the root's destination stays untouched. */
static void active_set(int n)
{
    int roots[2] = {0, npes - 1};
    for (int r = 0; r < 2; r++) {
        int root = roots[r];
        for (int k = 0; k < n; k++) {
            ls[k] = lval(me, k);
            ld[k] = -5;
        }
        shmem_barrier_all();
        shmem_broadcast64(ld, ls, (size_t)n, root, 0, 0, npes, psync_bcast);
        for (int k = 0; k < n; k++) {
            long want = me == root ? -5 : lval(root, k);
            CHECK(ld[k] == want, "broadcast64 n %d root %d [%d] = %ld, expected %ld", n, root, k,
                  ld[k], want);
        }
        shmem_barrier_all();
    }
    for (int k = 0; k < n; k++) {
        ls[k] = lval(me, k);
        ds[k] = exact(me, k);
    }
    shmem_barrier_all();
    shmem_long_sum_to_all(ld, ls, n, 0, 0, npes, pwrk_l, psync);
    shmem_barrier_all();
    shmem_double_sum_to_all(ds, ds, n, 0, 0, npes, pwrk_d, psync);
    for (int k = 0; k < n; k++) {
        long lsum = 0;
        double dsum = 0;
        for (int j = 0; j < npes; j++) {
            lsum += lval(j, k);
            dsum += exact(j, k);
        }
        CHECK(ld[k] == lsum, "long_sum_to_all n %d [%d] = %ld, expected %ld", n, k, ld[k], lsum);
        CHECK(ds[k] == dsum, "in-place double_sum_to_all n %d [%d] = %.17g, expected %.17g", n, k,
              ds[k], dsum);
    }
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (int k = 0; k < SHMEM_REDUCE_SYNC_SIZE; k++)
        psync[k] = SHMEM_SYNC_VALUE;
    for (int k = 0; k < SHMEM_BCAST_SYNC_SIZE; k++)
        psync_bcast[k] = SHMEM_SYNC_VALUE;
    ls = shmem_malloc(MAXN * sizeof(long));
    ld = shmem_malloc(MAXN * sizeof(long));
    fd = shmem_malloc((MAXN + (size_t)npes) * sizeof(long));
    ds = shmem_malloc(MAXN * sizeof(double));
    dd = shmem_malloc(MAXN * sizeof(double));
    db = shmem_malloc(MAXN * sizeof(double));
    bs = shmem_malloc(MAXN * sizeof(long) + 3);
    bd = shmem_malloc(MAXN * sizeof(long) + 3);
    if (!ls || !ld || !fd || !ds || !dd || !db || !bs || !bd) {
        fprintf(stderr, "[PE %d] coll_nodes: shmem_malloc failed\n", me);
        shmem_global_exit(1);
    }

    shmem_team_t odd = SHMEM_TEAM_INVALID, third = SHMEM_TEAM_INVALID;
    if (npes > 1)
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd);
    if (npes > 3)
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 3, (npes + 2) / 3, NULL, 0, &third);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int n = sizes[s];
        reductions(SHMEM_TEAM_WORLD, "world", n);
        broadcasts(SHMEM_TEAM_WORLD, "world", n);
        fcollects(SHMEM_TEAM_WORLD, "world", n);
        scans(SHMEM_TEAM_WORLD, "world", n);
        collects(SHMEM_TEAM_WORLD, "world", n);
        if (odd != SHMEM_TEAM_INVALID) {
            reductions(odd, "odd", n);
            broadcasts(odd, "odd", n);
            fcollects(odd, "odd", n);
            scans(odd, "odd", n);
            collects(odd, "odd", n);
        }
        if (third != SHMEM_TEAM_INVALID) {
            reductions(third, "third", n);
            broadcasts(third, "third", n);
            fcollects(third, "third", n);
            scans(third, "third", n);
            collects(third, "third", n);
        }
        shmem_barrier_all();
        active_set(n);
    }
    if (odd != SHMEM_TEAM_INVALID)
        shmem_team_destroy(odd);
    if (third != SHMEM_TEAM_INVALID)
        shmem_team_destroy(third);

    shmem_free(ls);
    shmem_free(ld);
    shmem_free(fd);
    shmem_free(ds);
    shmem_free(dd);
    shmem_free(db);
    shmem_free(bs);
    shmem_free(bd);
    if (errors)
        fprintf(stderr, "[PE %d] coll_nodes: %ld errors\n", me, errors);
    shmem_finalize();
    return errors != 0;
}
