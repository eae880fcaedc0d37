/* The checks of the self-checking C tests, in plain C11: no OpenSHMEM header, so the foreign tests
 * (c-tests/foreign/, compiled with other implementations' oshcc) include it too.
 *
 * CHECK(cond, fmt, ...) prints "[PE <me>] <test>: <message>" on stderr when cond is false and
 * counts the failure in `errors`; the test ends with a non-zero exit when `errors` is. It reads
 * the including file's `me` (int) and `errors` (an integer variable), and prints at most
 * CHECK_LIMIT messages (20 unless the test defines it before the include); a test whose threads
 * check at once defines CHECK_COUNT() to count atomically.
 *
 * REQUIRE(cond) prints "[PE <me>] <file>:<line>: <cond>" and returns 1 from the function
 * (main) when cond is false: for tests that stop at the first wrong value.
 *
 * check_byte(seed, k) is byte k of a pattern named by `seed`, mixed from every bit of both: data
 * that lands at another offset reads wrong however far it moved (a byte linear in k, such as
 * k * 7 + seed, repeats every 256 bytes, so a piece of a multiple of 256 bytes swapped with another
 * reads right). */
#ifndef RSHMEM_C_TESTS_CHECK_H
#define RSHMEM_C_TESTS_CHECK_H

#include <stdio.h>
#include <string.h>

#ifndef CHECK_LIMIT
#define CHECK_LIMIT 20
#endif

#ifndef CHECK_COUNT
#define CHECK_COUNT() (errors++ < CHECK_LIMIT)
#endif

/* Prints "[PE <me>] <test>: ", the test named by its source file without directory and suffix. */
static inline void check_prefix(int me, const char *file) {
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    const char *dot = strrchr(base, '.');
    int len = dot ? (int)(dot - base) : (int)strlen(base);
    fprintf(stderr, "[PE %d] %.*s: ", me, len, base);
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond) && CHECK_COUNT()) {                                                            \
            check_prefix(me, __FILE__);                                                            \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

static inline unsigned char check_byte(unsigned long long seed, size_t k) {
    unsigned long long x = seed * 0x9e3779b97f4a7c15ull;
    x ^= (unsigned long long)k * 0xc2b2ae3d27d4eb4full;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 32;
    return (unsigned char)x;
}

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "[PE %d] %s:%d: %s\n", me, __FILE__, __LINE__, #cond);                 \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

#endif /* RSHMEM_C_TESTS_CHECK_H */
