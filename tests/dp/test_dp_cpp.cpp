/* SPDX-License-Identifier: MIT */
/* tests/dp/test_dp_cpp.cpp: test_dp.c compiled as C++ (data_parallel.h must
   be valid C++ with the same results). */
#include "test_dp.c"
