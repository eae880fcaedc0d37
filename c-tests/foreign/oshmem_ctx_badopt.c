// Built with Open MPI OSHMEM 4.1's oshcc, run with rshmem preloaded: a context option bit its
// header does not define is an error naming the bit, the call and the personality.
// build: oshmem
// pes: 2
// expect-fail: shmem_ctx_create: options = 0x11: bit 0x10 is no context option of Open MPI OSHMEM 4.1
#include <shmem.h>

int main(void) {
    shmem_init();
    shmem_ctx_t ctx;
    int r = shmem_ctx_create(SHMEM_CTX_PRIVATE | 16, &ctx);
    shmem_finalize();
    return r == 0 ? 0 : 2;
}
