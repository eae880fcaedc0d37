/*
 * mpp/shmem.h: the deprecated location of the OpenSHMEM header (SGI SHMEM; hand-written).
 * New programs include <shmem.h>.
 */
#ifndef MPP_SHMEM_H
#define MPP_SHMEM_H

#include <shmem.h>

#endif /* MPP_SHMEM_H */
