// pes: 1 2 3 4 5 8
// The C11 generic collectives select the typed routine from the buffer type: broadcast, collect,
// fcollect, alltoall, alltoalls, every reduction (complex included) and the scans.
#include <complex.h>
#include <shmem.h>
#include <stdio.h>
#include "check.h"

static int me, npes;
static long errors;
static int isrc[16], idst[16];
static double dsrc[2], ddst[2];
static unsigned long usrc, udst;
static double _Complex csrc, cdst;
static long lsrc, ldst;

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    shmem_team_t w = SHMEM_TEAM_WORLD;

    isrc[0] = me + 1;
    shmem_broadcast(w, idst, isrc, 1, npes - 1);
    CHECK(idst[0] == npes, "broadcast: %d", idst[0]);
    shmem_fcollect(w, idst, isrc, 1);
    for (int j = 0; j < npes; j++)
        CHECK(idst[j] == j + 1, "fcollect [%d] = %d", j, idst[j]);
    shmem_collect(w, idst, isrc, 1);
    for (int j = 0; j < npes; j++)
        CHECK(idst[j] == j + 1, "collect [%d] = %d", j, idst[j]);
    for (int j = 0; j < npes; j++)
        isrc[j] = me * 10 + j;
    shmem_alltoall(w, idst, isrc, 1);
    for (int j = 0; j < npes; j++)
        CHECK(idst[j] == j * 10 + me, "alltoall [%d] = %d", j, idst[j]);
    shmem_alltoalls(w, idst, isrc, 1, 1, 1);
    for (int j = 0; j < npes; j++)
        CHECK(idst[j] == j * 10 + me, "alltoalls [%d] = %d", j, idst[j]);

    dsrc[0] = me + 1;
    shmem_sum_reduce(w, ddst, dsrc, 1);
    CHECK(ddst[0] == npes * (npes + 1) / 2.0, "sum_reduce(double) = %g", ddst[0]);
    shmem_max_reduce(w, ddst, dsrc, 1);
    CHECK(ddst[0] == npes, "max_reduce(double) = %g", ddst[0]);
    shmem_min_reduce(w, ddst, dsrc, 1);
    CHECK(ddst[0] == 1, "min_reduce(double) = %g", ddst[0]);
    lsrc = 2;
    shmem_prod_reduce(w, &ldst, &lsrc, 1);
    CHECK(ldst == 1L << npes, "prod_reduce(long) = %ld", ldst);
    usrc = 1UL << me;
    shmem_or_reduce(w, &udst, &usrc, 1);
    CHECK(udst == (1UL << npes) - 1, "or_reduce(unsigned long) = %lx", udst);
    shmem_xor_reduce(w, &udst, &usrc, 1);
    CHECK(udst == (1UL << npes) - 1, "xor_reduce(unsigned long) = %lx", udst);
    shmem_and_reduce(w, &udst, &usrc, 1);
    CHECK(udst == (npes == 1 ? 1UL : 0UL), "and_reduce(unsigned long) = %lx", udst);
    csrc = 1 + me * I;
    shmem_sum_reduce(w, &cdst, &csrc, 1);
    CHECK(creal(cdst) == npes && cimag(cdst) == npes * (npes - 1) / 2.0,
          "sum_reduce(double _Complex) = %g%+gi", creal(cdst), cimag(cdst));
    lsrc = me + 1;
    shmem_sum_inscan(w, &ldst, &lsrc, 1);
    CHECK(ldst == (me + 1) * (me + 2) / 2, "sum_inscan(long) = %ld", ldst);
    shmem_sum_exscan(w, &ldst, &lsrc, 1);
    CHECK(ldst == me * (me + 1) / 2, "sum_exscan(long) = %ld", ldst);

    shmem_barrier_all();
    if (errors)
        fprintf(stderr, "[PE %d] coll_generic: %ld errors\n", me, errors);
    shmem_finalize();
    return errors ? 1 : 0;
}
