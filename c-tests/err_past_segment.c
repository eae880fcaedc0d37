// pes: 1 2
// timeout: 30
// expect-fail: runs past the end of its symmetric segment
// A put that starts inside a symmetric heap block but runs past the end of the heap segment is
// reported (the whole range is checked, not only its first byte) and stops the job.
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    long *block = shmem_malloc(64 * sizeof(long));
    long source[64] = {0};
    /* 1 Gi longs from a 64-long block: far past any heap this test runs with. */
    shmem_long_put(block, source, (size_t)1 << 30, 0);
    fprintf(stderr, "err_past_segment: the oversized put returned\n");
    shmem_finalize();
    return 0;
}
