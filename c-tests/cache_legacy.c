// pes: 1 2
// timeout: 30
// The cache routines of OpenSHMEM 1.0-1.4 (removed in 1.5; OSHMEM and SOS still export them, and
// rshmem's headers do not declare them): nothing to do on a cache-coherent machine, so each
// returns, and a put before them is seen after a barrier as it would be without them.
#include <shmem.h>
#include <stdio.h>
#include "check.h"

void shmem_clear_cache_inv(void);
void shmem_set_cache_inv(void);
void shmem_udcflush(void);
void shmem_clear_cache_line_inv(void *dest);
void shmem_set_cache_line_inv(void *dest);
void shmem_udcflush_line(void *dest);

static long x;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), errors = 0;
    shmem_set_cache_inv();
    shmem_set_cache_line_inv(&x);
    shmem_long_p(&x, me + 1, (me + 1) % n);
    shmem_barrier_all();
    shmem_udcflush();
    shmem_udcflush_line(&x);
    shmem_clear_cache_line_inv(&x);
    shmem_clear_cache_inv();
    CHECK(x == (me + n - 1) % n + 1, "x = %ld", x);
    shmem_finalize();
    return errors != 0;
}
