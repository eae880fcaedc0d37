/*
 * Hand-written part of shmem.h (crates/apigen/c/shmem-macros.h): what cbindgen cannot express.
 * Values and reasons are in docs/ABI.md.
 */

/* A handle points to an object owned by the library; its layout is private. */
typedef struct rshmem_ctx rshmem_ctx;
typedef struct rshmem_team rshmem_team;

/* The invalid handles are NULL. */
#define SHMEM_CTX_INVALID ((shmem_ctx_t) NULL)
#define SHMEM_TEAM_INVALID ((shmem_team_t) NULL)

/*
 * Feature macros for shmem4py (https://github.com/mpi4py/shmem4py), whose C layer compiles static
 * stand-ins for every feature group not marked present by a PySHMEM_HAVE_ macro; those stand-ins
 * collide with the real declarations above. rshmem implements every group, so it marks them all.
 * They describe this header only; rshmem claims to be no other implementation (see docs/ABI.md).
 */
#define PySHMEM_HAVE_shmem_malloc_with_hints 1
#define PySHMEM_HAVE_shmem_team_t 1
#define PySHMEM_HAVE_SHMEM_CTX_INVALID 1
#define PySHMEM_HAVE_shmem_amo_nbi 1
#define PySHMEM_HAVE_shmem_put_signal 1
#define PySHMEM_HAVE_shmem_signal_fetch 1
#define PySHMEM_HAVE_shmem_signal_wait_until 1
#define PySHMEM_HAVE_shmem_broadcast 1
#define PySHMEM_HAVE_shmem_collect 1
#define PySHMEM_HAVE_shmem_fcollect 1
#define PySHMEM_HAVE_shmem_alltoall 1
#define PySHMEM_HAVE_shmem_alltoalls 1
#define PySHMEM_HAVE_shmem_broadcastmem 1
#define PySHMEM_HAVE_shmem_collectmem 1
#define PySHMEM_HAVE_shmem_fcollectmem 1
#define PySHMEM_HAVE_shmem_alltoallmem 1
#define PySHMEM_HAVE_shmem_alltoallsmem 1
#define PySHMEM_HAVE_shmem_reduce 1
#define PySHMEM_HAVE_shmem_wait_test_many 1
#define PySHMEM_HAVE_shmem_pcontrol 1

/*
 * The ABI marker. Every object compiled with this header refers to rshmem_abi_v1, a data symbol of
 * the library, so that at shmem_init the library can tell which loaded objects were compiled with
 * rshmem's values and which with another implementation's, whatever name they were linked by
 * (docs/ABI.md, "How the personality is decided"). The reference costs one pointer in each object.
 * A header that stands in for another implementation's (the preload tests) defines
 * RSHMEM_NO_ABI_MARKER before including this one.
 */
#ifdef __cplusplus
extern "C" const int rshmem_abi_v1;
#else
extern const int rshmem_abi_v1;
#endif
#if !defined(RSHMEM_NO_ABI_MARKER) && defined(__GNUC__)
static const int *const rshmem_abi_marker __attribute__((used)) = &rshmem_abi_v1;
#endif
