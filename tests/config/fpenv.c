/* SPDX-License-Identifier: MIT */
/* tests/config/fpenv.c: repdl_fpenv_ok(1.0f) is 1 in a normal build (the
   1.0f comes from the command line, so nothing is folded).

     fpenv 1.0          expects 1
     fpenv 1.0 --ftz    sets flush-to-zero and denormals-are-zero (x86 SSE
                        MXCSR) and expects 0: the probe can fail; exit 77
                        on targets without that control */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <repdl/repdl.h>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

int main(int argc, char **argv)
{
    float one = argc > 1 ? (float)atof(argv[1]) : 0.0f;
    int ftz = argc > 2 && strcmp(argv[2], "--ftz") == 0, ok;
    if (ftz) {
#if defined(__SSE2__)
        _mm_setcsr(_mm_getcsr() | 0x8040u);   /* FTZ (bit 15) | DAZ (bit 6) */
#else
        printf("SKIP: no flush-to-zero control on this target\n");
        return 77;
#endif
    }
    ok = repdl_fpenv_ok(one);
    printf("repdl_fpenv_ok(%g) = %d%s\n", (double)one, ok, ftz ? " under FTZ/DAZ" : "");
    return ok == (ftz ? 0 : 1) ? 0 : 1;
}
