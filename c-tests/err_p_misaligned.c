// pes: 1 2
// timeout: 30
// env: SHMEM_TRANSPORT=auto
// expect-fail: is not aligned to 4 bytes
// expect-stderr: shmem_int_p: dest 0x
// shmem_p to an address not aligned to its type: where the target is mapped in this process (a
// PE's own copy is, under SHMEM_TRANSPORT=auto; over UCX the value moves as bytes) the value is
// stored with one volatile store of the element, which needs the alignment, so the call stops the
// job naming the call, the argument and the alignment.
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    char *buf = shmem_malloc(16);
    if (buf == NULL) {
        fprintf(stderr, "[PE %d] err_p_misaligned: shmem_malloc returned NULL\n", shmem_my_pe());
        shmem_global_exit(2);
    }
    shmem_int_p((int *)(void *)(buf + 1), 7, shmem_my_pe());
    fprintf(stderr, "[PE %d] err_p_misaligned: shmem_int_p to a misaligned address returned\n",
            shmem_my_pe());
    shmem_finalize();
    return 0;
}
