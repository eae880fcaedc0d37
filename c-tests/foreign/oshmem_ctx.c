// Built with Open MPI OSHMEM 4.1's oshcc, run with rshmem preloaded: SHMEM_CTX_DEFAULT (OSHMEM's
// variable oshmem_ctx_default) and contexts created with every combination of its options carry
// puts, gets and AMOs to the right PE.
// build: oshmem
// pes: 2 4
// timeout: 60
#include <shmem.h>
#include <stdio.h>

static long slot[16];
static long counter;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;

    shmem_ctx_long_p(SHMEM_CTX_DEFAULT, &slot[0], 100 + me, right);
    shmem_ctx_long_atomic_add(SHMEM_CTX_DEFAULT, &counter, 1, 0);
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    if (slot[0] != 100 + left) {
        fprintf(stderr, "[PE %d] default ctx put: %ld, want %d\n", me, slot[0], 100 + left);
        return 1;
    }

    const long options[] = {0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, SHMEM_CTX_NOSTORE,
                            SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED,
                            SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE,
                            SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE,
                            SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE};
    for (int i = 0; i < 8; i++) {
        shmem_ctx_t ctx;
        if (shmem_ctx_create(options[i], &ctx) != 0) {
            fprintf(stderr, "[PE %d] shmem_ctx_create(%ld) failed\n", me, options[i]);
            return 1;
        }
        long mine = 100 + me;
        shmem_ctx_long_put(ctx, &slot[1 + i], &mine, 1, right);
        shmem_ctx_long_atomic_fetch_add(ctx, &counter, 1, 0);
        long got = shmem_ctx_long_g(ctx, &slot[0], right);
        if (got != 100 + me) {
            fprintf(stderr, "[PE %d] ctx %d g: %ld, want %d\n", me, i, got, 100 + me);
            return 1;
        }
        shmem_ctx_quiet(ctx);
        shmem_ctx_destroy(ctx);
    }
    shmem_barrier_all();
    for (int i = 0; i < 8; i++) {
        if (slot[1 + i] != 100 + left) {
            fprintf(stderr, "[PE %d] ctx %d put: %ld, want %d\n", me, i, slot[1 + i], 100 + left);
            return 1;
        }
    }
    if (me == 0 && counter != 9L * n) {
        fprintf(stderr, "[PE 0] counter %ld, want %ld\n", counter, 9L * n);
        return 1;
    }
    shmem_barrier_all();
    if (me == 0) printf("oshmem_ctx: ok on %d PEs\n", n);
    shmem_finalize();
    return 0;
}
