// pes: 4
// timeout: 30
// The program tests/launchers.rs runs under every launcher (oshrun, mpiexec.hydra, mpirun, srun):
// a ring of puts (global data and heap), a fetch-and-add on PE 0 from every PE, barriers, and a
// check that the job's size is the one asked for (argument 1, if given). PE 0 prints one line the
// tests look for.
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static int from_left = -1;
static int counter = 0;

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int right = (me + 1) % npes;
    int left = (me + npes - 1) % npes;
    int errors = 0;

    if (argc > 1 && atoi(argv[1]) != npes) {
        fprintf(stderr, "[PE %d] launch_ring: %d PEs, expected %s\n", me, npes, argv[1]);
        errors++;
    }
    long *heap = shmem_malloc(sizeof *heap);
    if (heap == NULL) {
        fprintf(stderr, "[PE %d] launch_ring: shmem_malloc returned NULL\n", me);
        shmem_global_exit(1);
    }
    *heap = -1;
    shmem_barrier_all();

    shmem_int_p(&from_left, me, right);
    shmem_long_p(heap, 1000L + me, right);
    int ticket = shmem_int_atomic_fetch_add(&counter, me + 1, 0);
    shmem_barrier_all();

    if (from_left != left) {
        fprintf(stderr, "[PE %d] launch_ring: global: expected %d, got %d\n", me, left, from_left);
        errors++;
    }
    if (*heap != 1000L + left) {
        fprintf(stderr, "[PE %d] launch_ring: heap: expected %d, got %ld\n", me, 1000 + left, *heap);
        errors++;
    }
    if (ticket < 0 || ticket > npes * (npes + 1) / 2) {
        fprintf(stderr, "[PE %d] launch_ring: fetch-add returned %d\n", me, ticket);
        errors++;
    }
    if (me == 0 && counter != npes * (npes + 1) / 2) {
        fprintf(stderr, "[PE 0] launch_ring: counter is %d, expected %d\n", counter,
                npes * (npes + 1) / 2);
        errors++;
    }
    if (me == 0 && errors == 0) {
        printf("launch_ring: %d PEs passed\n", npes);
    }
    shmem_free(heap);
    shmem_finalize();
    return errors != 0;
}
