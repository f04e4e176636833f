/* SPDX-License-Identifier: MIT */
/* tests/embedding/test_embedding_cpp.cpp: test_embedding.c compiled as C++
   (the headers must be valid C++ with the same results). */
#include "test_embedding.c"
