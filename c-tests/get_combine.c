// pes: 1 2 3 4 8
// timeout: 120
// Streams of small non-blocking gets, the kind the UCX route issues as one get per run of
// consecutive addresses (src/transport/ucx/combine.rs), each checked after its quiet:
//  1. element by element from consecutive addresses into consecutive ones (runs past 64 KiB),
//     then backwards, then consecutive there but every other word here, then the reverse, then
//     runs broken by a gap here or there after every third word, then byte strings of mixed
//     sizes (1 B to past the combining limit);
//  2. a stream, then a blocking put, a put_nbi and an atomic add to words the stream read: each
//     get reads the word before or after the write, nothing else;
//  3. a stream left without a quiet while the PE spins outside the library, then the quiet;
//  4. streams from two PEs, interleaved call by call;
//  5. a stream completed by shmem_barrier_all instead of a quiet;
//  6. the same stream on a context of its own, completed by shmem_ctx_quiet.
// On the shared-memory route every get is a copy; the checks hold there as well.
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdint.h>
#include <stdlib.h>

static int errors, me, npes;
#include "check.h"
#include "clock.h"

#define WORDS 20000
#define BYTES (200 * 1024)

static long words[WORDS];
static unsigned char bytes[BYTES];
static long got[2 * WORDS + 1];
static unsigned char got_bytes[BYTES];
static long other[WORDS];

// The sizes the byte stream cycles through: around the 4096-byte combining limit and small ones.
static const size_t sizes[] = {1, 7, 8, 100, 4095, 4096, 4097, 13, 512, 3, 8192, 64};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static long word_value(int pe, int i) { return (long)pe * 1000003L + i + 1; }
static long new_value(int pe, int i) { return -word_value(pe, i); }
static unsigned char byte_value(int pe, size_t i) { return check_byte((unsigned long long)pe, i); }

static const long SENTINEL = 0x5a5a5a5a5a5aL;

static void clear_got(void) {
    for (int i = 0; i < 2 * WORDS + 1; i++) got[i] = SENTINEL;
}

// Checks got[at(i)] == word_value(pe, from(i)) for i < n, and that the words between stay clear.
static void check_words(const char *what, int pe, int n, int stride_here, int stride_there) {
    int bad = 0, first = -1;
    for (int i = 0; i < n; i++) {
        if (got[i * stride_here] != word_value(pe, i * stride_there)) {
            if (first < 0) first = i;
            bad++;
        }
        for (int k = 1; k < stride_here; k++)
            if (got[i * stride_here + k] != SENTINEL) bad++;
    }
    CHECK(bad == 0, "%s from PE %d: %d words wrong (the first at %d)", what, pe, bad, first);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    for (int i = 0; i < WORDS; i++) words[i] = word_value(me, i);
    for (size_t i = 0; i < BYTES; i++) bytes[i] = byte_value(me, i);
    shmem_barrier_all();

    // 1. Streams, each completed by one quiet.
    int bad;
    clear_got();
    for (int i = 0; i < WORDS; i++) shmem_long_get_nbi(&got[i], &words[i], 1, right);
    shmem_quiet();
    check_words("a forward stream", right, WORDS, 1, 1);

    clear_got();
    for (int i = WORDS - 1; i >= 0; i--) shmem_long_get_nbi(&got[i], &words[i], 1, right);
    shmem_quiet();
    check_words("a backward stream", right, WORDS, 1, 1);

    clear_got();
    for (int i = 0; i < WORDS; i++) shmem_long_get_nbi(&got[2 * i], &words[i], 1, right);
    shmem_quiet();
    check_words("consecutive there, every other word here", right, WORDS, 2, 1);

    clear_got();
    for (int i = 0; i < WORDS / 2; i++) shmem_long_get_nbi(&got[i], &words[2 * i], 1, right);
    shmem_quiet();
    check_words("every other word there, consecutive here", right, WORDS / 2, 1, 2);

    // Runs that break: a gap here after every third word, then one there.
    clear_got();
    for (int i = 0; i < 3000; i++) shmem_long_get_nbi(&got[i + i / 3], &words[i], 1, right);
    shmem_quiet();
    bad = 0;
    for (int i = 0; i < 3000; i++) bad += got[i + i / 3] != word_value(right, i);
    for (int i = 3; i < 4000; i += 4) bad += got[i] != SENTINEL;
    CHECK(bad == 0, "a stream with a gap here after every third word: %d words wrong", bad);
    clear_got();
    for (int i = 0; i < 3000; i++) shmem_long_get_nbi(&got[i], &words[i + i / 3], 1, right);
    shmem_quiet();
    bad = 0;
    for (int i = 0; i < 3000; i++) bad += got[i] != word_value(right, i + i / 3);
    CHECK(bad == 0, "a stream with a gap there after every third word: %d words wrong", bad);

    memset(got_bytes, 0, sizeof got_bytes);
    size_t at = 0;
    for (size_t k = 0; at + sizes[k % NSIZES] <= BYTES; k++) {
        size_t n = sizes[k % NSIZES];
        shmem_getmem_nbi(got_bytes + at, bytes + at, n, right);
        at += n;
    }
    shmem_quiet();
    size_t wrong = 0;
    for (size_t i = 0; i < at; i++) wrong += got_bytes[i] != byte_value(right, i);
    CHECK(wrong == 0, "byte strings of mixed sizes from PE %d: %zu of %zu bytes wrong", right,
          wrong, at);

    // 2. Writes to what a stream read, before its quiet. Each PE writes only its right
    //    neighbour's words, so each word has one writer.
    shmem_barrier_all();
    clear_got();
    for (int i = 0; i < 300; i++) shmem_long_get_nbi(&got[i], &words[i], 1, right);
    shmem_long_p(&words[10], new_value(right, 10), right);
    long v = new_value(right, 150);
    shmem_putmem_nbi(&words[150], &v, sizeof v, right);
    shmem_long_atomic_add(&words[250], 1, right);
    shmem_quiet();
    int odd = 0;
    for (int i = 0; i < 300; i++) {
        long old = word_value(right, i);
        long now = i == 10 || i == 150 ? new_value(right, i) : i == 250 ? old + 1 : old;
        odd += got[i] != old && got[i] != now;
    }
    CHECK(odd == 0, "a stream written before its quiet: %d words neither before nor after", odd);
    shmem_barrier_all();
    for (int i = 0; i < WORDS; i++) words[i] = word_value(me, i);
    shmem_barrier_all();

    // 3. No quiet while the PE computes outside the library for 20 ms.
    clear_got();
    for (int i = 0; i < 1000; i++) shmem_long_get_nbi(&got[i], &words[i], 1, right);
    double until = now() + 0.02;
    while (now() < until) {
    }
    shmem_quiet();
    check_words("a stream left while the PE computes", right, 1000, 1, 1);

    // 4. Two streams interleaved, from the right and the left neighbour.
    clear_got();
    for (int i = 0; i < 2000; i++) {
        shmem_long_get_nbi(&got[i], &words[i], 1, right);
        shmem_long_get_nbi(&other[i], &words[i], 1, left);
    }
    shmem_quiet();
    check_words("a stream interleaved with another", right, 2000, 1, 1);
    bad = 0;
    for (int i = 0; i < 2000; i++) bad += other[i] != word_value(left, i);
    CHECK(bad == 0, "the other interleaved stream, from PE %d: %d words wrong", left, bad);

    // 5. Completed by a barrier.
    clear_got();
    for (int i = 0; i < 3000; i++) shmem_long_get_nbi(&got[i], &words[i], 1, right);
    shmem_barrier_all();
    check_words("a stream completed by barrier_all", right, 3000, 1, 1);

    // 6. On a context of its own.
    shmem_ctx_t ctx;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0) {
        clear_got();
        for (int i = 0; i < WORDS; i++) shmem_ctx_long_get_nbi(ctx, &got[i], &words[i], 1, right);
        shmem_ctx_quiet(ctx);
        check_words("a stream on a context of its own", right, WORDS, 1, 1);
        shmem_ctx_destroy(ctx);
    } else {
        CHECK(0, "shmem_ctx_create failed");
    }

    shmem_barrier_all();
    shmem_finalize();
    return errors != 0;
}
