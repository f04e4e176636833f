/* SPDX-License-Identifier: MIT */
/* tests/nn/test_act_pool_cpp.cpp: the same test as C++. */
#include "test_act_pool.c"
