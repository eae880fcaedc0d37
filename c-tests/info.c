// pes: 1 3
// timeout: 30
// env: SHMEM_INFO=1
// env: SMA_SYMMETRIC_SIZE=64M
// env: SHMEM_DEBUG=0
// expect-stdout: OpenSHMEM 1.6
// expect-stdout: SHMEM_SYMMETRIC_SIZE       67108864       (SMA_SYMMETRIC_SIZE)
// expect-stdout: SHMEM_DEBUG                no             (SHMEM_DEBUG)
// expect-stdout: SHMEM_INFO                 yes            (SHMEM_INFO)
// SHMEM_INFO makes PE 0 print the version and every environment variable with its value and where
// it came from (the legacy SMA_ name is honoured); the heap really has the size it reports.
#include <shmem.h>
#include <stdio.h>

int main(void) {
    shmem_init();
    int errors = 0;
    /* 60 MiB fits in the 64 MiB heap; the same again does not. */
    void *fits = shmem_malloc((size_t)60 << 20);
    if (fits == NULL) {
        fprintf(stderr, "[PE %d] info: 60 MiB did not fit a 64 MiB heap\n", shmem_my_pe());
        errors++;
    }
    void *too_much = shmem_malloc((size_t)60 << 20);
    if (too_much != NULL) {
        fprintf(stderr, "[PE %d] info: a second 60 MiB fit a 64 MiB heap\n", shmem_my_pe());
        errors++;
    }
    shmem_free(fits);
    shmem_finalize();
    return errors != 0;
}
