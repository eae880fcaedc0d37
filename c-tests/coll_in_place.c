// pes: 1 2 3 4 8
// timeout: 120
// alltoall, alltoalls, fcollect and collect with the same array as source and destination (the
// spec does not forbid it; docs/ABI.md): every PE must get every other PE's block for it, whatever
// path the size takes (carried in the post, staged in scratch chunks, pushed into the members that
// have posted, read in place from the source), on a team and on an active set, and back to back
// without a barrier. The arrays are refilled before each call: a library that wrote a PE's array
// while another still read it as a source would hand out blocks already exchanged.
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include "check.h"

enum { MAXB = 24000, MAXPE = 8, ROUNDS = 20 };

static int me, npes;
static long errors;
static long psync[SHMEM_ALLTOALL_SYNC_SIZE];

/* Byte k of the block PE `from` sends PE `to` in round r. */
static unsigned char byte(int r, int from, int to, size_t k) {
    return check_byte((unsigned long long)r << 32 | (unsigned long long)from << 16 | (unsigned)to, k);
}

static void fill(unsigned char *a, size_t b, int r) {
    for (int j = 0; j < npes; j++)
        for (size_t k = 0; k < b; k++)
            a[j * b + k] = byte(r, me, j, k);
}

static void check_blocks(const unsigned char *a, size_t b, int r, const char *what) {
    for (int j = 0; j < npes; j++)
        for (size_t k = 0; k < b; k++)
            if (a[j * b + k] != byte(r, j, me, k)) {
                CHECK(0, "%s of %zu B, round %d: block %d byte %zu is %#x, not %#x", what, b, r, j,
                      k, a[j * b + k], byte(r, j, me, k));
                return;
            }
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (int i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    unsigned char *a = shmem_malloc(MAXB * MAXPE);
    const size_t sizes[] = {8, 56, 600, 1024, 3000, 8192, MAXB};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t b = sizes[s];
        for (int r = 0; r < ROUNDS; r++) {
            fill(a, b, r);
            shmem_alltoallmem(SHMEM_TEAM_WORLD, a, a, b);
            check_blocks(a, b, r, "alltoallmem");
        }
        /* The active-set form, 8-byte elements; the pSync is free again after each call. */
        for (int r = 0; r < ROUNDS; r++) {
            fill(a, b, r + 100);
            shmem_alltoall64(a, a, b / 8, 0, 0, npes, psync);
            check_blocks(a, b, r + 100, "alltoall64");
            shmem_barrier_all();
        }
    }
    /* alltoalls of longs, both strides 2 (the elements in between are left alone). */
    long *l = shmem_malloc(sizeof(long) * 2 * 3000 * MAXPE);
    const size_t counts[] = {1, 40, 700, 3000};
    for (size_t s = 0; s < sizeof counts / sizeof counts[0]; s++) {
        size_t ne = counts[s];
        for (int r = 0; r < ROUNDS; r++) {
            for (size_t e = 0; e < ne * (size_t)npes; e++) {
                l[2 * e] = r * 10000000L + me * 100000L + (long)e;
                l[2 * e + 1] = -1;
            }
            shmem_long_alltoalls(SHMEM_TEAM_WORLD, l, l, 2, 2, ne);
            for (int j = 0; j < npes; j++)
                for (size_t k = 0; k < ne; k++) {
                    long want = r * 10000000L + j * 100000L + (long)(me * ne + k);
                    size_t at = 2 * (j * ne + k);
                    if (l[at] != want || l[at + 1] != -1) {
                        CHECK(0, "alltoalls of %zu, round %d: from PE %d element %zu is %ld (%ld), "
                                 "not %ld", ne, r, j, k, l[at], l[at + 1], want);
                        j = npes;
                        break;
                    }
                }
        }
    }
    shmem_free(l);
    /* fcollect: the source is the first block of the destination; collect: PE i gives b + i
     * bytes from the start of the same array. */
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t b = sizes[s];
        for (int r = 0; r < ROUNDS; r++) {
            for (size_t k = 0; k < b; k++)
                a[k] = byte(r, me, 0, k);
            shmem_fcollectmem(SHMEM_TEAM_WORLD, a, a, b);
            for (int j = 0; j < npes; j++)
                for (size_t k = 0; k < b; k++)
                    if (a[j * b + k] != byte(r, j, 0, k)) {
                        CHECK(0, "fcollectmem of %zu B, round %d: block %d byte %zu is %#x, not %#x",
                              b, r, j, k, a[j * b + k], byte(r, j, 0, k));
                        j = npes;
                        break;
                    }
        }
        for (int r = 0; r < ROUNDS; r++) {
            size_t mine = b - (size_t)me % b;
            for (size_t k = 0; k < mine; k++)
                a[k] = byte(r, me, 1, k);
            shmem_collectmem(SHMEM_TEAM_WORLD, a, a, mine);
            size_t at = 0;
            for (int j = 0; j < npes; j++) {
                size_t len = b - (size_t)j % b;
                for (size_t k = 0; k < len; k++)
                    if (a[at + k] != byte(r, j, 1, k)) {
                        CHECK(0, "collectmem of %zu B, round %d: block %d byte %zu is %#x, not %#x",
                              len, r, j, k, a[at + k], byte(r, j, 1, k));
                        j = npes;
                        break;
                    }
                at += len;
            }
        }
    }
    shmem_free(a);
    shmem_finalize();
    return errors != 0;
}
