// pes: 1 2
// timeout: 30
// env: SHMEM_TRANSPORT=ucx
// env: SHMEM_UCX_LIB=/nonexistent/libucp.so.0
// expect-fail: no UCX library could be loaded
// expect-stderr: /nonexistent/libucp.so.0
// expect-stderr: apt-get install libucx0
// expect-stderr: pip install libucx-cu12
// A job that needs the network (here every PE forced onto the UCX route) and finds no UCX stops in
// shmem_init with a message that says so, names what was tried and how to get a UCX.
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    fprintf(stderr, "[PE %d] err_no_ucx: shmem_init went on without UCX\n", shmem_my_pe());
    shmem_finalize();
    return 0;
}
