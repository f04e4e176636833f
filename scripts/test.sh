#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's second command: build and run the test suites, then print
# a line "N skipped" (tests that could not run here, e.g. GPU tests
# without a GPU: never counted as passed) and the closing line
# "N passed, N failed".
#   scripts/test.sh              what CI runs: the quick suite, the CI subset
#                                of the matrix (suite matrix) and the
#                                exhaustive suite (all 2^32 inputs of every
#                                function in four builds), but not the full
#                                matrix (suite matrix-full, ~25 min more)
#   scripts/test.sh quick        one or more suites by name (quick: minutes;
#                                "sanitize": the ASan+UBSan build's quick suite)
#   scripts/test.sh quick matrix exhaustive   everything, the full matrix included
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh || exit 1
# The default run (CI) also needs the cross compilers and qemu of the matrix
# before the quick suite, whose x87 refusal and aarch64 training tests use
# them: install them first, so that those tests run instead of skipping.
if [ $# -eq 0 ] || [[ " $* " == *" matrix"* ]]; then bash scripts/deps-matrix.sh; fi
[ -d build ] || meson setup build || exit 1
ninja -C build || exit 1
args=()
if [ $# -gt 0 ]; then
  for s in "$@"; do [ "$s" = sanitize ] || args+=(--suite "$s"); done
else
  args=(--suite quick --suite matrix --suite exhaustive --no-suite matrix-full)
fi
rc=0 logs=()
if [ ${#args[@]} -gt 0 ]; then
  meson test -C build --print-errorlogs --num-processes 1 "${args[@]}" || rc=1
  logs+=(build/meson-logs/testlog.json)
fi
# The default run (CI) also builds the whole test tree with AddressSanitizer
# and UndefinedBehaviorSanitizer (LeakSanitizer included) and runs its quick
# suite: every test of the tree, sanitized (docs/testing.md).
if [ $# -eq 0 ] || [[ " $* " == *" sanitize "* ]]; then
  if [ ! -d build-san ]; then
    meson setup build-san -Db_sanitize=address,undefined -Db_lundef=false \
      -Dcuda=disabled -Dlibrary=disabled || exit 1
  fi
  ninja -C build-san || exit 1
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
    meson test -C build-san --print-errorlogs --num-processes 2 --suite quick || rc=1
  logs+=(build-san/meson-logs/testlog.json)
fi
python3 - "${logs[@]}" <<'PY'
import json, sys
counts = {"OK": 0, "FAIL": 0, "SKIP": 0}
for log in sys.argv[1:]:
    for line in open(log):
        r = json.loads(line).get("result", "")
        if r in ("OK", "EXPECTEDFAIL"): counts["OK"] += 1
        elif r == "SKIP": counts["SKIP"] += 1
        else: counts["FAIL"] += 1
print(f'{counts["SKIP"]} skipped')
print(f'{counts["OK"]} passed, {counts["FAIL"]} failed')
PY
exit $rc
