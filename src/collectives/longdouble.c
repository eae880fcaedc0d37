/*
 * The arithmetic of the reductions on the floating-point types Rust lacks: C `long double`, and
 * IEEE binary128 (gfortran's REAL*16; `__float128` on x86_64, where `long double` is the 80-bit
 * extended format, and `long double` on aarch64, where it is binary128). Hidden: called by
 * src/ops/reduce.rs inside the library, never exported. Written by hand; built by build.rs.
 */
#include <float.h>
#include <stddef.h>

#if defined(__x86_64__)
typedef __float128 float128;
#elif defined(__aarch64__)
_Static_assert(LDBL_MANT_DIG == 113, "long double is IEEE binary128 on aarch64");
typedef long double float128;
#else
#error "binary128 arithmetic: only x86_64 and aarch64 are supported"
#endif
_Static_assert(sizeof(float128) == 16, "binary128 is 16 bytes");

enum { SUM = 0, PROD = 1, MAX = 2, MIN = 3 };

/* acc[k] = acc[k] op x[k] for k < n, on elements of type T. */
#define COMBINE(name, T)                                                                           \
    __attribute__((visibility("hidden"))) void name(int op, T *acc, const T *x, size_t n)          \
    {                                                                                              \
        size_t k;                                                                                  \
        switch (op) {                                                                              \
        case SUM:                                                                                  \
            for (k = 0; k < n; k++)                                                                \
                acc[k] += x[k];                                                                    \
            break;                                                                                 \
        case PROD:                                                                                 \
            for (k = 0; k < n; k++)                                                                \
                acc[k] *= x[k];                                                                    \
            break;                                                                                 \
        case MAX:                                                                                  \
            for (k = 0; k < n; k++)                                                                \
                acc[k] = x[k] > acc[k] ? x[k] : acc[k];                                            \
            break;                                                                                 \
        case MIN:                                                                                  \
            for (k = 0; k < n; k++)                                                                \
                acc[k] = x[k] < acc[k] ? x[k] : acc[k];                                            \
            break;                                                                                 \
        default:                                                                                   \
            break;                                                                                 \
        }                                                                                          \
    }

/* Declared here: the only caller is Rust. */
void rshmem_c_longdouble_combine(int op, long double *acc, const long double *x, size_t n);
void rshmem_c_float128_combine(int op, float128 *acc, const float128 *x, size_t n);

COMBINE(rshmem_c_longdouble_combine, long double)
COMBINE(rshmem_c_float128_combine, float128)
