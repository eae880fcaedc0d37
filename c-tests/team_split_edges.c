// pes: 1 2 3 4 5 8
// timeout: 60
// shmem_team_split_2d at the edges the spec defines: xrange larger than the parent behaves as
// xrange = the parent's size (one x-team of everyone, y-teams of one); xrange 1 gives x-teams of
// one and one y-team of everyone; xrange that does not divide the parent leaves a short last
// row (y size = ceil(N / xrange)). Each team's size and this PE's number in it are checked, and
// a sum reduction over each team gives the sum of its members' world numbers.
#include <shmem.h>
#include <stdio.h>

static long one[1], sum[1];
static int errors, me, npes;

static void check_team(shmem_team_t t, const char *what, int xrange, int want_size, int want_me, long want_sum)
{
    if (t == SHMEM_TEAM_INVALID) {
        if (errors++ < 20)
            fprintf(stderr, "[PE %d] team_split_edges: xrange %d: %s is SHMEM_TEAM_INVALID\n", me, xrange, what);
        return;
    }
    int n = shmem_team_n_pes(t), my = shmem_team_my_pe(t);
    one[0] = me;
    shmem_team_sync(t);
    int rc = shmem_long_sum_reduce(t, sum, one, 1);
    if ((n != want_size || my != want_me || rc != 0 || sum[0] != want_sum) && errors++ < 20)
        fprintf(stderr,
                "[PE %d] team_split_edges: xrange %d: %s: size %d (want %d), my_pe %d (want %d), rc %d, sum %ld (want %ld)\n",
                me, xrange, what, n, want_size, my, want_me, rc, sum[0], want_sum);
}

static void split(int xrange)
{
    shmem_team_t xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID;
    int rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, NULL, 0, &xt, NULL, 0, &yt);
    if (rc != 0 && errors++ < 20)
        fprintf(stderr, "[PE %d] team_split_edges: split_2d(xrange %d) returned %d\n", me, xrange, rc);
    int x_eff = xrange > npes ? npes : xrange;
    int x = me % x_eff, y = me / x_eff;
    int rows = (npes + x_eff - 1) / x_eff;
    /* The x-team: this PE's row; the y-team: its column. */
    int row_start = y * x_eff, row_size = npes - row_start < x_eff ? npes - row_start : x_eff;
    long row_sum = 0;
    for (int p = row_start; p < row_start + row_size; p++)
        row_sum += p;
    int col_size = 0;
    long col_sum = 0;
    for (int r = 0; r < rows; r++) {
        int p = r * x_eff + x;
        if (p < npes) {
            col_size++;
            col_sum += p;
        }
    }
    check_team(xt, "x-team", xrange, row_size, x, row_sum);
    check_team(yt, "y-team", xrange, col_size, y, col_sum);
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    split(npes + 3);
    split(1);
    split(2);
    split(3);
    shmem_barrier_all();
    if (errors) {
        fprintf(stderr, "[PE %d] team_split_edges: %d errors\n", me, errors);
        shmem_global_exit(1);
    }
    if (me == 0)
        printf("team_split_edges: %d PEs ok\n", npes);
    shmem_finalize();
    return 0;
}
