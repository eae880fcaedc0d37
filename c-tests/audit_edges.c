// pes: 1 2 3 4 8
// timeout: 90
// Edges of the routines, as the 1.6 text defines them (what was checked, routine by routine):
//  - nelems 0: put, get, iput, iget, ibput, ibget, put_nbi, get_nbi, putmem, put_signal (the
//    signal is still updated), broadcast, collect, fcollect, alltoall, alltoalls, sum_reduce,
//    sum_inscan, and the _all/_any/_some waits move or wait for nothing and return success; 70
//    rounds of those collectives of 0 in a row, then an alltoall of data;
//  - the PE itself as target: put, get, p, g, iput (each put completed by shmem_quiet, as for
//    any target), AMOs (fetch_add, compare_swap, swap), put_signal and shmem_ptr (the local
//    address);
//  - in place: a reduction with dest == source (the spec allows complete overlap), on every
//    team size;
//  - teams of one (split_strided of size 1): my_pe 0, n_pes 1, translate_pe, sync, broadcast,
//    collect, alltoall, reduce, a context on it; return codes 0;
//  - SHMEM_TEAM_INVALID: team_my_pe / team_n_pes -1, translate_pe -1, team_sync and the
//    collectives nonzero without communicating;
//  - shmem_pe_accessible / shmem_addr_accessible for every PE, -1 and npes;
//  - shmem_info_get_version / get_name, shmem_query_thread.
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#define CHECK_LIMIT 30
#include "check.h"

#define N 8

static long src[N], dst[N], red[N];
static uint64_t sig;
static long counter;
static int errors, me, npes;

static void fill(long *a, long base)
{
    for (int i = 0; i < N; i++)
        a[i] = base + i;
}

static int unchanged(const long *a, long base)
{
    for (int i = 0; i < N; i++)
        if (a[i] != base + i)
            return 0;
    return 1;
}

static void zero_counts(void)
{
    int right = (me + 1) % npes;
    fill(dst, -100);
    shmem_barrier_all();
    shmem_long_put(dst, src, 0, right);
    shmem_long_get(dst, src, 0, right);
    shmem_long_iput(dst, src, 2, 3, 0, right);
    shmem_long_iget(dst, src, 2, 3, 0, right);
    shmem_long_ibput(dst, src, 2, 3, 1, 0, right);
    shmem_long_ibget(dst, src, 2, 3, 1, 0, right);
    shmem_long_put_nbi(dst, src, 0, right);
    shmem_long_get_nbi(dst, src, 0, right);
    shmem_putmem(dst, src, 0, right);
    shmem_getmem(dst, src, 0, right);
    shmem_quiet();
    CHECK(unchanged(dst, -100), "a transfer of 0 elements changed dest");
    shmem_barrier_all();
    sig = 0;
    shmem_barrier_all();
    shmem_long_put_signal(dst, src, 0, &sig, 5, SHMEM_SIGNAL_SET, right);
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 5);
    CHECK(unchanged(dst, -100), "put_signal of 0 elements changed dest");
    shmem_barrier_all();
    CHECK(shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 0, 0) == 0, "broadcast of 0 failed");
    CHECK(shmem_long_collect(SHMEM_TEAM_WORLD, dst, src, 0) == 0, "collect of 0 failed");
    CHECK(shmem_long_fcollect(SHMEM_TEAM_WORLD, dst, src, 0) == 0, "fcollect of 0 failed");
    CHECK(shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, 0) == 0, "alltoall of 0 failed");
    CHECK(shmem_long_alltoalls(SHMEM_TEAM_WORLD, dst, src, 1, 1, 0) == 0, "alltoalls of 0 failed");
    CHECK(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 0) == 0, "sum_reduce of 0 failed");
    CHECK(shmem_long_sum_inscan(SHMEM_TEAM_WORLD, dst, src, 0) == 0, "sum_inscan of 0 failed");
    CHECK(unchanged(dst, -100), "a collective of 0 elements changed dest");
    /* Many in a row, then one that moves data: a call of 0 elements still reads the others'
     * posts, which their owners reuse only once acknowledged (alltoalls of 0 skipped that: its
     * third call hung, or the next collective did). */
    for (int k = 0; k < 70; k++) {
        shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 0, 0);
        shmem_long_collect(SHMEM_TEAM_WORLD, dst, src, 0);
        shmem_long_fcollect(SHMEM_TEAM_WORLD, dst, src, 0);
        shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, 0);
        shmem_long_alltoalls(SHMEM_TEAM_WORLD, dst, src, 2, 3, 0);
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 0);
        shmem_long_sum_inscan(SHMEM_TEAM_WORLD, dst, src, 0);
    }
    CHECK(unchanged(dst, -100), "collectives of 0 elements in a row changed dest");
    fill(src, 100 * me);
    shmem_barrier_all();
    shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, 1);
    for (int j = 0; j < npes; j++)
        CHECK(dst[j] == 100 * j + me, "alltoall after collectives of 0: dst[%d] = %ld", j, dst[j]);
    shmem_barrier_all();
    size_t idx[N];
    shmem_long_wait_until_all(red, 0, NULL, SHMEM_CMP_EQ, 12345);
    CHECK(shmem_long_wait_until_any(red, 0, NULL, SHMEM_CMP_EQ, 12345) == SIZE_MAX, "wait_until_any of 0");
    CHECK(shmem_long_wait_until_some(red, 0, idx, NULL, SHMEM_CMP_EQ, 12345) == 0, "wait_until_some of 0");
    CHECK(shmem_long_test_all(red, 0, NULL, SHMEM_CMP_EQ, 12345) == 1, "test_all of 0");
    shmem_barrier_all();
}

static void self_target(void)
{
    fill(src, 10 * me);
    fill(dst, -1);
    shmem_long_put(dst, src, N, me);
    shmem_quiet(); /* a put returns when its source is reusable; quiet delivers it, to itself too */
    CHECK(unchanged(dst, 10 * me), "put to itself");
    fill(dst, -1);
    shmem_long_get(dst, src, N, me);
    CHECK(unchanged(dst, 10 * me), "get from itself");
    shmem_long_p(&dst[2], 77, me);
    shmem_quiet();
    CHECK(shmem_long_g(&dst[2], me) == 77, "p/g on itself");
    fill(dst, -1); /* dst[i] = i - 1 */
    shmem_long_iput(dst, src, 2, 1, N / 2, me);
    shmem_quiet();
    CHECK(dst[0] == src[0] && dst[2] == src[1] && dst[6] == src[3] && dst[1] == 0 && dst[7] == 6,
          "iput to itself");
    counter = 5;
    CHECK(shmem_long_atomic_fetch_add(&counter, 3, me) == 5 && counter == 8, "fetch_add on itself");
    CHECK(shmem_long_atomic_compare_swap(&counter, 8, 1, me) == 8 && counter == 1, "compare_swap on itself");
    CHECK(shmem_long_atomic_swap(&counter, 9, me) == 1 && counter == 9, "swap on itself");
    sig = 0;
    fill(dst, -1);
    shmem_long_put_signal(dst, src, N, &sig, 3, SHMEM_SIGNAL_ADD, me);
    CHECK(shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 3) == 3 && unchanged(dst, 10 * me), "put_signal to itself");
    CHECK(shmem_ptr(dst, me) == (void *)dst, "shmem_ptr(dst, me) is not dst");
    shmem_barrier_all();
}

static void in_place(shmem_team_t team, const char *name)
{
    int n = shmem_team_n_pes(team);
    if (n < 0)
        return;
    fill(red, 1);
    shmem_team_sync(team);
    CHECK(shmem_long_sum_reduce(team, red, red, N) == 0, "%s: in-place sum_reduce failed", name);
    for (int i = 0; i < N; i++)
        CHECK(red[i] == (long)n * (1 + i), "%s: in-place sum_reduce red[%d] = %ld, expected %ld", name, i, red[i],
              (long)n * (1 + i));
    shmem_team_sync(team);
}

static void team_of_one(void)
{
    shmem_team_t one = SHMEM_TEAM_INVALID;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, me, 1, 1, NULL, 0, &one) == 0 && one != SHMEM_TEAM_INVALID,
          "split of size 1 failed");
    if (one == SHMEM_TEAM_INVALID)
        return;
    CHECK(shmem_team_my_pe(one) == 0 && shmem_team_n_pes(one) == 1, "team of one: my_pe/n_pes");
    CHECK(shmem_team_translate_pe(one, 0, SHMEM_TEAM_WORLD) == me, "team of one: translate to world");
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, one) == 0, "world to team of one");
    CHECK(shmem_team_sync(one) == 0, "team of one: sync");
    fill(src, 3);
    fill(dst, -1);
    CHECK(shmem_long_broadcast(one, dst, src, N, 0) == 0 && unchanged(dst, 3), "team of one: broadcast");
    fill(dst, -1);
    CHECK(shmem_long_collect(one, dst, src, N) == 0 && unchanged(dst, 3), "team of one: collect");
    fill(dst, -1);
    CHECK(shmem_long_alltoall(one, dst, src, N) == 0 && unchanged(dst, 3), "team of one: alltoall");
    fill(dst, -1);
    CHECK(shmem_long_max_reduce(one, dst, src, N) == 0 && unchanged(dst, 3), "team of one: max_reduce");
    in_place(one, "team of one");
    shmem_ctx_t ctx = SHMEM_CTX_INVALID;
    CHECK(shmem_team_create_ctx(one, 0, &ctx) == 0, "team of one: create_ctx");
    if (ctx != SHMEM_CTX_INVALID) {
        shmem_ctx_long_p(ctx, &dst[0], 42, 0);
        shmem_ctx_quiet(ctx);
        CHECK(dst[0] == 42, "team of one: ctx p to team PE 0 (itself)");
        shmem_ctx_destroy(ctx);
    }
    shmem_team_destroy(one);
    shmem_barrier_all();
}

static void invalid_team(void)
{
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1, "team_my_pe(INVALID)");
    CHECK(shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1, "team_n_pes(INVALID)");
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD) == -1, "translate_pe(INVALID)");
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, npes, SHMEM_TEAM_WORLD) == -1, "translate_pe(npes)");
    CHECK(shmem_team_sync(SHMEM_TEAM_INVALID) != 0, "team_sync(INVALID) returned 0");
    CHECK(shmem_long_broadcast(SHMEM_TEAM_INVALID, dst, src, N, 0) != 0, "broadcast(INVALID) returned 0");
    CHECK(shmem_long_sum_reduce(SHMEM_TEAM_INVALID, dst, src, N) != 0, "sum_reduce(INVALID) returned 0");
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    zero_counts();
    self_target();
    in_place(SHMEM_TEAM_WORLD, "world");
    in_place(SHMEM_TEAM_SHARED, "shared");
    team_of_one();
    invalid_team();
    for (int pe = -1; pe <= npes; pe++) {
        int ok = pe >= 0 && pe < npes;
        CHECK(shmem_pe_accessible(pe) == ok, "pe_accessible(%d)", pe);
        CHECK(shmem_addr_accessible(dst, pe) == ok, "addr_accessible(dst, %d)", pe);
    }
    int local = 0;
    CHECK(shmem_addr_accessible(&local, 0) == 0, "addr_accessible of a stack variable");
    int major = 0, minor = 0;
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_version(&major, &minor);
    shmem_info_get_name(name);
    CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION, "info_get_version %d.%d", major, minor);
    CHECK(strncmp(name, SHMEM_VENDOR_STRING, SHMEM_MAX_NAME_LEN) == 0, "info_get_name '%s'", name);
    int provided = -1;
    shmem_query_thread(&provided);
    CHECK(provided == SHMEM_THREAD_SINGLE, "query_thread after shmem_init: %d", provided);

    shmem_barrier_all();
    if (errors) {
        fprintf(stderr, "[PE %d] audit_edges: %d errors\n", me, errors);
        shmem_global_exit(1);
    }
    if (me == 0)
        printf("audit_edges: %d PEs ok\n", npes);
    shmem_finalize();
    return 0;
}
