/* Hello, OpenSHMEM: every PE puts its number into its right neighbour's symmetric variable, waits
 * at a barrier, checks that it received its left neighbour's number, and says hello.
 *
 *   build/bin/oshcc examples/hello.c -o hello && build/bin/oshrun -np 4 ./hello
 */
#include <shmem.h>
#include <stdio.h>

static int received = -1; /* global data is symmetric: every PE has one at the same place */

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    int right = (me + 1) % npes;
    int left = (me + npes - 1) % npes;

    shmem_int_p(&received, me, right); /* one int into `received` on PE `right` */
    shmem_barrier_all();                /* completes the puts and waits for every PE */

    int status = 0;
    if (received != left) {
        fprintf(stderr, "PE %d: expected %d from my left neighbour, got %d\n", me, left, received);
        status = 1;
    } else {
        printf("Hello from PE %d of %d\n", me, npes);
    }
    shmem_finalize();
    return status;
}
