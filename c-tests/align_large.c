// pes: 1 2 3 4 8
// timeout: 60
// env: SHMEM_SYMMETRIC_SIZE=2G
// shmem_align(a, n) returns an address aligned to a for every power of two a up to 1 GiB (the
// largest alignment rshmem provides, docs/ABI.md), also after other blocks took the heap's start,
// and the block is usable: each PE puts into its right neighbour's block and checks its own.
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long errors = 0;
    long *first = shmem_malloc(100); /* the heap's first bytes are taken */
    for (int k = 3; k <= 30; k++) {
        size_t a = (size_t)1 << k;
        long *p = shmem_align(a, 4 * sizeof(long));
        if (p == NULL || (uintptr_t)p % a != 0) {
            fprintf(stderr, "[PE %d] align_large: shmem_align(%zu) returned %p, not aligned\n", me, a, (void *)p);
            errors++;
            continue;
        }
        p[0] = -1;
        shmem_barrier_all();
        shmem_long_p(p, 1000 + k + me, (me + 1) % npes);
        shmem_barrier_all();
        long want = 1000 + k + (me + npes - 1) % npes;
        if (p[0] != want) {
            fprintf(stderr, "[PE %d] align_large: block aligned to %zu holds %ld, want %ld\n", me, a, p[0], want);
            errors++;
        }
        shmem_free(p);
    }
    shmem_free(first);
    shmem_barrier_all();
    if (errors == 0 && me == 0)
        printf("align_large: %d PEs passed\n", npes);
    shmem_finalize();
    return errors != 0;
}
