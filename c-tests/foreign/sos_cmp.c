// Built with Sandia OpenSHMEM 1.5's constant values (sos/sos_abi.h) and linked against a stand-in
// libsma.so, run with rshmem preloaded: every comparison operator of SOS's header (EQ..LE are
// 1..6, in another order than rshmem's 0..5) gives the right truth value through the test, wait
// and vector routines and shmem_signal_wait_until. Untranslated, SHMEM_CMP_EQ would mean NE.
// build: sos
// pes: 2 4
// timeout: 60
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static long lvar[3];
static int ivar;
static long flag;
static uint64_t sig;

static const struct {
    const char *name;
    int cmp;
} ops[] = {
    {"SHMEM_CMP_EQ", SHMEM_CMP_EQ}, {"SHMEM_CMP_NE", SHMEM_CMP_NE}, {"SHMEM_CMP_GT", SHMEM_CMP_GT},
    {"SHMEM_CMP_GE", SHMEM_CMP_GE}, {"SHMEM_CMP_LT", SHMEM_CMP_LT}, {"SHMEM_CMP_LE", SHMEM_CMP_LE},
};

static int holds(int cmp, long a, long b) {
    switch (cmp) {
    case SHMEM_CMP_EQ: return a == b;
    case SHMEM_CMP_NE: return a != b;
    case SHMEM_CMP_GT: return a > b;
    case SHMEM_CMP_GE: return a >= b;
    case SHMEM_CMP_LT: return a < b;
    case SHMEM_CMP_LE: return a <= b;
    }
    abort();
}

static void fail(int me, const char *what, const char *op, long a, long b, long got) {
    fprintf(stderr, "[PE %d] %s(%ld %s %ld) gave %ld\n", me, what, a, op, b, got);
    exit(1);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    const long values[] = {-3, 4, 5};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        for (size_t v = 0; v < 3; v++) {
            lvar[0] = lvar[1] = lvar[2] = 4;
            ivar = 4;
            int want = holds(ops[i].cmp, 4, values[v]);
            long got = shmem_long_test(&lvar[0], ops[i].cmp, values[v]);
            if (got != want) fail(me, "shmem_long_test", ops[i].name, 4, values[v], got);
            got = shmem_int_test(&ivar, ops[i].cmp, (int)values[v]);
            if (got != want) fail(me, "shmem_int_test", ops[i].name, 4, values[v], got);
            got = shmem_long_test_all(lvar, 3, NULL, ops[i].cmp, values[v]);
            if (got != want) fail(me, "shmem_long_test_all", ops[i].name, 4, values[v], got);
            size_t idx = shmem_long_test_any(lvar, 3, NULL, ops[i].cmp, values[v]);
            if ((idx != SIZE_MAX) != want) fail(me, "shmem_long_test_any", ops[i].name, 4, values[v], (long)idx);
            size_t found[3];
            size_t some = shmem_long_test_some(lvar, 3, found, NULL, ops[i].cmp, values[v]);
            if (some != (want ? 3u : 0u)) fail(me, "shmem_long_test_some", ops[i].name, 4, values[v], (long)some);
            if (want) {
                shmem_long_wait_until(&lvar[0], ops[i].cmp, values[v]);
                shmem_int_wait_until(&ivar, ops[i].cmp, (int)values[v]);
                shmem_long_wait_until_all(lvar, 3, NULL, ops[i].cmp, values[v]);
                sig = 4;
                if (values[v] >= 0 && shmem_signal_wait_until(&sig, ops[i].cmp, (uint64_t)values[v]) != 4)
                    fail(me, "shmem_signal_wait_until", ops[i].name, 4, values[v], 0);
            }
        }
    }
    /* A real wait per operator: the left neighbour sends the value that makes it hold. */
    const struct { int cmp; long against; } waits[] = {
        {SHMEM_CMP_EQ, 1}, {SHMEM_CMP_NE, 1}, {SHMEM_CMP_GT, 2}, {SHMEM_CMP_GE, 4},
        {SHMEM_CMP_LT, 0}, {SHMEM_CMP_LE, -5},
    };
    const long sent[] = {1, 2, 3, 4, -1, -5};
    for (int k = 0; k < 6; k++) {
        shmem_barrier_all();
        shmem_long_p(&flag, sent[k], (me + 1) % n);
        shmem_long_wait_until(&flag, waits[k].cmp, waits[k].against);
        if (flag != sent[k]) {
            fprintf(stderr, "[PE %d] wait %d returned with flag %ld, want %ld\n", me, k, flag, sent[k]);
            return 1;
        }
    }
    shmem_barrier_all();
    sig = 0;
    shmem_barrier_all();
    shmemx_signal_add(&sig, 5, (me + 1) % n);
    if (shmem_signal_wait_until(&sig, SHMEM_CMP_GE, 5) != 5) {
        fprintf(stderr, "[PE %d] signal wait GE 5\n", me);
        return 1;
    }
    shmem_barrier_all();
    if (me == 0) printf("sos_cmp: ok on %d PEs\n", n);
    shmem_finalize();
    return 0;
}
