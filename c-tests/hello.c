// pes: 1 2 3 4 8
// Ring exchange: every PE puts its number into its right neighbour's symmetric variable (global
// data and heap), then checks after a barrier that it holds its left neighbour's number.
#include <shmem.h>
#include <stdio.h>

static int from_left = -1;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int right = (me + 1) % npes;
    int left = (me + npes - 1) % npes;
    int errors = 0;

    int *heap = shmem_malloc(sizeof *heap);
    if (heap == NULL) {
        fprintf(stderr, "[PE %d] hello: shmem_malloc(%zu) returned NULL\n", me, sizeof *heap);
        shmem_global_exit(1);
    }
    *heap = -1;
    shmem_barrier_all();

    shmem_int_p(&from_left, me, right);
    shmem_int_put(heap, &me, 1, right);
    shmem_barrier_all();

    if (from_left != left) {
        fprintf(stderr, "[PE %d] hello: global: expected %d, got %d\n", me, left, from_left);
        errors++;
    }
    if (*heap != left) {
        fprintf(stderr, "[PE %d] hello: heap: expected %d, got %d\n", me, left, *heap);
        errors++;
    }
    if (me == 0 && errors == 0) {
        printf("hello: %d PEs passed the ring\n", npes);
    }
    shmem_free(heap);
    shmem_finalize();
    return errors != 0;
}
