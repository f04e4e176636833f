/* SPDX-License-Identifier: MIT */
/* tests/linalg/test_gemm_cpp.cpp: test_gemm.c compiled as C++ (the headers
   must be valid C++ with the same results). */
#include "test_gemm.c"
