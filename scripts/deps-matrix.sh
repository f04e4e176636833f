#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the optional packages of the compiler x flags x architecture
# matrix (tests/matrix.sh, docs/matrix.md): Debian's cross compilers for
# aarch64, ppc64le, riscv64 and s390x (big-endian; its strict -std=c99
# sets FLT_EVAL_METHOD 1), qemu-user to run their static binaries, and the
# i686 cross compiler for the 32-bit cells and the x87 refusal test.  Kept
# apart from scripts/deps.sh so the plain build stays light.  Idempotent: installs only what is missing.
# A package that cannot be installed is reported, and the matrix cells that
# need it report SKIP (never PASS).
set -uo pipefail
pkgs=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross
      gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross
      gcc-riscv64-linux-gnu libc6-dev-riscv64-cross
      gcc-i686-linux-gnu libc6-dev-i386-cross
      gcc-s390x-linux-gnu libc6-dev-s390x-cross
      qemu-user)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps-matrix: installing ${missing[*]}"
SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -q >/dev/null || echo "deps-matrix: apt-get update failed"
if ! DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"; then
  # Install what can be installed, one by one; the matrix skips the rest.
  for p in "${missing[@]}"; do
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "$p" \
      || echo "deps-matrix: could not install $p (its matrix cells will SKIP)"
  done
fi
exit 0
