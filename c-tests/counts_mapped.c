// pes: 1 2 3
// env: SHMEM_TRANSPORT=ucx
// env: UCX_TLS=sm,self
// env: SHMEM_COUNTS=1
// env: SHMEM_INFO=1
// expect-stderr: network operations: put 0 get 0 amo 1
// expect-stdout: Puts and gets: copies through UCX's mapping of the heap of PEs 0
// Every PE on the UCX route, over UCX's shared memory: UCX maps each peer's heap and global data
// into this process, so puts and gets there are copies through that mapping, made without a
// network operation (the same copies UCX's put and get would make), while the atomic still goes
// through the network (one atomic path per job). Each PE writes its right neighbour's heap and
// global data with every form of put and reads them back with every form of get; the values
// must be right, SHMEM_COUNTS must show no network put or get, and SHMEM_INFO must say why.
#include <shmem.h>
#include <stdio.h>

#define N 16

static long global[N];

static int check(const char *what, const long *got, long expected_base, int n)
{
    int errors = 0;
    for (int i = 0; i < n; i++)
        if (got[i] != expected_base + i) {
            printf("PE %d: %s[%d] = %ld, expected %ld\n", shmem_my_pe(), what, i, got[i],
                   expected_base + i);
            errors++;
        }
    return errors;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    long *heap = shmem_calloc(N, sizeof(long));
    long *counter = shmem_calloc(1, sizeof(long));
    long src[N], back[N];
    for (int i = 0; i < N; i++)
        src[i] = 1000L * me + i;

    // Heap: a blocking put of the first half, an nbi put of the second.
    shmem_long_put(heap, src, N / 2, right);
    shmem_long_put_nbi(heap + N / 2, src + N / 2, N / 2, right);
    // Global data: single elements, then a strided put of the odd elements over what was there.
    for (int i = 0; i < N; i += 2)
        shmem_long_p(&global[i], src[i], right);
    shmem_long_iput(&global[1], &src[1], 2, 2, N / 2, right);
    shmem_long_atomic_add(counter, 1, right);
    shmem_barrier_all();

    int errors = check("heap", heap, 1000L * left, N);
    errors += check("global", global, 1000L * left, N);
    if (*counter != 1) {
        printf("PE %d: counter = %ld, expected 1\n", me, *counter);
        errors++;
    }

    // Read the neighbour's copies back: a blocking get, an nbi get, g and a strided get.
    for (int i = 0; i < N; i++)
        back[i] = -1;
    shmem_long_get(back, heap, N / 2, right);
    shmem_long_get_nbi(back + N / 2, heap + N / 2, N / 2, right);
    shmem_quiet();
    errors += check("heap read back", back, 1000L * me, N);
    for (int i = 0; i < N; i += 2)
        back[i] = shmem_long_g(&global[i], right);
    shmem_long_iget(&back[1], &global[1], 2, 2, N / 2, right);
    errors += check("global read back", back, 1000L * me, N);

    shmem_barrier_all();
    shmem_free(counter);
    shmem_free(heap);
    shmem_finalize();
    return errors != 0;
}
