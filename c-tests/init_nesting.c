// pes: 1 2 3 4
// timeout: 60
// The spec lets a program call the initialization routines several times, each matched by a
// shmem_finalize; the library is finalized by the last finalize only, and may be initialized
// again after it. Here: shmem_init, shmem_init_thread, shmem_finalize (the library must still
// be usable for a put to the right neighbour and a barrier), shmem_finalize (now finalized,
// shmem_query_initialized gives 0), then shmem_init again, a second round of puts, and the
// final shmem_finalize.
#include <shmem.h>
#include <stdio.h>

static int box;

static int round_trip(int round)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    box = -1;
    shmem_barrier_all();
    shmem_int_p(&box, 100 * round + me, (me + 1) % npes);
    shmem_barrier_all();
    int want = 100 * round + (me + npes - 1) % npes;
    if (box != want) {
        fprintf(stderr, "[PE %d] init_nesting: round %d: expected %d, got %d\n", me, round, want, box);
        return 1;
    }
    return 0;
}

int main(void)
{
    int errors = 0, initialized = -1, provided = -1;
    shmem_init();
    shmem_init_thread(SHMEM_THREAD_SINGLE, &provided);
    shmem_finalize();
    shmem_query_initialized(&initialized);
    if (initialized != 1) {
        fprintf(stderr, "init_nesting: after two inits and one finalize, query_initialized = %d\n", initialized);
        errors++;
    }
    errors += round_trip(1);
    shmem_finalize();
    shmem_query_initialized(&initialized);
    if (initialized != 0) {
        fprintf(stderr, "init_nesting: after the matching finalizes, query_initialized = %d\n", initialized);
        errors++;
    }
    shmem_init();
    errors += round_trip(2);
    if (errors)
        shmem_global_exit(1);
    if (shmem_my_pe() == 0)
        printf("init_nesting: ok\n");
    shmem_finalize();
    return 0;
}
