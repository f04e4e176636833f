/* SPDX-License-Identifier: MIT */
/* tests/nn/test_softmax_norm_cpp.cpp: test_softmax_norm.c compiled as C++ (the
   headers must be valid C++ with the same results). */
#include "test_softmax_norm.c"
