// pes: 1 2 3 4 8
// timeout: 120
// Every point-to-point routine family (wait_until, test, the deprecated waits, the array and
// vector forms, the signal wait) against a reference computed from the header's own SHMEM_CMP_*
// values, with rshmem's header; the same body runs under the OSHMEM and SOS personalities
// (foreign/oshmem_p2p_every.c, foreign/sos_p2p_every.c).
#include <shmem.h>

#define P2P_EVERY_NAME "p2p_every"
#include "foreign/p2p_every.h"

int main(void) { return p2p_every(); }
