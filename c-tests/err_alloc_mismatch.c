// pes: 2 3
// timeout: 30
// expect-fail: collective allocation mismatch
// shmem_malloc is collective: PEs asking for different sizes is reported by the library (naming
// both PEs' requests) instead of leaving the heaps silently out of step.
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    void *p = shmem_malloc(1000 + 8 * (size_t)shmem_my_pe());
    fprintf(stderr, "[PE %d] err_alloc_mismatch: mismatched shmem_malloc returned %p\n", shmem_my_pe(), p);
    shmem_finalize();
    return 0;
}
