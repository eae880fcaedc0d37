// pes: 1 2
// timeout: 30
// shmem_pcontrol returns at once whatever the level and the extra arguments (integers, a double
// and a pointer, so that a variadic call sets up vector registers too), before and after
// shmem_init, and the library keeps working after it; its profiling twin too.
#include <pshmem.h>
#include <shmem.h>
#include <stdio.h>

static long word;

int main(void) {
    shmem_pcontrol(0);
    shmem_init();
    shmem_pcontrol(1);
    shmem_pcontrol(2, 7, 3.5, "buffer", &word);
    pshmem_pcontrol(-1, 1.0);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_long_p(&word, me + 1, (me + 1) % npes);
    shmem_barrier_all();
    int left = (me + npes - 1) % npes;
    if (word != left + 1) {
        fprintf(stderr, "[PE %d] pcontrol: word after the calls: expected %d, got %ld\n", me, left + 1, word);
        return 1;
    }
    shmem_finalize();
    return 0;
}
