// pes: 1 2 3
// env: SHMEM_TRANSPORT=ucx
// env: UCX_TLS=tcp
// env: SHMEM_COUNTS=1
// expect-stderr: network operations: put 3 get 2 amo 1
// expect-stderr: bytes put 24 got 16
// SHMEM_COUNTS on the network route over TCP (counts_mapped.c: over UCX's shared memory): each
// PE makes exactly 3 puts, 2 gets and 1 atomic of 8 bytes to its right neighbour (itself on 1
// PE), and the line printed at shmem_finalize must say so, with the bytes moved. The library's
// own barrier and finalize signals count as signals, not as puts or atomics.
#include <shmem.h>
#include <stdio.h>

static long word[4];

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes;
    long value = me, back = -1;
    for (int i = 0; i < 3; i++)
        shmem_putmem(&word[i], &value, sizeof value, right);
    shmem_quiet();
    shmem_getmem(&back, &word[0], sizeof back, right);
    shmem_getmem(&back, &word[1], sizeof back, right);
    long old = shmem_long_atomic_fetch_add(&word[3], 1, right);
    shmem_barrier_all();
    int errors = 0;
    int left = (me + npes - 1) % npes;
    for (int i = 0; i < 3; i++)
        if (word[i] != left) {
            printf("PE %d: word[%d] = %ld, expected %d\n", me, i, word[i], left);
            errors++;
        }
    if (word[3] != 1 || old != 0) {
        printf("PE %d: the counter is %ld (old %ld), expected 1 (old 0)\n", me, word[3], old);
        errors++;
    }
    shmem_finalize();
    return errors != 0;
}
