/* SPDX-License-Identifier: MIT */
/* tests/nn_act_pool/test_nn_act_pool_cpp.cpp: the same test as C++. */
#include "test_nn_act_pool.c"
