// pes: 1 2 3 4 5 8
// timeout: 120
// Large broadcasts and reductions, the sizes at which a job that reaches some PE over UCX splits
// the work into one chunk per PE: element counts that do not divide by the team size, in place and
// out of place, from every root, on the world and on a strided team, sum over doubles and max over
// longs, and the deprecated active-set broadcast, which must leave the root's destination alone.
// Every element is compared with what the PE numbers say it must be; the double sums, whose
// rounding depends on the order of combination (the spec promises an associative operation, not an
// order; across nodes the members of each node are combined first), must hold the same bits on
// every PE of the team (PE 0's result broadcast and compared) and lie within the rounding bound of
// the serial sum in PE order (size * 2^-52 * the sum of the magnitudes).
#include <shmem.h>
#include <stdio.h>
#include <string.h>
#define CHECK_LIMIT 30
#include "check.h"

enum { N = 20011 }; /* a prime: never a multiple of the team size */

static int me, npes;
static long errors;
static long psync[SHMEM_BCAST_SYNC_SIZE];

static double dval(int i, int k) { return 1.0 / (double)(i + 3) + (double)(k % 97) * 0.125; }
static long lval(int i, int k) { return (long)((i * 7919 + k * 31) % 10007); }

static double *db; /* the team's PE 0's double sums */

static void reductions(shmem_team_t t, const char *team, double *ds, double *dd, long *ls, long *ld)
{
    int n = shmem_team_n_pes(t), i = shmem_team_my_pe(t);
    for (int k = 0; k < N; k++) {
        ds[k] = dval(i, k);
        ls[k] = lval(i, k);
        dd[k] = -1.0;
        ld[k] = -1;
    }
    shmem_double_sum_reduce(t, dd, ds, N);
    shmem_long_max_reduce(t, ld, ls, N);
    shmem_double_broadcast(t, db, dd, N, 0);
    for (int k = 0; k < N; k++) {
        double sum = 0.0, bound = 0.0;
        long max = lval(0, k);
        for (int j = 0; j < n; j++) {
            sum = j == 0 ? dval(0, k) : sum + dval(j, k);
            bound += dval(j, k); /* positive */
            max = lval(j, k) > max ? lval(j, k) : max;
        }
        bound *= (double)n * 0x1p-52;
        double off = dd[k] > sum ? dd[k] - sum : sum - dd[k];
        CHECK(memcmp(&dd[k], &db[k], sizeof(double)) == 0,
              "%s double sum [%d] = %.17g here, %.17g on the team's PE 0", team, k, dd[k], db[k]);
        CHECK(off <= bound, "%s double sum [%d] = %.17g, serial %.17g", team, k, dd[k], sum);
        CHECK(ld[k] == max, "%s long max [%d] = %ld, expected %ld", team, k, ld[k], max);
    }
    /* In place: the destination is the source. */
    for (int k = 0; k < N; k++)
        ls[k] = lval(i, k);
    shmem_long_sum_reduce(t, ls, ls, N);
    for (int k = 0; k < N; k++) {
        long sum = 0;
        for (int j = 0; j < n; j++)
            sum += lval(j, k);
        CHECK(ls[k] == sum, "%s in-place long sum [%d] = %ld, expected %ld", team, k, ls[k], sum);
    }
}

static void broadcasts(shmem_team_t t, const char *team, long *src, long *dst)
{
    int n = shmem_team_n_pes(t), i = shmem_team_my_pe(t);
    for (int root = 0; root < n; root++) {
        for (int k = 0; k < N; k++) {
            src[k] = lval(i, k) + root;
            dst[k] = -1;
        }
        shmem_long_broadcast(t, dst, src, N, root);
        for (int k = 0; k < N; k++)
            CHECK(dst[k] == lval(root, k) + root, "%s broadcast root %d [%d] = %ld", team, root, k,
                  dst[k]);
        /* In place on every PE: the root's source is its destination. */
        for (int k = 0; k < N; k++)
            src[k] = i == root ? lval(root, k) : -2;
        shmem_long_broadcast(t, src, src, N, root);
        for (int k = 0; k < N; k++)
            CHECK(src[k] == lval(root, k), "%s in-place broadcast root %d [%d] = %ld", team, root,
                  k, src[k]);
    }
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    double *ds = shmem_malloc(N * sizeof(double)), *dd = shmem_malloc(N * sizeof(double));
    long *ls = shmem_malloc(N * sizeof(long)), *ld = shmem_malloc(N * sizeof(long));
    db = shmem_malloc(N * sizeof(double));
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;

    reductions(SHMEM_TEAM_WORLD, "world", ds, dd, ls, ld);
    broadcasts(SHMEM_TEAM_WORLD, "world", ls, ld);

    shmem_team_t odd = SHMEM_TEAM_INVALID;
    if (npes > 1)
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd);
    if (odd != SHMEM_TEAM_INVALID) {
        reductions(odd, "odd", ds, dd, ls, ld);
        broadcasts(odd, "odd", ls, ld);
        shmem_team_destroy(odd);
    }

    /* Deprecated active-set broadcast: the root's destination is not written. */
    shmem_barrier_all();
    for (int root = 0; root < npes; root++) {
        for (int k = 0; k < N; k++) {
            ls[k] = lval(me, k);
            ld[k] = -5;
        }
        shmem_barrier_all();
        shmem_broadcast64(ld, ls, N, root, 0, 0, npes, psync);
        for (int k = 0; k < N; k++) {
            long want = me == root ? -5 : lval(root, k);
            CHECK(ld[k] == want, "broadcast64 root %d [%d] = %ld, expected %ld", root, k, ld[k], want);
        }
        shmem_barrier_all();
    }

    shmem_free(ds);
    shmem_free(dd);
    shmem_free(ls);
    shmem_free(ld);
    shmem_free(db);
    if (errors)
        fprintf(stderr, "[PE %d] coll_large: %ld errors\n", me, errors);
    shmem_finalize();
    return errors != 0;
}
