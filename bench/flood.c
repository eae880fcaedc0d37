/* flood.c: a long stream of 8-byte shmem_long_put_nbi with no quiet, then one shmem_quiet.
 *
 * Every PE streams to its right neighbour at once (2 PEs: to each other), faster than a network
 * drains them: what a program that forgets to quiet, or one thread that streams while another
 * quiets, makes of the library's queues. One sample per run (PE 0's); the puts cycle over 64
 * words, which each PE checks afterwards.
 * Figures (size = bytes per put):
 *   flood         s, issuing the puts (2,000,000; -q 500,000) and the quiet after them: until every
 *                 put is at its target (a library may pace the stream, or queue it and pay in the
 *                 quiet)
 *   flood_quiet   s, the one shmem_quiet alone
 *   flood_rss     MiB, how much the PE's peak resident memory grew over both
 */
#include "bench.h"
#include <shmem.h>
#include <sys/resource.h>

#define WORDS 64

static long sink[WORDS];
static long source[WORDS];

static double peak_rss_mib(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)u.ru_maxrss / 1024.0; /* Linux reports KiB */
}

static void report(const char *figure, const char *unit, double value) {
    printf("%s\t%zu\t%s\t%.4f\t%.4f\t%.4f\n", figure, sizeof(long), unit, value, value, value);
}

int main(int argc, char **argv) {
    struct bench_cfg c = bench_parse(argc, argv);
    long puts = c.quick ? 500000 : 2000000;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    for (int j = 0; j < WORDS; j++) source[j] = 1000L * me + j;
    shmem_barrier_all();

    double rss = peak_rss_mib();
    double t0 = bench_now_ns();
    for (long i = 0; i < puts; i++) shmem_long_put_nbi(&sink[i % WORDS], &source[i % WORDS], 1, right);
    double t1 = bench_now_ns();
    shmem_quiet();
    double t2 = bench_now_ns();
    double grown = peak_rss_mib() - rss;
    shmem_barrier_all();

    int wrong = 0;
    for (int j = 0; j < WORDS; j++) wrong += sink[j] != 1000L * left + j;
    if (wrong) fprintf(stderr, "flood: PE %d: %d of %d words not what PE %d put\n", me, wrong, WORDS, left);
    if (me == 0) {
        report("flood", "s", (t2 - t0) / 1e9);
        report("flood_quiet", "s", (t2 - t1) / 1e9);
        report("flood_rss", "MiB", grown);
    }
    shmem_finalize();
    return wrong != 0;
}
