// pes: 4
// timeout: 30
// expect-exit: 1
// expect-stderr: [PE 1] shmem_int_wait_until: ivar=0x
// expect-stderr: [PE 0] shmem_set_lock: lock=0x
// expect-stderr: [PE 2] shmem_set_lock: lock=0x
// expect-stderr: [PE 3] shmem_set_lock: lock=0x
// expect-stderr: the lock serves ticket 0 (the PE that holds it reports `holds lock=.. by ticket 0`)
// expect-stderr: ; this PE holds lock=0x
// A deadlock through a lock: PE 1 takes the lock and waits for a word nobody stores, every other
// PE waits for the lock. The job ends by the deadlock detection (SHMEM_DEADLOCK=2, set here so
// that it holds under any launcher), each PE saying where it waits: the waiters the ticket the
// lock serves, PE 1 that it holds the lock by that ticket (a ticket lock does not record who
// holds it, so each PE keeps the locks it holds for its reports). Across hosts
// (scripts/test runs it with scripts/netns-hosts), the lock waiters of the other host poll PE 0's
// lock word over the network; they used to be left out of the report, PE 0's requests to them
// left queued in its network while it waited for their reports.
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdlib.h>

int main(void)
{
    static long lock;
    static int never;
    setenv("SHMEM_DEADLOCK", "2", 0);
    shmem_init();
    int me = shmem_my_pe();
    if (me == 1)
        shmem_set_lock(&lock);
    shmem_barrier_all();
    if (me == 1)
        shmem_int_wait_until(&never, SHMEM_CMP_EQ, 1);
    else
        shmem_set_lock(&lock);
    shmem_finalize();
    return 0;
}
