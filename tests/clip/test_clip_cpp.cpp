/* SPDX-License-Identifier: MIT */
/* tests/clip/test_clip_cpp.cpp: test_clip.c compiled as C++ (clip.h must be valid
   C++ with the same results). */
#include "test_clip.c"
