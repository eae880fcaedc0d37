// pes: 1 2 3 4 8
// timeout: 60
// shmem_sync has two prototypes in the spec: the C11 team form shmem_sync(team), returning 0 on
// success, and the deprecated active-set shmem_sync(PE_start, logPE_stride, PE_size, pSync). The
// header selects by the argument count; both must compile and synchronize. Each round, every PE
// puts a round-stamped value to its right neighbour, synchronizes with one of the forms (and
// shmem_quiet before, as sync orders nothing by itself), and checks what its left neighbour put.
// Also: the function itself, (shmem_sync)(...), and shmem_sync on SHMEM_TEAM_INVALID returning
// non-zero.
#include <shmem.h>
#include <stdio.h>

static long psync[SHMEM_SYNC_SIZE];
static int box[3];

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    int errors = 0;
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    for (int round = 0; round < 30; round++) {
        int slot = round % 3;
        shmem_int_p(&box[slot], 1000 * round + me, right);
        shmem_quiet();
        int rc = 0;
        switch (round % 3) {
        case 0:
            rc = shmem_sync(SHMEM_TEAM_WORLD);
            break;
        case 1:
            shmem_sync(0, 0, npes, psync);
            break;
        default:
            (shmem_sync)(0, 0, npes, psync);
            break;
        }
        if (rc != 0 && errors++ < 5)
            fprintf(stderr, "[PE %d] sync_arity: shmem_sync(SHMEM_TEAM_WORLD) returned %d\n", me, rc);
        if (box[slot] != 1000 * round + left && errors++ < 5)
            fprintf(stderr, "[PE %d] sync_arity: round %d: expected %d from PE %d, got %d\n", me, round,
                    1000 * round + left, left, box[slot]);
        /* Nobody overwrites slot `slot` again before everyone has read it: the next two rounds use
         * the other slots, and each round synchronizes. */
    }
    if (shmem_sync(SHMEM_TEAM_INVALID) == 0 && errors++ < 5)
        fprintf(stderr, "[PE %d] sync_arity: shmem_sync(SHMEM_TEAM_INVALID) returned 0\n", me);
    shmem_barrier_all();
    if (errors) {
        fprintf(stderr, "[PE %d] sync_arity: %d errors\n", me, errors);
        shmem_global_exit(1);
    }
    if (me == 0)
        printf("sync_arity: %d PEs ok\n", npes);
    shmem_finalize();
    return 0;
}
