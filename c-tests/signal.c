// pes: 1 2 3 4 8
// timeout: 180
// Put-with-signal: the data is complete when the signal is seen. Each PE sends a payload to its
// right neighbour with a signal, the neighbour waits for the signal with shmem_signal_wait_until
// and checks every byte at once. Payloads from 16 bytes to 1 MiB; SHMEM_SIGNAL_SET and
// SHMEM_SIGNAL_ADD; destination and signal word each on the symmetric heap or in global data; the
// blocking and _nbi forms, typed (and C11 generic), sized, mem and shmem_ctx_ forms.
// Then signal_fetch, signal_add and signal_set (plain, shmem_ctx_ and the generics): every PE adds
// to one word on PE 0, and sets a word on its right neighbour.
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAX_PES 1024
#define MAX_BYTES (1 << 20)

static int me, npes, right, left;
static long errors;
static long all_errors[MAX_PES];

static unsigned char global_dest[MAX_BYTES] __attribute__((aligned(16)));
static uint64_t global_sig;

static void report(const char *what, const char *op, long long expected, long long got)
{
    if (errors++ < 30)
        fprintf(stderr, "[PE %d] signal: %s %s: expected %lld, got %lld\n", me, what, op, expected, got);
}

/* The payload byte i of round r sent by PE pe. */
static unsigned char pattern(int r, int pe, size_t i)
{
    return (unsigned char)(i * 131 + (size_t)r * 17 + (size_t)pe * 7 + (i >> 12));
}

#define NVARIANTS 12
static const char *variant_names[NVARIANTS] = {
    "shmem_putmem_signal",          "shmem_putmem_signal_nbi",     "shmem_ctx_putmem_signal",
    "shmem_put64_signal",           "shmem_long_put_signal",       "shmem_put_signal (generic, double)",
    "shmem_ctx_int_put_signal_nbi", "shmem_put_signal_nbi (generic, ctx, unsigned char)",
    "shmem_put128_signal",          "shmem_longdouble_put_signal", "shmem_ctx_put32_signal_nbi",
    "shmem_ctx_put16_signal",
};

static void send(int v, void *dest, const void *src, size_t bytes, uint64_t *sig, uint64_t value, int op)
{
    switch (v) {
    case 0: shmem_putmem_signal(dest, src, bytes, sig, value, op, right); break;
    case 1: shmem_putmem_signal_nbi(dest, src, bytes, sig, value, op, right); shmem_quiet(); break;
    case 2: shmem_ctx_putmem_signal(SHMEM_CTX_DEFAULT, dest, src, bytes, sig, value, op, right); break;
    case 3: shmem_put64_signal(dest, src, bytes / 8, sig, value, op, right); break;
    case 4: shmem_long_put_signal(dest, src, bytes / sizeof(long), sig, value, op, right); break;
    case 5: shmem_put_signal((double *)dest, (const double *)src, bytes / sizeof(double), sig, value, op, right); break;
    case 6:
        shmem_ctx_int_put_signal_nbi(SHMEM_CTX_DEFAULT, dest, src, bytes / sizeof(int), sig, value, op, right);
        shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
        break;
    case 7:
        shmem_put_signal_nbi(SHMEM_CTX_DEFAULT, (unsigned char *)dest, (const unsigned char *)src, bytes, sig, value,
                             op, right);
        shmem_quiet();
        break;
    case 8: shmem_put128_signal(dest, src, bytes / 16, sig, value, op, right); break;
    case 9: shmem_longdouble_put_signal(dest, src, bytes / sizeof(long double), sig, value, op, right); break;
    case 10:
        shmem_ctx_put32_signal_nbi(SHMEM_CTX_DEFAULT, dest, src, bytes / 4, sig, value, op, right);
        shmem_quiet();
        break;
    default: shmem_ctx_put16_signal(SHMEM_CTX_DEFAULT, dest, src, bytes / 2, sig, value, op, right); break;
    }
}

static void put_signal_rounds(unsigned char *heap_dest, uint64_t *heap_sig, unsigned char *src)
{
    static const size_t sizes[] = {16, 4096, 65552, MAX_BYTES};
    int round = 0;
    for (int v = 0; v < NVARIANTS; v++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (int kind = 0; kind < 8; kind++, round++) {
                size_t bytes = sizes[s];
                int add = kind & 1;
                unsigned char *dest = kind & 2 ? global_dest : heap_dest;
                uint64_t *sig = kind & 4 ? &global_sig : heap_sig;
                for (size_t i = 0; i < bytes; i++)
                    src[i] = pattern(round, me, i);
                /* the receiver's signal starts at a known value; ADD adds 3 to it, SET stores round + 100 */
                uint64_t start = (uint64_t)round * 5;
                shmem_signal_set(sig, start, me);
                memset(dest, 0xee, bytes);
                shmem_barrier_all();
                uint64_t expected = add ? start + 3 : (uint64_t)round + 100;
                send(v, dest, src, bytes, sig, add ? 3 : (uint64_t)round + 100, add ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET);
                uint64_t seen = shmem_signal_wait_until(sig, SHMEM_CMP_EQ, expected);
                char what[160];
                snprintf(what, sizeof what, "%s %s, %zu bytes, dest %s, signal %s", variant_names[v],
                         add ? "SHMEM_SIGNAL_ADD" : "SHMEM_SIGNAL_SET", bytes, kind & 2 ? "global" : "heap",
                         kind & 4 ? "global" : "heap");
                if (seen != expected)
                    report(what, "signal_wait_until (returned)", (long long)expected, (long long)seen);
                size_t bad = 0, first_bad = 0;
                for (size_t i = 0; i < bytes; i++)
                    if (dest[i] != pattern(round, left, i) && bad++ == 0)
                        first_bad = i;
                if (bad)
                    report(what, "payload bytes wrong when the signal was seen (first shown)",
                           pattern(round, left, first_bad), dest[first_bad]);
                if (shmem_signal_fetch(sig) != expected)
                    report(what, "signal_fetch", (long long)expected, (long long)shmem_signal_fetch(sig));
                shmem_barrier_all();
            }
}

static void signal_ops(uint64_t *sig)
{
    /* signal_add from every PE onto PE 0: plain, ctx, and both generic forms */
    *sig = 0;
    shmem_barrier_all();
    for (int k = 0; k < 4; k++) {
        uint64_t v = (uint64_t)(me + 1);
        switch (k) {
        case 0: shmem_signal_add(sig, v, 0); break;
        case 1: shmem_ctx_signal_add(SHMEM_CTX_DEFAULT, sig, v, 0); break;
        case 2: shmem_signal_add(SHMEM_CTX_DEFAULT, sig, v, 0); break;
        default: (shmem_signal_add)(sig, v, 0); break;
        }
    }
    if (me == 0) {
        uint64_t want = 4 * (uint64_t)npes * (uint64_t)(npes + 1) / 2;
        uint64_t got = shmem_signal_wait_until(sig, SHMEM_CMP_GE, want);
        if (got != want)
            report("signal_add from every PE", "sum", (long long)want, (long long)got);
    }
    shmem_barrier_all();
    /* signal_set on the right neighbour, each form in turn */
    for (int k = 0; k < 3; k++) {
        uint64_t v = 1000 * (uint64_t)(k + 1) + (uint64_t)me;
        switch (k) {
        case 0: shmem_signal_set(sig, v, right); break;
        case 1: shmem_ctx_signal_set(SHMEM_CTX_DEFAULT, sig, v, right); break;
        default: shmem_signal_set(SHMEM_CTX_DEFAULT, sig, v, right); break;
        }
        uint64_t want = 1000 * (uint64_t)(k + 1) + (uint64_t)left;
        uint64_t got = shmem_signal_wait_until(sig, SHMEM_CMP_EQ, want);
        if (got != want)
            report("signal_set from the left neighbour", "signal_wait_until", (long long)want, (long long)got);
        if (shmem_signal_fetch(sig) != want)
            report("signal_set from the left neighbour", "signal_fetch", (long long)want,
                   (long long)shmem_signal_fetch(sig));
        shmem_barrier_all();
    }
    /* signal_wait_until with the other comparisons, on a value already there */
    shmem_signal_set(sig, 50, me);
    static const int cmps[6] = {SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT, SHMEM_CMP_LE, SHMEM_CMP_LT, SHMEM_CMP_GE};
    static const uint64_t against[6] = {50, 7, 49, 50, 51, 50};
    for (int k = 0; k < 6; k++) {
        uint64_t got = shmem_signal_wait_until(sig, cmps[k], against[k]);
        if (got != 50)
            report("signal_wait_until on a satisfied signal", "returned", 50, (long long)got);
    }
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    if (npes > MAX_PES) {
        fprintf(stderr, "[PE %d] signal: this test handles at most %d PEs\n", me, MAX_PES);
        shmem_global_exit(1);
    }
    unsigned char *heap_dest = shmem_align(16, MAX_BYTES);
    uint64_t *heap_sig = shmem_calloc(1, sizeof *heap_sig);
    unsigned char *src = shmem_align(16, MAX_BYTES);
    if (heap_dest == NULL || heap_sig == NULL || src == NULL) {
        fprintf(stderr, "[PE %d] signal: shmem allocation returned NULL\n", me);
        shmem_global_exit(1);
    }

    put_signal_rounds(heap_dest, heap_sig, src);
    signal_ops(heap_sig);
    signal_ops(&global_sig);

    shmem_long_p(&all_errors[me], errors, 0);
    shmem_barrier_all();
    if (me == 0) {
        long total = 0;
        for (int pe = 0; pe < npes; pe++)
            total += all_errors[pe];
        if (total == 0)
            printf("signal: passed on %d PEs\n", npes);
        else
            fprintf(stderr, "signal: %ld mismatches in all\n", total);
    }
    shmem_free(src);
    shmem_free(heap_sig);
    shmem_free(heap_dest);
    shmem_finalize();
    return errors != 0;
}
