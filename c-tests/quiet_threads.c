// pes: 1 2 3 4 8
// timeout: 120
// cflags: -pthread
// shmem_quiet on the default context while another thread of the PE streams puts on it
// (SHMEM_THREAD_MULTIPLE), without a pause until the quieting thread has done all its rounds: a
// quiet that waited for the stream to stop would hang the test. Each round the quieting thread puts
// the round's number to its right neighbour, quiets, and reads it back with a get on a context of
// its own: only a quiet that completed the put at the target makes that get see it. At the end
// every PE checks what its left neighbour's stream left in its sink.
//
// The stream reads from its target every 64 puts (a blocking get, which returns once the target
// has handled the puts before it). Without it, over TCP, each quiet waits for the tens of thousands
// of puts queued in the sockets (src/transport/ucx/network.rs, UNQUIETED): 300 rounds took 8 s at
// 2 PEs and more than 100 s at 8.
#include <pthread.h>
#include <shmem.h>
#include <stdatomic.h>
#include <stdint.h>

#define CHECK_COUNT() (atomic_fetch_add(&errors, 1) < CHECK_LIMIT)
static atomic_int errors;
static int me, npes;
#include "check.h"

#define ROUNDS 300
#define SINK 64

static long sink[SINK];
static long mark;
static long source[SINK];
static atomic_int quieted;
static long streamed;

static void *stream(void *arg)
{
    (void)arg;
    int right = (me + 1) % npes;
    long i = 0;
    // At least one pass over the sink, however fast the other thread is.
    while (!atomic_load(&quieted) || i < SINK) {
        shmem_long_put_nbi(&sink[i % SINK], &source[i % SINK], 1, right);
        i++;
        if (i % 64 == 0)
            (void)shmem_long_g(&mark, right);
    }
    streamed = i;
    return NULL;
}

int main(void)
{
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    REQUIRE(provided == SHMEM_THREAD_MULTIPLE);
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    shmem_ctx_t reader;
    REQUIRE(shmem_ctx_create(0, &reader) == 0);
    for (int j = 0; j < SINK; j++)
        source[j] = 1000L * me + j;
    shmem_barrier_all();

    pthread_t streamer;
    REQUIRE(pthread_create(&streamer, NULL, stream, NULL) == 0);
    for (long round = 1; round <= ROUNDS; round++) {
        shmem_long_p(&mark, round, right);
        shmem_quiet();
        long seen = shmem_ctx_long_g(reader, &mark, right);
        CHECK(seen == round, "round %ld: PE %d's mark read back as %ld after the quiet", round, right,
              seen);
    }
    atomic_store(&quieted, 1);
    REQUIRE(pthread_join(streamer, NULL) == 0);
    shmem_quiet();
    shmem_barrier_all();

    for (int j = 0; j < SINK; j++)
        CHECK(sink[j] == 1000L * left + j, "sink[%d] is %ld, PE %d streamed %ld", j, sink[j], left,
              1000L * left + j);
    CHECK(mark == ROUNDS, "the last mark is %ld, not %d", mark, ROUNDS);
    CHECK(streamed >= SINK, "streamed %ld puts", streamed);
    shmem_ctx_destroy(reader);
    shmem_finalize();
    return errors != 0;
}
