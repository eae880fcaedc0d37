// pes: 1 2 3 4 8
// timeout: 120
// The sized RMA routines (8, 16, 32, 64, 128 bits and mem): put, get, their _nbi forms and
// iput, iget, ibput, ibget, plain and on SHMEM_CTX_DEFAULT. Lengths 0, 1, odd, and 1 MiB and
// more (crossing many pages); strides 1 and larger. Bytes past the end of each transfer must stay
// untouched.
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#define MIB (1024 * 1024)
#define GUARD 256                  /* bytes checked after the end of each transfer */
#define BUF (MIB + 64 * 1024)      /* bytes of each buffer */
#define SENTINEL 0xA5
#define MAX_PES 1024

static int me, npes, left, right;
static long errors;
static long all_errors[MAX_PES];

#define REPORT(...)                                       \
    do {                                                  \
        if (errors++ < 20) {                              \
            fprintf(stderr, "[PE %d] rma_sized: ", me);   \
            fprintf(stderr, __VA_ARGS__);                 \
            fputc('\n', stderr);                          \
        }                                                 \
    } while (0)

/* Byte k of PE pe's source in step salt; never forms a run equal to SENTINEL everywhere. */
static unsigned char pattern(int pe, size_t k, int salt)
{
    return (unsigned char)((k * 7 + (size_t)pe * 31 + (size_t)salt * 13 + (k >> 12)) & 0xff);
}

typedef void (*contig_fn)(void *, const void *, size_t, int);
typedef void (*ctx_contig_fn)(shmem_ctx_t, void *, const void *, size_t, int);
typedef void (*strided_fn)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
typedef void (*ctx_strided_fn)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);
typedef void (*block_fn)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, size_t, int);
typedef void (*ctx_block_fn)(shmem_ctx_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t, size_t, int);

struct contig {
    const char *name;
    size_t size;        /* bytes per element */
    int is_put, is_nbi;
    contig_fn fn;
    ctx_contig_fn ctx_fn;
};

#define CONTIG(BITS, SIZE)                                                                      \
    {"put" #BITS, SIZE, 1, 0, shmem_put##BITS, shmem_ctx_put##BITS},                            \
    {"get" #BITS, SIZE, 0, 0, shmem_get##BITS, shmem_ctx_get##BITS},                            \
    {"put" #BITS "_nbi", SIZE, 1, 1, shmem_put##BITS##_nbi, shmem_ctx_put##BITS##_nbi},         \
    {"get" #BITS "_nbi", SIZE, 0, 1, shmem_get##BITS##_nbi, shmem_ctx_get##BITS##_nbi}

static const struct contig contigs[] = {
    CONTIG(8, 1), CONTIG(16, 2), CONTIG(32, 4), CONTIG(64, 8), CONTIG(128, 16), CONTIG(mem, 1),
};

struct strided {
    const char *name;
    size_t size;
    int is_put, is_block;
    strided_fn fn;
    ctx_strided_fn ctx_fn;
    block_fn bfn;
    ctx_block_fn ctx_bfn;
};

#define STRIDED(BITS, SIZE)                                                                     \
    {"iput" #BITS, SIZE, 1, 0, shmem_iput##BITS, shmem_ctx_iput##BITS, NULL, NULL},             \
    {"iget" #BITS, SIZE, 0, 0, shmem_iget##BITS, shmem_ctx_iget##BITS, NULL, NULL},             \
    {"ibput" #BITS, SIZE, 1, 1, NULL, NULL, shmem_ibput##BITS, shmem_ctx_ibput##BITS},          \
    {"ibget" #BITS, SIZE, 0, 1, NULL, NULL, shmem_ibget##BITS, shmem_ctx_ibget##BITS}

static const struct strided strideds[] = {
    STRIDED(8, 1), STRIDED(16, 2), STRIDED(32, 4), STRIDED(64, 8), STRIDED(128, 16),
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static unsigned char *src, *dst;

static void prepare(size_t src_bytes, size_t dst_bytes, int salt)
{
    for (size_t k = 0; k < src_bytes; k++)
        src[k] = pattern(me, k, salt);
    memset(dst, SENTINEL, dst_bytes);
    shmem_barrier_all();
}

/* Checks dst[0, n) where expected_source(k) gives the source byte index, or -1 for untouched. */
static void check_bytes(const char *what, size_t n, long (*expected_source)(size_t k, const void *arg),
                        const void *arg, int from, int salt)
{
    for (size_t k = 0; k < n; k++) {
        long s = expected_source(k, arg);
        unsigned char want = s < 0 ? SENTINEL : pattern(from, (size_t)s, salt);
        if (dst[k] != want) {
            REPORT("%s: dst byte %zu expected 0x%02x, got 0x%02x", what, k, want, dst[k]);
            return; /* one report per transfer is enough */
        }
    }
}

static long contiguous_source(size_t k, const void *arg)
{
    size_t bytes = *(const size_t *)arg;
    return k < bytes ? (long)k : -1;
}

static void test_contiguous(void)
{
    int salt = 0;
    for (size_t i = 0; i < COUNT(contigs); i++) {
        const struct contig *c = &contigs[i];
        size_t lengths[] = {0, 1, 7, MIB / c->size + 3};
        for (size_t l = 0; l < COUNT(lengths); l++) {
            for (int ctx = 0; ctx < 2; ctx++) {
                size_t n = lengths[l], bytes = n * c->size;
                salt++;
                prepare(bytes, bytes + GUARD, salt);
                int pe = right;
                if (ctx)
                    c->ctx_fn(SHMEM_CTX_DEFAULT, dst, src, n, pe);
                else
                    c->fn(dst, src, n, pe);
                if (c->is_nbi) {
                    if (ctx)
                        shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
                    else
                        shmem_quiet();
                }
                shmem_barrier_all();
                char what[96];
                snprintf(what, sizeof what, "%sshmem_%s%s nelems=%zu", ctx ? "ctx " : "",
                         ctx ? "ctx_" : "", c->name, n);
                check_bytes(what, bytes + GUARD, contiguous_source, &bytes, c->is_put ? left : right, salt);
                shmem_barrier_all();
            }
        }
    }
}

struct stride_shape {
    size_t size;
    ptrdiff_t dst_stride, src_stride; /* in elements */
    size_t bsize, nblocks;            /* bsize 1 for iput/iget; nblocks is then nelems */
};

/* Source byte for destination byte k: element e = k / size lands from block b = e / dst_stride,
 * offset j = e % dst_stride, when j < bsize and b < nblocks. */
static long strided_source(size_t k, const void *arg)
{
    const struct stride_shape *s = arg;
    size_t e = k / s->size, byte = k % s->size;
    size_t b = e / (size_t)s->dst_stride, j = e % (size_t)s->dst_stride;
    if (j >= s->bsize || b >= s->nblocks)
        return -1;
    return (long)(((b * (size_t)s->src_stride + j) * s->size) + byte);
}

static void test_strided(void)
{
    int salt = 1000;
    /* dst stride, src stride, block size, count */
    static const struct { ptrdiff_t dst, src; size_t bsize, n; } shapes[] = {
        {1, 1, 1, 0}, {1, 1, 1, 1}, {1, 1, 1, 33}, {2, 3, 1, 17}, {5, 1, 1, 9}, {1, 4, 1, 1000},
        {4, 3, 2, 11}, {3, 3, 3, 5}, {7, 2, 1, 1}, {16, 5, 4, 300},
    };
    for (size_t i = 0; i < COUNT(strideds); i++) {
        const struct strided *f = &strideds[i];
        for (size_t sh = 0; sh < COUNT(shapes); sh++) {
            if (!f->is_block && shapes[sh].bsize != 1)
                continue;
            for (int ctx = 0; ctx < 2; ctx++) {
                struct stride_shape s = {f->size, shapes[sh].dst, shapes[sh].src, shapes[sh].bsize, shapes[sh].n};
                size_t n = shapes[sh].n;
                size_t src_span = n == 0 ? 0 : ((n - 1) * (size_t)s.src_stride + s.bsize) * s.size;
                size_t dst_span = n == 0 ? 0 : ((n - 1) * (size_t)s.dst_stride + s.bsize) * s.size;
                salt++;
                prepare(src_span, dst_span + GUARD, salt);
                if (f->is_block) {
                    if (ctx)
                        f->ctx_bfn(SHMEM_CTX_DEFAULT, dst, src, s.dst_stride, s.src_stride, s.bsize, n, right);
                    else
                        f->bfn(dst, src, s.dst_stride, s.src_stride, s.bsize, n, right);
                } else {
                    if (ctx)
                        f->ctx_fn(SHMEM_CTX_DEFAULT, dst, src, s.dst_stride, s.src_stride, n, right);
                    else
                        f->fn(dst, src, s.dst_stride, s.src_stride, n, right);
                }
                shmem_barrier_all();
                char what[128];
                if (f->is_block)
                    snprintf(what, sizeof what, "shmem_%s%s dst=%td sst=%td bsize=%zu nblocks=%zu",
                             ctx ? "ctx_" : "", f->name, s.dst_stride, s.src_stride, s.bsize, n);
                else
                    snprintf(what, sizeof what, "shmem_%s%s dst=%td sst=%td nelems=%zu", ctx ? "ctx_" : "",
                             f->name, s.dst_stride, s.src_stride, n);
                check_bytes(what, dst_span + GUARD, strided_source, &s, f->is_put ? left : right, salt);
                shmem_barrier_all();
            }
        }
    }
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
    src = shmem_malloc(BUF);
    dst = shmem_malloc(BUF);
    if (src == NULL || dst == NULL) {
        REPORT("shmem_malloc(%d) returned NULL", BUF);
        shmem_global_exit(1);
    }

    test_contiguous();
    test_strided();

    shmem_free(dst);
    shmem_free(src);
    shmem_long_p(&all_errors[me], errors, 0);
    shmem_barrier_all();
    if (me == 0) {
        long total = 0;
        for (int pe = 0; pe < npes; pe++)
            total += all_errors[pe];
        if (total == 0)
            printf("rma_sized: passed on %d PEs\n", npes);
        else
            fprintf(stderr, "rma_sized: %ld mismatches in all\n", total);
    }
    shmem_finalize();
    return errors != 0;
}
