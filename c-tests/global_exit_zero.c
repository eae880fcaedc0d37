// pes: 1 2 4 8
// timeout: 30
// shmem_global_exit(0) ends the job with status 0: the spec makes the job's exit status one of
// the values passed. PE 0 calls it while the other PEs wait in a barrier that can never complete;
// oshrun must exit 0 (a PE that got past the barrier returns 3). Before that, PE 0 runs this
// program again as a singleton (no launcher in its environment) and checks that the singleton's
// shmem_global_exit(0) also gives exit status 0 (and that shmem_global_exit(5) gives 5).
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Runs this program as a singleton with argument `code`; returns its wait status. */
static int run_singleton(const char *code)
{
    static char *env[4096];
    int n = 0;
    for (char **e = environ; *e && n < 4095; e++) {
        if (strncmp(*e, "PMI_", 4) != 0 && strncmp(*e, "PMIX_", 5) != 0)
            env[n++] = *e;
    }
    env[n] = NULL;
    char self[] = "/proc/self/exe";
    char arg0[] = "global_exit_zero";
    char arg1[16];
    snprintf(arg1, sizeof arg1, "%s", code);
    char *argv[] = {arg0, arg1, NULL};
    pid_t pid = fork();
    if (pid < 0) {
        perror("global_exit_zero: fork");
        return -1;
    }
    if (pid == 0) {
        execve(self, argv, env);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    return status;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        /* The singleton: one PE, no launcher. */
        shmem_init();
        if (shmem_n_pes() != 1)
            return 4;
        shmem_global_exit(atoi(argv[1]));
        return 3;
    }

    shmem_init();
    int me = shmem_my_pe();
    if (me == 0) {
        const char *codes[] = {"0", "5"};
        const int want[] = {0, 5};
        for (int i = 0; i < 2; i++) {
            int status = run_singleton(codes[i]);
            if (!WIFEXITED(status) || WEXITSTATUS(status) != want[i]) {
                fprintf(stderr,
                        "[PE 0] global_exit_zero: a singleton's shmem_global_exit(%s) ended with wait status 0x%x, "
                        "expected exit status %d\n",
                        codes[i], status, want[i]);
                shmem_global_exit(1);
            }
        }
        shmem_global_exit(0);
    }
    shmem_barrier_all();
    fprintf(stderr, "[PE %d] global_exit_zero: got past a barrier that PE 0 never entered\n", me);
    shmem_finalize();
    return 3;
}
