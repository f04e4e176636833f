#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/run_i686.sh BINARY [ARGS...]: run an i686 test binary natively,
# or under qemu-i386 where this kernel does not run 32-bit code (bash's
# 126, exec format error: IA32 emulation off, some VM guests); exit 77
# (meson: SKIP) when neither can.
bin=$1
shift
"$bin" "$@"
rc=$?
[ $rc -eq 126 ] || exit $rc
if command -v qemu-i386 >/dev/null 2>&1; then
    echo "run_i686: this kernel does not run i686 binaries: under qemu-i386"
    exec qemu-i386 "$bin" "$@"
fi
echo "run_i686: this kernel does not run i686 binaries and qemu-i386 is not installed: SKIP"
exit 77
