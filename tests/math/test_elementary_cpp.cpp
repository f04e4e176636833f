/* SPDX-License-Identifier: MIT */
// tests/math/test_elementary_cpp.cpp: test_elementary.c compiled as
// C++, so that the quick suite proves the headers' C++ build too.
#include "test_elementary.c"
