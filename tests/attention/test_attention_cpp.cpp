/* SPDX-License-Identifier: MIT */
/* tests/attention/test_attention_cpp.cpp: test_attention.c compiled as C++
   (the headers must be valid C++ with the same results). */
#include "test_attention.c"
