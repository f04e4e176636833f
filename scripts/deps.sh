#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what repdl's build, tests and benchmarks need on Debian 12
# (idempotent: installs only the packages that are missing).
# python3-torch ... python3-setuptools: the Python package python/repdl
# (docs/python.md), built by torch.utils.cpp_extension.
# jargon-text: the Jargon File, the corpus of examples/train_gpt.c.
set -euo pipefail
pkgs=(gcc g++ clang meson ninja-build pkg-config libmpfr-dev libgmp-dev
      libopenblas-dev libllvmlibc-22-dev python3 valgrind cmake
      zlib1g-dev dataset-fashion-mnist openmpi-bin libopenmpi-dev
      python3-torch libtorch-dev pybind11-dev python3-pytest python3-numpy
      python3-setuptools jargon-text)
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
