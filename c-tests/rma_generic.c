// pes: 1 2 3 4 8
// timeout: 120
// The C11 generic RMA selectors (shmem_put, shmem_get, shmem_p, shmem_g, shmem_iput, shmem_iget,
// shmem_ibput, shmem_ibget, shmem_put_nbi, shmem_get_nbi) for every type of the stdrmatypes table,
// with and without a context argument. A selector that picks the routine of another type moves
// the wrong number of bytes, which the exact element checks catch.
#include <shmem.h>
#include <stdio.h>

#include "generated/types.h"

#define N 8
#define LEN 24
#define MAX_PES 1024

static int me, npes, left, right;
static long errors;
static long all_errors[MAX_PES];

#define REPORT(...)                                         \
    do {                                                    \
        if (errors++ < 20) {                                \
            fprintf(stderr, "[PE %d] rma_generic: ", me);   \
            fprintf(stderr, __VA_ARGS__);                   \
            fputc('\n', stderr);                            \
        }                                                   \
    } while (0)

static int val(int pe, int i, int salt)
{
    return (pe * 32 + i + salt * 3) % 127;
}

/* Runs BODY with the destination reset, then checks dst[k] against EXPECT (a source index or -1)
 * with values from PE FROM. */
#define STEP(TYPE, NAME, OPNAME, FROM, EXPECT, BODY)                                              \
    do {                                                                                          \
        salt++;                                                                                   \
        for (int k = 0; k < LEN; k++) {                                                           \
            src[k] = (TYPE)val(me, k, salt);                                                      \
            dst[k] = (TYPE)-1;                                                                    \
        }                                                                                         \
        shmem_barrier_all();                                                                      \
        BODY;                                                                                     \
        shmem_barrier_all();                                                                      \
        for (int k = 0; k < LEN; k++) {                                                           \
            int from_index = (EXPECT);                                                            \
            TYPE want = from_index < 0 ? (TYPE)-1 : (TYPE)val((FROM), from_index, salt);          \
            if (dst[k] != want)                                                                   \
                REPORT("%s %s on " #NAME ": dst[%d] expected %Lg, got %Lg", where, OPNAME, k,     \
                       (long double)want, (long double)dst[k]);                                   \
        }                                                                                         \
    } while (0)

#define CONTIG (k < N ? k : -1)
#define EVERY2 (k % 2 == 0 && k / 2 < N ? k / 2 : -1)           /* dst stride 2, src stride 1 */
#define BLOCKS (k % 3 < 2 && k / 3 < 4 ? 2 * (k / 3) + k % 3 : -1) /* dst 3, src 2, bsize 2, 4 blocks */

#define DEFINE_TEST(TYPE, NAME)                                                                   \
    static TYPE NAME##_global_src[LEN], NAME##_global_dst[LEN];                                   \
                                                                                                  \
    static void test_##NAME(TYPE *src, TYPE *dst, const char *where)                              \
    {                                                                                             \
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;                                                      \
        int salt = 0;                                                                             \
        STEP(TYPE, NAME, "shmem_put", left, CONTIG, shmem_put(dst, src, N, right));               \
        STEP(TYPE, NAME, "shmem_put(ctx)", left, CONTIG, shmem_put(ctx, dst, src, N, right));     \
        STEP(TYPE, NAME, "shmem_get", right, CONTIG, shmem_get(dst, src, N, right));              \
        STEP(TYPE, NAME, "shmem_get(ctx)", right, CONTIG, shmem_get(ctx, dst, src, N, right));    \
        STEP(TYPE, NAME, "shmem_p", left, CONTIG,                                                 \
             for (int k = 0; k < N; k++) shmem_p(&dst[k], src[k], right));                        \
        STEP(TYPE, NAME, "shmem_p(ctx)", left, CONTIG,                                            \
             for (int k = 0; k < N; k++) shmem_p(ctx, &dst[k], src[k], right));                   \
        STEP(TYPE, NAME, "shmem_g", right, CONTIG,                                                \
             for (int k = 0; k < N; k++) dst[k] = shmem_g(&src[k], right));                       \
        STEP(TYPE, NAME, "shmem_g(ctx)", right, CONTIG,                                           \
             for (int k = 0; k < N; k++) dst[k] = shmem_g(ctx, &src[k], right));                  \
        STEP(TYPE, NAME, "shmem_iput", left, EVERY2, shmem_iput(dst, src, 2, 1, N, right));       \
        STEP(TYPE, NAME, "shmem_iput(ctx)", left, EVERY2,                                         \
             shmem_iput(ctx, dst, src, 2, 1, N, right));                                          \
        STEP(TYPE, NAME, "shmem_iget", right, EVERY2, shmem_iget(dst, src, 2, 1, N, right));      \
        STEP(TYPE, NAME, "shmem_iget(ctx)", right, EVERY2,                                        \
             shmem_iget(ctx, dst, src, 2, 1, N, right));                                          \
        STEP(TYPE, NAME, "shmem_ibput", left, BLOCKS, shmem_ibput(dst, src, 3, 2, 2, 4, right));  \
        STEP(TYPE, NAME, "shmem_ibput(ctx)", left, BLOCKS,                                        \
             shmem_ibput(ctx, dst, src, 3, 2, 2, 4, right));                                      \
        STEP(TYPE, NAME, "shmem_ibget", right, BLOCKS, shmem_ibget(dst, src, 3, 2, 2, 4, right)); \
        STEP(TYPE, NAME, "shmem_ibget(ctx)", right, BLOCKS,                                       \
             shmem_ibget(ctx, dst, src, 3, 2, 2, 4, right));                                      \
        STEP(TYPE, NAME, "shmem_put_nbi", left, CONTIG,                                           \
             shmem_put_nbi(dst, src, N, right); shmem_quiet());                                   \
        STEP(TYPE, NAME, "shmem_put_nbi(ctx)", left, CONTIG,                                      \
             shmem_put_nbi(ctx, dst, src, N, right); shmem_ctx_quiet(ctx));                       \
        STEP(TYPE, NAME, "shmem_get_nbi", right, CONTIG,                                          \
             shmem_get_nbi(dst, src, N, right); shmem_quiet());                                   \
        STEP(TYPE, NAME, "shmem_get_nbi(ctx)", right, CONTIG,                                     \
             shmem_get_nbi(ctx, dst, src, N, right); shmem_ctx_quiet(ctx));                       \
    }

RSHMEM_STDRMA_TYPES(DEFINE_TEST)

#define RUN_TEST(TYPE, NAME)                                                                      \
    {                                                                                             \
        TYPE *heap_src = shmem_malloc(LEN * sizeof(TYPE));                                        \
        TYPE *heap_dst = shmem_malloc(LEN * sizeof(TYPE));                                        \
        if (heap_src == NULL || heap_dst == NULL) {                                               \
            REPORT("shmem_malloc(%zu) returned NULL", LEN * sizeof(TYPE));                        \
            shmem_global_exit(1);                                                                 \
        }                                                                                         \
        test_##NAME(heap_src, heap_dst, "heap");                                                  \
        test_##NAME(NAME##_global_src, NAME##_global_dst, "global");                              \
        shmem_free(heap_dst);                                                                     \
        shmem_free(heap_src);                                                                     \
    }

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    if (npes > MAX_PES) {
        REPORT("this test handles at most %d PEs", MAX_PES);
        shmem_global_exit(1);
    }

    RSHMEM_STDRMA_TYPES(RUN_TEST)

    shmem_long_p(&all_errors[me], errors, 0);
    shmem_barrier_all();
    if (me == 0) {
        long total = 0;
        for (int pe = 0; pe < npes; pe++)
            total += all_errors[pe];
        if (total == 0)
            printf("rma_generic: passed on %d PEs\n", npes);
        else
            fprintf(stderr, "rma_generic: %ld mismatches in all\n", total);
    }
    shmem_finalize();
    return errors != 0;
}
