// pes: 2 3
// timeout: 30
// expect-fail: collective allocation mismatch
// The PEs may free blocks in different orders, but when they have freed different blocks their
// heaps are out of step: the next allocation gets different offsets, which the library reports
// instead of returning an address that is not symmetric.
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    void *a = shmem_malloc(4096);
    void *b = shmem_malloc(4096);
    void *guard = shmem_malloc(64);
    (void)guard;
    shmem_free(me == 0 ? a : b); /* PE 0 frees a, the others b */
    void *p = shmem_malloc(4096);  /* fills the hole: a's place on PE 0, b's elsewhere */
    fprintf(stderr, "[PE %d] err_free_diverged: shmem_malloc returned %p\n", me, p);
    shmem_finalize();
    return 0;
}
