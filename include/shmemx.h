/*
 * shmemx.h: rshmem's extensions to the OpenSHMEM API (hand-written).
 *
 * rshmem has no extensions yet. Programs written for implementations that put 1.6 features here
 * (shmemx_*) can include this header; the 1.6 names themselves are declared by shmem.h.
 */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>

#endif /* SHMEMX_H */
