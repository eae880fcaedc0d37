/*
 * The `long double` arithmetic of the reductions (Rust has no `long double`). Hidden: called by
 * src/ops/reduce.rs inside the library, never exported. Written by hand; built by build.rs.
 */
#include <stddef.h>

enum { SUM = 0, PROD = 1, MAX = 2, MIN = 3 };

/* acc[k] = acc[k] op x[k] for k < n. */
__attribute__((visibility("hidden"))) void rshmem_c_longdouble_combine(int op, long double *acc,
                                                                       const long double *x,
                                                                       size_t n)
{
    size_t k;
    switch (op) {
    case SUM:
        for (k = 0; k < n; k++)
            acc[k] += x[k];
        break;
    case PROD:
        for (k = 0; k < n; k++)
            acc[k] *= x[k];
        break;
    case MAX:
        for (k = 0; k < n; k++)
            acc[k] = x[k] > acc[k] ? x[k] : acc[k];
        break;
    case MIN:
        for (k = 0; k < n; k++)
            acc[k] = x[k] < acc[k] ? x[k] : acc[k];
        break;
    default:
        break;
    }
}
