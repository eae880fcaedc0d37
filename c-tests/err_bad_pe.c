// pes: 1 2
// timeout: 30
// expect-fail: is outside [0,
// A put to a PE number past the last one is reported, naming the argument and the valid range,
// and stops the job.
#include <shmem.h>
#include <stdio.h>

static int target;

int main(void)
{
    shmem_init();
    int src = 1;
    shmem_int_put(&target, &src, 1, shmem_n_pes());
    fprintf(stderr, "[PE %d] err_bad_pe: shmem_int_put to PE %d returned\n", shmem_my_pe(), shmem_n_pes());
    shmem_finalize();
    return 0;
}
