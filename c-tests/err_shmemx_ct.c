// pes: 1 2
// timeout: 30
// expect-fail: counting puts (shmemx_ct_*, shmemx_putmem_ct, shmemx_getmem_ct) are not supported
// expect-stderr: shmemx_ct_create:
// Sandia OpenSHMEM's counting puts cannot be answered truthfully by rshmem (it keeps no
// per-operation completion counts): the first call stops the job, naming the routine and why.
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    shmemx_ct_t ct;
    shmemx_ct_create(&ct);
    fprintf(stderr, "[PE %d] err_shmemx_ct: shmemx_ct_create returned\n", shmem_my_pe());
    return 3;
}
