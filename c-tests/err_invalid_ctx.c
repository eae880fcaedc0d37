// pes: 1 2
// timeout: 30
// expect-fail: ctx is SHMEM_CTX_INVALID
// An RMA call on SHMEM_CTX_INVALID is reported and stops the job.
#include <shmem.h>
#include <stdio.h>

static int target;

int main(void) {
    shmem_init();
    shmem_ctx_int_p(SHMEM_CTX_INVALID, &target, 1, 0);
    fprintf(stderr, "err_invalid_ctx: the call on an invalid context returned\n");
    shmem_finalize();
    return 0;
}
