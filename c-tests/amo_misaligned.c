// pes: 1 2
// timeout: 30
// expect-fail: is not aligned to 4 bytes
// expect-stderr: shmem_int_atomic_fetch_add: dest 0x
// The target of an atomic must be naturally aligned: a misaligned one is reported, naming the
// call, the argument and the alignment, and stops the job.
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    char *buf = shmem_malloc(16);
    if (buf == NULL) {
        fprintf(stderr, "[PE %d] amo_misaligned: shmem_malloc returned NULL\n", shmem_my_pe());
        shmem_global_exit(2);
    }
    shmem_int_atomic_fetch_add((int *)(void *)(buf + 1), 1, (shmem_my_pe() + 1) % shmem_n_pes());
    fprintf(stderr, "[PE %d] amo_misaligned: shmem_int_atomic_fetch_add on a misaligned target returned\n",
            shmem_my_pe());
    shmem_finalize();
    return 0;
}
