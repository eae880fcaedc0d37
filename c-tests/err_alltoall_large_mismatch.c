// pes: 2 3
// timeout: 60
// env: SHMEM_TRANSPORT=ucx
// env: UCX_TLS=tcp,self
// expect-fail: every PE of the call must pass the same number of elements
// expect-stderr: where this PE expects
// An alltoall whose PEs pass different element counts, every PE on the UCX route (each its own
// node, so each block goes as one message: src/collectives/pairwise.rs), PE 0's blocks large
// enough to go by rendezvous (512 KiB: the data moves once the receive is posted), the others'
// eager (128 KiB). A PE that receives a longer message than it posted for, or a shorter one, ends
// the job naming the sender, instead of writing past its block or waiting.
#include <shmem.h>
#include <stdio.h>

enum { LARGE = 512 * 1024, SMALL = 128 * 1024 };

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    size_t nbytes = me == 0 ? LARGE : SMALL;
    unsigned char *src = shmem_malloc(npes * LARGE), *dst = shmem_malloc(npes * LARGE);
    for (size_t k = 0; k < (size_t)npes * nbytes; k++) src[k] = (unsigned char)k;
    shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, nbytes);
    fprintf(stderr, "[PE %d] err_alltoall_large_mismatch: the alltoall returned\n", me);
    shmem_finalize();
    return 0;
}
