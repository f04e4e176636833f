#!/bin/sh
# SPDX-License-Identifier: MIT
# scripts/deps-gen.sh: the generator tools of reference/gen/ (not needed to
# build or test repdl, only to re-derive its tables, polynomials and
# thresholds): Sollya (the *.sollya scripts: fpminimax, supnorm) and
# mpmath (the *.py scripts).  Debian/Ubuntu:
set -eu
apt-get install -y sollya python3-mpmath
