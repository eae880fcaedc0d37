// Compiled with rshmem's own shmem.h and linked as -lsma, where libsma.so is a symlink to rshmem
// (a build script that hard-codes SOS's library name): the program carries rshmem's values, and
// the library must read them as such although it was loaded under SOS's name. Taken for SOS,
// rshmem's SHMEM_CMP_EQ (0) is no SOS comparison and SHMEM_CMP_NE (1) is SOS's EQ.
// build: lsma
// pes: 2 4
// timeout: 90
#include <shmem.h>

#define P2P_EVERY_NAME "lsma_p2p_every"
#include "p2p_every.h"

int main(void) { return p2p_every(); }
