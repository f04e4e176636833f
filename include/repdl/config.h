/* SPDX-License-Identifier: MIT */
/* repdl/config.h: portability layer shared by every repdl header.

   Holds the host/device decoration, the function-attribute macro, bit casts,
   the arithmetic primitives that are never contracted on the device, and the
   compile-time refusals of builds that cannot be reproducible.  Nothing
   numeric lives here: no function of this file approximates anything.

   Rules every numeric header follows (DEVELOPERS.md says why):
     - functions are REPDL_FN (static inline, and __host__ __device__ under
       nvcc); private helpers are named repdl__*;
     - no libm call, no long double, no __int128, no __CUDA_ARCH__ branch:
       the few places where host and device must differ are the primitives
       below, and only here;
     - on the device every float/double +, -, *, / goes through a primitive
       (repdl__dadd, repdl__fmul, ...) so nvcc's --fmad=true cannot fuse it.
*/
#ifndef REPDL_CONFIG_H
#define REPDL_CONFIG_H

#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- Refusals: builds whose arithmetic is not IEEE binary32/binary64 ---- */

#if defined(__FAST_MATH__)
#error "repdl: refusing to build with -ffast-math (__FAST_MATH__ is defined): it licenses reassociation, flush-to-zero and approximate division, so results would depend on the compiler. Remove -ffast-math (and -Ofast) for files that include repdl."
#endif

/* gcc's value-changing optimisations, each announced by a macro (clang
   defines none of them: the REPDL_BEGIN_CODE pragmas below make clang
   builds immune instead; docs/flags.md has the table of flags). */
#if defined(__ASSOCIATIVE_MATH__)
#error "repdl: refusing to build with -fassociative-math (set by -funsafe-math-optimizations; __ASSOCIATIVE_MATH__ is defined): it lets gcc reorder sums inside repdl's functions, which changes results (canonical order, correctly rounded paths). Remove the flag for files that include repdl."
#endif

#if defined(__RECIPROCAL_MATH__)
#error "repdl: refusing to build with -freciprocal-math (set by -funsafe-math-optimizations; __RECIPROCAL_MATH__ is defined): it replaces x / y by x * (1 / y), two roundings instead of one. Remove the flag for files that include repdl."
#endif

#if defined(__NO_SIGNED_ZEROS__)
#error "repdl: refusing to build with -fno-signed-zeros (set by -funsafe-math-optimizations; __NO_SIGNED_ZEROS__ is defined): repdl's results include -0.0 (the empty sum, relu(-0), ...) and this flag lets gcc fold them to +0. Remove the flag for files that include repdl."
#endif

#if defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__
#error "repdl: refusing to build with -ffinite-math-only: repdl defines results for NaN and infinities, and this flag lets the compiler delete those checks."
#endif

#if !defined(__cplusplus) && (!defined(__STDC_VERSION__) || __STDC_VERSION__ < 199901L)
#error "repdl: refusing to build as C89/C90 (-std=c89, -std=gnu89, -ansi): repdl is C99 (or C++). Compile with -std=c99 or later."
#endif

/* Each message names the platform's own fix: x87 is FLT_EVAL_METHOD 2
   unless SSE is asked for; s390x is FLT_EVAL_METHOD 1 under a strict
   -std=c99/c11 (gcc's -fexcess-precision=standard), 0 under -std=gnu99 or
   -fexcess-precision=fast, where float arithmetic is float. */
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#if defined(__i386__)
#error "repdl: refusing to build with FLT_EVAL_METHOD != 0 (x87 excess precision): intermediate results would be kept in extended precision and rounded differently from every other platform. On i386 build with -msse2 -mfpmath=sse."
#elif defined(__s390__)
#error "repdl: refusing to build with FLT_EVAL_METHOD != 0 (s390x under a strict -std=c99 or -std=c11: float arithmetic is evaluated in double): results would be rounded differently from every other platform. On s390x build with -std=gnu99 or -std=gnu11, or add -fexcess-precision=fast (float arithmetic in float)."
#else
#error "repdl: refusing to build with FLT_EVAL_METHOD != 0 (excess precision, or an unknown evaluation method): intermediate results would be kept in a wider format and rounded differently from every other platform. Find the compiler's option that sets FLT_EVAL_METHOD to 0 (gcc: -fexcess-precision=fast, or a GNU -std; i386: -msse2 -mfpmath=sse)."
#endif
#endif

#if defined(__USE_FAST_MATH__) || (defined(__CUDACC_FTZ__) && __CUDACC_FTZ__)
#error "repdl: refusing to build with nvcc -use_fast_math / -ftz=true: flush-to-zero and approximate division break reproducibility."
#endif
/* nvcc 13 defines no macro for -ftz=true, -prec-div=false or
   -use_fast_math, so the check above never fires there: repdl's device code
   is immune to them instead (every binary32 operation, comparison and
   conversion is inline PTX without .ftz, "Arithmetic primitives" below).
   CI compiles user kernels calling every device-callable public function
   under each of these flags and requires PTX identical to the default one
   (tests/cuda/check_ptx.sh, tests/cuda/user_kernel_api.cu); the runtime
   probe repdl_fpenv_ok() below catches a device that flushes anyway. */

#if defined(__STDC_IEC_559__) && !__STDC_IEC_559__
#error "repdl: the compiler says its float arithmetic is not IEC 60559."
#endif

/* -fsingle-precision-constant (gcc) gives every unsuffixed floating
   constant the type float, so repdl's double constants would be rounded
   to float (erf wrong on 31% of inputs).  It defines no macro of its own,
   but the type of a constant shows it: sizeof(1.0) is sizeof(float). */
#if defined(__cplusplus) && __cplusplus >= 201103L
static_assert(sizeof(1.0) == sizeof(double), "repdl: refusing to build with -fsingle-precision-constant (floating constants are float, sizeof(1.0) != sizeof(double)): repdl's double constants would be rounded to float. Remove the flag for files that include repdl.");
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
_Static_assert(sizeof(1.0) == sizeof(double), "repdl: refusing to build with -fsingle-precision-constant (floating constants are float, sizeof(1.0) != sizeof(double)): repdl's double constants would be rounded to float. Remove the flag for files that include repdl.");
#elif defined(__GNUC__) && !defined(__cplusplus)
/* C99: the keyword as a GNU extension; glibc's <sys/cdefs.h> defines a
   _Static_assert macro for strict C99 that drops the message, set aside
   here. */
#pragma push_macro("_Static_assert")
#undef _Static_assert
__extension__ _Static_assert(sizeof(1.0) == sizeof(double), "repdl: refusing to build with -fsingle-precision-constant (floating constants are float, sizeof(1.0) != sizeof(double)): repdl's double constants would be rounded to float. Remove the flag for files that include repdl.");
#pragma pop_macro("_Static_assert")
#else
typedef char repdl__refusing_fsingle_precision_constant[sizeof(1.0) == sizeof(double) ? 1 : -1];
#endif

/* gcc's own verdict on the whole set of options: __GCC_IEC_559 is 0 when
   one of them breaks IEEE semantics (most are refused above by their own
   macro; -fsingle-precision-constant sets it too).  Not in strict ISO C
   (-std=c99, c11: __STRICT_ANSI__), where gcc also sets it to 0 for
   -ffp-contract=fast, under which every repdl result is proven (the
   golden matrix builds -std=c99 -ffp-contract=fast); a flag that sets it
   there is caught by its own check.  clang does not define it (its
   options stop at REPDL_BEGIN_CODE or are refused above). */
#if defined(__GCC_IEC_559) && __GCC_IEC_559 == 0 && !defined(__clang__) && \
    (defined(__cplusplus) || !defined(__STRICT_ANSI__))
#error "repdl: refusing to build with __GCC_IEC_559 == 0: gcc says the options of this build break IEEE float arithmetic. The likely flag is -fsingle-precision-constant (it makes floating constants float); -ffast-math, -Ofast, -funsafe-math-optimizations, -fno-signed-zeros and -ffinite-math-only also set it (an error above names them). Remove the flag for files that include repdl."
#endif

#if FLT_MANT_DIG != 24 || DBL_MANT_DIG != 53 || FLT_RADIX != 2
#error "repdl: float must be IEEE binary32 and double IEEE binary64."
#endif

/* ---- Immunity: the caller's value-changing flags stop at repdl's code ----
   Every repdl header brackets its code with REPDL_BEGIN_CODE ...
   REPDL_END_CODE.  Under clang this is `#pragma float_control(precise, on,
   push)` ... `pop`: inside the bracket clang keeps IEEE semantics
   (no reassociation, reciprocals or signed-zero folding, contraction at
   most within one expression, which repdl is proven under) whatever
   -funsafe-math-optimizations, -fassociative-math, -freciprocal-math or
   -fno-signed-zeros say, and the caller's own code keeps its flags.
   gcc has no such pragma that holds (`#pragma GCC optimize` does not
   reliably reset these), so gcc builds with them are refused above.
   docs/flags.md lists every flag tried and its outcome. */
#if defined(__clang__)
#define REPDL_BEGIN_CODE _Pragma("float_control(precise, on, push)")
#define REPDL_END_CODE _Pragma("float_control(pop)")
#else
#define REPDL_BEGIN_CODE
#define REPDL_END_CODE
#endif

/* ---- Decoration ---- */

#if defined(__CUDACC__)
#define REPDL_HD __host__ __device__
#else
#define REPDL_HD
#endif

/* REPDL__ROLLED before a loop keeps nvcc's device compiler from unrolling
   it (#pragma unroll 1); the host compilers see nothing (gcc would warn
   about an unknown pragma).  Used on loops that nvcc unrolled into
   thousands of PTX lines at every call site: those whose trip count is
   not known but whose bound is (the -0.0 padding of a short leaf, up to
   1024 stores; the 64 levels of a tree's root; norm.h's column loops,
   c < cb <= 256) and norm.h's row loops around them (4 and 8 passes).
   Unrolled, one call site of a sum was about 10,000 PTX lines, and a
   kernel calling every reduction and norm took minutes to compile.  It
   changes no operation and no order, only code size. */
#if defined(__CUDA_ARCH__)
#define REPDL__ROLLED _Pragma("unroll 1")
#else
#define REPDL__ROLLED
#endif

/* Every repdl function: header-only, no symbol leaks out of a translation
   unit. */
#define REPDL_FN static inline REPDL_HD

/* Every public function (docs/api.md): `grep -n 'REPDL_API' include/repdl`
   lists the whole API.  Header-only use: static inline like REPDL_FN.
   The linkable build (REPDL_BUILD_LIBRARY defined in the one translation
   unit of librepdl, src/librepdl.c) turns every public function into an
   external definition with default visibility, for FFI callers (ctypes,
   cffi) and bindings; private helpers stay static. */
#if defined(REPDL_BUILD_LIBRARY) && !defined(__CUDACC__)
#if defined(__GNUC__) || defined(__clang__)
#define REPDL_API __attribute__((visibility("default")))
#else
#define REPDL_API
#endif
#define REPDL_HOST_API REPDL_API
#else
#define REPDL_API static inline REPDL_HD
/* Public host-only functions (the POSIX-thread forms). */
#define REPDL_HOST_API static inline
#endif

#if defined(__cplusplus)
#define REPDL_RESTRICT __restrict__
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 199901L
#define REPDL_RESTRICT restrict
#else
#define REPDL_RESTRICT
#endif

#if defined(__GNUC__) || defined(__clang__)
#define REPDL_LIKELY(c) __builtin_expect(!!(c), 1)
#define REPDL_UNLIKELY(c) __builtin_expect(!!(c), 0)
#else
#define REPDL_LIKELY(c) (c)
#define REPDL_UNLIKELY(c) (c)
#endif

/* A private helper that holds a function's rare path (the accurate path of
   repdl_tanh_f32), in place of REPDL_FN: kept out of line on the host, so
   that the fast path stays small enough to be inlined into its callers
   (static, not inline, which gcc refuses to combine with noinline; unused
   where a translation unit never calls it).  REPDL_FN on the device and
   for other compilers.  Never changes a value. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#define REPDL_FN_NOINLINE static __attribute__((noinline, unused))
#else
#define REPDL_FN_NOINLINE REPDL_FN
#endif

/* Tables used by device code.  A function-scope `static const` array in a
   REPDL_FN function is placed by nvcc in both host and device memory, so
   numeric headers declare their tables that way, inside the function that
   reads them (tests/config checks it compiles under nvcc). */

REPDL_BEGIN_CODE

/* ---- Bit casts (memcpy: valid C99 and C++, free after optimisation) ---- */

REPDL_FN uint32_t repdl__asuint(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
REPDL_FN float repdl__asfloat(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
REPDL_FN uint64_t repdl__asuint64(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }
REPDL_FN double repdl__asdouble(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }

/* The canonical NaN: every NaN result of repdl is exactly this bit pattern
   (x86 would keep input payloads, NVIDIA GPUs return 0x7fffffff). */
#define REPDL_NAN_BITS 0x7fc00000u
REPDL_FN float repdl__nanf(void) { return repdl__asfloat(REPDL_NAN_BITS); }
/* Replace any NaN by the canonical NaN; every other value is unchanged. */
#if defined(__CUDA_ARCH__)
/* On the device by the bits: a float comparison would become setp.nan.ftz
   under the caller's -ftz=true (harmless, but the PTX check must see no
   .ftz at all).  -x likewise: a sign flip, never neg.ftz.f32. */
REPDL_FN float repdl__canon(float x)
{
    return (repdl__asuint(x) & 0x7fffffffu) > 0x7f800000u ? repdl__nanf() : x;
}
REPDL_FN float repdl__fneg(float x) { return repdl__asfloat(repdl__asuint(x) ^ 0x80000000u); }
#else
REPDL_FN float repdl__canon(float x) { return x != x ? repdl__nanf() : x; }
#define repdl__fneg(x) (-(x))
#endif

/* ---- Status codes (docs/api.md, section 4) ----
   Functions that can be handed an invalid size or shape return one of
   these; functions that cannot fail return their value. */
typedef enum repdl_status {
    REPDL_OK = 0,
    REPDL_ERR_INVALID = -1,  /* an invalid argument (ld < row, zero stride, NULL data) */
    REPDL_ERR_OVERFLOW = -2, /* a size product does not fit in size_t */
    REPDL_ERR_NOMEM = -3,    /* a workspace allocation failed */
    REPDL_ERR_CUDA = -4,     /* CUDA launchers: the CUDA runtime reported an error */
    REPDL_ERR_FPENV = -5,    /* FTZ, DAZ or a rounding mode other than nearest (host or device) */
    REPDL_ERR_MPI = -6       /* repdl/mpi.h: an MPI call returned an error */
} repdl_status;

REPDL_API const char *repdl_status_string(repdl_status s)
{
    switch (s) {
    case REPDL_OK: return "ok";
    case REPDL_ERR_INVALID: return "invalid argument";
    case REPDL_ERR_OVERFLOW: return "size overflow";
    case REPDL_ERR_NOMEM: return "out of memory";
    case REPDL_ERR_CUDA: return "CUDA error";
    case REPDL_ERR_FPENV:
        return "floating-point environment not IEEE default (flush-to-zero, denormals-are-zero or a "
               "rounding mode other than nearest: a -ffast-math/-Ofast link or a library built with "
               "-ffast-math loaded into the process?)";
    case REPDL_ERR_MPI: return "MPI error";
    }
    return "unknown status";
}

/* p + i without ever forming NULL + 0 (undefined behaviour in C, which
   UBSan reports): a function handed NULL with an empty extent does no
   pointer arithmetic on it. */
#define REPDL__OFFSET(p, i) ((i) != 0 ? (p) + (i) : (p))

/* "No index": the argmax of an empty range (docs/api.md, section 3). */
#ifndef REPDL_NO_INDEX
#define REPDL_NO_INDEX ((size_t)-1)
#endif

/* *acc *= f, unless the product of float counts would not fit in size_t
   bytes: then 1 and *acc unchanged.  Every shape-taking function runs its
   extents through this before it writes anything. */
REPDL_FN int repdl__size_mul(size_t *acc, size_t f)
{
    if (f != 0 && *acc > (((size_t)-1) / sizeof(float)) / f) return 1;
    *acc *= f;
    return 0;
}
/* *acc += f, or 1 when it would not fit (the same bound). */
REPDL_FN int repdl__size_add(size_t *acc, size_t f)
{
    size_t lim = ((size_t)-1) / sizeof(float);
    if (*acc > lim || f > lim - *acc) return 1;
    *acc += f;
    return 0;
}

/* The first 64-byte boundary at or after blk (a block with 63 bytes to
   spare past it: the scratch and workspaces of the vector kernels, whose
   16-float loads then stay within one cache line; free the block, not
   this). */
REPDL_FN float *repdl__align64(void *blk)
{
    return (float *)(((uintptr_t)blk + 63) & ~(uintptr_t)63);
}

/* The checks of the row-wise reductions (reduce.h, reduce_minmax.h): the
   span (rows - 1) * ldx + n floats, and rows results of size_t, must fit
   in size_t bytes (REPDL_ERR_OVERFLOW), x must not be NULL when rows > 0
   and n > 0 (REPDL_ERR_INVALID). */
REPDL_FN repdl_status repdl__rows_arg(size_t rows, size_t n, const float *x, size_t ldx)
{
    size_t span = rows - 1;
    /* out: rows results of up to 8 bytes (argmax_rows' size_t) */
    if (rows > ((size_t)-1) / sizeof(size_t)) return REPDL_ERR_OVERFLOW;
    if (rows == 0 || n == 0) return REPDL_OK;
    if (repdl__size_mul(&span, ldx) || repdl__size_add(&span, n)) return REPDL_ERR_OVERFLOW;
    return x ? REPDL_OK : REPDL_ERR_INVALID;
}

/* In a row-wise function with parameters rows, n and out. */
#define REPDL__ROWS_CHECK(x, ldx)                                         \
    do {                                                                  \
        repdl_status st_ = repdl__rows_arg(rows, n, (x), (ldx));          \
        if (st_ != REPDL_OK) return st_;                                  \
        if (rows && !out) return REPDL_ERR_INVALID;                       \
    } while (0)

/* ---- Arithmetic primitives ----
   One rounding each, round-to-nearest-even.  On the device they are the _rn
   intrinsics, which nvcc never contracts into an FMA whatever --fmad says.
   On the host they are plain C operators: host compilers may contract
   `a*b + c` (gcc does by default), which is why
     - correctly rounded functions are proven exhaustively in both the
       contracted and the uncontracted build (their error bounds hold for
       either), and
     - reductions, which must run the same operations everywhere, put products
       behind the contraction barrier before adding them (detail/barrier.h). */
#if defined(__CUDA_ARCH__)
/* On the device every binary32 operation is inline PTX without .ftz: nvcc
   copies inline PTX verbatim, so a caller's -ftz=true or -use_fast_math
   (which turn __fadd_rn into add.rn.ftz.f32 and a plain comparison into
   setp.*.ftz.f32, flushing subnormal operands) cannot reach repdl's
   arithmetic.  nvcc defines no macro for those flags, so this is the only
   defence; tests/cuda/check_ptx.sh proves it on a user kernel compiled
   with each flag.  Binary64 operations are never flushed. */
#define REPDL__PTX_F2(name, op)                                                     \
    static __device__ __forceinline__ float name(float a, float b)                  \
    {                                                                               \
        float r;                                                                    \
        asm(op " %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));                          \
        return r;                                                                   \
    }
REPDL__PTX_F2(repdl__ptx_fadd, "add.rn.f32")
REPDL__PTX_F2(repdl__ptx_fsub, "sub.rn.f32")
REPDL__PTX_F2(repdl__ptx_fmul, "mul.rn.f32")
REPDL__PTX_F2(repdl__ptx_fdiv, "div.rn.f32")
#undef REPDL__PTX_F2
static __device__ __forceinline__ float repdl__ptx_fma(float a, float b, float c)
{
    float r;
    asm("fma.rn.f32 %0, %1, %2, %3;" : "=f"(r) : "f"(a), "f"(b), "f"(c));
    return r;
}
/* One-operand instructions: name(a) = op applied to a of type A (asm
   constraint ac), giving R (constraint rc). */
#define REPDL__PTX_F1(name, R, rc, A, ac, op)                                       \
    static __device__ __forceinline__ R name(A a)                                   \
    {                                                                               \
        R r;                                                                        \
        asm(op " %0, %1;" : "=" rc(r) : ac(a));                                     \
        return r;                                                                   \
    }
REPDL__PTX_F1(repdl__ptx_fsqrt, float, "f", float, "f", "sqrt.rn.f32")
REPDL__PTX_F1(repdl__ptx_d2f, float, "f", double, "d", "cvt.rn.f32.f64")
REPDL__PTX_F1(repdl__ptx_f2d, double, "d", float, "f", "cvt.f64.f32")
REPDL__PTX_F1(repdl__ptx_f2i_rz, int32_t, "r", float, "f", "cvt.rzi.s32.f32")
#undef REPDL__PTX_F1
/* Comparisons of binary32 values, as C's operators (ordered: false when
   either is a NaN; repdl__fne is C's !=, true when either is a NaN). */
#define REPDL__PTX_CMP(name, cmp)                                                   \
    static __device__ __forceinline__ int name(float a, float b)                    \
    {                                                                               \
        int r;                                                                      \
        asm("{ .reg .pred p; setp." cmp ".f32 p, %1, %2; selp.s32 %0, 1, 0, p; }"    \
            : "=r"(r) : "f"(a), "f"(b));                                            \
        return r;                                                                   \
    }
REPDL__PTX_CMP(repdl__flt, "lt")
REPDL__PTX_CMP(repdl__fle, "le")
REPDL__PTX_CMP(repdl__fgt, "gt")
REPDL__PTX_CMP(repdl__fge, "ge")
REPDL__PTX_CMP(repdl__feq, "eq")
REPDL__PTX_CMP(repdl__fne, "neu")
#undef REPDL__PTX_CMP
#define repdl__dadd(a, b) __dadd_rn((a), (b))
#define repdl__dsub(a, b) __dsub_rn((a), (b))
#define repdl__dmul(a, b) __dmul_rn((a), (b))
#define repdl__ddiv(a, b) __ddiv_rn((a), (b))
#define repdl__fadd(a, b) repdl__ptx_fadd((a), (b))
#define repdl__fsub(a, b) repdl__ptx_fsub((a), (b))
#define repdl__fmul(a, b) repdl__ptx_fmul((a), (b))
#define repdl__fdiv(a, b) repdl__ptx_fdiv((a), (b))
/* double -> float, round to nearest even, subnormals kept */
#define repdl__d2f(a) repdl__ptx_d2f((a))
/* float -> double, exact, subnormals kept */
#define repdl__f2d(a) repdl__ptx_f2d((a))
/* float -> int32_t, truncated toward zero (C's conversion), for values in
   range.  A plain C cast compiles to cvt.rzi.s32.f32, which -ftz=true turns
   into cvt.rzi.ftz.s32.f32 (the same integer, but a flag-dependent
   instruction: cuda-ptx-caller-flags refuses it). */
#define repdl__f2i_rz(a) repdl__ptx_f2i_rz((a))
#else
#define repdl__dadd(a, b) ((double)(a) + (double)(b))
#define repdl__dsub(a, b) ((double)(a) - (double)(b))
#define repdl__dmul(a, b) ((double)(a) * (double)(b))
#define repdl__ddiv(a, b) ((double)(a) / (double)(b))
#define repdl__fadd(a, b) ((float)(a) + (float)(b))
#define repdl__fsub(a, b) ((float)(a) - (float)(b))
#define repdl__fmul(a, b) ((float)(a) * (float)(b))
#define repdl__fdiv(a, b) ((float)(a) / (float)(b))
#define repdl__d2f(a) ((float)(a))
#define repdl__f2d(a) ((double)(a))
#define repdl__f2i_rz(a) ((int32_t)(float)(a))
#define repdl__flt(a, b) ((a) < (b))
#define repdl__fle(a, b) ((a) <= (b))
#define repdl__fgt(a, b) ((a) > (b))
#define repdl__fge(a, b) ((a) >= (b))
#define repdl__feq(a, b) ((a) == (b))
#define repdl__fne(a, b) ((a) != (b))
#endif

/* Square roots, correctly rounded (IEEE 754 requires it of the hardware
   instruction).  The C library's sqrt may set errno, so compilers guard the
   instruction with a libm call unless -fno-math-errno is in force; repdl
   uses the instruction directly instead: the builtin when errno is off
   (vectorizable), inline assembly on known targets otherwise, and an exact
   software fallback (reference-checked) elsewhere. */
#if defined(__CUDA_ARCH__)
#define repdl__fsqrt(a) repdl__ptx_fsqrt((a))
#define repdl__dsqrt(a) __dsqrt_rn((a))
#define REPDL__HAVE_HW_SQRT 1
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__NO_MATH_ERRNO__)
#define repdl__fsqrt(a) __builtin_sqrtf((a))
#define repdl__dsqrt(a) __builtin_sqrt((a))
#define REPDL__HAVE_HW_SQRT 1
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
/* In place ("+x"): sqrtss/sqrtsd keep the destination's upper bits, so a
   destination register other than the source would make each square root
   wait for whatever last wrote that register (a false dependency that
   turned a loop of calls into a chain of square-root latencies). */
REPDL_FN float repdl__fsqrt(float a) { __asm__("sqrtss %0, %0" : "+x"(a)); return a; }
REPDL_FN double repdl__dsqrt(double a) { __asm__("sqrtsd %0, %0" : "+x"(a)); return a; }
#define REPDL__HAVE_HW_SQRT 1
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__aarch64__)
REPDL_FN float repdl__fsqrt(float a) { __asm__("fsqrt %s0, %s1" : "=w"(a) : "w"(a)); return a; }
REPDL_FN double repdl__dsqrt(double a) { __asm__("fsqrt %d0, %d1" : "=w"(a) : "w"(a)); return a; }
#define REPDL__HAVE_HW_SQRT 1
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__riscv) && defined(__riscv_flen) && __riscv_flen >= 64
REPDL_FN float repdl__fsqrt(float a) { __asm__("fsqrt.s %0, %1" : "=f"(a) : "f"(a)); return a; }
REPDL_FN double repdl__dsqrt(double a) { __asm__("fsqrt.d %0, %1" : "=f"(a) : "f"(a)); return a; }
#define REPDL__HAVE_HW_SQRT 1
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__powerpc64__)
REPDL_FN float repdl__fsqrt(float a) { __asm__("fsqrts %0, %1" : "=f"(a) : "f"(a)); return a; }
REPDL_FN double repdl__dsqrt(double a) { __asm__("fsqrt %0, %1" : "=d"(a) : "d"(a)); return a; }
#define REPDL__HAVE_HW_SQRT 1
#elif (defined(__GNUC__) || defined(__clang__)) && defined(__s390x__)
/* SQEBR / SQDBR: the IEEE square root of short / long BFP, rounded in the
   FPC's mode like every other operation (nearest-even by default). */
REPDL_FN float repdl__fsqrt(float a) { __asm__("sqebr %0, %1" : "=f"(a) : "f"(a)); return a; }
REPDL_FN double repdl__dsqrt(double a) { __asm__("sqdbr %0, %1" : "=f"(a) : "f"(a)); return a; }
#define REPDL__HAVE_HW_SQRT 1
#else
/* Unknown compiler or target: the C library's sqrt, which IEEE 754 requires
   to be correctly rounded.  The only libm use in repdl, and only here. */
#include <math.h>
#define repdl__fsqrt(a) sqrtf((a))
#define repdl__dsqrt(a) sqrt((a))
#define REPDL__HAVE_HW_SQRT 0
#endif

/* p[i] = repdl__fsqrt(p[i]) for i < n, the same bits.  Host speed path for
   loops that cannot vectorize the asm above (math-errno on, x86): SSE/AVX
   sqrtps is the same correctly rounded IEEE square root as sqrtss, 4 or 8
   at a time.  Elsewhere (device, -fno-math-errno, other targets) the plain
   loop, which vectorizes by itself where the builtin is used.
   REPDL__FSQRT_VEC: 1 where repdl__fsqrt is not asm (a loop calling it can
   vectorize, so no separate square-root pass is needed). */
#if defined(__CUDA_ARCH__) || ((defined(__GNUC__) || defined(__clang__)) && defined(__NO_MATH_ERRNO__))
#define REPDL__FSQRT_VEC 1
#else
#define REPDL__FSQRT_VEC 0
#endif
#if !defined(__CUDACC__) && !defined(__NO_MATH_ERRNO__) && \
    (defined(__GNUC__) || defined(__clang__)) && defined(__SSE2__)
#include <immintrin.h>
REPDL_FN void repdl__fsqrt_n(float *p, size_t n)
{
    size_t i = 0;
#if defined(__AVX__)
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(p + i, _mm256_sqrt_ps(_mm256_loadu_ps(p + i)));
#endif
    for (; i + 4 <= n; i += 4) _mm_storeu_ps(p + i, _mm_sqrt_ps(_mm_loadu_ps(p + i)));
    /* the last n % 4 one by one; counted down from n - i (< 4), so that
       gcc -O3 does not warn about the loop's trip count when n is a known
       constant (-Waggressive-loop-optimizations) */
    for (n -= i, p += i; n > 0; n--, p++) *p = repdl__fsqrt(*p);
}
#else
REPDL_FN void repdl__fsqrt_n(float *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) p[i] = repdl__fsqrt(p[i]);
}
#endif

/* ---- Fused multiply-add, the same bits everywhere ----
   repdl__fmaf(a, b, c) is a*b + c rounded once (IEEE fusedMultiplyAdd).
   Matrix products are defined as chains of it (docs/canonical-order.md), so
   it must give one answer on every target:
     - device: __fmaf_rn (one FFMA, never split);
     - host with a hardware FMA (__FP_FAST_FMAF, -mfma, aarch64): the
       builtin, which the compiler emits as one instruction and vectorizes;
     - any other host (baseline x86-64, i686 SSE2): repdl__fmaf_soft, an
       exact emulation in binary64 arithmetic (no libm call).
   All three are the correctly rounded a*b + c, hence identical bits. */
/* a*b is exact in binary64 (24 + 24 significand bits, exponents within
   [-298, 256]).  s = RN(p + c) and its exact error e come from TwoSum
   (additions only: nothing here can be contracted into a different
   result).  When e != 0 and s is even, s is moved one binary64 ulp towards
   e: that is p + c rounded to odd at 53 bits, and rounding a round-to-odd
   value of precision >= q + 2 to precision q (24, or fewer for float
   subnormals) is the correctly rounded result.  s is never a binary64
   subnormal (p and c are multiples of 2^-298), and s = 0 only when p + c is
   exactly 0, where RN gives the IEEE sign of zero. */
REPDL_FN float repdl__fmaf_soft(float a, float b, float c)
{
    double p = repdl__dmul(a, b);
    double cd = (double)c;
    double s = repdl__dadd(p, cd);
    double sb = repdl__dsub(s, p);
    double e = repdl__dadd(repdl__dsub(p, repdl__dsub(s, sb)), repdl__dsub(cd, sb));
    uint64_t u = repdl__asuint64(s);
    if (e != 0.0 && (u & 1u) == 0 && s - s == 0.0) {
        /* e has the sign of s: magnitude grows (u + 1); else it shrinks */
        u = ((e > 0.0) == (s > 0.0)) ? u + 1u : u - 1u;
        s = repdl__asdouble(u);
    }
    return repdl__d2f(s);
}
#if defined(__CUDA_ARCH__)
#define repdl__fmaf(a, b, c) repdl__ptx_fma((a), (b), (c))
#define REPDL__HAVE_HW_FMA 1
#elif (defined(__GNUC__) || defined(__clang__)) && \
    (defined(__FP_FAST_FMAF) || defined(__FMA__) || defined(__aarch64__))
#define repdl__fmaf(a, b, c) __builtin_fmaf((a), (b), (c))
#define REPDL__HAVE_HW_FMA 1
#else
#define repdl__fmaf(a, b, c) repdl__fmaf_soft((a), (b), (c))
#define REPDL__HAVE_HW_FMA 0
#endif

/* 1 in host code compiled by gcc or clang without REPDL_PORTABLE_C: GNU
   vector extensions and __builtin_prefetch may be used (never changes a
   value; REPDL_PORTABLE_C selects the plain C99 every other compiler and
   nvcc get, and the tests build both). */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__) && \
    !defined(REPDL_PORTABLE_C)
#define REPDL__GNU_HOST 1
#else
#define REPDL__GNU_HOST 0
#endif

#if REPDL__GNU_HOST && defined(__x86_64__)
/* 1 when the CPU has AVX2 and FMA: the run-time test of the
   target("avx2,fma") clones (norm.h, detail/gelu_vec.h).  The probe's
   answer is cached (threads racing to the first call store the same
   value, atomically). */
REPDL_FN int repdl__cpu_avx2_fma(void)
{
    static int isa = -1;
    int v = __atomic_load_n(&isa, __ATOMIC_RELAXED);
    if (v < 0) {
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 1 : 0;
        __atomic_store_n(&isa, v, __ATOMIC_RELAXED);
    }
    return v;
}
#endif

/* ---- Runtime environment check ----
   repdl assumes IEEE binary32/binary64 arithmetic with subnormals kept and
   rounding to nearest-even.  Three run-time modes of the calling thread
   change results silently and no compiler macro can see them:
     - flush-to-zero (FTZ): subnormal results become zero;
     - denormals-are-zero (DAZ): subnormal operands are read as zero;
     - a directed rounding mode (fesetround, or the mode bits set by hand).
   They are set for a whole process by crtfastmath.o (linked in by gcc or
   clang -ffast-math, -Ofast or -funsafe-math-optimizations when they link,
   and by any shared library built so, through its constructor, when it is
   loaded or LD_PRELOADed) or by _mm_setcsr / fesetenv in the caller.
   New threads inherit the creating thread's mode, so checking the calling
   thread covers the POSIX-thread forms too.

   repdl__fpenv_bad() is 1 in such a mode, 0 otherwise; every public
   function that takes an array or a shape calls it once (REPDL__FPENV_CHECK)
   and returns REPDL_ERR_FPENV before writing anything (docs/api.md,
   section 4).  How it reads the mode:
     - x86-64 and i686 SSE math (gcc, clang): MXCSR (stmxcsr), FTZ bit 15,
       DAZ bit 6, rounding control bits 13-14 (00 = nearest);
     - aarch64 (gcc, clang): FPCR (mrs, readable at every exception level),
       FZ bit 24, RMode bits 22-23 (00 = nearest), FIZ bit 0 (FEAT_AFP:
       flush subnormal inputs; reads 0 where it does not exist);
     - every other host (ppc64le, riscv64, s390x, MSVC, ...), and any host
       under REPDL_PORTABLE_C (plain C99, no inline assembly): an arithmetic
       probe through volatile operands, which the compiler must read at run
       time and cannot fold: a subnormal product must be kept, a subnormal
       operand must not be read as zero, and 1 + 0.75 ulp and
       -(1 + 0.75 ulp) must round to 1 + ulp and -(1 + ulp) (nearest; up,
       down and towards zero each fail one of the two);
     - the device: 0.  repdl's device arithmetic is inline PTX without .ftz
       and with .rn (see "Arithmetic primitives"), so no device mode reaches
       it; the CUDA launchers run repdl_fpenv_ok on the device once
       (repdl_cuda_check_device).
   The x86 and aarch64 readings are one instruction and a mask. */
#if defined(__CUDA_ARCH__)
REPDL_FN int repdl__fpenv_bad(void) { return 0; }
#elif (defined(__GNUC__) || defined(__clang__)) && !defined(REPDL_PORTABLE_C) && \
    (defined(__x86_64__) || (defined(__i386__) && defined(__SSE_MATH__)))
REPDL_FN int repdl__fpenv_bad(void)
{
    unsigned int csr;
    __asm__ __volatile__("stmxcsr %0" : "=m"(csr));
    return (csr & 0xe040u) != 0u; /* FTZ 0x8000, RC 0x6000, DAZ 0x0040 */
}
#elif (defined(__GNUC__) || defined(__clang__)) && !defined(REPDL_PORTABLE_C) && \
    defined(__aarch64__)
REPDL_FN int repdl__fpenv_bad(void)
{
    uint64_t fpcr;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(fpcr));
    return (fpcr & 0x01c00001u) != 0u; /* FZ 1 << 24, RMode 3 << 22, FIZ 1 */
}
#else
REPDL_FN int repdl__fpenv_bad(void)
{
    volatile float v_min = repdl__asfloat(0x00800000u); /* 2^-126 */
    volatile float v_one = 1.0f;
    volatile float v_q = repdl__asfloat(0x33c00000u);   /* 0.75 * 2^-23 = 0.75 ulp(1) */
    volatile float half, back, up, dn;
    half = v_min * 0.5f;  /* 2^-127: 0 under FTZ */
    back = half + half;   /* 2^-126: 0 under DAZ */
    up = v_one + v_q;     /* 1 + 2^-23 when rounding to nearest */
    dn = -v_one - v_q;    /* -(1 + 2^-23) when rounding to nearest */
    return repdl__asuint(half) != 0x00400000u || repdl__asuint(back) != 0x00800000u ||
           repdl__asuint(up) != 0x3f800001u || repdl__asuint(dn) != 0xbf800001u;
}
#endif

/* First statement of a public function that takes an array or a shape:
   returns `bad` (REPDL__FPENV_CHECK: REPDL_ERR_FPENV) in such a mode,
   before anything is written. */
#define REPDL__FPENV_CHECK_OR(bad)                                        \
    do {                                                                  \
        if (REPDL_UNLIKELY(repdl__fpenv_bad())) return bad;               \
    } while (0)
#define REPDL__FPENV_CHECK() REPDL__FPENV_CHECK_OR(REPDL_ERR_FPENV)

/* ---- Runtime environment probe ----
   Returns 1 when the current floating-point environment is the one repdl
   assumes: subnormals neither flushed (FTZ) nor treated as zero (DAZ), and
   (on the host) rounding to nearest: repdl__fpenv_bad() above and an
   arithmetic probe.  Every array function checks this itself (returning
   REPDL_ERR_FPENV); the scalar functions do not, so a caller that may run
   in such a mode calls this once (docs/api.md, section 4).  On the device
   the probe runs repdl's PTX primitives, the launchers' check.  `one` must
   be 1.0f, passed at run time so that nothing can be folded. */
REPDL_API int repdl_fpenv_ok(float one)
{
    float tiny = repdl__fmul(repdl__asfloat(0x00800000u), one); /* 2^-126 */
    float half = repdl__fmul(tiny, 0.5f);                       /* 2^-127, subnormal */
    float back = repdl__fadd(half, half);                       /* DAZ would read it as 0 */
    return repdl__asuint(half) == 0x00400000u && repdl__asuint(back) == 0x00800000u &&
           !repdl__fpenv_bad();
}

REPDL_END_CODE

#endif /* REPDL_CONFIG_H */
