// pes: 1 2
// timeout: 30
// expect-fail: cmp = -1 is not a comparison
// expect-stderr: shmem_uint64_wait_until_some_vector:
// The array forms check cmp too, also when every element is masked out.
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

static uint64_t ivars[4];

int main(void)
{
    shmem_init();
    const int status[4] = {1, 1, 1, 1};
    const uint64_t cmp_values[4] = {0, 0, 0, 0};
    size_t indices[4];
    size_t got = shmem_uint64_wait_until_some_vector(ivars, 4, indices, status, -1, cmp_values);
    fprintf(stderr, "[PE %d] err_wait_some_bad_cmp: returned %zu\n", shmem_my_pe(), got);
    shmem_finalize();
    return 0;
}
