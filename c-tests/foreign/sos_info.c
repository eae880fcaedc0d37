// Built with Sandia OpenSHMEM 1.5's constant values (sos/sos_abi.h) and linked against a stand-in
// libsma.so, run with rshmem preloaded: shmem_info_get_version and shmem_info_get_name report SOS
// 1.5.3's 1.5 and "Sandia OpenSHMEM" (rshmem's own would be 1.6 and "rshmem"; the program:
// info_check.h).
// build: sos
// pes: 2
// timeout: 60
#include "info_check.h"
