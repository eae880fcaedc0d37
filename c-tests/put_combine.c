// pes: 1 2 3 4 8
// timeout: 120
// Streams of small non-blocking puts, the kind the UCX route combines into one put per run of
// consecutive addresses (src/transport/ucx/combine.rs), each checked at its target:
//  1. element by element to consecutive addresses, then backwards (every put begins a new run),
//     then byte strings of mixed sizes (1 B to past the combining limit, runs past 64 KiB);
//  2. a get right after a put_nbi to the same word sees it (the lane's reads follow its puts);
//  3. data, shmem_fence, then a flag right after the data: a PE that sees the flag sees the data;
//  4. no quiet at all, the PE then waiting in the library (shmem_wait_until) for an answer that
//     needs its put delivered;
//  5. no quiet, the PE then spinning outside the library: its put must still arrive (the progress
//     thread sends what the PE left);
//  6. the same streams on a context of its own, completed by shmem_ctx_quiet.
// Blocking puts to consecutive words are combined too (all but the first of a stream): 1b and 4b
// repeat 1 and 4 with them.
// On the shared-memory route every put is a copy; the checks hold there as well.
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <shmem.h>
#include <stdint.h>
#include <stdlib.h>

static int errors, me, npes;
#include "check.h"
#include "clock.h"

#define WORDS 4096
#define BYTES (200 * 1024)

static long words[WORDS];
static long back[WORDS];
static unsigned char bytes[BYTES];
static long data[64];
static long box;
static long answer;
static long echo;
static long ctx_words[WORDS];

static long src_words[WORDS];
static unsigned char src_bytes[BYTES];

// The sizes the byte stream cycles through: around the 4096-byte combining limit and small ones.
static const size_t sizes[] = {1, 7, 8, 100, 4095, 4096, 4097, 13, 512, 3, 8192, 64};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static long word_value(int pe, int i) { return (long)pe * 1000003L + i + 1; }
static unsigned char byte_value(int pe, size_t i) { return check_byte((unsigned long long)pe, i); }

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    // 1. Streams, completed by one quiet.
    for (int i = 0; i < WORDS; i++)
        src_words[i] = word_value(me, i);
    for (size_t i = 0; i < BYTES; i++)
        src_bytes[i] = byte_value(me, i);
    shmem_barrier_all();
    for (int i = 0; i < WORDS; i++)
        shmem_long_put_nbi(&words[i], &src_words[i], 1, right);
    for (int i = WORDS - 1; i >= 0; i--)
        shmem_long_put_nbi(&back[i], &src_words[i], 1, right);
    for (size_t at = 0, k = 0; at < BYTES; k++) {
        size_t n = sizes[k % NSIZES];
        if (n > BYTES - at)
            n = BYTES - at;
        shmem_putmem_nbi(&bytes[at], &src_bytes[at], n, right);
        at += n;
    }
    shmem_quiet();
    shmem_barrier_all();
    int wrong = 0;
    for (int i = 0; i < WORDS; i++)
        wrong += words[i] != word_value(left, i) || back[i] != word_value(left, i);
    CHECK(wrong == 0, "%d of %d words of PE %d's streams are wrong", wrong, 2 * WORDS, left);
    wrong = 0;
    for (size_t i = 0; i < BYTES; i++)
        wrong += bytes[i] != byte_value(left, i);
    CHECK(wrong == 0, "%d of %d bytes of PE %d's stream of mixed sizes are wrong", wrong, BYTES,
          left);
    shmem_barrier_all();

    // 1b. The same with blocking puts: shmem_long_p word by word (the first alone, the rest a
    //     run), then shmem_long_put backwards, from one word rewritten for every call.
    long one;
    for (int i = 0; i < WORDS; i++)
        shmem_long_p(&words[i], -word_value(me, i), right);
    for (int i = WORDS - 1; i >= 0; i--) {
        one = -word_value(me, i) * 3;
        shmem_long_put(&back[i], &one, 1, right);
    }
    shmem_quiet();
    shmem_barrier_all();
    wrong = 0;
    for (int i = 0; i < WORDS; i++)
        wrong += words[i] != -word_value(left, i) || back[i] != -word_value(left, i) * 3;
    CHECK(wrong == 0, "%d of %d words of PE %d's blocking streams are wrong", wrong, 2 * WORDS,
          left);
    shmem_barrier_all();

    // 2. A get after a put_nbi of this PE to the same word.
    for (int i = 0; i < 200; i++) {
        long v = word_value(me, i) * 2;
        shmem_long_put_nbi(&words[i], &v, 1, right);
        long seen = shmem_long_g(&words[i], right);
        CHECK(seen == v, "get after put_nbi to word %d of PE %d: %ld, not %ld", i, right, seen, v);
    }
    shmem_barrier_all();

    // 3. Data, a fence, then the flag (in the next word of the same array: a put that would
    //    extend the data's run if the fence did not end it).
    for (int round = 1; round <= 20; round++) {
        for (int i = 0; i < 63; i++) {
            long v = word_value(me, i) + round;
            shmem_long_put_nbi(&data[i], &v, 1, right);
        }
        shmem_fence();
        long r = round;
        shmem_long_put_nbi(&data[63], &r, 1, right);
        shmem_long_wait_until(&data[63], SHMEM_CMP_EQ, round);
        wrong = 0;
        for (int i = 0; i < 63; i++)
            wrong += data[i] != word_value(left, i) + round;
        CHECK(wrong == 0, "round %d: the flag of PE %d came before %d of its 63 words", round,
              left, wrong);
        // Nobody writes `data` for the next round before everyone has checked this one.
        shmem_barrier_all();
    }

    // 4. No quiet: a token to the right, wait for the left's, answer it, wait for the answer.
    long token = word_value(me, 7);
    shmem_long_put_nbi(&box, &token, 1, right);
    shmem_long_wait_until(&box, SHMEM_CMP_EQ, word_value(left, 7));
    long reply = -word_value(left, 7);
    shmem_long_put_nbi(&answer, &reply, 1, left);
    shmem_long_wait_until(&answer, SHMEM_CMP_EQ, -token);
    shmem_barrier_all();

    // 4b. The same with a stream of shmem_long_p then the token by shmem_long_p: the token
    //     continues the stream's words, so it joins their run, sent by the wait.
    for (int i = 0; i < 8; i++)
        shmem_long_p(&data[i], word_value(me, i), right);
    shmem_long_p(&data[8], -1, right);
    shmem_long_wait_until(&data[8], SHMEM_CMP_EQ, -1);
    wrong = 0;
    for (int i = 0; i < 8; i++)
        wrong += data[i] != word_value(left, i);
    CHECK(wrong == 0, "%d of the 8 words PE %d put before its token are wrong", wrong, left);
    shmem_barrier_all();

    // 5. No quiet, then spinning outside the library until the left's put arrives (its PE spins
    //    too: only the progress threads can send and answer).
    long mine = word_value(me, 11);
    shmem_long_put_nbi(&echo, &mine, 1, right);
    volatile long *seen = &echo;
    double limit = now() + 60;
    while (*seen != word_value(left, 11) && now() < limit)
        sched_yield();
    CHECK(*seen == word_value(left, 11),
          "PE %d's put_nbi, not quieted, did not arrive in 60 s while both PEs computed: %ld", left,
          *seen);
    shmem_barrier_all();

    // 6. A context of its own.
    shmem_ctx_t ctx;
    REQUIRE(shmem_ctx_create(0, &ctx) == 0);
    for (int i = 0; i < WORDS; i++)
        shmem_ctx_long_put_nbi(ctx, &ctx_words[i], &src_words[i], 1, right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    wrong = 0;
    for (int i = 0; i < WORDS; i++)
        wrong += ctx_words[i] != word_value(left, i);
    CHECK(wrong == 0, "%d of %d words PE %d put on a context are wrong", wrong, WORDS, left);
    shmem_ctx_destroy(ctx);

    shmem_finalize();
    return errors != 0;
}
