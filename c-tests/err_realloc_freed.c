// pes: 1 2 3
// timeout: 30
// expect-fail: shmem_realloc: ptr = 0x
// shmem_realloc of a block freed before is reported (the pointer named) and stops the job: the
// spec leaves it undefined, and nothing else would tell the program it used a freed block.
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    long *p = shmem_malloc(64);
    shmem_free(p);
    void *q = shmem_realloc(p, 128);
    fprintf(stderr, "[PE %d] err_realloc_freed: shmem_realloc of a freed block returned %p\n", shmem_my_pe(), q);
    shmem_finalize();
    return 0;
}
