// pes: 1 2
// timeout: 30
// expect-fail: is not symmetric
// expect-stderr: shmem_int_wait_until: ivar 0x
// The variable of a wait must be symmetric: a stack variable is reported, naming the call and the
// argument, and stops the job instead of waiting forever.
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    int on_stack = 0;
    shmem_int_wait_until(&on_stack, SHMEM_CMP_EQ, 1);
    fprintf(stderr, "[PE %d] err_wait_not_symmetric: shmem_int_wait_until on a stack variable returned\n",
            shmem_my_pe());
    shmem_finalize();
    return 0;
}
