// pes: 1 2 3 4 8
// timeout: 60
// env: SHMEM_DEBUG=1
// expect-stderr: shmem_align: returns NULL: alignment = 0 is not a power of two
// expect-stderr: shmem_calloc: returns NULL: count = 9223372036854775807 times size = 4 overflows size_t
// Calls the spec's text, its examples or every other implementation tolerate, which must not stop
// the job:
//  - fence, quiet, pe_quiet and session start/stop on SHMEM_CTX_INVALID do nothing (the spec says
//    so for fence, quiet and session_start; its team/context example quiets SHMEM_CTX_INVALID on
//    the PEs outside a team, which this test does the same way with a team of the even PEs);
//  - impossible allocations return NULL on every PE (with the reason under SHMEM_DEBUG, which the
//    expect-stderr lines check): shmem_align with alignment 0, 3, 24, shmem_calloc(SIZE_MAX/2, 4),
//    shmem_malloc(SIZE_MAX), shmem_align(64, SIZE_MAX/2), shmem_realloc to SIZE_MAX (the block
//    stays as it was); size or count 0 returns NULL;
//  - afterwards the heap still works and is still symmetric: a block allocated on every PE gets a
//    put from the left neighbour.
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include "check.h"

static int errors, me;

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    int npes = shmem_n_pes();

    /* Contexts: a context on the team of the even PEs; the others get SHMEM_CTX_INVALID. */
    shmem_team_t evens = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens);
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    if (evens != SHMEM_TEAM_INVALID)
        CHECK(shmem_team_create_ctx(evens, 0, &ctx) == 0, "team_create_ctx failed");
    CHECK((ctx == SHMEM_CTX_INVALID) == (me % 2 == 1), "odd PEs have no context, even PEs do");
    shmem_ctx_fence(ctx);
    shmem_ctx_quiet(ctx);
    int pes[1] = {0};
    shmem_ctx_pe_quiet(ctx, pes, 1);
    shmem_ctx_session_start(ctx, SHMEM_CTX_SESSION_BATCH, NULL, 0);
    shmem_ctx_session_stop(ctx);
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_pe_quiet(SHMEM_CTX_INVALID, pes, 1);
    shmem_ctx_session_start(SHMEM_CTX_INVALID, 0, NULL, 0);
    shmem_ctx_session_stop(SHMEM_CTX_INVALID);
    shmem_ctx_destroy(ctx);
    shmem_team_destroy(evens);

    /* Allocations. */
    CHECK(shmem_align(0, 64) == NULL, "shmem_align(0, 64) is not NULL");
    CHECK(shmem_align(3, 64) == NULL, "shmem_align(3, 64) is not NULL");
    CHECK(shmem_align(24, 64) == NULL, "shmem_align(24, 64) is not NULL");
    CHECK(shmem_align(0, 0) == NULL, "shmem_align(0, 0) is not NULL");
    CHECK(shmem_calloc(SIZE_MAX / 2, 4) == NULL, "shmem_calloc(SIZE_MAX/2, 4) is not NULL");
    CHECK(shmem_calloc(0, 4) == NULL, "shmem_calloc(0, 4) is not NULL");
    CHECK(shmem_calloc(4, 0) == NULL, "shmem_calloc(4, 0) is not NULL");
    CHECK(shmem_malloc(SIZE_MAX) == NULL, "shmem_malloc(SIZE_MAX) is not NULL");
    CHECK(shmem_align(64, SIZE_MAX / 2) == NULL, "shmem_align(64, SIZE_MAX/2) is not NULL");
    CHECK(shmem_malloc_with_hints(SIZE_MAX, SHMEM_MALLOC_ATOMICS_REMOTE) == NULL,
          "shmem_malloc_with_hints(SIZE_MAX) is not NULL");
    long *block = shmem_malloc(4 * sizeof(long));
    CHECK(block != NULL, "shmem_malloc(32) is NULL");
    if (block) {
        for (int i = 0; i < 4; i++)
            block[i] = 100 * me + i;
        CHECK(shmem_realloc(block, SIZE_MAX) == NULL, "shmem_realloc(block, SIZE_MAX) is not NULL");
        for (int i = 0; i < 4; i++)
            CHECK(block[i] == 100 * me + i, "block[%d] changed by a failed realloc", i);
        shmem_free(block);
    }

    /* The heap still works, symmetrically. */
    long *a = shmem_align(256, 8 * sizeof(long));
    CHECK(a != NULL && ((uintptr_t)a % 256) == 0, "shmem_align(256, 64) = %p", (void *)a);
    if (a) {
        long v = 1000 + me;
        shmem_long_put(&a[3], &v, 1, (me + 1) % npes);
        shmem_barrier_all();
        CHECK(a[3] == 1000 + (me + npes - 1) % npes, "a[3] = %ld after the left neighbour's put", a[3]);
        shmem_free(a);
    }

    shmem_barrier_all();
    if (errors) {
        fprintf(stderr, "[PE %d] tolerated: %d errors\n", me, errors);
        shmem_global_exit(1);
    }
    if (me == 0)
        printf("tolerated: %d PEs ok\n", npes);
    shmem_finalize();
    return 0;
}
