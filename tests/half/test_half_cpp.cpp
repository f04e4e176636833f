/* SPDX-License-Identifier: MIT */
// tests/half/test_half_cpp.cpp: test_half.c compiled as C++, so that the
// quick suite proves the headers' C++ build too.
#include "test_half.c"
