#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/config/check_nm.sh NM PROGRAM
# Runs PROGRAM (two translation units using repdl, leak_a.c and leak_b.c)
# and checks with nm that it defines no global repdl_ symbol, while it does
# hold repdl code as local symbols (so the check has something to look at).
set -u
nm=$1 prog=$2
"$prog" || exit 1
globals=$("$nm" "$prog" | grep -E ' [A-TV-Z] _?repdl_' )
locals=$("$nm" "$prog" | grep -cE ' [a-z] _?repdl_')
if [ -n "$globals" ]; then
  echo "FAIL: global repdl symbols:"; echo "$globals"; exit 1
fi
if [ "$locals" -eq 0 ]; then
  echo "FAIL: no local repdl symbol either: was the program built -O0?"; exit 1
fi
echo "ok: no global repdl_ symbol ($locals local ones)"
