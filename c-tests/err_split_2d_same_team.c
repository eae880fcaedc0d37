// pes: 1 2 4
// timeout: 30
// expect-fail: xaxis_team and yaxis_team are the same variable
// expect-stderr: shmem_team_split_2d
// shmem_team_split_2d gives each PE two teams, one per axis: a program that passes one variable for
// both would keep only one of them, so the call stops the job instead of returning 0.
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    shmem_team_t team = SHMEM_TEAM_INVALID;
    int rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &team, NULL, 0, &team);
    fprintf(stderr, "[PE %d] err_split_2d_same_team: shmem_team_split_2d returned %d\n", shmem_my_pe(),
            rc);
    shmem_finalize();
    return 0;
}
