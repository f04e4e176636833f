#!/usr/bin/env bash
# The README's first command: install dependencies, build everything, run
# the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
[ -d build ] || meson setup build
ninja -C build
./build/examples/demo
