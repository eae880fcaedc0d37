// pes: 1 2 3 4
// timeout: 60
// The complex reductions and scans from C++ (which has no _Complex): shmem.h declares them with
// the C++ types std::complex<double> and <float>, whose layout is the C type's. Every PE
// contributes (me + 1) + (me + 2)i; sum_reduce and prod_reduce (team form) and sum_to_all
// (active-set form) are checked against the serial result, sum_inscan against the prefix, for
// double and float. Products are exact: the values are small Gaussian integers.
#include <shmem.h>

#include <complex>
#include <cstdio>

static std::complex<double> dsrc[2], ddst[2], dwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static std::complex<float> fsrc[2], fdst[2];
static long psync[SHMEM_REDUCE_SYNC_SIZE];

static int errors;

template <typename T>
static void expect(const char *what, int me, std::complex<T> want, std::complex<T> got)
{
    if (want != got && errors++ < 10)
        std::fprintf(stderr, "[PE %d] cxx_complex: %s: expected (%g, %g), got (%g, %g)\n", me, what,
                     (double)want.real(), (double)want.imag(), (double)got.real(), (double)got.imag());
}

int main()
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    std::complex<double> sum(0, 0), prod(1, 0), prefix(0, 0);
    for (int pe = 0; pe < npes; pe++) {
        std::complex<double> v(pe + 1, pe + 2);
        sum += v;
        prod *= v;
        if (pe <= me)
            prefix += v;
    }
    for (int i = 0; i < 2; i++) {
        dsrc[i] = std::complex<double>(me + 1, me + 2);
        fsrc[i] = std::complex<float>((float)(me + 1), (float)(me + 2));
    }
    shmem_barrier_all();

    if (shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, ddst, dsrc, 2) != 0)
        errors++;
    expect("complexd_sum_reduce", me, sum, ddst[1]);
    if (shmem_complexd_prod_reduce(SHMEM_TEAM_WORLD, ddst, dsrc, 2) != 0)
        errors++;
    expect("complexd_prod_reduce", me, prod, ddst[0]);
    if (shmem_complexf_sum_reduce(SHMEM_TEAM_WORLD, fdst, fsrc, 2) != 0)
        errors++;
    expect("complexf_sum_reduce", me, std::complex<float>(sum), fdst[0]);
    if (shmem_complexf_prod_reduce(SHMEM_TEAM_WORLD, fdst, fsrc, 2) != 0)
        errors++;
    expect("complexf_prod_reduce", me, std::complex<float>(prod), fdst[1]);
    shmem_complexd_sum_to_all(ddst, dsrc, 2, 0, 0, npes, dwrk, psync);
    expect("complexd_sum_to_all", me, sum, ddst[0]);
    if (shmem_complexd_sum_inscan(SHMEM_TEAM_WORLD, ddst, dsrc, 2) != 0)
        errors++;
    expect("complexd_sum_inscan", me, prefix, ddst[1]);

    shmem_barrier_all();
    if (errors) {
        std::fprintf(stderr, "[PE %d] cxx_complex: %d errors\n", me, errors);
        shmem_global_exit(1);
    }
    if (me == 0)
        std::printf("cxx_complex: %d PEs ok\n", npes);
    shmem_finalize();
    return 0;
}
