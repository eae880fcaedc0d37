// pes: 1 2 4
// timeout: 30
// env: SHMEM_DEBUG=1
// expect-fail: this PE already holds it
// Under SHMEM_DEBUG, shmem_set_lock on a lock this PE holds is reported instead of waiting for
// itself forever. PE 0 takes the lock twice (after a set/clear and a test/clear that must pass).
#include <shmem.h>
#include <stdio.h>

static long lock;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    shmem_set_lock(&lock);
    shmem_clear_lock(&lock);
    shmem_barrier_all();
    if (me == 0) {
        while (shmem_test_lock(&lock) != 0)
            ;
        shmem_clear_lock(&lock);
        shmem_set_lock(&lock);
        shmem_set_lock(&lock);
        fprintf(stderr, "[PE 0] err_lock_twice: the second shmem_set_lock returned\n");
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
