// pes: 1 2
// timeout: 30
// env: SHMEM_SYMMETRIC_SIZE=1M
// env: SHMEM_DEBUG=1
// expect-stderr: symmetric heap exhausted
// With a 1 MiB heap, shmem_malloc(16 MiB) returns NULL (an error code, not a failure of the job),
// SHMEM_DEBUG makes the library say why, and the heap remains usable afterwards.
#include <shmem.h>
#include <stdio.h>

static int from_left = -1;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int errors = 0;
    void *big = shmem_malloc(16 * 1024 * 1024);
    if (big != NULL) {
        fprintf(stderr, "[PE %d] heap_exhausted: shmem_malloc(16 MiB) with a 1 MiB heap: expected NULL, got %p\n",
                me, big);
        errors++;
    }
    int *small = shmem_malloc(1024);
    if (small == NULL) {
        fprintf(stderr, "[PE %d] heap_exhausted: shmem_malloc(1024) after the failed one returned NULL\n", me);
        shmem_global_exit(1);
    }
    shmem_int_p(&from_left, me, (me + 1) % npes);
    shmem_barrier_all();
    if (from_left != (me + npes - 1) % npes) {
        fprintf(stderr, "[PE %d] heap_exhausted: ring after the failed allocation: expected %d, got %d\n", me,
                (me + npes - 1) % npes, from_left);
        errors++;
    }
    shmem_free(small);
    shmem_finalize();
    return errors != 0;
}
