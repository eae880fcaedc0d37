// pes: 1 2
// timeout: 30
// Sandia OpenSHMEM's split initialization: shmemx_heap_preinit_thread then shmemx_heap_postinit
// initialize the library as shmem_init_thread does (rshmem's heap exists from the first half on).
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include "check.h"

static int x;

int main(void) {
    int provided = -1;
    int rc = shmemx_heap_preinit_thread(SHMEM_THREAD_SINGLE, &provided);
    shmemx_heap_postinit();
    int me = shmem_my_pe(), n = shmem_n_pes(), errors = 0;
    CHECK(rc == 0, "shmemx_heap_preinit_thread returned %d", rc);
    CHECK(provided >= SHMEM_THREAD_SINGLE, "provided = %d", provided);
    shmem_int_p(&x, me + 1, (me + 1) % n);
    shmem_barrier_all();
    CHECK(x == (me + n - 1) % n + 1, "x = %d", x);
    shmem_finalize();
    return errors != 0;
}
