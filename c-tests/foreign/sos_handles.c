// Built with Sandia OpenSHMEM 1.5's constant values and a stand-in libsma.so, run with rshmem
// preloaded. SHMEMX_TEAM_NODE names the PEs of this node; the values libsma's own copies of
// SHMEM_CTX_DEFAULT, SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED and SHMEMX_TEAM_NODE hold are accepted as
// those handles; contexts take every combination of SOS's option bits on the world and on a team;
// thread levels, the team configuration mask and the allocation hints keep their meaning.
// build: sos
// pes: 2 4
// timeout: 60
#include <dlfcn.h>
#include <shmem.h>
#include <stdio.h>
#include "../check.h"

static long slot[16];

static void *own(void *lib, const char *name) {
    void **addr = dlsym(lib, name);
    return addr ? *addr : NULL;
}

int main(void) {
    int provided = -1, me = -1;
    REQUIRE(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0);
    me = shmem_my_pe();
    int n = shmem_n_pes();
    REQUIRE(provided == SHMEM_THREAD_MULTIPLE);
    shmem_query_thread(&provided);
    REQUIRE(provided == SHMEM_THREAD_MULTIPLE);

    REQUIRE(shmem_team_n_pes(SHMEMX_TEAM_NODE) == n);
    REQUIRE(shmem_team_my_pe(SHMEMX_TEAM_NODE) == me);

    void *lib = dlopen("libsma.so", RTLD_NOLOAD | RTLD_LAZY);
    REQUIRE(lib != NULL);
    shmem_team_t world = (shmem_team_t)own(lib, "SHMEM_TEAM_WORLD");
    shmem_team_t shared = (shmem_team_t)own(lib, "SHMEM_TEAM_SHARED");
    shmem_team_t node = (shmem_team_t)own(lib, "SHMEMX_TEAM_NODE");
    shmem_ctx_t dflt = (shmem_ctx_t)own(lib, "SHMEM_CTX_DEFAULT");
    REQUIRE(world && shared && node && dflt && world != SHMEM_TEAM_WORLD && dflt != SHMEM_CTX_DEFAULT);
    REQUIRE(shmem_team_n_pes(world) == n && shmem_team_my_pe(world) == me);
    REQUIRE(shmem_team_n_pes(shared) == shmem_team_n_pes(SHMEM_TEAM_SHARED));
    REQUIRE(shmem_team_n_pes(node) == n);
    REQUIRE(shmem_team_translate_pe(world, me, SHMEM_TEAM_WORLD) == me);
    shmem_ctx_long_p(dflt, &slot[0], 100 + me, (me + 1) % n);
    shmem_ctx_quiet(dflt);
    shmem_barrier_all();
    REQUIRE(slot[0] == 100 + (me + n - 1) % n);

    shmem_team_config_t config = {.num_contexts = -1};
    REQUIRE(shmem_team_get_config(SHMEMX_TEAM_NODE, SHMEM_TEAM_NUM_CONTEXTS, &config) == 0);
    REQUIRE(config.num_contexts >= 0);

    const long options[] = {0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, SHMEM_CTX_NOSTORE,
                            SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED,
                            SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE,
                            SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE,
                            SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE};
    for (int i = 0; i < 8; i++) {
        shmem_ctx_t ctx, tctx;
        REQUIRE(shmem_ctx_create(options[i], &ctx) == 0);
        REQUIRE(shmem_team_create_ctx(SHMEMX_TEAM_NODE, options[i], &tctx) == 0);
        long mine = 200 + me;
        shmem_ctx_long_put(ctx, &slot[1 + i], &mine, 1, (me + 1) % n);
        shmem_ctx_long_atomic_add(tctx, &slot[9], 1, 0);
        shmem_ctx_quiet(ctx);
        shmem_ctx_quiet(tctx);
        shmem_ctx_destroy(ctx);
        shmem_ctx_destroy(tctx);
    }
    shmem_barrier_all();
    for (int i = 0; i < 8; i++) REQUIRE(slot[1 + i] == 200 + (me + n - 1) % n);
    if (me == 0) REQUIRE(slot[9] == 8L * n);

    long *p = shmem_malloc_with_hints(64, SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE);
    REQUIRE(p != NULL);
    shmem_free(p);
    shmem_barrier_all();
    if (me == 0) printf("sos_handles: ok on %d PEs\n", n);
    shmem_finalize();
    return 0;
}
