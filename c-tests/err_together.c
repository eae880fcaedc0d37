// pes: 2 3 4 8
// timeout: 30
// expect-fail: is not symmetric
// Every PE makes the same error at the same moment (a put to a stack array right after a
// barrier). The PEs share one stderr: each PE's message must reach it as a whole line of its own,
// which the harness checks of every job (a library message starts its line).
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    int on_stack[64] = {0};
    int src[64] = {0};
    shmem_barrier_all();
    shmem_int_put(on_stack, src, 64, (shmem_my_pe() + 1) % shmem_n_pes());
    fprintf(stderr, "[PE %d] err_together: shmem_int_put to a stack array returned\n", shmem_my_pe());
    shmem_finalize();
    return 0;
}
