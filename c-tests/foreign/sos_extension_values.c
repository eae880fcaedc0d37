// Sandia OpenSHMEM's extension values, preloaded: a context created with SHMEMX_CTX_BOUNCE_BUFFER
// (1 << 31, a performance option) and a block allocated with SHMEMX_MALLOC_NO_BARRIER (1 << 2, a
// permission to leave out the closing barrier) are accepted, as SOS accepts them, and work: puts
// and an atomic through the context, a put into the block after the program's own barrier.
// build: sos
// pes: 2 4
// timeout: 60
#include <shmem.h>
#include <stdio.h>

static long slot;

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int errors = 0;

    shmem_ctx_t ctx;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE | SHMEMX_CTX_BOUNCE_BUFFER, &ctx) != 0) {
        fprintf(stderr, "[PE %d] shmem_ctx_create with SHMEMX_CTX_BOUNCE_BUFFER failed\n", me);
        return 1;
    }
    shmem_ctx_long_p(ctx, &slot, 100 + me, right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    if (slot != 100 + left) {
        fprintf(stderr, "[PE %d] put through the context: %ld, want %d\n", me, slot, 100 + left);
        errors++;
    }
    shmem_ctx_destroy(ctx);

    long *block = shmem_malloc_with_hints(4 * sizeof(long),
                                          SHMEMX_MALLOC_NO_BARRIER | SHMEM_MALLOC_ATOMICS_REMOTE);
    if (block == NULL) {
        fprintf(stderr, "[PE %d] shmem_malloc_with_hints with SHMEMX_MALLOC_NO_BARRIER gave NULL\n", me);
        return 1;
    }
    block[0] = 0;
    shmem_barrier_all();
    shmem_long_atomic_add(&block[0], me + 1, 0);
    shmem_barrier_all();
    long want = (long)n * (n + 1) / 2;
    if (me == 0 && block[0] != want) {
        fprintf(stderr, "[PE 0] atomic adds into the block: %ld, want %ld\n", block[0], want);
        errors++;
    }
    shmem_free(block);
    if (me == 0 && errors == 0) printf("sos_extension_values: ok on %d PEs\n", n);
    shmem_finalize();
    return errors != 0;
}
