/* SPDX-License-Identifier: MIT */
/* tests/rng_optim/test_rng_optim_cpp.cpp: test_rng_optim.c
   compiled as C++ (the headers must be valid C++ with the same results). */
#include "test_rng_optim.c"
