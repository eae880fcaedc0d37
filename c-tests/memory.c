// pes: 1 2 3 4 8
// timeout: 120
// cflags: -Wno-deprecated-declarations
// Symmetric heap management: shmem_malloc, shmem_calloc (zeroed), shmem_realloc (contents kept),
// shmem_align (alignment honoured), shmem_malloc_with_hints, shmem_free, size 0, many cycles, and
// the deprecated shmalloc, shrealloc, shmemalign, shfree. Every allocation must be symmetric: the
// same offset from a reference allocation on every PE, and usable as a put target.
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAX_PES 1024

static int me, npes, left, right;
static long errors;
static long all_errors[MAX_PES];
static long offsets[MAX_PES];

#define REPORT(...)                                    \
    do {                                               \
        if (errors++ < 20) {                           \
            fprintf(stderr, "[PE %d] memory: ", me);   \
            fprintf(stderr, __VA_ARGS__);              \
            fputc('\n', stderr);                       \
        }                                              \
    } while (0)

static char *reference; /* first allocation: offsets are measured from it */

/* Checks that p is at the same offset from `reference` on every PE, and that a put to it on the
 * right neighbour lands. `what` names the call that returned p. */
static void check_symmetric(const char *what, void *p, size_t size)
{
    if (p == NULL) {
        REPORT("%s returned NULL", what);
        return;
    }
    long offset = (long)((char *)p - reference);
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        shmem_long_p(&offsets[me], offset, pe);
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++) {
        if (offsets[pe] != offset) {
            REPORT("%s: offset %ld here but %ld on PE %d", what, offset, offsets[pe], pe);
            break;
        }
    }
    if (size >= sizeof(int)) {
        int *last = (int *)((char *)p + (size - sizeof(int)) / sizeof(int) * sizeof(int));
        *last = -1;
        shmem_barrier_all();
        shmem_int_p(last, me, right);
        shmem_barrier_all();
        if (*last != left)
            REPORT("%s: put to the last int of a %zu-byte block: expected %d, got %d", what, size, left, *last);
    }
    shmem_barrier_all();
}

static void test_malloc_free(void)
{
    static const size_t sizes[] = {1, 8, 24, 100, 4096, 4097, 65536, 1 << 20, 3, 7 * 1024 * 1024};
    void *blocks[sizeof sizes / sizeof sizes[0]];
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        blocks[i] = shmem_malloc(sizes[i]);
        char what[64];
        snprintf(what, sizeof what, "shmem_malloc(%zu)", sizes[i]);
        check_symmetric(what, blocks[i], sizes[i]);
        if (blocks[i] != NULL)
            memset(blocks[i], 0x5A, sizes[i]);
    }
    /* Blocks do not overlap: each still holds its own fill after the others were written. */
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        if (blocks[i] != NULL) {
            memset(blocks[i], (int)i, sizes[i]);
        }
    }
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        unsigned char *b = blocks[i];
        for (size_t k = 0; b != NULL && k < sizes[i]; k++) {
            if (b[k] != (unsigned char)i) {
                REPORT("block %zu (%zu bytes) overlaps another: byte %zu is %d", i, sizes[i], k, b[k]);
                break;
            }
        }
    }
    /* Free in an order other than allocation order. */
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i += 2)
        shmem_free(blocks[i]);
    for (size_t i = 1; i < sizeof sizes / sizeof sizes[0]; i += 2)
        shmem_free(blocks[i]);
    shmem_free(NULL); /* allowed, does nothing */
}

static void test_zero_size(void)
{
    void *p = shmem_malloc(0);
    shmem_free(p); /* NULL or a valid pointer: shmem_free must accept either */
    p = shmem_calloc(0, 8);
    shmem_free(p);
    p = shmem_calloc(8, 0);
    shmem_free(p);
}

static void test_calloc(void)
{
    const size_t count = 1000, size = 24;
    /* Dirty some heap first, so that zeroes do not come for free from fresh pages. */
    unsigned char *dirty = shmem_malloc(count * size);
    if (dirty != NULL)
        memset(dirty, 0xFF, count * size);
    shmem_free(dirty);
    unsigned char *p = shmem_calloc(count, size);
    check_symmetric("shmem_calloc(1000, 24)", p, count * size);
    /* check_symmetric wrote the last int: it is `left` now. Check all bytes before it. */
    for (size_t k = 0; p != NULL && k < count * size - sizeof(int); k++) {
        if (p[k] != 0) {
            REPORT("shmem_calloc(%zu, %zu): byte %zu is 0x%02x, not 0", count, size, k, p[k]);
            break;
        }
    }
    shmem_free(p);
}

static void test_realloc(void)
{
    unsigned char *p = shmem_realloc(NULL, 100); /* acts as shmem_malloc */
    check_symmetric("shmem_realloc(NULL, 100)", p, 100);
    if (p == NULL)
        return;
    for (size_t k = 0; k < 100; k++)
        p[k] = (unsigned char)(k + me);
    /* Something after it, so that growing may have to move the block. */
    void *blocker = shmem_malloc(64);
    p = shmem_realloc(p, 100000);
    check_symmetric("shmem_realloc(p, 100000)", p, 100000);
    for (size_t k = 0; p != NULL && k < 100; k++) {
        if (p[k] != (unsigned char)(k + me)) {
            REPORT("shmem_realloc grow 100 -> 100000: byte %zu expected %d, got %d", k, (int)(k + me), p[k]);
            break;
        }
    }
    if (p != NULL) {
        for (size_t k = 0; k < 100000; k++)
            p[k] = (unsigned char)(k * 3 + me);
        p = shmem_realloc(p, 50);
        check_symmetric("shmem_realloc(p, 50)", p, 0);
        for (size_t k = 0; p != NULL && k < 50; k++) {
            if (p[k] != (unsigned char)(k * 3 + me)) {
                REPORT("shmem_realloc shrink 100000 -> 50: byte %zu expected %d, got %d", k,
                       (int)(unsigned char)(k * 3 + me), p[k]);
                break;
            }
        }
    }
    shmem_free(p);
    shmem_free(blocker);
}

static void test_align(void)
{
    for (size_t alignment = 8; alignment <= 4096; alignment *= 2) {
        /* An odd-sized block first, so that the next one is not aligned by chance. */
        void *odd = shmem_malloc(24);
        void *p = shmem_align(alignment, 100);
        char what[64];
        snprintf(what, sizeof what, "shmem_align(%zu, 100)", alignment);
        check_symmetric(what, p, 100);
        if (p != NULL && (uintptr_t)p % alignment != 0)
            REPORT("%s returned %p, not aligned", what, p);
        shmem_free(p);
        shmem_free(odd);
    }
}

static void test_hints(void)
{
    static const long hints[] = {
        0,
#ifdef SHMEM_MALLOC_ATOMICS_REMOTE
        SHMEM_MALLOC_ATOMICS_REMOTE,
#endif
#ifdef SHMEM_MALLOC_SIGNAL_REMOTE
        SHMEM_MALLOC_SIGNAL_REMOTE,
#endif
    };
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
        void *p = shmem_malloc_with_hints(256, hints[i]);
        char what[64];
        snprintf(what, sizeof what, "shmem_malloc_with_hints(256, %ld)", hints[i]);
        check_symmetric(what, p, 256);
        shmem_free(p);
    }
}

static void test_cycles(void)
{
    enum { SLOTS = 16, CYCLES = 2000 };
    void *slot[SLOTS] = {0};
    unsigned long state = 12345; /* the same sequence on every PE: allocation is collective */
    unsigned long digest = 0;
    for (int c = 0; c < CYCLES; c++) {
        state = state * 6364136223846793005UL + 1442695040888963407UL;
        int s = (int)((state >> 33) % SLOTS);
        if (slot[s] != NULL) {
            shmem_free(slot[s]);
            slot[s] = NULL;
        } else {
            size_t size = 1 + (size_t)((state >> 40) % 20000);
            slot[s] = shmem_malloc(size);
            if (slot[s] == NULL) {
                REPORT("cycle %d: shmem_malloc(%zu) returned NULL", c, size);
                break;
            }
            memset(slot[s], c & 0xff, size);
            digest = digest * 31 + (unsigned long)((char *)slot[s] - reference);
        }
    }
    for (int s = 0; s < SLOTS; s++)
        shmem_free(slot[s]);
    /* The same offsets everywhere: compare digests. */
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        shmem_long_p(&offsets[me], (long)digest, pe);
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        if (offsets[pe] != (long)digest)
            REPORT("alloc/free cycles: offsets differ from PE %d's", pe);
    shmem_barrier_all();
    /* After everything was freed, a large block still fits. */
    void *big = shmem_malloc(64 * 1024 * 1024);
    check_symmetric("shmem_malloc(64 MiB) after the cycles", big, 64 * 1024 * 1024);
    shmem_free(big);
}

static void test_deprecated(void)
{
    char *p = shmalloc(512);
    check_symmetric("shmalloc(512)", p, 512);
    if (p != NULL)
        memset(p, 7, 512);
    p = shrealloc(p, 8192);
    check_symmetric("shrealloc(p, 8192)", p, 8192);
    for (size_t k = 0; p != NULL && k < 512; k++) {
        if (p[k] != 7) {
            REPORT("shrealloc 512 -> 8192: byte %zu is %d, not 7", k, p[k]);
            break;
        }
    }
    shfree(p);
    void *a = shmemalign(256, 40);
    check_symmetric("shmemalign(256, 40)", a, 40);
    if (a != NULL && (uintptr_t)a % 256 != 0)
        REPORT("shmemalign(256, 40) returned %p, not aligned", a);
    shfree(a);
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
    reference = shmem_malloc(64);
    if (reference == NULL) {
        REPORT("shmem_malloc(64) returned NULL");
        shmem_global_exit(1);
    }

    test_malloc_free();
    test_zero_size();
    test_calloc();
    test_realloc();
    test_align();
    test_hints();
    test_cycles();
    test_deprecated();

    shmem_free(reference);
    shmem_long_p(&all_errors[me], errors, 0);
    shmem_barrier_all();
    if (me == 0) {
        long total = 0;
        for (int pe = 0; pe < npes; pe++)
            total += all_errors[pe];
        if (total == 0)
            printf("memory: passed on %d PEs\n", npes);
        else
            fprintf(stderr, "memory: %ld mismatches in all\n", total);
    }
    shmem_finalize();
    return errors != 0;
}
