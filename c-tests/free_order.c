// pes: 1 2 3 4 5
// timeout: 60
// shmem_free is collective, but the PEs may free the blocks of a set in different orders (as
// Python's garbage collector does when references go at different times on different PEs): once
// every PE has freed the same blocks the heaps agree again, and later allocations are symmetric.
// Checks that, across rounds, every PE gets the same offsets afterwards and that the blocks work.
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

#define BLOCKS 8

static long errors;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *base = shmem_malloc(sizeof(long)); /* a fixed reference: offsets are relative to it */
    uintptr_t *offsets = shmem_malloc(BLOCKS * sizeof(uintptr_t));
    for (int round = 0; round < 4; round++) {
        long *blocks[BLOCKS];
        for (int i = 0; i < BLOCKS; i++) {
            blocks[i] = shmem_malloc(((size_t)i + 1) * 100 * (size_t)(round + 1));
            if (blocks[i] == NULL) {
                fprintf(stderr, "[PE %d] free_order: shmem_malloc returned NULL\n", me);
                shmem_global_exit(1);
            }
        }
        /* each PE frees in its own rotation of the order, reversed on odd PEs */
        for (int j = 0; j < BLOCKS; j++) {
            int i = (j + me + round) % BLOCKS;
            if (me % 2) i = BLOCKS - 1 - i;
            shmem_free(blocks[i]);
        }
        /* the next allocations must land at the same offsets everywhere and be usable */
        long *again[BLOCKS];
        for (int i = 0; i < BLOCKS; i++) {
            again[i] = shmem_malloc(((size_t)BLOCKS - (size_t)i) * 64);
            offsets[i] = (uintptr_t)again[i] - (uintptr_t)base;
        }
        shmem_barrier_all();
        for (int i = 0; i < BLOCKS; i++) {
            uintptr_t theirs;
            shmem_getmem(&theirs, &offsets[i], sizeof theirs, (me + 1) % npes);
            if (theirs != offsets[i]) {
                fprintf(stderr, "[PE %d] free_order: round %d block %d at offset %zu here, %zu on PE %d\n",
                        me, round, i, (size_t)offsets[i], (size_t)theirs, (me + 1) % npes);
                errors++;
            }
            shmem_long_p(again[i], me, (me + 1) % npes);
        }
        shmem_barrier_all();
        for (int i = 0; i < BLOCKS; i++)
            if (*again[i] != (me + npes - 1) % npes) {
                fprintf(stderr, "[PE %d] free_order: round %d block %d holds %ld\n", me, round, i, *again[i]);
                errors++;
            }
        for (int i = BLOCKS - 1; i >= 0; i--) shmem_free(again[me % 2 ? i : BLOCKS - 1 - i]);
    }
    shmem_free(offsets);
    shmem_free(base);
    shmem_finalize();
    if (errors) return 1;
    if (me == 0) printf("free_order: ok\n");
    return 0;
}
