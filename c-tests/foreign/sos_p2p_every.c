// Every point-to-point routine family with Sandia OpenSHMEM 1.5's values (sos/sos_abi.h; EQ..LE
// are 1..6 in another order than rshmem's), preloaded: the body of p2p_every.h. The deprecated
// waits compare with the library's own "not equal", never with a value read as SOS's.
// build: sos
// pes: 2 4
// timeout: 90
#include <shmem.h>

#define P2P_EVERY_NAME "sos_p2p_every"
#include "p2p_every.h"

int main(void) { return p2p_every(); }
