#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's first command: install dependencies, build what the demos
# run (librepdl.so, examples/demo, examples/train_fmnist), run the demo,
# build and install the Python package (`import repdl` for this user:
# scripts/python.sh install, docs/python.md) and run its demo, then train
# LeNet-5 on Fashion-MNIST with repdl only (examples/train_fmnist.c,
# docs/train.md) and print its hashes next to the published ones
# (tests/train/expected.txt).
# The rest of the build tree (the test executables and their compiler and
# flag variants, the oracles, the benchmarks, the CUDA library and its PTX
# checks for every architecture) is the test command's: scripts/test.sh
# runs `ninja -C build`, which builds all of it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
[ -d build ] || meson setup build
meson compile -C build repdl examples/demo examples/train_fmnist
./build/examples/demo

echo
echo "repdl from PyTorch (python/repdl, docs/python.md): build, install for this user, demo:"
rc=0; bash scripts/python.sh install || rc=$?
if [ $rc -eq 0 ]; then bash scripts/python.sh demo; elif [ $rc -ne 77 ]; then exit $rc; fi

echo
echo "Training LeNet-5 on Fashion-MNIST, 2 epochs (about a minute; the [full] run of tests/train/expected.txt):"
args=$(sed -n 's/^\[full\] //p' tests/train/expected.txt)
# shellcheck disable=SC2086
./build/examples/train_fmnist $args
echo "published (tests/train/expected.txt, the same on every machine):"
awk '$1 == "[full]" { on = 1; next } /^\[/ { on = 0 } on && !/^#/ && NF' tests/train/expected.txt
echo
echo "The tests, benchmarks and the CUDA library are built by the test command: bash scripts/test.sh"
