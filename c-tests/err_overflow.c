// pes: 1 2
// timeout: 30
// expect-fail: overflows
// A put whose byte count overflows (nelems * sizeof(int) past SIZE_MAX) is reported, not wrapped.
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

static int target[4];
static int source[4];

int main(void)
{
    shmem_init();
    shmem_int_put(target, source, SIZE_MAX / 2, 0);
    fprintf(stderr, "[PE %d] err_overflow: shmem_int_put of SIZE_MAX/2 ints returned\n", shmem_my_pe());
    shmem_finalize();
    return 0;
}
