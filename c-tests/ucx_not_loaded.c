// pes: 1 2 4
// env: SHMEM_TRANSPORT=auto
// A job whose PEs share one node never loads UCX: after shmem_init, puts, an atomic and a barrier,
// no UCX library (libucp, libucs, libuct) is mapped in the process (/proc/self/maps). The library
// loads UCX at the network's first use only.
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int errors = 0;

    long *x = shmem_malloc(sizeof *x);
    REQUIRE(x != NULL);
    *x = 0;
    shmem_barrier_all();
    shmem_long_p(x, me, (me + 1) % npes);
    shmem_long_atomic_add(x, 1, 0);
    shmem_barrier_all();

    FILE *maps = fopen("/proc/self/maps", "r");
    REQUIRE(maps != NULL);
    char line[4096];
    int mapped = 0;
    while (!mapped && fgets(line, sizeof line, maps)) {
        line[strcspn(line, "\n")] = '\0';
        mapped = strstr(line, "/libucp") || strstr(line, "/libucs") || strstr(line, "/libuct");
    }
    CHECK(!mapped, "UCX is mapped in a one-node job: %s", line);
    fclose(maps);

    shmem_free(x);
    shmem_finalize();
    return errors != 0;
}
