// pes: 2
// timeout: 30
// expect-fail: counter
// expect-stderr: shmemx_alltoall_global_nb:
// OSHMEM's shmemx_alltoall_global_nb with a counter that is not symmetric (on the stack): an error
// naming the routine and the argument, before any block moves.
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

static long src[2], dst[2];

int main(void)
{
    shmem_init();
    long counter = 0;
    shmemx_alltoall_global_nb(dst, src, sizeof(long), &counter);
    fprintf(stderr, "[PE %d] err_alltoall_global_nb_counter: returned\n", shmem_my_pe());
    return 3;
}
