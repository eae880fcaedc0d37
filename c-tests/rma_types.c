// pes: 1 2 3 4 8
// timeout: 120
// Every type of the stdrmatypes table through every typed RMA routine: put, get, p, g, iput, iget,
// ibput, ibget, put_nbi and get_nbi (completed by quiet), plain and shmem_ctx_ forms on
// SHMEM_CTX_DEFAULT, on symmetric heap memory and on global (static) arrays. Each PE puts to its
// right neighbour and gets from it; every element of the destination, those that must not be
// touched included, is checked exactly.
#include <shmem.h>
#include <stdio.h>

#include "generated/types.h"

#define N 16       /* elements moved by one call */
#define LEN 48     /* array length: room for the strided forms */
#define MAX_PES 1024

static int me, npes, left, right;
static long errors;
static long all_errors[MAX_PES];

#define REPORT(...)                                       \
    do {                                                  \
        if (errors++ < 20) {                              \
            fprintf(stderr, "[PE %d] rma_types: ", me);   \
            fprintf(stderr, __VA_ARGS__);                 \
            fputc('\n', stderr);                          \
        }                                                 \
    } while (0)

/* Element i of PE pe's source array in step salt: a small integer, exact in every type, and never
 * -1, the value every destination starts with. */
static int val(int pe, int i, int salt)
{
    return (pe * 32 + i + salt * 5) % 127;
}

enum op { OP_PUT, OP_GET, OP_P, OP_G, OP_IPUT, OP_IGET, OP_IBPUT, OP_IBGET, OP_PUT_NBI, OP_GET_NBI, NOPS };
static const char *const op_name[NOPS] = {"put", "get", "p", "g", "iput", "iget", "ibput", "ibget", "put_nbi", "get_nbi"};

/* The strides and blocks used below, and what they leave in dst[k]: the index of the source
 * element that lands there, or -1 where dst must keep its initial value. */
#define IPUT_DST 3
#define IPUT_SRC 2
#define IGET_DST 2
#define IGET_SRC 3
#define IBPUT_DST 5
#define IBPUT_SRC 4
#define IBPUT_BSIZE 3
#define IBPUT_NBLOCKS 5
#define IBGET_DST 4
#define IBGET_SRC 7
#define IBGET_BSIZE 2
#define IBGET_NBLOCKS 6

static int source_index(enum op op, int k)
{
    switch (op) {
    case OP_IPUT:
        return k % IPUT_DST == 0 && k / IPUT_DST < N ? IPUT_SRC * (k / IPUT_DST) : -1;
    case OP_IGET:
        return k % IGET_DST == 0 && k / IGET_DST < N ? IGET_SRC * (k / IGET_DST) : -1;
    case OP_IBPUT:
        return k % IBPUT_DST < IBPUT_BSIZE && k / IBPUT_DST < IBPUT_NBLOCKS
                   ? IBPUT_SRC * (k / IBPUT_DST) + k % IBPUT_DST
                   : -1;
    case OP_IBGET:
        return k % IBGET_DST < IBGET_BSIZE && k / IBGET_DST < IBGET_NBLOCKS
                   ? IBGET_SRC * (k / IBGET_DST) + k % IBGET_DST
                   : -1;
    default:
        return k < N ? k : -1;
    }
}

/* Puts write the right neighbour, so what I hold came from my left one; gets read the right one. */
static int source_pe(enum op op)
{
    return op == OP_PUT || op == OP_P || op == OP_IPUT || op == OP_IBPUT || op == OP_PUT_NBI ? left : right;
}

/* The same call in its plain or its context form. */
#define CALL(NAME, OP, ...) \
    (ctx ? shmem_ctx_##NAME##_##OP(SHMEM_CTX_DEFAULT, __VA_ARGS__) : shmem_##NAME##_##OP(__VA_ARGS__))

#define DEFINE_TEST(TYPE, NAME)                                                                   \
    static TYPE NAME##_global_src[LEN], NAME##_global_dst[LEN];                                   \
                                                                                                  \
    static void test_##NAME(TYPE *src, TYPE *dst, const char *where, int ctx)                     \
    {                                                                                             \
        for (int op = 0; op < NOPS; op++) {                                                       \
            int salt = op + NOPS * ctx;                                                           \
            for (int k = 0; k < LEN; k++) {                                                       \
                src[k] = (TYPE)val(me, k, salt);                                                  \
                dst[k] = (TYPE)-1;                                                                \
            }                                                                                     \
            shmem_barrier_all();                                                                  \
            switch ((enum op)op) {                                                                \
            case OP_PUT:                                                                          \
                CALL(NAME, put, dst, src, N, right);                                              \
                break;                                                                            \
            case OP_GET:                                                                          \
                CALL(NAME, get, dst, src, N, right);                                              \
                break;                                                                            \
            case OP_P:                                                                            \
                for (int k = 0; k < N; k++)                                                       \
                    CALL(NAME, p, &dst[k], (TYPE)val(me, k, salt), right);                        \
                break;                                                                            \
            case OP_G:                                                                            \
                for (int k = 0; k < N; k++)                                                       \
                    dst[k] = CALL(NAME, g, &src[k], right);                                       \
                break;                                                                            \
            case OP_IPUT:                                                                         \
                CALL(NAME, iput, dst, src, IPUT_DST, IPUT_SRC, N, right);                         \
                break;                                                                            \
            case OP_IGET:                                                                         \
                CALL(NAME, iget, dst, src, IGET_DST, IGET_SRC, N, right);                         \
                break;                                                                            \
            case OP_IBPUT:                                                                        \
                CALL(NAME, ibput, dst, src, IBPUT_DST, IBPUT_SRC, IBPUT_BSIZE, IBPUT_NBLOCKS,     \
                     right);                                                                      \
                break;                                                                            \
            case OP_IBGET:                                                                        \
                CALL(NAME, ibget, dst, src, IBGET_DST, IBGET_SRC, IBGET_BSIZE, IBGET_NBLOCKS,     \
                     right);                                                                      \
                break;                                                                            \
            case OP_PUT_NBI:                                                                      \
                CALL(NAME, put_nbi, dst, src, N, right);                                          \
                ctx ? shmem_ctx_quiet(SHMEM_CTX_DEFAULT) : shmem_quiet();                         \
                break;                                                                            \
            case OP_GET_NBI:                                                                      \
                CALL(NAME, get_nbi, dst, src, N, right);                                          \
                ctx ? shmem_ctx_quiet(SHMEM_CTX_DEFAULT) : shmem_quiet();                         \
                break;                                                                            \
            case NOPS:                                                                            \
                break;                                                                            \
            }                                                                                     \
            shmem_barrier_all();                                                                  \
            for (int k = 0; k < LEN; k++) {                                                       \
                int from = source_index((enum op)op, k);                                          \
                TYPE want = from < 0 ? (TYPE)-1 : (TYPE)val(source_pe((enum op)op), from, salt);  \
                if (dst[k] != want)                                                               \
                    REPORT("%s %s%s_%s: dst[%d] expected %Lg, got %Lg", where,                    \
                           ctx ? "shmem_ctx_" : "shmem_", #NAME, op_name[op], k,                  \
                           (long double)want, (long double)dst[k]);                               \
            }                                                                                     \
        }                                                                                         \
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
        for (int ctx = 0; ctx < 2; ctx++) {                                                       \
            test_##NAME(heap_src, heap_dst, "heap", ctx);                                         \
            test_##NAME(NAME##_global_src, NAME##_global_dst, "global", ctx);                     \
        }                                                                                         \
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

    /* Every PE's count on PE 0, so that it can say whether the whole job passed. */
    shmem_long_p(&all_errors[me], errors, 0);
    shmem_barrier_all();
    if (me == 0) {
        long total = 0;
        for (int pe = 0; pe < npes; pe++)
            total += all_errors[pe];
        if (total == 0)
            printf("rma_types: passed on %d PEs\n", npes);
        else
            fprintf(stderr, "rma_types: %ld mismatches in all\n", total);
    }
    shmem_finalize();
    return errors != 0;
}
