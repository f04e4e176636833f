/* SPDX-License-Identifier: MIT */
/* tests/nn_softmax_norm/test_nn_cpp.cpp: test_nn.c compiled as C++ (the
   headers must be valid C++ with the same results). */
#include "test_nn.c"
