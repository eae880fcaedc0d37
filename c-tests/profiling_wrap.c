// pes: 1 2 3 4
// timeout: 30
// cflags: -rdynamic
// The program is its own profiling tool: it defines shmem_long_p, shmem_long_get,
// shmem_int_atomic_fetch_add and shmem_barrier_all, which count the call and call the pshmem_
// twin. The program's definitions interpose the library's (dlsym finds them first), so a twin
// that reached its routine through the interposable name would call back into the tool and
// never return; each twin must reach the library's own routine. The values and the counts are
// checked, and the twins called directly work too.
#include <dlfcn.h>
#include <pshmem.h>
#include <shmem.h>
#include <stdio.h>
#include <string.h>

static int me, npes;
static long errors;
#include "check.h"

static long calls_p, calls_get, calls_fadd, calls_barrier;
static long word, got;
static int counter;

void shmem_long_p(long *dest, long value, int pe) {
    calls_p++;
    pshmem_long_p(dest, value, pe);
}

void shmem_long_get(long *dest, const long *source, size_t nelems, int pe) {
    calls_get++;
    pshmem_long_get(dest, source, nelems, pe);
}

int shmem_int_atomic_fetch_add(int *dest, int value, int pe) {
    calls_fadd++;
    return pshmem_int_atomic_fetch_add(dest, value, pe);
}

void shmem_barrier_all(void) {
    calls_barrier++;
    pshmem_barrier_all();
}

/* The address the dynamic linker gives `name`, as a function pointer. */
static void (*lookup(const char *name))(void) {
    void *sym = dlsym(RTLD_DEFAULT, name);
    void (*f)(void) = NULL;
    memcpy(&f, &sym, sizeof f);
    return f;
}

int main(void) {
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    void (*mine)(void) = (void (*)(void))shmem_long_p;
    CHECK(lookup("shmem_long_p") == mine,
          "dlsym(shmem_long_p) is not the program's definition: the test would not interpose");
    CHECK(lookup("pshmem_long_p") != NULL && lookup("pshmem_long_p") != mine,
          "dlsym(pshmem_long_p) is missing or the program's shmem_long_p");

    enum { ROUNDS = 5 };
    for (int r = 0; r < ROUNDS; r++) {
        shmem_long_p(&word, 100L * r + me, right);
        shmem_barrier_all();
        CHECK(word == 100L * r + left, "round %d: word %ld, expected %ld", r, word, 100L * r + left);
        shmem_long_get(&got, &word, 1, right);
        CHECK(got == 100L * r + me, "round %d: got %ld from PE %d, expected %ld", r, got, right,
              100L * r + me);
        int old = shmem_int_atomic_fetch_add(&counter, 1, 0);
        CHECK(old >= 0 && old < npes * (r + 1), "round %d: fetch_add returned %d", r, old);
        shmem_barrier_all();
    }
    if (me == 0)
        CHECK(counter == npes * ROUNDS, "counter %d, expected %d", counter, npes * ROUNDS);
    CHECK(calls_p == ROUNDS && calls_get == ROUNDS && calls_fadd == ROUNDS &&
              calls_barrier == 2 * ROUNDS,
          "tool counts p %ld get %ld fetch_add %ld barrier %ld, expected %d %d %d %d", calls_p,
          calls_get, calls_fadd, calls_barrier, ROUNDS, ROUNDS, ROUNDS, 2 * ROUNDS);

    /* A twin called directly is the routine. */
    pshmem_long_p(&word, -1L - me, right);
    pshmem_barrier_all();
    CHECK(word == -1L - left, "direct twin: word %ld, expected %ld", word, -1L - left);
    CHECK(calls_p == ROUNDS && calls_barrier == 2 * ROUNDS, "direct twins went through the tool");

    shmem_finalize();
    return errors != 0;
}
