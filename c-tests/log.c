// SHMEM_LOG: the start-up phases with their durations, the route decision, and (at debug) team and
// context creation reach stderr, each line prefixed with its PE; the data path logs nothing.
// pes: 1 2 4
// env: SHMEM_LOG=info,team=debug,ctx=debug
// expect-stderr: [PE 0] INFO  init: bootstrap:
// expect-stderr: [PE 0] INFO  init: segments:
// expect-stderr: [PE 0] INFO  init: mapping:
// expect-stderr: [PE 0] INFO  init: first barrier:
// expect-stderr: [PE 0] INFO  route:
// expect-stderr: [PE 0] DEBUG team: team in slot
// expect-stderr: [PE 0] DEBUG ctx: context on team slot
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    int npes = shmem_n_pes();
    shmem_team_t team;
    int status = 0;
    if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &team) != 0) {
        fprintf(stderr, "PE %d: shmem_team_split_strided failed\n", shmem_my_pe());
        status = 1;
    }
    shmem_ctx_t ctx;
    if (shmem_ctx_create(0, &ctx) != 0) {
        fprintf(stderr, "PE %d: shmem_ctx_create failed\n", shmem_my_pe());
        status = 1;
    } else {
        shmem_ctx_destroy(ctx);
    }
    if (status == 0)
        shmem_team_destroy(team);
    shmem_finalize();
    return status;
}
