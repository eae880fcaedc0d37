// pes: 1 2 3 4 8
// timeout: 60
// expect-stderr: called in a child process after fork()
// fork() after shmem_init: the child gets private copies of the PE's global data and heap (their
// contents at the fork). A child that writes a static variable and a heap block and exits
// normally (exit, so the library's exit handler runs in it) changes nothing the PE or its peers
// see, and the PE's job goes on; a child that calls shmem_my_pe gets the clear error and exits
// non-zero alone.
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static long counter = 7;
static long shared_flag[4];

static int child_status(pid_t pid)
{
    int status;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long errors = 0;
    long *block = shmem_malloc(4 * sizeof(long));
    block[0] = 100 + me;
    shmem_barrier_all();

    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        /* The child sees the memory as it was at the fork... */
        int ok = counter == 7 && block[0] == 100 + me;
        /* ...and its writes stay its own. */
        counter = 42;
        block[0] = -1;
        shared_flag[0] = -1;
        exit(ok ? 0 : 3);
    }
    int status = child_status(pid);
    if (status != 0) {
        fprintf(stderr, "[PE %d] fork_child: the writing child ended with %d\n", me, status);
        errors++;
    }
    if (counter != 7 || block[0] != 100 + me || shared_flag[0] != 0) {
        fprintf(stderr, "[PE %d] fork_child: the child's writes reached the PE (counter %ld, block %ld, flag %ld)\n",
                me, counter, block[0], shared_flag[0]);
        errors++;
    }

    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid == 0) {
        int who = shmem_my_pe(); /* must not return */
        fprintf(stderr, "[PE %d] fork_child: shmem_my_pe returned %d in a child\n", me, who);
        _exit(0);
    }
    status = child_status(pid);
    if (status != 1) {
        fprintf(stderr, "[PE %d] fork_child: the child calling shmem_my_pe ended with %d, want 1\n", me, status);
        errors++;
    }

    /* The job still works: a ring of puts into the static array and the heap block. */
    shmem_long_p(&shared_flag[1], me, (me + 1) % npes);
    shmem_long_p(&block[1], me, (me + 1) % npes);
    shmem_barrier_all();
    long left = (me + npes - 1) % npes;
    if (shared_flag[1] != left || block[1] != left) {
        fprintf(stderr, "[PE %d] fork_child: after the forks the ring gave %ld and %ld, want %ld\n", me,
                shared_flag[1], block[1], left);
        errors++;
    }
    shmem_free(block);
    if (errors == 0 && me == 0)
        printf("fork_child: %d PEs passed\n", npes);
    shmem_finalize();
    return errors != 0;
}
