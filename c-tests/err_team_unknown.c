// pes: 1 2
// expect-fail: is not a team this library created
// A team handle that is neither SHMEM_TEAM_INVALID nor a team of this library (here the address of
// a program variable) is an error naming the call and the value, not a silent -1 from the query.
#include <shmem.h>
#include <stdio.h>

static int not_a_team;

int main(void) {
    shmem_init();
    shmem_team_t bogus = (shmem_team_t)(void *)&not_a_team;
    if (shmem_team_my_pe(SHMEM_TEAM_INVALID) != -1) {
        fprintf(stderr, "shmem_team_my_pe(SHMEM_TEAM_INVALID) is not -1\n");
        return 2;
    }
    int me = shmem_team_my_pe(bogus);
    fprintf(stderr, "shmem_team_my_pe on an unknown handle returned %d\n", me);
    shmem_finalize();
    return 0;
}
