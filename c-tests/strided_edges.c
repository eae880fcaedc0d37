// pes: 1 2 3 4 8
// timeout: 90
// Strided RMA at the edges the 1.6 text leaves open (docs/ABI.md, "strides below 1"). The spec asks
// for strides of at least 1 in iput, iget, ibput and ibget; Open MPI's OSHMEM and rshmem take any
// stride, element i (or block i) at i * stride, each range checked against the symmetric object.
// Each PE writes to / reads from its right neighbour and checks every element of a guarded array:
//  - a source stride of 0 (iput, ibput): every element (block) is a copy of the first;
//  - a destination stride of 0 (iput): one element of dest is written, with one of the values;
//  - negative strides (iput dst, iget sst, ibput dst, ibget sst): elements and blocks backwards
//    from the given address, nothing else touched;
//  - ibput and ibget with bsize 0: nothing moves, on either side.
// Every put is completed by shmem_quiet and a barrier before the target checks.
#include <shmem.h>
#include <stdio.h>
#define CHECK_LIMIT 30
#include "check.h"

#define LEN 256
#define MID 128 /* the address the calls are given: dest and source are arr + MID */
#define UNTOUCHED (-7L)

static long target[LEN], origin[LEN];
static int errors, me, npes;

/* origin[k] = value of element k (relative to MID) on PE `pe`. */
static long value(int pe, int k)
{
    return (long)pe * 100000 + 1000 + k;
}

static void reset(void)
{
    for (int i = 0; i < LEN; i++) {
        target[i] = UNTOUCHED;
        origin[i] = value(me, i - MID);
    }
    shmem_barrier_all();
}

/* After the puts: the elements of target (relative to MID) that `want` names must hold the
 * value it gives, every other element must be untouched. */
static void expect(const char *what, long (*want)(int k, int from, int *written))
{
    shmem_quiet();
    shmem_barrier_all();
    int from = (me + npes - 1) % npes;
    for (int i = 0; i < LEN; i++) {
        int written = 0;
        long v = want(i - MID, from, &written);
        if (written)
            CHECK(target[i] == v, "%s: element %d is %ld, expected %ld", what, i - MID, target[i], v);
        else
            CHECK(target[i] == UNTOUCHED, "%s: element %d was written (%ld)", what, i - MID,
                  target[i]);
    }
    shmem_barrier_all();
}

/* iput(dst = 2, sst = 0, 5 elements): elements 0, 2, ..., 8 all hold source element 0. */
static long want_sst0(int k, int from, int *w)
{
    *w = k >= 0 && k <= 8 && k % 2 == 0;
    return value(from, 0);
}

/* iput(dst = -3, sst = 2, 6 elements): element -3i holds source element 2i. */
static long want_dst_neg(int k, int from, int *w)
{
    *w = k <= 0 && k >= -15 && k % 3 == 0;
    return value(from, -k / 3 * 2);
}

/* ibput(dst = -4, sst = 0, bsize 3, 4 blocks): block i at -4i holds source elements 0..2. */
static long want_blocks_neg(int k, int from, int *w)
{
    int off = ((k % 4) + 4) % 4; /* position inside its 4-element slot */
    int block = (k - off) / -4;  /* 0 for k in 0..3, 1 for -4..-1, ... */
    *w = block >= 0 && block < 4 && off < 3;
    return value(from, off);
}

static long want_nothing(int k, int from, int *w)
{
    (void)k;
    (void)from;
    *w = 0;
    return 0;
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    long *t = target + MID, *o = origin + MID;

    reset();
    shmem_long_iput(t, o, 2, 0, 5, right);
    expect("iput with sst 0", want_sst0);

    reset();
    shmem_long_iput(t, o, -3, 2, 6, right);
    expect("iput with dst -3", want_dst_neg);

    reset();
    shmem_long_ibput(t, o, -4, 0, 3, 4, right);
    expect("ibput with dst -4 and sst 0", want_blocks_neg);

    reset();
    shmem_long_ibput(t, o, 2, 3, 0, 5, right);
    expect("ibput with bsize 0", want_nothing);

    /* iput(dst = 0, 4 elements): element 0 holds one of the four values (the spec orders no two
     * puts to one address), nothing else is written. */
    reset();
    shmem_long_iput(t, o, 0, 1, 4, right);
    shmem_quiet();
    shmem_barrier_all();
    long got = t[0];
    int from = left, ok = 0;
    for (int k = 0; k < 4; k++)
        ok |= got == value(from, k);
    CHECK(ok, "iput with dst 0: element 0 is %ld, none of the source's", got);
    for (int i = 0; i < LEN; i++)
        if (i != MID)
            CHECK(target[i] == UNTOUCHED, "iput with dst 0: element %d was written", i - MID);
    shmem_barrier_all();

    /* Gets into this PE's own target array, from the right neighbour's origin array. */
    reset();
    shmem_long_iget(t, o, 1, -5, 7, right);
    for (int i = 0; i < LEN; i++) {
        int k = i - MID;
        if (k >= 0 && k < 7)
            CHECK(target[i] == value(right, -5 * k), "iget with sst -5: element %d is %ld", k,
                  target[i]);
        else
            CHECK(target[i] == UNTOUCHED, "iget with sst -5: element %d was written", k);
    }
    shmem_barrier_all();

    reset();
    shmem_long_ibget(t, o, 3, -3, 2, 5, right);
    for (int i = 0; i < LEN; i++) {
        int k = i - MID, off = k % 3, block = k / 3;
        if (k >= 0 && block < 5 && off < 2)
            CHECK(target[i] == value(right, -3 * block + off),
                  "ibget with sst -3: element %d is %ld", k, target[i]);
        else
            CHECK(target[i] == UNTOUCHED, "ibget with sst -3: element %d was written", k);
    }
    shmem_barrier_all();

    reset();
    shmem_long_ibget(t, o, 2, 3, 0, 5, right);
    for (int i = 0; i < LEN; i++)
        CHECK(target[i] == UNTOUCHED, "ibget with bsize 0: element %d was written", i - MID);

    shmem_barrier_all();
    if (me == 0 && errors == 0)
        printf("strided_edges: %d PEs ok\n", npes);
    shmem_finalize();
    return errors != 0;
}
