// pes: 1 2
// timeout: 30
// expect-fail: is not a combination of Open MPI OSHMEM's SHMEM_HINT_* values
// expect-stderr: shmemx_malloc_with_hint:
// A hint that is none of OSHMEM's SHMEM_HINT_* bits is an error naming the routine and the value.
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    void *p = shmemx_malloc_with_hint(64, 1L << 20);
    fprintf(stderr, "[PE %d] err_malloc_with_hint: returned %p\n", shmem_my_pe(), p);
    return 3;
}
