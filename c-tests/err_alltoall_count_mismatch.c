// pes: 2 3
// timeout: 60
// env: SHMEM_TRANSPORT=ucx
// env: UCX_TLS=tcp,self
// expect-fail: every PE of the call must pass the same number of elements
// An alltoall whose PEs pass different element counts, every PE on the UCX route (each its own
// node, so the blocks go as messages: src/collectives/pairwise.rs): a PE that receives a block of
// another length than it expects ends the job naming the sender and both lengths (or, for a longer
// one, that the sender sent more), instead of writing past its destination's block or waiting.
#include <shmem.h>
#include <stdio.h>

static long src[3 * 2], dst[3 * 2];

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    for (int k = 0; k < 6; k++) src[k] = k;
    shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, me == 0 ? 1 : 2);
    fprintf(stderr, "[PE %d] err_alltoall_count_mismatch: the alltoall returned\n", me);
    shmem_finalize();
    return 0;
}
