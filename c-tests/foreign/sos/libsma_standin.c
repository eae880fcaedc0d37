/* A stand-in for Sandia OpenSHMEM's libsma.so in the preload tests: only the data symbols SOS 1.5
 * exports as predefined handles, each holding the address of an object of its own, as SOS
 * initializes them statically. Its presence among the loaded objects is what selects the SOS
 * personality; every routine resolves to the preloaded rshmem. */
struct standin_object {
    int dummy;
};

static struct standin_object ctx_default, team_world, team_shared, team_node;

void *SHMEM_CTX_DEFAULT = &ctx_default;
void *SHMEM_TEAM_WORLD = &team_world;
void *SHMEM_TEAM_SHARED = &team_shared;
void *SHMEMX_TEAM_NODE = &team_node;
