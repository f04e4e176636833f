#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/config/device_compile.sh OBJECT | --skip
# OBJECT is device_all.cu (device code calling every repdl elementary
# function) compiled by nvcc -arch=sm_80 as a build step (meson.build): the
# compile itself is the check, and a failed compile fails the build.  This
# test checks that the object holds device code: a non-empty file with a
# CUDA fat binary section (.nv_fatbin) or, without objdump, the sm_80
# cubin's name.  --skip: nvcc not found, SKIP (77).
set -u
if [ "$1" = --skip ]; then echo "SKIP: nvcc not found"; exit 77; fi
obj=$1
[ -s "$obj" ] || { echo "FAIL: $obj missing or empty"; exit 1; }
if command -v objdump > /dev/null 2>&1; then
  if objdump -h "$obj" | grep -q '\.nv_fatbin'; then
    echo "ok: $obj has a .nv_fatbin section"; exit 0
  fi
  echo "FAIL: $obj has no .nv_fatbin section (no device code)"; exit 1
fi
if grep -q 'sm_80' "$obj"; then echo "ok: $obj names sm_80"; exit 0; fi
echo "FAIL: $obj holds no sm_80 device code"; exit 1
