// pes: 1 2
// timeout: 30
// expect-fail: sig_op = 9 is neither SHMEM_SIGNAL_SET
// expect-stderr: shmem_putmem_signal:
// A put-with-signal with an unknown sig_op is reported before any data moves.
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

static char dest[8];
static uint64_t sig;

int main(void)
{
    shmem_init();
    char src[8] = "abcdefg";
    shmem_putmem_signal(dest, src, sizeof src, &sig, 1, 9, (shmem_my_pe() + 1) % shmem_n_pes());
    fprintf(stderr, "[PE %d] err_signal_bad_op: shmem_putmem_signal with sig_op 9 returned\n", shmem_my_pe());
    shmem_finalize();
    return 0;
}
