/* SPDX-License-Identifier: MIT */
/* tests/fpenv/fastmath_lib.c: a shared library with nothing in it but what
   building it with -ffast-math brings: gcc and clang link crtfastmath.o into
   it, whose constructor sets flush-to-zero and denormals-are-zero for the
   whole process as soon as the library is loaded (LD_PRELOAD, dlopen,
   ctypes.CDLL): what any library built that way does to a program using
   repdl.  tests/fpenv/meson.build and python/tests/test_fpenv.py load it. */
int repdl_test_fastmath_lib(int x);
int repdl_test_fastmath_lib(int x) { return x + 1; }
