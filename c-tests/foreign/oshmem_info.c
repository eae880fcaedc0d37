// Built with Open MPI OSHMEM 4.1's oshcc, run with rshmem preloaded: shmem_info_get_version and
// shmem_info_get_name report its header's 1.4 and "http://www.open-mpi.org/" (rshmem's own would
// be 1.6 and "rshmem"; the program: info_check.h).
// build: oshmem
// pes: 2
// timeout: 60
#include "info_check.h"
