// pes: 1 2 4
// timeout: 30
// expect-fail: shmem_long_alltoalls: the strides must be at least 1: dst = 0, sst = 1
// The spec asks for alltoalls strides of at least 1. A destination stride of 0 would pile every
// element of a block onto one, and a negative one would write before `dest`: the library stops
// the job naming the call and both strides instead of exchanging anything (docs/ABI.md).
#include <shmem.h>
#include <stdio.h>

int main(void) {
    static long src[64], dst[64];
    shmem_init();
    int me = shmem_my_pe();
    shmem_barrier_all();
    shmem_long_alltoalls(SHMEM_TEAM_WORLD, dst, src, 0, 1, 2);
    fprintf(stderr, "[PE %d] err_alltoalls_stride: an alltoalls with dst 0 returned\n", me);
    shmem_finalize();
    return 0;
}
