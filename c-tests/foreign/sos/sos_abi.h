/* What a program compiled with Sandia OpenSHMEM 1.5's headers carries, for the preload tests:
 * included (with -include) after rshmem's shmem.h, it replaces rshmem's constant values by SOS
 * 1.5.3's published ones (mpp/shmem-def.h.in, mpp/shmemx-def.h) and declares the SOS names that
 * are not spec names. Written for these tests from the values only; it is not SOS's header. */
#ifndef RSHMEM_TEST_SOS_ABI_H
#define RSHMEM_TEST_SOS_ABI_H

/* SOS's header plants no rshmem ABI marker: the object must be known by what it links. */
#define RSHMEM_NO_ABI_MARKER 1
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>

#undef SHMEM_CMP_EQ
#undef SHMEM_CMP_NE
#undef SHMEM_CMP_GT
#undef SHMEM_CMP_GE
#undef SHMEM_CMP_LT
#undef SHMEM_CMP_LE
#define SHMEM_CMP_EQ 1
#define SHMEM_CMP_NE 2
#define SHMEM_CMP_GT 3
#define SHMEM_CMP_GE 4
#define SHMEM_CMP_LT 5
#define SHMEM_CMP_LE 6

#undef SHMEM_CTX_PRIVATE
#undef SHMEM_CTX_SERIALIZED
#undef SHMEM_CTX_NOSTORE
#define SHMEM_CTX_PRIVATE (1l << 0)
#define SHMEM_CTX_SERIALIZED (1l << 1)
#define SHMEM_CTX_NOSTORE (1l << 2)

/* Same values as rshmem's, restated so that a change on either side shows here. */
#undef SHMEM_SIGNAL_SET
#undef SHMEM_SIGNAL_ADD
#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1
#undef SHMEM_TEAM_NUM_CONTEXTS
#define SHMEM_TEAM_NUM_CONTEXTS (1l << 0)
#undef SHMEM_MALLOC_ATOMICS_REMOTE
#undef SHMEM_MALLOC_SIGNAL_REMOTE
#define SHMEM_MALLOC_ATOMICS_REMOTE (1l << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1l << 1)
#undef SHMEM_MINOR_VERSION
#undef SHMEM_VENDOR_STRING
#define SHMEM_MINOR_VERSION 5
#define SHMEM_VENDOR_STRING "Sandia OpenSHMEM"
#undef SHMEM_REDUCE_SYNC_SIZE
#undef SHMEM_BCAST_SYNC_SIZE
#undef SHMEM_SYNC_VALUE
#define SHMEM_REDUCE_SYNC_SIZE 35
#define SHMEM_BCAST_SYNC_SIZE 1
#define SHMEM_SYNC_VALUE 0

/* The data symbols of libsma that rshmem's headers do not declare. */
/* SOS's extension values (mpp/shmemx.h): a context option and an allocation hint. */
#define SHMEMX_CTX_BOUNCE_BUFFER (1l << 31)
#define SHMEMX_MALLOC_NO_BARRIER (1l << 2)
extern const shmem_team_t SHMEMX_TEAM_NODE;

/* SOS names that are not spec names (their C11 generics select some of them). */
int32_t shmem_int32_fadd(int32_t *target, int32_t value, int pe);
uint64_t shmem_uint64_cswap(uint64_t *target, uint64_t cond, uint64_t value, int pe);
unsigned int shmem_uint_finc(unsigned int *target, int pe);
void shmem_ulong_add(unsigned long *target, unsigned long value, int pe);
void shmem_size_inc(size_t *target, int pe);
int64_t shmem_int64_swap(int64_t *target, int64_t value, int pe);
uint32_t shmem_uint32_fetch(const uint32_t *target, int pe);
void shmem_ptrdiff_set(ptrdiff_t *target, ptrdiff_t value, int pe);
int shmem_int_and_reduce(shmem_team_t team, int *dest, const int *source, size_t nreduce);
int shmem_long_or_reduce(shmem_team_t team, long *dest, const long *source, size_t nreduce);
int shmem_short_xor_reduce(shmem_team_t team, short *dest, const short *source, size_t nreduce);
/* The short and unsigned short array waits and tests are declared by rshmem's shmem.h, whose C11
 * generics select them (with a const cmp_values, which a program passing SOS's non-const array
 * calls the same way). */
void shmemx_signal_add(uint64_t *sig_addr, uint64_t signal, int pe);
void shmemx_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe);

#endif
