// pes: 1 2
// timeout: 30
// env: SHMEM_SYMMETRIC_SIZE=12Q
// expect-fail: SHMEM_SYMMETRIC_SIZE
// A malformed SHMEM_SYMMETRIC_SIZE stops shmem_init with a message naming the variable.
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    fprintf(stderr, "[PE %d] err_symmetric_size: shmem_init accepted SHMEM_SYMMETRIC_SIZE=12Q\n", shmem_my_pe());
    shmem_finalize();
    return 0;
}
