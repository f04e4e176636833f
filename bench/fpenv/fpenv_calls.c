/* SPDX-License-Identifier: MIT */
/* bench/fpenv/fpenv_calls.c F N K: K calls of one case (F: 0 relu_array,
   1 exp_array, 2 add, 3 sum_rows one row, 4 sum_f32, 5 gemm 4x4x4) at n = N,
   for instruction counts under callgrind (bench/fpenv/compare.sh: the
   difference between K = 200 and K = 0, divided by 200, is one call). */
#include <repdl/repdl.h>
#include <stdlib.h>
static float gx[4096], gy[4096], gz[4096];
int main(int argc, char **argv)
{
    int f;
    size_t n;
    long k, i;
    if (argc < 4) return 2;
    f = atoi(argv[1]);
    n = (size_t)atoi(argv[2]);
    k = atol(argv[3]);
    for (i = 0; i < 4096; i++) { gx[i] = (float)((int)(i % 61) - 30) * 0.125f; gy[i] = (float)((int)(i % 37) - 18) * 0.0625f; }
    for (i = 0; i < k; i++) {
        switch (f) {
        case 0: repdl_relu_array_f32(n, gx, gz); break;
        case 1: repdl_exp_array_f32(n, gx, gz); break;
        case 2: repdl_add_f32(n, gx, gy, gz); break;
        case 3: repdl_sum_rows_f32(1, n, gx, n, gz); break;
        case 4: gz[0] = repdl_sum_f32(n, gx); break;
        default: repdl_gemm_f32(0, 0, 4, 4, 4, 1.0f, 0.0f, gx, 4, gy, 4, NULL, gz, 4); break;
        }
    }
    return 0;
}
