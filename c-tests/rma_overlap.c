// pes: 1 2 3 4 8
// timeout: 60
// Transfers whose source and destination overlap: a PE putting to and getting from its own
// symmetric array, shifted by a few elements in both directions, must behave as memmove (every
// element moved as it was before the call), for the heap and for global data.
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#define LEN 4096
#define SHIFT 3

static long global_array[LEN];
static int errors;

static void fill(long *a) {
    for (int i = 0; i < LEN; i++)
        a[i] = 1000000L * shmem_my_pe() + i;
}

static void check(const char *what, const long *a, int shift) {
    /* After moving elements [SHIFT, LEN) to [SHIFT + shift, ...) the moved range holds the old
       values i - shift. */
    for (int i = SHIFT + (shift > 0 ? shift : 0); i < LEN - SHIFT + (shift < 0 ? shift : 0); i++) {
        long want = 1000000L * shmem_my_pe() + (i - shift);
        if (a[i] != want) {
            if (errors++ < 10)
                fprintf(stderr, "[PE %d] rma_overlap: %s shift %d: a[%d] expected %ld, got %ld\n",
                        shmem_my_pe(), what, shift, i, want, a[i]);
        }
    }
}

static void run(const char *where, long *a) {
    int me = shmem_my_pe();
    size_t n = LEN - 2 * SHIFT;
    for (int shift = -SHIFT; shift <= SHIFT; shift++) {
        fill(a);
        shmem_long_put(a + SHIFT + shift, a + SHIFT, n, me);
        shmem_quiet();
        check(where, a, shift);
        fill(a);
        shmem_long_get(a + SHIFT + shift, a + SHIFT, n, me);
        check(where, a, shift);
        fill(a);
        shmem_putmem(a + SHIFT + shift, a + SHIFT, n * sizeof(long), me);
        shmem_quiet();
        check(where, a, shift);
    }
}

int main(void) {
    shmem_init();
    long *heap_array = shmem_malloc(LEN * sizeof(long));
    run("heap", heap_array);
    run("global", global_array);
    shmem_barrier_all();
    shmem_free(heap_array);
    if (shmem_my_pe() == 0 && errors == 0)
        printf("rma_overlap: passed on %d PEs\n", shmem_n_pes());
    shmem_finalize();
    return errors != 0;
}
