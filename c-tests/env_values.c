// pes: 1 2 4
// timeout: 30
// env: SHMEM_SYMMETRIC_SIZE=3.1M
// env: SHMEM_INFO=any value
// env: SHMEM_DEBUG=verbose
// env: SHMEM_VERSION=please
// env: SHMEM_SYMETRIC_SIZE=1G
// expect-stdout: SHMEM_SYMMETRIC_SIZE       3250586        (SHMEM_SYMMETRIC_SIZE)
// expect-stdout: SHMEM_DEBUG                yes            (SHMEM_DEBUG)
// expect-stdout: SHMEM_INFO                 yes            (SHMEM_INFO)
// expect-stdout: SHMEM_VERSION              yes            (SHMEM_VERSION)
// expect-stderr: SHMEM_SYMETRIC_SIZE is not a variable rshmem knows (did you mean SHMEM_SYMMETRIC_SIZE?)
// Environment values as the spec's table defines them: SHMEM_SYMMETRIC_SIZE is a number with a
// fraction and a scaling suffix (3.1M = the ceiling of 3.1 * 2^20 = 3250586 bytes);
// SHMEM_INFO, SHMEM_DEBUG and SHMEM_VERSION take any value (set = on). A misspelt variable is
// named in a warning with the nearest known name, and ignored. The heap really has the size:
// 3 MiB fit (checked on every PE by writing the last byte), 4 MiB do not.
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int errors = 0;
    char *fits = shmem_malloc(3 << 20);
    if (fits == NULL) {
        fprintf(stderr, "[PE %d] env_values: shmem_malloc(3 MiB) in a 3.1M heap returned NULL\n", me);
        errors++;
    } else {
        fits[(3 << 20) - 1] = 1;
        shmem_free(fits);
    }
    void *too_big = shmem_malloc(4 << 20);
    if (too_big != NULL) {
        fprintf(stderr, "[PE %d] env_values: shmem_malloc(4 MiB) in a 3.1M heap returned %p\n", me, too_big);
        errors++;
    }
    shmem_barrier_all();
    if (errors)
        shmem_global_exit(1);
    if (me == 0)
        printf("env_values: ok\n");
    shmem_finalize();
    return 0;
}
