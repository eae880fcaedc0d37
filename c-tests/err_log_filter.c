// A SHMEM_LOG that does not parse stops the job with a message naming the variable and the value,
// rather than logging nothing.
// pes: 1 2
// env: SHMEM_LOG=ucs=debug
// expect-fail: SHMEM_LOG = 'ucs=debug'
#include <shmem.h>

int main(void)
{
    shmem_init();
    shmem_finalize();
    return 0;
}
