// pes: 1 2
// timeout: 30
// expect-fail: is not symmetric
// A put whose destination is a stack array (not symmetric) is reported and stops the job.
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    int on_stack[4] = {0, 0, 0, 0};
    int src[4] = {1, 2, 3, 4};
    shmem_int_put(on_stack, src, 4, 0);
    fprintf(stderr, "[PE %d] err_not_symmetric: shmem_int_put to a stack array returned (%d)\n", shmem_my_pe(),
            on_stack[0]);
    shmem_finalize();
    return 0;
}
