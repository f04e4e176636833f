/* SPDX-License-Identifier: MIT */
/* tests/rope/test_rope_cpp.cpp: test_rope.c compiled as C++ (rope.h must be valid
   C++ with the same results). */
#include "test_rope.c"
