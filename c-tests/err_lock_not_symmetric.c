// pes: 1 2
// timeout: 30
// expect-fail: is not symmetric
// expect-stderr: shmem_set_lock: lock 0x
// A lock must be a symmetric long: a stack variable is reported.
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    long on_stack = 0;
    shmem_set_lock(&on_stack);
    fprintf(stderr, "[PE %d] err_lock_not_symmetric: shmem_set_lock on a stack variable returned\n", shmem_my_pe());
    shmem_finalize();
    return 0;
}
