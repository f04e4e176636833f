/* SPDX-License-Identifier: MIT */
/* src/librepdl.c: the linkable build of repdl (meson option `library`).

   Compiles every public function of the headers once, as an external
   definition with default visibility (REPDL_BUILD_LIBRARY: config.h turns
   REPDL_API and REPDL_HOST_API into that), so that librepdl.so exports
   them for callers that cannot compile C headers: Python ctypes/cffi,
   other languages' FFIs, framework bindings.  Private helpers stay static
   and hidden.  The bits are those of the header-only use: the same source,
   the same operations (tests/api/test_ffi.py checks it). */
#define REPDL_BUILD_LIBRARY 1
#include <repdl/repdl.h>
#include <repdl/reduce_threads.h>
#include <repdl/reduce_units.h>
#include <repdl/gemm_threads.h>
#include <repdl/gemm_cr_threads.h>
#include <repdl/conv2d_threads.h>
#include <repdl/attention_threads.h>
#include <repdl/data_parallel.h>
