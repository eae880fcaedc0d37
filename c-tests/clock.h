/* now(): seconds on CLOCK_MONOTONIC, for the tests that time what they check (one clock for every
 * process on the machine, so PEs of one host can compare their times). The including file
 * defines _POSIX_C_SOURCE 200809L before its first include. */
#ifndef RSHMEM_C_TESTS_CLOCK_H
#define RSHMEM_C_TESTS_CLOCK_H

#include <time.h>

static inline double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif /* RSHMEM_C_TESTS_CLOCK_H */
