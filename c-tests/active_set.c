// pes: 1 2 3 4 5 8
// timeout: 120
// The deprecated active-set collectives: shmem_barrier (also back to back), the four-argument
// shmem_sync, broadcast32/64 (the root's dest untouched), collect32/64, fcollect32/64,
// alltoall32/64 and alltoalls32/64 on the whole world and on the PEs of even number (logPE_stride
// 1), with pSync arrays reused back to back as the spec allows after a barrier; results checked
// against the PE numbers.
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include "check.h"

enum { N = 5, MAXPE = 8 };

static int me, npes;
static long errors;
static long psync[SHMEM_SYNC_SIZE];
static long psync2[SHMEM_BARRIER_SYNC_SIZE];
static uint64_t src[MAXPE * N * 3], dst[MAXPE * N * 3];
static int counter;
enum { STEPS = 300 };
static int slot[MAXPE];

static uint64_t val(int i, int j, int k) { return (uint64_t)(i * 10000 + j * 100 + k + 1); }

#define SIZED(BITS, T)                                                                             \
    static void sized##BITS(int start, int log, int size)                                         \
    {                                                                                              \
        int i = (me - start) >> log;                                                               \
        T *s = (T *)src, *d = (T *)dst;                                                            \
        for (int r = 0; r < size; r++) {                                                           \
            for (int k = 0; k < N; k++) {                                                          \
                s[k] = (T)val(i, 0, k);                                                            \
                d[k] = 7;                                                                          \
            }                                                                                      \
            shmem_broadcast##BITS(d, s, N, r, start, log, size, psync);                            \
            for (int k = 0; k < N; k++)                                                            \
                CHECK(d[k] == (i == r ? 7 : (T)val(r, 0, k)),                                      \
                      "broadcast%d root %d of (%d,%d,%d): [%d] = %llu", BITS, r, start, log, size, \
                      k, (unsigned long long)d[k]);                                                \
        }                                                                                          \
        shmem_fcollect##BITS(d, s, N, start, log, size, psync);                                    \
        for (int j = 0; j < size; j++)                                                             \
            for (int k = 0; k < N; k++)                                                            \
                CHECK(d[j * N + k] == (T)val(j, 0, k), "fcollect%d [%d][%d]", BITS, j, k);         \
        shmem_collect##BITS(d, s, (size_t)(i % 2 + 1), start, log, size, psync);                   \
        for (int j = 0, at = 0; j < size; at += j % 2 + 1, j++)                                    \
            for (int k = 0; k <= j % 2; k++)                                                       \
                CHECK(d[at + k] == (T)val(j, 0, k), "collect%d PE %d [%d]", BITS, j, k);           \
        for (int j = 0; j < size; j++)                                                             \
            for (int k = 0; k < N; k++)                                                            \
                s[j * N + k] = (T)val(i, j, k);                                                    \
        shmem_alltoall##BITS(d, s, N, start, log, size, psync);                                    \
        for (int j = 0; j < size; j++)                                                             \
            for (int k = 0; k < N; k++)                                                            \
                CHECK(d[j * N + k] == (T)val(j, i, k), "alltoall%d [%d][%d]", BITS, j, k);         \
        for (int j = 0; j < size; j++)                                                             \
            for (int k = 0; k < N; k++)                                                            \
                s[(j * N + k) * 3] = (T)val(i, j, k);                                              \
        shmem_alltoalls##BITS(d, s, 2, 3, N, start, log, size, psync);                            \
        for (int j = 0; j < size; j++)                                                             \
            for (int k = 0; k < N; k++)                                                            \
                CHECK(d[(j * N + k) * 2] == (T)val(j, i, k), "alltoalls%d [%d][%d]", BITS, j, k);  \
    }
SIZED(32, uint32_t)
SIZED(64, uint64_t)

static void run(int start, int log, int size)
{
    int i = (me - start) >> log;
    /* Barrier: every PE of the set increments PE start's counter before it, all see the total
     * after it. */
    for (int round = 1; round <= 3; round++) {
        shmem_int_atomic_inc(&counter, start);
        shmem_barrier(start, log, size, psync2);
        int got = shmem_int_atomic_fetch(&counter, start);
        CHECK(got >= round * size, "barrier (%d,%d,%d) round %d: counter %d", start, log, size,
              round, got);
        shmem_sync(start, log, size, psync2);
    }
    /* Back-to-back barriers: in step t every PE of the set puts t into its slot on every member;
     * after the barrier every member's slot holds at least t (a PE already in step t + 1 may
     * have put t + 1). */
    for (int t = 1; t <= STEPS; t++) {
        for (int r = 0; r < size; r++)
            shmem_int_p(&slot[i], t, start + (r << log));
        shmem_barrier(start, log, size, psync2);
        for (int r = 0; r < size; r++)
            CHECK(slot[r] >= t && slot[r] <= t + 1, "barrier (%d,%d,%d) step %d: slot %d holds %d",
                  start, log, size, t, r, slot[r]);
    }
    sized32(start, log, size);
    sized64(start, log, size);
    shmem_barrier(start, log, size, psync2);
    if (me == start)
        counter = 0;
    shmem_barrier(start, log, size, psync2);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    run(0, 0, npes);
    if (me % 2 == 0)
        run(0, 1, (npes + 1) / 2);
    else
        run(1, 1, npes / 2);
    shmem_barrier_all();
    if (errors)
        fprintf(stderr, "[PE %d] active_set: %ld errors\n", me, errors);
    shmem_finalize();
    return errors ? 1 : 0;
}
