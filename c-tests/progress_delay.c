// pes: 2
// timeout: 90
// env: SHMEM_TRANSPORT=ucx
// env: UCX_TLS=tcp
// env: SHMEM_PROGRESS_DELAY=300000
// SHMEM_PROGRESS_DELAY over UCX TCP, where only the target's progress answers a get: PE 1 leaves
// a barrier and computes, without calling the library, until PE 0 has got its data and told it
// so. Its progress thread must not answer before a third of the delay (0.1 s) has passed since
// PE 1 left the library (checked with half of that, 50 ms, so that PE 1 being descheduled just
// after it left cannot fail the test; with the default delay the answer comes as soon as PE 0
// asks, 20 ms after), and must answer in the end. PE 0 first sleeps 20 ms, so that PE 1 has left the
// barrier; a round where PE 0's get came back before PE 1 had left (PE 1 descheduled in the
// barrier, its own wait answering) proves nothing and is skipped. The gets must see PE 1's data.
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <time.h>
#include "clock.h"

#define ROUNDS 5
#define LIMIT 60.0
#define FLOOR (0.3 / 3 / 2)

static long data[8];
static long done;
static double left;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int errors = 0, valid = 0;
    for (int i = 0; i < 8; i++)
        data[i] = 100 * me + i;
    for (int r = 1; r <= ROUNDS; r++) {
        double answered = 0;
        shmem_barrier_all();
        if (me == 1) {
            left = now();
            volatile long *flag = &done;
            while (*flag < r && now() - left < LIMIT)
                ;
            if (*flag < r) {
                fprintf(stderr, "[PE 1] progress_delay: round %d: PE 0's get did not complete in %.0f s\n",
                        r, LIMIT);
                errors++;
            }
        } else {
            struct timespec pause = {0, 20 * 1000 * 1000};
            nanosleep(&pause, NULL);
            long got[8];
            shmem_long_get(got, data, 8, 1);
            answered = now();
            for (int i = 0; i < 8; i++)
                if (got[i] != 100 + i && errors++ < 10)
                    fprintf(stderr, "[PE 0] progress_delay: round %d: data[%d] = %ld, expected %d\n", r,
                            i, got[i], 100 + i);
            shmem_long_p(&done, r, 1);
            shmem_quiet();
        }
        shmem_barrier_all();
        /* PE 1's time of leaving, to PE 0 (the same clock: one machine). */
        double left_at = shmem_double_g(&left, 1);
        if (me == 0 && answered > left_at) {
            valid++;
            if (answered - left_at < FLOOR) {
                fprintf(stderr,
                        "[PE 0] progress_delay: round %d: PE 1 answered %.4f s after it left the "
                        "library, before half of a third of SHMEM_PROGRESS_DELAY (0.05 s)\n",
                        r, answered - left_at);
                errors++;
            }
        }
        shmem_barrier_all();
    }
    if (me == 0) {
        if (valid == 0) {
            fprintf(stderr, "[PE 0] progress_delay: PE 1 answered inside the barrier in every round\n");
            errors++;
        } else {
            printf("progress_delay: %d of %d rounds answered by PE 1's progress thread after the delay\n",
                   valid, ROUNDS);
        }
    }
    shmem_finalize();
    return errors != 0;
}
