// Built with Sandia OpenSHMEM 1.5's constant values and a stand-in libsma.so, run with rshmem
// preloaded. 0, rshmem's SHMEM_CMP_EQ, is no comparison of SOS's header, so it is an error naming
// the value, the call and the personality, not a silent EQ.
// build: sos
// pes: 2
// expect-fail: shmem_long_wait_until: cmp = 0 is not a comparison of Sandia OpenSHMEM 1.5
#include <shmem.h>

static long x;

int main(void) {
    shmem_init();
    shmem_long_wait_until(&x, 0, 0);
    shmem_finalize();
    return 0;
}
