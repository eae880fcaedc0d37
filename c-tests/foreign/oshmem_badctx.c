// Built with Open MPI OSHMEM 4.1's oshcc, run with rshmem preloaded: a context handle that is
// neither rshmem's nor OSHMEM's SHMEM_CTX_DEFAULT is an error naming the value, the call and the
// personality (OSHMEM 4.1 has no SHMEM_CTX_INVALID to call it).
// build: oshmem
// pes: 2
// expect-fail: shmem_ctx_long_p: ctx = 0x1230 is not a context this library created nor a predefined handle of Open MPI OSHMEM 4.1
#include <shmem.h>
#include <stdint.h>

static long x;

int main(void) {
    shmem_init();
    shmem_ctx_long_p((shmem_ctx_t)(uintptr_t)0x1230, &x, 1, 0);
    shmem_finalize();
    return 0;
}
