/*
 * Compiled by tests/header.rs as C99, C11 and C++17 with -Wall -Wextra -Werror -pedantic: every
 * header must compile cleanly, and (C11) the type-generic routines must select the right function.
 */
#include <shmem.h>
#include <pshmem.h>
#include <shmemx.h>
#include <mpp/shmem.h>
#include <shmem.h> /* twice: include guards */

#include <string.h>

#if SHMEM_MAJOR_VERSION != 1 || SHMEM_MINOR_VERSION != 6 || _SHMEM_MAJOR_VERSION != 1
#error "version macros"
#endif
#if !(SHMEM_THREAD_SINGLE < SHMEM_THREAD_FUNNELED && SHMEM_THREAD_FUNNELED < SHMEM_THREAD_SERIALIZED \
      && SHMEM_THREAD_SERIALIZED < SHMEM_THREAD_MULTIPLE)
#error "thread levels must be ordered"
#endif
#if SHMEM_SYNC_VALUE != 0L || SHMEM_SYNC_SIZE < SHMEM_REDUCE_SYNC_SIZE
#error "pSync constants"
#endif

void header_check(void);
void header_check(void)
{
    static long psync[SHMEM_SYNC_SIZE];
    static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
    char name[SHMEM_MAX_NAME_LEN];
    shmem_team_config_t team_config = {0};
    shmem_ctx_session_config_t session_config = {0};
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    shmem_team_t team = SHMEM_TEAM_INVALID;
    long x[4] = {0};
    long double ld[2] = {0};
    int i = 0;
    const int *ci = &i;
    size_t vendor_len = strlen(SHMEM_VENDOR_STRING);
    long hints = SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE;
    long options = SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE;
    int cmps[] = {SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT, SHMEM_CMP_LE, SHMEM_CMP_LT, SHMEM_CMP_GE};
    int signals[] = {SHMEM_SIGNAL_SET, SHMEM_SIGNAL_ADD};

    (void)psync; (void)pwrk; (void)name; (void)team_config; (void)session_config; (void)team;
    (void)vendor_len; (void)hints; (void)options; (void)cmps; (void)signals; (void)ci;
    if (ctx == SHMEM_CTX_INVALID)
        return;

    /* Declarations with the spec's types. */
    shmem_long_put(x, x, 4, 0);
    shmem_ctx_longdouble_p(ctx, ld, 1.0L, 0);
    ld[0] = pshmem_longdouble_g(ld, 0);
    shmem_putmem_nbi(x, x, sizeof x, 0);
    pshmem_quiet();
    shmem_info_get_name(name);

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
    shmem_put(x, x, 4, 0);
    shmem_put(ctx, x, x, 4, 0);
    shmem_p(ld, 1.0L, 0);
    shmem_p(SHMEM_CTX_DEFAULT, x, 1L, 0);
    i = shmem_g(ci, 0);
    i = shmem_g(&i, 0);
    i = shmem_g(ctx, ci, 0);
    shmem_iput(x, x, 1, 1, 4, 0);
    shmem_iget(ctx, x, x, 1, 1, 4, 0);
    shmem_ibput(x, x, 1, 1, 1, 4, 0);
    shmem_ibget(ctx, x, x, 1, 1, 1, 4, 0);
    shmem_get(x, x, 4, 0);
    shmem_put_nbi(ctx, x, x, 4, 0);
    shmem_get_nbi(x, x, 4, 0);
    _Static_assert(_Generic(shmem_g(ld, 0), long double: 1, default: 0), "shmem_g(long double *)");
    _Static_assert(_Generic(shmem_g(ctx, (const short *)0, 0), short: 1, default: 0), "shmem_g(ctx, const short *)");
    _Static_assert(_Generic(shmem_g((unsigned char *)0, 0), unsigned char: 1, default: 0), "shmem_g(unsigned char *)");
    _Static_assert(_Generic(shmem_g((signed char *)0, 0), signed char: 1, default: 0), "shmem_g(signed char *)");
    _Static_assert(_Generic(shmem_g((char *)0, 0), char: 1, default: 0), "shmem_g(char *)");
    _Static_assert(_Generic(shmem_g((int64_t *)0, 0), int64_t: 1, default: 0), "shmem_g(int64_t *)");
#endif
}
