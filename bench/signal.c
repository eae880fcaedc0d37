/* signal.c: put-with-signal ping-pong latency (2 PEs), an OpenSHMEM 1.5 routine: an
 * implementation without it fails to build this program and bench/compare shows rshmem only.
 *
 *   put_signal_pingpong  PE 0 puts 8 bytes with a signal to PE 1, which waits for the signal and
 *                        answers the same way; half the round trip, in us
 */
#include "bench.h"
#include <shmem.h>

#define PER_BATCH_QUICK 2000
#define PER_BATCH_FULL 10000

static long payload;
static uint64_t signal_word;

int main(int argc, char **argv) {
    struct bench_cfg c = bench_parse(argc, argv);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long per_batch = c.quick ? PER_BATCH_QUICK : PER_BATCH_FULL;
    double ns[BENCH_MAX_SAMPLES];
    shmem_barrier_all();
    if (npes >= 2 && me < 2) {
        int peer = 1 - me;
        uint64_t round = 0;
        for (int b = -1; b < c.batches; b++) { /* batch -1 warms up */
            double t0 = bench_now_ns();
            for (long i = 0; i < per_batch; i++) {
                round++;
                if (me == 0) {
                    shmem_long_put_signal(&payload, &payload, 1, &signal_word, round, SHMEM_SIGNAL_SET, peer);
                    shmem_signal_wait_until(&signal_word, SHMEM_CMP_EQ, round);
                } else {
                    shmem_signal_wait_until(&signal_word, SHMEM_CMP_EQ, round);
                    shmem_long_put_signal(&payload, &payload, 1, &signal_word, round, SHMEM_SIGNAL_SET, peer);
                }
            }
            if (b >= 0)
                ns[b] = (bench_now_ns() - t0) / (double)per_batch / 2;
        }
        if (me == 0)
            bench_report("put_signal_pingpong", 8, "us", ns, c.batches, 0);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
