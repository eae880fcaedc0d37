// pes: 1 2
// timeout: 30
// expect-fail: before shmem_init
// An RMA call before shmem_init is reported and stops the program.
#include <shmem.h>
#include <stdio.h>

static int target;

int main(void)
{
    shmem_int_p(&target, 1, 0);
    fprintf(stderr, "err_before_init: shmem_int_p before shmem_init returned\n");
    return 0;
}
