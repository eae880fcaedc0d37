// pes: 1 2 3 4 8
// timeout: 30
// env: SHMEM_DEADLOCK=1
// expect-exit: 1
// expect-stderr: [PE 0] shmem_long_wait_until: ivar=0x
// expect-stderr: [PE 0] deadlock: every PE has waited in the library for 1 s and no wait has ended (each PE says where it waits): ending the job
// A deadlock the library can prove: PE 0 waits for a word nobody stores while every other PE waits
// in a broadcast whose root, PE 0, never calls it (a collective some PEs skip); alone, PE 0 waits
// for the word. With SHMEM_DEADLOCK=1 the job must end within seconds with exit code 1, each PE
// saying where it waits (PE 0's line checked here), instead of hanging until the timeout.
#include <shmem.h>
#include <stdio.h>

static long never;
static long source[4], dest[4];

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    shmem_barrier_all();
    if (me == 0)
        shmem_long_wait_until(&never, SHMEM_CMP_EQ, 1);
    else
        shmem_broadcastmem(SHMEM_TEAM_WORLD, dest, source, sizeof source, 0);
    fprintf(stderr, "[PE %d] deadlock_collective: got past a wait nobody could end\n", me);
    shmem_finalize();
    return 0;
}
