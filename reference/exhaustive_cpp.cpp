/* SPDX-License-Identifier: MIT */
// reference/exhaustive_cpp.cpp: the exhaustive checker compiled as C++, so
// that the exhaustive suite also proves the headers' C++ build.
#include "exhaustive.c"
