// Built with Open MPI OSHMEM 4.1's oshcc, run with rshmem preloaded: OSHMEM's own extensions and
// compatibility names (globalexit aside, see globalexit_oshmem.c) are rshmem's, and do what
// OSHMEM's do: shmemx_malloc_with_hint with OSHMEM's hint values, shmemx_alltoall_global_nb (data
// and counter), the cache routines. Without them the calls reach liboshmem, never initialized.
// build: oshmem
// pes: 2 4
// timeout: 60
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include "../check.h"

static long a2a_src[2 * 8], a2a_dst[2 * 8];
static long counter;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), errors = 0;
    int right = (me + 1) % n, left = (me + n - 1) % n;

    long *blk = shmemx_malloc_with_hint(16 * sizeof(long), SHMEM_HINT_ATOMICS | SHMEM_HINT_NEAR_NIC_MEM);
    REQUIRE(blk != NULL);
    blk[0] = 0;
    shmem_barrier_all();
    shmem_long_atomic_add(&blk[0], me + 1, right);
    shmem_barrier_all();
    CHECK(blk[0] == left + 1, "shmemx_malloc_with_hint block: %ld, want %d", blk[0], left + 1);
    shmem_free(blk);

    for (int j = 0; j < n; j++)
        for (int k = 0; k < 2; k++) {
            a2a_src[j * 2 + k] = me * 1000 + j * 10 + k;
            a2a_dst[j * 2 + k] = -1;
        }
    shmem_barrier_all();
    shmemx_alltoall_global_nb(a2a_dst, a2a_src, 2 * sizeof(long), &counter);
    shmem_long_wait_until(&counter, SHMEM_CMP_EQ, n);
    for (int p = 0; p < n; p++)
        for (int k = 0; k < 2; k++) {
            long want = p * 1000 + me * 10 + k;
            CHECK(a2a_dst[p * 2 + k] == want, "shmemx_alltoall_global_nb: [%d] = %ld, want %ld",
                  p * 2 + k, a2a_dst[p * 2 + k], want);
        }
    shmem_barrier_all();

    shmem_set_cache_inv();
    shmem_set_cache_line_inv(&counter);
    shmem_udcflush();
    shmem_udcflush_line(&counter);
    shmem_clear_cache_line_inv(&counter);
    shmem_clear_cache_inv();

    shmem_finalize();
    return errors != 0;
}
