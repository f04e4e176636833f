#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what repdl's build, tests and benchmarks need on Debian 12
# (idempotent: installs only the packages that are missing).
set -euo pipefail
pkgs=(gcc g++ clang meson ninja-build pkg-config libmpfr-dev libgmp-dev
      libopenblas-dev libllvmlibc-22-dev python3 valgrind cmake
      zlib1g-dev dataset-fashion-mnist openmpi-bin libopenmpi-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  SUDO=; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
