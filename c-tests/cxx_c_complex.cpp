// pes: 1 2 3 4
// timeout: 60
// The complex reductions and scans from C++ with C's complex types (GNU C++ has them), as a program
// written for a header that declares the routines with `double _Complex *` calls them: shmem.h's
// overloads for those types must select the routines and pass the same values on. Every PE
// contributes (me + 1) + (me + 2)i; each of the twelve routines (sum and product reductions, team
// and active-set forms, both scans, for double and float) is checked against the serial result.
// Products are exact: the values are small Gaussian integers.
#include <shmem.h>

#include <complex>
#include <cstdio>

__extension__ typedef double _Complex cdouble;
__extension__ typedef float _Complex cfloat;

static cdouble dsrc[2], ddst[2], dwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static cfloat fsrc[2], fdst[2], fwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long psync[SHMEM_REDUCE_SYNC_SIZE];

static int errors;

template <typename C, typename T>
static void expect(const char *what, int me, std::complex<T> want, C got)
{
    std::complex<T> seen(__real__ got, __imag__ got);
    if (want != seen && errors++ < 10)
        std::fprintf(stderr, "[PE %d] cxx_c_complex: %s: expected (%g, %g), got (%g, %g)\n", me, what,
                     (double)want.real(), (double)want.imag(), (double)seen.real(), (double)seen.imag());
}

static void reset(int me)
{
    for (int i = 0; i < 2; i++) {
        __real__ dsrc[i] = me + 1;
        __imag__ dsrc[i] = me + 2;
        __real__ fsrc[i] = (float)(me + 1);
        __imag__ fsrc[i] = (float)(me + 2);
        ddst[i] = 0;
        fdst[i] = 0;
    }
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
}

int main()
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    std::complex<double> sum(0, 0), prod(1, 0), inclusive(0, 0), exclusive(0, 0);
    for (int pe = 0; pe < npes; pe++) {
        std::complex<double> v(pe + 1, pe + 2);
        sum += v;
        prod *= v;
        if (pe < me)
            exclusive += v;
        if (pe <= me)
            inclusive += v;
    }
    std::complex<float> fsum(sum), fprod(prod), finclusive(inclusive), fexclusive(exclusive);

    reset(me);
    errors += shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, ddst, dsrc, 2) != 0;
    expect("complexd_sum_reduce", me, sum, ddst[1]);
    reset(me);
    errors += shmem_complexd_prod_reduce(SHMEM_TEAM_WORLD, ddst, dsrc, 2) != 0;
    expect("complexd_prod_reduce", me, prod, ddst[0]);
    reset(me);
    shmem_complexd_sum_to_all(ddst, dsrc, 2, 0, 0, npes, dwrk, psync);
    expect("complexd_sum_to_all", me, sum, ddst[0]);
    reset(me);
    shmem_complexd_prod_to_all(ddst, dsrc, 2, 0, 0, npes, dwrk, psync);
    expect("complexd_prod_to_all", me, prod, ddst[1]);
    reset(me);
    errors += shmem_complexd_sum_inscan(SHMEM_TEAM_WORLD, ddst, dsrc, 2) != 0;
    expect("complexd_sum_inscan", me, inclusive, ddst[1]);
    reset(me);
    errors += shmem_complexd_sum_exscan(SHMEM_TEAM_WORLD, ddst, dsrc, 2) != 0;
    if (me > 0)
        expect("complexd_sum_exscan", me, exclusive, ddst[0]);

    reset(me);
    errors += shmem_complexf_sum_reduce(SHMEM_TEAM_WORLD, fdst, fsrc, 2) != 0;
    expect("complexf_sum_reduce", me, fsum, fdst[0]);
    reset(me);
    errors += shmem_complexf_prod_reduce(SHMEM_TEAM_WORLD, fdst, fsrc, 2) != 0;
    expect("complexf_prod_reduce", me, fprod, fdst[1]);
    reset(me);
    shmem_complexf_sum_to_all(fdst, fsrc, 2, 0, 0, npes, fwrk, psync);
    expect("complexf_sum_to_all", me, fsum, fdst[1]);
    reset(me);
    shmem_complexf_prod_to_all(fdst, fsrc, 2, 0, 0, npes, fwrk, psync);
    expect("complexf_prod_to_all", me, fprod, fdst[0]);
    reset(me);
    errors += shmem_complexf_sum_inscan(SHMEM_TEAM_WORLD, fdst, fsrc, 2) != 0;
    expect("complexf_sum_inscan", me, finclusive, fdst[0]);
    reset(me);
    errors += shmem_complexf_sum_exscan(SHMEM_TEAM_WORLD, fdst, fsrc, 2) != 0;
    if (me > 0)
        expect("complexf_sum_exscan", me, fexclusive, fdst[1]);

    shmem_barrier_all();
    if (errors) {
        std::fprintf(stderr, "[PE %d] cxx_c_complex: %d errors\n", me, errors);
        shmem_global_exit(1);
    }
    if (me == 0)
        std::printf("cxx_c_complex: %d PEs ok\n", npes);
    shmem_finalize();
    return 0;
}
