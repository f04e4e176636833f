/* SPDX-License-Identifier: MIT */
/* tests/nn_rng_optim/test_nn_rng_optim_cpp.cpp: test_nn_rng_optim.c
   compiled as C++ (the headers must be valid C++ with the same results). */
#include "test_nn_rng_optim.c"
