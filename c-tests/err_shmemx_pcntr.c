// pes: 1 2
// timeout: 30
// expect-fail: performance counters (shmemx_pcntr_*) are not supported
// expect-stderr: shmemx_pcntr_get_all:
// Sandia OpenSHMEM's performance counters cannot be answered truthfully by rshmem (it does not
// count issued and completed operations): the call stops the job, naming the routine and why.
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    shmemx_pcntr_t c;
    shmemx_pcntr_get_all(SHMEM_CTX_DEFAULT, &c);
    fprintf(stderr, "[PE %d] err_shmemx_pcntr: shmemx_pcntr_get_all returned\n", shmem_my_pe());
    return 3;
}
