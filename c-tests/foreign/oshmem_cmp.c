// Built with Open MPI OSHMEM 4.1's oshcc, run with rshmem preloaded: every comparison operator of
// its header gives the right truth value through shmem_*_test and returns from shmem_*_wait_until
// exactly when it holds, on the default context's variables.
// build: oshmem
// pes: 2 4
// timeout: 60
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

static long lvar;
static int ivar;
static long flag;

static const struct {
    const char *name;
    int cmp;
} ops[] = {
    {"SHMEM_CMP_EQ", SHMEM_CMP_EQ}, {"SHMEM_CMP_NE", SHMEM_CMP_NE}, {"SHMEM_CMP_GT", SHMEM_CMP_GT},
    {"SHMEM_CMP_LE", SHMEM_CMP_LE}, {"SHMEM_CMP_LT", SHMEM_CMP_LT}, {"SHMEM_CMP_GE", SHMEM_CMP_GE},
};

static int holds(int cmp, long a, long b) {
    switch (cmp) {
    case SHMEM_CMP_EQ: return a == b;
    case SHMEM_CMP_NE: return a != b;
    case SHMEM_CMP_GT: return a > b;
    case SHMEM_CMP_LE: return a <= b;
    case SHMEM_CMP_LT: return a < b;
    case SHMEM_CMP_GE: return a >= b;
    }
    abort();
}

static void fail(int me, const char *what, const char *op, long a, long b, int got) {
    fprintf(stderr, "[PE %d] %s(%ld %s %ld) gave %d\n", me, what, a, op, b, got);
    exit(1);
}

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    const long values[] = {-3, 4, 5};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        for (size_t v = 0; v < 3; v++) {
            lvar = 4;
            ivar = 4;
            int want = holds(ops[i].cmp, 4, values[v]);
            int got = shmem_long_test(&lvar, ops[i].cmp, values[v]);
            if (got != want) fail(me, "shmem_long_test", ops[i].name, 4, values[v], got);
            got = shmem_int_test(&ivar, ops[i].cmp, (int)values[v]);
            if (got != want) fail(me, "shmem_int_test", ops[i].name, 4, values[v], got);
            if (want) {
                /* Already true: must return. */
                shmem_long_wait_until(&lvar, ops[i].cmp, values[v]);
                shmem_int_wait_until(&ivar, ops[i].cmp, (int)values[v]);
            }
        }
    }
    /* A real wait per operator: the left neighbour raises flag to k; each operator is chosen so
     * that it holds only once the value arrives. */
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
    if (me == 0) printf("oshmem_cmp: ok on %d PEs\n", n);
    shmem_finalize();
    return 0;
}
