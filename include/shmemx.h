/*
 * shmemx.h: rshmem's extensions to the OpenSHMEM API (hand-written).
 *
 * Programs written for implementations that put 1.6 features here (shmemx_*) can include this
 * header; the 1.6 names themselves are declared by shmem.h. rshmem's own additions are named
 * rshmemx_*.
 */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Prints what the oshinfo command prints (version, build, UCX, launchers, limits, every SHMEM_*
 * variable with its default and current value) to standard output, as `key:value` lines when
 * parsable is non-zero. Needs no shmem_init. Returns 0, or -1 when standard output fails. */
int rshmemx_info_print(int parsable);

#ifdef __cplusplus
}
#endif

#endif /* SHMEMX_H */
