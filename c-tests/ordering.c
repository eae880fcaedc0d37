// pes: 1 2 3 4 8
// timeout: 120
// Ordering and completion:
//  1. fence: data put, shmem_fence, then a flag put; the target spins on its flag (a volatile read
//     that yields the CPU) and must then see the whole data block.
//  2. puts to one word from one PE land in issue order: the last value issued stays (blocking p,
//     blocking put, and put_nbi separated by fences).
//  3. quiet then barrier: non-blocking puts to every PE are all visible after both.
#include <sched.h>
#include <shmem.h>
#include <stdatomic.h>
#include <stdio.h>

#define BLOCK 4096 /* longs in the fenced data block: 32 KiB */
#define ROUNDS 50
#define WRITES 10000
#define MAX_PES 1024

static int me, npes, left, right;
static long errors;
static long all_errors[MAX_PES];

static long block[BLOCK];
static long flag;
static long word;
static long word_nbi;
static long slots[MAX_PES];

#define REPORT(...)                                      \
    do {                                                 \
        if (errors++ < 20) {                             \
            fprintf(stderr, "[PE %d] ordering: ", me);   \
            fprintf(stderr, __VA_ARGS__);                \
            fputc('\n', stderr);                         \
        }                                                \
    } while (0)

static void wait_for(long *var, long value)
{
    while (*(volatile long *)var != value)
        sched_yield();
    atomic_thread_fence(memory_order_acquire);
}

static void test_fence(void)
{
    static long source[BLOCK];
    flag = 0;
    shmem_barrier_all();
    for (long round = 1; round <= ROUNDS; round++) {
        for (long i = 0; i < BLOCK; i++)
            source[i] = me * 1000003L + round * 7919L + i;
        shmem_long_put(block, source, BLOCK, right);
        shmem_fence();
        shmem_long_p(&flag, round, right);

        wait_for(&flag, round);
        for (long i = 0; i < BLOCK; i++) {
            long want = left * 1000003L + round * 7919L + i;
            if (block[i] != want) {
                REPORT("fence round %ld: flag seen but block[%ld] expected %ld, got %ld", round, i, want,
                       block[i]);
                break;
            }
        }
        /* Nobody overwrites the block before its owner has checked it. */
        shmem_barrier_all();
    }
}

static void test_same_word(void)
{
    static long values[WRITES];
    word = -1;
    word_nbi = -1;
    shmem_barrier_all();
    for (long k = 0; k < WRITES; k++)
        shmem_long_p(&word, k, right);
    shmem_quiet();
    shmem_barrier_all();
    if (word != WRITES - 1)
        REPORT("%d shmem_long_p to one word: expected the last value %d, got %ld", WRITES, WRITES - 1, word);

    shmem_barrier_all();
    for (long k = 0; k < WRITES; k++) {
        values[k] = me * (long)WRITES + k;
        shmem_long_put(&word, &values[k], 1, right);
    }
    shmem_quiet();
    shmem_barrier_all();
    long want = left * (long)WRITES + WRITES - 1;
    if (word != want)
        REPORT("%d shmem_long_put to one word: expected the last value %ld, got %ld", WRITES, want, word);

    shmem_barrier_all();
    for (long k = 0; k < WRITES; k++) {
        values[k] = me * (long)WRITES + k + 1;
        shmem_long_put_nbi(&word_nbi, &values[k], 1, right);
        shmem_fence();
    }
    shmem_quiet();
    shmem_barrier_all();
    want = left * (long)WRITES + WRITES;
    if (word_nbi != want)
        REPORT("%d fenced shmem_long_put_nbi to one word: expected the last value %ld, got %ld", WRITES, want,
               word_nbi);
    shmem_barrier_all();
}

static void test_quiet(void)
{
    static long mine[MAX_PES];
    for (int round = 1; round <= ROUNDS; round++) {
        for (int pe = 0; pe < npes; pe++)
            slots[pe] = -1;
        shmem_barrier_all();
        for (int pe = 0; pe < npes; pe++) {
            mine[pe] = round * 100000L + me * 100L + pe;
            shmem_long_put_nbi(&slots[me], &mine[pe], 1, pe);
        }
        shmem_quiet();
        shmem_barrier_all();
        for (int pe = 0; pe < npes; pe++) {
            long want = round * 100000L + pe * 100L + me;
            if (slots[pe] != want)
                REPORT("quiet round %d: slots[%d] expected %ld, got %ld", round, pe, want, slots[pe]);
        }
        shmem_barrier_all();
    }
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    if (npes > MAX_PES) {
        REPORT("this test handles at most %d PEs", MAX_PES);
        shmem_global_exit(1);
    }

    test_fence();
    test_same_word();
    test_quiet();

    shmem_long_p(&all_errors[me], errors, 0);
    shmem_barrier_all();
    if (me == 0) {
        long total = 0;
        for (int pe = 0; pe < npes; pe++)
            total += all_errors[pe];
        if (total == 0)
            printf("ordering: passed on %d PEs\n", npes);
        else
            fprintf(stderr, "ordering: %ld mismatches in all\n", total);
    }
    shmem_finalize();
    return errors != 0;
}
