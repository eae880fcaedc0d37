// Every point-to-point routine family that Open MPI OSHMEM 4.1's header has (wait_until, test and
// the deprecated waits for every type), built with its oshcc and run with rshmem preloaded: the
// body of p2p_every.h.
// build: oshmem
// pes: 2 4
// timeout: 90
#include <shmem.h>

#define P2P_EVERY_NAME "oshmem_p2p_every"
#include "p2p_every.h"

int main(void) { return p2p_every(); }
