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
