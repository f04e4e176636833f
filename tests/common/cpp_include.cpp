/* SPDX-License-Identifier: MIT */
/* tests/common/cpp_include.cpp: the C++ build of a C test, the file named
   by the macro REPDL_TEST_SOURCE (a quoted name found on the include path,
   e.g. -DREPDL_TEST_SOURCE="test_embedding.c" with -Itests/embedding):
   the headers must be valid C++ with the same results. */
#ifndef REPDL_TEST_SOURCE
#error "define REPDL_TEST_SOURCE as the quoted name of the C test to build as C++"
#endif
#include REPDL_TEST_SOURCE
