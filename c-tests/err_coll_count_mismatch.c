// pes: 2 3
// timeout: 60
// env: SHMEM_TRANSPORT=ucx
// env: UCX_TLS=tcp,self
// expect-fail: every PE of the call must pass the same number of elements
// A reduction whose PEs pass different element counts, every PE on the UCX route (each its own
// node): the node leaders' messages carry their length, and a PE that receives one of another
// length than it expects ends the job naming the sender and both lengths, instead of combining
// part of the data or reading past it.
#include <shmem.h>
#include <stdio.h>

static long src[8], dst[8];

int main(void) {
    shmem_init();
    int me = shmem_my_pe();
    for (int k = 0; k < 8; k++) src[k] = k;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, (size_t)(1 + me));
    fprintf(stderr, "[PE %d] err_coll_count_mismatch: the reduction returned\n", me);
    shmem_finalize();
    return 0;
}
