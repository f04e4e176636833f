/* SPDX-License-Identifier: MIT */
/* repdl/detail/barrier.h: the contraction barrier, the one way repdl keeps
   a host compiler from fusing a rounded product with the addition that
   consumes it (gcc contracts a*b + c into an FMA by default and ignores
   #pragma STDC FP_CONTRACT; clang does under -ffp-contract=fast).

   One mechanism: an empty asm statement the optimiser cannot see through.
   It comes in the three shapes code needs, and nothing else in repdl
   blocks contraction (tests/config/fma.c and the -ffp-contract=fast build
   variants check that no fusion gets through):

     shape                     use it for                        cost
     ------------------------  --------------------------------  ---------------
     repdl__fkeep(x),          scalar code: one value that must  none (the value
     repdl__dkeep(x)           stay a rounded product            stays in its
                                                                 register); stops
                                                                 vectorization
     REPDL__MATERIALIZE(buf)   a buffer of rounded values that   one store and
                               a vectorized loop wrote and a     load of the
                               second loop consumes (the leaves  buffer
                               of the accumulation layer,
                               detail/accum.h, elementwise
                               passes in chunks)
     REPDL__KEEP_PROD(a, b, k) a product consumed in the same    one AND a vector
     with k = repdl__opaque_   vectorized expression (dot        (keeps the loop
     ones() hoisted out of     leaves, optimizer updates)        in registers)
     the loop

   REPDL__KEEP_PROD ANDs the product's bits with k, all ones at run time but
   unknown to the compiler (its address went through REPDL__MATERIALIZE),
   so the product's only use is an integer operation: it cannot be fused.

   On the device all three are empty (the AND folds away): every device
   operation is an explicit .rn instruction (config.h), which nvcc never
   fuses. */
#ifndef REPDL_DETAIL_BARRIER_H
#define REPDL_DETAIL_BARRIER_H

#include "../config.h"
REPDL_BEGIN_CODE

#if !defined(__CUDA_ARCH__) && (defined(__GNUC__) || defined(__clang__))
#define REPDL__MATERIALIZE(ptr) __asm__ __volatile__("" : : "r"(ptr) : "memory")
#else
#define REPDL__MATERIALIZE(ptr) ((void)(ptr))
#endif

#if !defined(__CUDA_ARCH__) && (defined(__GNUC__) || defined(__clang__)) && \
    (defined(__x86_64__) || defined(__i386__))
REPDL_FN float repdl__fkeep(float x) { __asm__("" : "+x"(x)); return x; }
REPDL_FN double repdl__dkeep(double x) { __asm__("" : "+x"(x)); return x; }
#elif !defined(__CUDA_ARCH__) && (defined(__GNUC__) || defined(__clang__)) && defined(__aarch64__)
REPDL_FN float repdl__fkeep(float x) { __asm__("" : "+w"(x)); return x; }
REPDL_FN double repdl__dkeep(double x) { __asm__("" : "+w"(x)); return x; }
#elif !defined(__CUDA_ARCH__) && (defined(__GNUC__) || defined(__clang__)) && \
    ((defined(__riscv) && defined(__riscv_flen) && __riscv_flen >= 64) || defined(__powerpc64__))
REPDL_FN float repdl__fkeep(float x) { __asm__("" : "+f"(x)); return x; }
REPDL_FN double repdl__dkeep(double x) { __asm__("" : "+f"(x)); return x; }
#elif !defined(__CUDA_ARCH__)
/* other compilers (no GNU asm): a volatile round trip */
REPDL_FN float repdl__fkeep(float x) { volatile float v = x; return v; }
REPDL_FN double repdl__dkeep(double x) { volatile double v = x; return v; }
#else
REPDL_FN float repdl__fkeep(float x) { return x; }
REPDL_FN double repdl__dkeep(double x) { return x; }
#endif

/* All ones, opaque to the optimiser (see the top of this file). */
REPDL_FN uint32_t repdl__opaque_ones(void)
{
    uint32_t keep = 0xffffffffu;
    REPDL__MATERIALIZE(&keep);
    return keep;
}
#define REPDL__KEEP_PROD(a, b, keep) \
    repdl__asfloat(repdl__asuint(repdl__fmul((a), (b))) & (keep))

REPDL_END_CODE
#endif /* REPDL_DETAIL_BARRIER_H */
