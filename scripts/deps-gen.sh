#!/bin/sh
# SPDX-License-Identifier: MIT
# scripts/deps-gen.sh: the tools that regenerate repdl's constants, tables
# and error bounds (reference/gen/*.py, *.sollya; Debian/Ubuntu packages).
# Not needed to build or test repdl: the generated values are committed,
# and `python3 reference/gen/F.py --check` re-derives them.
set -eu
apt-get install -y sollya python3-mpmath
