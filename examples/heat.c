// A 2-D heat equation on several PEs, checked against a serial run on PE 0.
//
// The grid (NX columns, NY rows, fixed edges: the top at 1, the others at 0) is cut into strips of
// rows, one per PE. Each Jacobi step a PE sends its first and last rows into its neighbours' halo
// buffers with shmem_putmem_signal and waits for theirs with shmem_signal_wait_until; every
// RESIDUAL_EVERY steps the global residual is a shmem_double_sum_reduce. At the end a histogram of
// the temperatures is built with one shmem_long_atomic_inc per cell into bins spread over the PEs.
// PE 0 then repeats the whole computation serially and compares the grid, the residuals and the
// histogram; the program exits non-zero when any of them differs.
//
//   build/bin/oshcc -O2 examples/heat.c -o heat && build/bin/oshrun -np 4 ./heat [NX NY STEPS]
//
// Halo buffers are double-buffered by the parity of the step and each parity has its own signal
// word, whose value is the step the data belongs to: a neighbour can be at most one step ahead, so
// the buffer of parity p is never overwritten before it has been read.
//
// pes: 1 2 3 4 8
// args: 96 64 60
// timeout: 120
// expect-stdout: check against a serial computation on PE 0: PASS
#define _POSIX_C_SOURCE 200809L // clock_gettime under -std=c11
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RESIDUAL_EVERY 10
#define BINS 64

static uint64_t sig_top[2], sig_bot[2]; // step+1 of the data in halo_top[p] / halo_bot[p]
static double res_local, res_global;
static long hist[BINS];                  // bin b lives on PE b % npes at index b / npes

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// One Jacobi step of `rows` rows of width nx (plus a boundary column each side) from `u` (with a
// halo row above and below) into `v`; returns the sum of squared changes. The serial and the
// parallel runs both call this, so their grids agree bit for bit.
static double step_rows(const double *u, double *v, int rows, int nx)
{
    int w = nx + 2;
    double sum = 0;
    for (int i = 1; i <= rows; i++) {
        for (int j = 1; j <= nx; j++) {
            double x = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] +
                               u[i * w + j + 1]);
            double d = x - u[i * w + j];
            sum += d * d;
            v[i * w + j] = x;
        }
    }
    return sum;
}

static int bin_of(double t)
{
    int b = (int)(t * BINS);
    return b < 0 ? 0 : (b >= BINS ? BINS - 1 : b);
}

// The same computation on one PE: the whole grid, the residuals at the same steps, the histogram.
static double *serial(int nx, int ny, int steps, double *residuals, long *counts)
{
    int w = nx + 2;
    double *a = calloc((size_t)(ny + 2) * w, sizeof *a);
    double *b = calloc((size_t)(ny + 2) * w, sizeof *b);
    if (!a || !b) {
        fprintf(stderr, "heat: PE 0: no memory for the serial check (%d x %d)\n", nx, ny);
        exit(1);
    }
    for (int j = 1; j <= nx; j++)
        a[j] = b[j] = 1.0;
    for (int t = 0; t < steps; t++) {
        double r = step_rows(a, b, ny, nx);
        if ((t + 1) % RESIDUAL_EVERY == 0)
            residuals[t / RESIDUAL_EVERY] = r;
        double *tmp = a;
        a = b;
        b = tmp;
    }
    memset(counts, 0, BINS * sizeof *counts);
    for (int i = 1; i <= ny; i++)
        for (int j = 1; j <= nx; j++)
            counts[bin_of(a[i * w + j])]++;
    free(b);
    return a;
}

static int arg(int argc, char **argv, int i, int fallback)
{
    if (argc <= i)
        return fallback;
    char *end;
    long v = strtol(argv[i], &end, 10);
    if (*end || v < 1 || v > 1 << 16) {
        fprintf(stderr, "heat: argument %d ('%s') must be a number from 1 to 65536\n", i, argv[i]);
        exit(2);
    }
    return (int)v;
}

int main(int argc, char **argv)
{
    int nx = arg(argc, argv, 1, 1024), ny = arg(argc, argv, 2, 1024), steps = arg(argc, argv, 3, 200);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (ny < npes) {
        if (me == 0)
            fprintf(stderr, "heat: %d rows cannot be shared by %d PEs\n", ny, npes);
        shmem_global_exit(2);
    }
    // PE k has the k-th strip of `rows` rows (the first ny % npes PEs one more); every PE
    // allocates for the largest strip (symmetric allocations have one size).
    int base = ny / npes, extra = ny % npes;
    int rows = base + (me < extra);
    int max_rows = base + (extra > 0), w = nx + 2;
    size_t row_bytes = (size_t)nx * sizeof(double);
    double *grid[2], *halo_top[2], *halo_bot[2];
    for (int p = 0; p < 2; p++) {
        grid[p] = shmem_calloc((size_t)(max_rows + 2) * w, sizeof(double));
        halo_top[p] = shmem_malloc(row_bytes);
        halo_bot[p] = shmem_malloc(row_bytes);
        if (!grid[p] || !halo_top[p] || !halo_bot[p]) {
            fprintf(stderr, "heat: PE %d: shmem_malloc failed for a %d x %d strip\n", me, nx, max_rows);
            shmem_global_exit(1);
        }
    }
    if (me == 0)
        for (int j = 1; j <= nx; j++)
            grid[0][j] = grid[1][j] = 1.0; // the hot top edge
    int up = me > 0 ? me - 1 : -1, down = me < npes - 1 ? me + 1 : -1;
    int nres = steps / RESIDUAL_EVERY;
    double *residuals = calloc((size_t)nres + 1, sizeof *residuals);

    if (me == 0) {
        if (base == max_rows)
            printf("heat: 2-D Jacobi, %d x %d grid, %d steps on %d PEs (%d rows each)\n", nx, ny,
                   steps, npes, base);
        else
            printf("heat: 2-D Jacobi, %d x %d grid, %d steps on %d PEs (%d or %d rows each)\n", nx,
                   ny, steps, npes, base, max_rows);
        printf("  halos: shmem_putmem_signal of one %zu-byte row to each neighbour per step, "
               "shmem_signal_wait_until for theirs\n",
               row_bytes);
        printf("  residual: shmem_double_sum_reduce every %d steps\n", RESIDUAL_EVERY);
    }
    shmem_barrier_all();

    // Step t reads the halos of parity t % 2 (signal t + 1); step 0's come from the initial grid.
    double put_time = 0, put_bytes = 0;
    double t0 = now();
    for (int t = -1; t < steps; t++) {
        double *u = grid[t < 0 ? 0 : t % 2], *v = grid[t < 0 ? 0 : (t + 1) % 2];
        if (t >= 0) {
            int p = t % 2;
            if (up >= 0) {
                shmem_signal_wait_until(&sig_top[p], SHMEM_CMP_GE, (uint64_t)t + 1);
                memcpy(&u[1], halo_top[p], row_bytes);
            }
            if (down >= 0) {
                shmem_signal_wait_until(&sig_bot[p], SHMEM_CMP_GE, (uint64_t)t + 1);
                memcpy(&u[(rows + 1) * w + 1], halo_bot[p], row_bytes);
            }
            res_local = step_rows(u, v, rows, nx);
            if ((t + 1) % RESIDUAL_EVERY == 0) {
                shmem_double_sum_reduce(SHMEM_TEAM_WORLD, &res_global, &res_local, 1);
                residuals[t / RESIDUAL_EVERY] = res_global;
            }
        }
        // v holds step t + 1 (before step 0, v is the initial grid): send its edge rows.
        int p = (t + 1) % 2;
        uint64_t signal = (uint64_t)t + 2;
        double p0 = now();
        if (up >= 0)
            shmem_putmem_signal(halo_bot[p], &v[w + 1], row_bytes, &sig_bot[p], signal,
                                SHMEM_SIGNAL_SET, up);
        if (down >= 0)
            shmem_putmem_signal(halo_top[p], &v[rows * w + 1], row_bytes, &sig_top[p], signal,
                                SHMEM_SIGNAL_SET, down);
        put_time += now() - p0;
        put_bytes += (double)row_bytes * ((up >= 0) + (down >= 0));
    }
    shmem_barrier_all();
    double elapsed = now() - t0;
    double *final = grid[steps % 2];

    // The histogram: one remote (or local) atomic increment per cell.
    double h0 = now();
    for (int i = 1; i <= rows; i++)
        for (int j = 1; j <= nx; j++) {
            int b = bin_of(final[i * w + j]);
            shmem_long_atomic_inc(&hist[b / npes], b % npes);
        }
    shmem_barrier_all();
    double hist_time = now() - h0;

    static double sums[2], total_put[2];
    total_put[0] = put_bytes;
    total_put[1] = put_time;
    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, sums, total_put, 2);

    int status = 0;
    if (me == 0) {
        for (int k = 0; k < nres; k++)
            if (k < 3 || k == nres - 1)
                printf("  step %5d  residual %.6e\n", (k + 1) * RESIDUAL_EVERY, residuals[k]);
        double updates = (double)nx * ny * steps;
        printf("  %.3f s: %.1f M cell updates/s; halos %.1f MB in all, %.2f GB/s inside "
               "shmem_putmem_signal\n",
               elapsed, updates / elapsed / 1e6, sums[0] / 1e6,
               sums[1] > 0 ? sums[0] / sums[1] / 1e9 : 0.0);
        printf("histogram: %d bins over %d PEs, %.0f shmem_long_atomic_inc in %.3f s "
               "(%.2f M AMOs/s)\n",
               BINS, npes, (double)nx * ny, hist_time, (double)nx * ny / hist_time / 1e6);

        // The serial computation, then the comparison.
        double *ref_res = calloc((size_t)nres + 1, sizeof *ref_res);
        long ref_hist[BINS];
        double s0 = now();
        double *ref = serial(nx, ny, steps, ref_res, ref_hist);
        double serial_time = now() - s0;
        long grid_diffs = 0;
        double *strip = malloc((size_t)(max_rows + 2) * w * sizeof *strip);
        for (int pe = 0, row0 = 0; pe < npes; pe++) {
            int r = base + (pe < extra);
            shmem_getmem(strip, final, (size_t)(r + 2) * w * sizeof *strip, pe);
            for (int i = 1; i <= r; i++)
                for (int j = 1; j <= nx; j++)
                    grid_diffs += strip[i * w + j] != ref[(row0 + i) * w + j];
            row0 += r;
        }
        double worst = 0;
        for (int k = 0; k < nres; k++) {
            double d = (residuals[k] - ref_res[k]) / (ref_res[k] > 0 ? ref_res[k] : 1);
            d = d < 0 ? -d : d;
            worst = d > worst ? d : worst;
        }
        long hist_diffs = 0, cells = 0;
        for (int b = 0; b < BINS; b++) {
            long got = shmem_long_g(&hist[b / npes], b % npes);
            cells += got;
            hist_diffs += got != ref_hist[b];
        }
        printf("check against a serial computation on PE 0 (%.3f s, %.1fx the parallel time): "
               "%ld of %ld cells differ, residuals within %.1e, %ld of %d bins differ (%ld cells "
               "counted)\n",
               serial_time, serial_time / elapsed, grid_diffs, (long)nx * ny, worst, hist_diffs,
               BINS, cells);
        status = grid_diffs != 0 || worst > 1e-9 || hist_diffs != 0 || cells != (long)nx * ny;
        printf("check against a serial computation on PE 0: %s\n", status ? "FAIL" : "PASS");
        free(strip);
        free(ref);
        free(ref_res);
    }
    free(residuals);
    shmem_barrier_all();
    shmem_finalize();
    return status;
}
