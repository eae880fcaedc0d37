// pes: 1 2 3 4 8
// timeout: 120
// cflags: -Wno-deprecated-declarations
// Library setup and queries: shmem_query_initialized before, during and after; three init/finalize
// rounds (shmem_init, shmem_init_thread, deprecated start_pes) with RMA in each; thread levels;
// info version and name against the header's macros; pe_accessible, addr_accessible and shmem_ptr
// on heap, global and stack memory, with writes through shmem_ptr seen after a barrier for every
// PE on this PE's host (by hostname; every PE but itself is off-host with SHMEM_TRANSPORT=ucx or loopback,
// where no other PE's memory is mapped), and shmem_ptr NULL for the others, written with
// shmem_long_p instead; the deprecated _my_pe and _num_pes.
#define _DEFAULT_SOURCE /* gethostname */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PES 1024

static int me = -1, npes, left, right;
static long errors;
static long all_errors[MAX_PES];

static int ring_global;
static long through_ptr[MAX_PES];
static char hostname[256]; /* this PE's host name, read by the others */

#define REPORT(...)                                   \
    do {                                              \
        if (errors++ < 20) {                          \
            fprintf(stderr, "[PE %d] setup: ", me);   \
            fprintf(stderr, __VA_ARGS__);             \
            fputc('\n', stderr);                      \
        }                                             \
    } while (0)

static void after_init(int round)
{
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    if (npes > MAX_PES) {
        REPORT("this test handles at most %d PEs", MAX_PES);
        shmem_global_exit(1);
    }
    int initialized = -1;
    shmem_query_initialized(&initialized);
    if (initialized != 1)
        REPORT("round %d: shmem_query_initialized after init: expected 1, got %d", round, initialized);
}

/* A ring exchange through heap and global memory, different in each round. */
static void ring(int round)
{
    int *heap = shmem_malloc(sizeof(int));
    if (heap == NULL) {
        REPORT("round %d: shmem_malloc(%zu) returned NULL", round, sizeof(int));
        return;
    }
    *heap = -1;
    ring_global = -1;
    shmem_barrier_all();
    int value = me * 10 + round;
    shmem_int_put(heap, &value, 1, right);
    shmem_int_p(&ring_global, value, right);
    shmem_barrier_all();
    int want = left * 10 + round;
    if (*heap != want)
        REPORT("round %d: heap ring: expected %d, got %d", round, want, *heap);
    if (ring_global != want)
        REPORT("round %d: global ring: expected %d, got %d", round, want, ring_global);
    shmem_free(heap);
}

static void check_thread_level(int round, int provided)
{
    if (provided != SHMEM_THREAD_SINGLE && provided != SHMEM_THREAD_FUNNELED &&
        provided != SHMEM_THREAD_SERIALIZED && provided != SHMEM_THREAD_MULTIPLE)
        REPORT("round %d: provided thread level %d is not one of SHMEM_THREAD_*", round, provided);
    int queried = -1;
    shmem_query_thread(&queried);
    if (queried != provided)
        REPORT("round %d: shmem_query_thread: expected %d, got %d", round, provided, queried);
}

static void check_info(void)
{
    int major = -1, minor = -1;
    shmem_info_get_version(&major, &minor);
    if (major != 1 || minor != 6)
        REPORT("shmem_info_get_version: expected 1.6, got %d.%d", major, minor);
    if (major != SHMEM_MAJOR_VERSION || minor != SHMEM_MINOR_VERSION)
        REPORT("shmem_info_get_version: %d.%d, but the header says %d.%d", major, minor, SHMEM_MAJOR_VERSION,
               SHMEM_MINOR_VERSION);
    char name[SHMEM_MAX_NAME_LEN + 1];
    memset(name, 'x', sizeof name);
    shmem_info_get_name(name);
    const char *nul = memchr(name, '\0', SHMEM_MAX_NAME_LEN);
    size_t len = nul == NULL ? SHMEM_MAX_NAME_LEN : (size_t)(nul - name);
    if (len == 0 || len >= SHMEM_MAX_NAME_LEN)
        REPORT("shmem_info_get_name: expected a non-empty string shorter than %d, got length %zu",
               SHMEM_MAX_NAME_LEN, len);
    else if (strcmp(name, SHMEM_VENDOR_STRING) != 0)
        REPORT("shmem_info_get_name: \"%s\", but SHMEM_VENDOR_STRING is \"%s\"", name, SHMEM_VENDOR_STRING);
}

static void check_accessible(void)
{
    for (int pe = 0; pe < npes; pe++)
        if (shmem_pe_accessible(pe) != 1)
            REPORT("shmem_pe_accessible(%d): expected 1, got %d", pe, shmem_pe_accessible(pe));
    if (shmem_pe_accessible(-1) != 0)
        REPORT("shmem_pe_accessible(-1): expected 0, got %d", shmem_pe_accessible(-1));
    if (shmem_pe_accessible(npes) != 0)
        REPORT("shmem_pe_accessible(%d): expected 0, got %d", npes, shmem_pe_accessible(npes));

    long *heap = shmem_malloc(MAX_PES * sizeof(long));
    if (heap == NULL) {
        REPORT("shmem_malloc(%zu) returned NULL", MAX_PES * sizeof(long));
        return;
    }
    long on_stack = 0;
    for (int pe = 0; pe < npes; pe++) {
        if (shmem_addr_accessible(heap, pe) != 1)
            REPORT("shmem_addr_accessible(heap, %d): expected 1", pe);
        if (shmem_addr_accessible(&through_ptr[1], pe) != 1)
            REPORT("shmem_addr_accessible(global, %d): expected 1", pe);
        if (shmem_addr_accessible(&on_stack, pe) != 0)
            REPORT("shmem_addr_accessible(stack, %d): expected 0", pe);
        if (shmem_ptr(&on_stack, pe) != NULL)
            REPORT("shmem_ptr(stack, %d): expected NULL", pe);
    }

    /* shmem_ptr gives a usable address for each PE on this host (only for this PE itself if
     * every PE is forced onto a network: SHMEM_TRANSPORT other than auto): write my number into
     * slot `me` of every PE's arrays through it, and with shmem_long_p into the others'. */
    const char *transport = getenv("SHMEM_TRANSPORT");
    int all_net = transport != NULL && transport[0] != '\0' && strcmp(transport, "auto") != 0;
    if (gethostname(hostname, sizeof hostname - 1) != 0)
        REPORT("gethostname failed");
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++) {
        heap[pe] = -1;
        through_ptr[pe] = -1;
    }
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++) {
        long *h = shmem_ptr(&heap[me], pe);
        long *g = shmem_ptr(&through_ptr[me], pe);
        char theirs[sizeof hostname];
        shmem_getmem(theirs, hostname, sizeof hostname, pe);
        int on_host = pe == me || (!all_net && strcmp(theirs, hostname) == 0);
        if (!on_host) {
            if (h != NULL || g != NULL)
                REPORT("shmem_ptr(%s, %d) is not NULL for a PE on another host", h ? "heap" : "global", pe);
            shmem_long_p(&heap[me], 1000 + me, pe);
            shmem_long_p(&through_ptr[me], 2000 + me, pe);
            continue;
        }
        if (h == NULL || g == NULL) {
            REPORT("shmem_ptr(%s, %d) returned NULL for a PE on this host", h == NULL ? "heap" : "global", pe);
            continue;
        }
        if (pe == me && (h != &heap[me] || g != &through_ptr[me]))
            REPORT("shmem_ptr(x, my own PE) is not x");
        *h = 1000 + me;
        *g = 2000 + me;
    }
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++) {
        if (heap[pe] != 1000 + pe)
            REPORT("heap slot %d written by PE %d through shmem_ptr: expected %d, got %ld", pe, pe, 1000 + pe,
                   heap[pe]);
        if (through_ptr[pe] != 2000 + pe)
            REPORT("global slot %d written by PE %d through shmem_ptr: expected %d, got %ld", pe, pe,
                   2000 + pe, through_ptr[pe]);
    }
    shmem_barrier_all();
    shmem_free(heap);
}

int main(void)
{
    int initialized = -1;
    shmem_query_initialized(&initialized);
    if (initialized != 0) {
        fprintf(stderr, "setup: shmem_query_initialized before shmem_init: expected 0, got %d\n", initialized);
        return 1;
    }

    /* Round 1: shmem_init. */
    shmem_init();
    after_init(1);
    int provided = -1;
    shmem_query_thread(&provided);
    check_thread_level(1, provided);
    check_info();
    check_accessible();
    ring(1);
    shmem_finalize();
    shmem_query_initialized(&initialized);
    if (initialized != 0)
        REPORT("shmem_query_initialized after shmem_finalize: expected 0, got %d", initialized);

    /* Round 2: shmem_init_thread. */
    provided = -1;
    int rc = shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    if (rc != 0) {
        fprintf(stderr, "[PE %d] setup: shmem_init_thread(SHMEM_THREAD_MULTIPLE) returned %d\n", me, rc);
        return 1;
    }
    after_init(2);
    check_thread_level(2, provided);
    ring(2);
    check_accessible();
    shmem_finalize();

    /* Round 3: the deprecated start_pes, _my_pe and _num_pes. */
    start_pes(0);
    after_init(3);
    if (_my_pe() != me || _num_pes() != npes)
        REPORT("_my_pe()/_num_pes() = %d/%d, shmem_my_pe()/shmem_n_pes() = %d/%d", _my_pe(), _num_pes(), me, npes);
    ring(3);

    shmem_long_p(&all_errors[me], errors, 0);
    shmem_barrier_all();
    if (me == 0) {
        long total = 0;
        for (int pe = 0; pe < npes; pe++)
            total += all_errors[pe];
        if (total == 0)
            printf("setup: passed on %d PEs\n", npes);
        else
            fprintf(stderr, "setup: %ld mismatches in all\n", total);
    }
    shmem_finalize();
    return errors != 0;
}
