// pes: 1 2
// timeout: 30
// expect-fail: cmp = 42 is not a comparison
// expect-stderr: shmem_long_test:
// A comparison that is not one of SHMEM_CMP_* is reported, naming the call and the argument; test
// and wait_until check it even when the answer would not depend on it.
#include <shmem.h>
#include <stdio.h>

static long ivar;

int main(void)
{
    shmem_init();
    int got = shmem_long_test(&ivar, 42, 0);
    fprintf(stderr, "[PE %d] err_wait_bad_cmp: shmem_long_test with cmp 42 returned %d\n", shmem_my_pe(), got);
    shmem_finalize();
    return 0;
}
