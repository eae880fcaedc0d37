// pes: 1 2
// timeout: 30
// expect-fail: is not symmetric
// expect-stderr: shmem_signal_wait_until: sig_addr 0x
// The signal word must be symmetric: a stack word is reported.
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    uint64_t on_stack = 0;
    uint64_t got = shmem_signal_wait_until(&on_stack, SHMEM_CMP_EQ, 1);
    fprintf(stderr, "[PE %d] err_signal_not_symmetric: returned %llu\n", shmem_my_pe(), (unsigned long long)got);
    shmem_finalize();
    return 0;
}
