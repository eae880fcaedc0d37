// pes: 1 2 3 4
// timeout: 30
// The C11 _all/_any/_some and _vector wait and test generics accept short and unsigned short (as
// Sandia OpenSHMEM's do): each PE puts three shorts and three unsigned shorts to its right
// neighbour, which waits and tests with the generics, before (not yet satisfied) and after.
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include "check.h"

static short s[3];
static unsigned short us[3];

int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes(), errors = 0;
    int right = (me + 1) % n;
    size_t idx[3];
    short sv[3] = {-1, -2, -3};
    unsigned short uv[3] = {65001, 65002, 65003};

    CHECK(shmem_test_any(s, 3, NULL, SHMEM_CMP_LT, (short)0) == SIZE_MAX, "test_any (short) before the puts");
    CHECK(shmem_test_all(us, 3, NULL, SHMEM_CMP_GT, (unsigned short)65000) == 0, "test_all (ushort) before");
    CHECK(shmem_test_some_vector(s, 3, idx, NULL, SHMEM_CMP_EQ, sv) == 0, "test_some_vector (short) before");
    shmem_barrier_all();
    for (int i = 0; i < 3; i++) {
        shmem_short_p(&s[i], sv[i], right);
        shmem_ushort_p(&us[i], uv[i], right);
    }
    shmem_wait_until_all(s, 3, NULL, SHMEM_CMP_LT, (short)0);
    shmem_wait_until_all_vector(us, 3, NULL, SHMEM_CMP_EQ, uv);
    size_t any = shmem_wait_until_any(s, 3, NULL, SHMEM_CMP_EQ, (short)-2);
    CHECK(any == 1, "wait_until_any (short) = %zu", any);
    any = shmem_wait_until_any_vector(us, 3, NULL, SHMEM_CMP_EQ, uv);
    CHECK(any < 3, "wait_until_any_vector (ushort) = %zu", any);
    size_t some = shmem_wait_until_some(us, 3, idx, NULL, SHMEM_CMP_GE, (unsigned short)65002);
    CHECK(some == 2 && idx[0] == 1 && idx[1] == 2, "wait_until_some (ushort) = %zu", some);
    some = shmem_wait_until_some_vector(s, 3, idx, NULL, SHMEM_CMP_EQ, sv);
    CHECK(some == 3, "wait_until_some_vector (short) = %zu", some);
    CHECK(shmem_test_all(s, 3, NULL, SHMEM_CMP_LT, (short)0) == 1, "test_all (short) after");
    CHECK(shmem_test_all_vector(s, 3, NULL, SHMEM_CMP_EQ, sv) == 1, "test_all_vector (short) after");
    CHECK(shmem_test_any(us, 3, NULL, SHMEM_CMP_EQ, (unsigned short)65003) == 2, "test_any (ushort) after");
    CHECK(shmem_test_any_vector(us, 3, NULL, SHMEM_CMP_NE, uv) == SIZE_MAX, "test_any_vector (ushort) after");
    CHECK(shmem_test_some(s, 3, idx, NULL, SHMEM_CMP_LE, (short)-2) == 2, "test_some (short) after");
    CHECK(shmem_test_some_vector(us, 3, idx, NULL, SHMEM_CMP_EQ, uv) == 3, "test_some_vector (ushort) after");
    shmem_barrier_all();
    shmem_finalize();
    return errors != 0;
}
