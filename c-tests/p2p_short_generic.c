// pes: 1 2 3 4
// timeout: 30
// The C11 shmem_wait_until and shmem_test accept short and unsigned short (deprecated in the
// spec, still listed in both synopses; the _all/_any/_some and vector generics have the standard
// AMO types only). Each PE puts a short and an unsigned short to its right neighbour; the
// neighbour waits with the generic and tests with it, before (not yet satisfied) and after.
#include <shmem.h>
#include <stdio.h>

static short s;
static unsigned short us;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, errors = 0;
    if (shmem_test(&s, SHMEM_CMP_EQ, (short)-7) != 0 || shmem_test(&us, SHMEM_CMP_GE, (unsigned short)65000) != 0)
        errors++;
    shmem_barrier_all();
    shmem_short_p(&s, (short)-7, right);
    shmem_ushort_p(&us, (unsigned short)65001, right);
    shmem_wait_until(&s, SHMEM_CMP_EQ, (short)-7);
    shmem_wait_until(&us, SHMEM_CMP_GT, (unsigned short)65000);
    if (shmem_test(&s, SHMEM_CMP_LT, (short)0) != 1 || shmem_test(&us, SHMEM_CMP_EQ, (unsigned short)65001) != 1)
        errors++;
    if (errors)
        fprintf(stderr, "[PE %d] p2p_short_generic: s = %d, us = %u after the waits; %d errors\n", me, s, us, errors);
    shmem_barrier_all();
    if (errors)
        shmem_global_exit(1);
    if (me == 0)
        printf("p2p_short_generic: ok\n");
    shmem_finalize();
    return 0;
}
