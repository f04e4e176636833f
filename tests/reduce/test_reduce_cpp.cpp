/* SPDX-License-Identifier: MIT */
/* tests/reduce/test_reduce_cpp.cpp: test_reduce.c compiled as C++ (the
   headers must be valid C++ with the same results). */
#include "test_reduce.c"
