// pes: 1 2 3 4
// timeout: 60
// The C++ overloads of the C11 generics (shmem.h) and of Sandia OpenSHMEM's shmemx_ generics
// (shmemx.h), as SOS's C++ programs call them: each selects the typed routine by the buffer type,
// with and without a context, and gives its values.
#include <shmem.h>
#include <shmemx.h>
#include <cstdint>
#include <cstdio>

static int errors, me;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            errors++;                                                                              \
            std::fprintf(stderr, "[PE %d] cxx_generics: ", me);                                    \
            std::fprintf(stderr, __VA_ARGS__);                                                     \
            std::fprintf(stderr, "\n");                                                            \
        }                                                                                          \
    } while (0)

static long ldst[4], lsrc[4];
static double ddst[4], dsrc[4];
static float fval;
static short sflags[2];
static unsigned int counter;
static int ib[8], is[8];
static long scan_in[2], scan_out[2];

int main() {
    shmem_init();
    me = shmem_my_pe();
    int n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    for (int i = 0; i < 4; i++) {
        lsrc[i] = me * 10 + i;
        dsrc[i] = me + 0.25 * i;
    }
    for (int i = 0; i < 8; i++)
        is[i] = me * 10 + i;
    shmem_barrier_all();
    shmem_put(ldst, lsrc, 4, right);
    shmem_put(SHMEM_CTX_DEFAULT, ddst, dsrc, 4, right);
    shmem_p(&fval, 1.5f + me, right);
    shmem_atomic_fetch_add(&counter, 1u, 0);
    shmem_short_p(&sflags[1], (short)7, right);
    shmemx_ibput(ib, is, 2, 4, 1, 2, right);
    shmem_barrier_all();
    for (int i = 0; i < 4; i++) {
        CHECK(ldst[i] == left * 10 + i, "shmem_put (long): [%d] = %ld", i, ldst[i]);
        CHECK(ddst[i] == left + 0.25 * i, "shmem_put (ctx, double): [%d] = %g", i, ddst[i]);
    }
    CHECK(fval == 1.5f + left, "shmem_p (float) = %g", (double)fval);
    CHECK(ib[0] == left * 10 && ib[2] == left * 10 + 4, "shmemx_ibput (int): %d %d", ib[0], ib[2]);
    shmem_wait_until(&sflags[1], SHMEM_CMP_EQ, (short)7);
    shmem_wait_until_all(sflags, 2, nullptr, SHMEM_CMP_GE, (short)0);
    CHECK(shmem_test_any(sflags, 2, nullptr, SHMEM_CMP_EQ, (short)7) == 1, "shmem_test_any (short)");
    CHECK(shmem_g(&ldst[0], right) == me * 10, "shmem_g (long)");
    if (me == 0)
        CHECK(shmem_atomic_fetch(&counter, 0) == (unsigned)n, "shmem_atomic_fetch (uint) = %u", counter);
    scan_in[0] = 1;
    scan_in[1] = me;
    shmem_barrier_all();
    shmemx_sum_inscan(SHMEM_TEAM_WORLD, scan_out, scan_in, 2);
    CHECK(scan_out[0] == me + 1 && scan_out[1] == (long)me * (me + 1) / 2, "shmemx_sum_inscan: %ld %ld",
          scan_out[0], scan_out[1]);
    shmem_sum_reduce(SHMEM_TEAM_WORLD, scan_out, scan_in, 2);
    CHECK(scan_out[0] == n, "shmem_sum_reduce (long) = %ld", scan_out[0]);
    shmem_barrier_all();
    shmem_finalize();
    return errors != 0;
}
