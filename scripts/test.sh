#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The README's second command: build and run the test suites, then print
# a line "N skipped" (tests that could not run here, e.g. GPU tests
# without a GPU: never counted as passed), when any test ran past its
# meson timeout a line "N timed out: NAME, NAME" (neither passed nor
# failed; the exit status is then non-zero), and the closing line
# "N passed, N failed".
#   scripts/test.sh              what CI runs: the quick suite, the CI subset
#                                of the matrix (suite matrix) and the
#                                exhaustive suite (all 2^32 inputs of every
#                                function in one build, samples in three
#                                more), but not the full
#                                matrix (suite matrix-full, ~25 min more)
#   scripts/test.sh quick        one or more suites by name (quick: minutes;
#                                "sanitize": the ASan+UBSan build's quick suite)
#   scripts/test.sh quick matrix exhaustive   everything, the full matrix included
#   scripts/test.sh python       the Python package's pytest suite only
#                                (python/tests, docs/python.md; also part
#                                of the default run); without PyTorch it
#                                is one skipped test, never a pass
set -uo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
bash scripts/deps.sh || exit 1
# The default run (CI) also needs the cross compilers and qemu of the matrix
# before the quick suite, whose x87 refusal and aarch64 training tests use
# them: install them first, so that those tests run instead of skipping.
if [ $# -eq 0 ] || [[ " $* " == *" matrix"* ]]; then bash scripts/deps-matrix.sh; fi
echo "test.sh: dependencies $((SECONDS - t0)) s"
[ -d build ] || meson setup build || exit 1
t0=$SECONDS
# Every target: the tests and their compiler and flag variants, the
# oracles, the benchmarks, the CUDA library and its PTX checks (the first
# command, scripts/setup-and-demo.sh, builds only what its demos run).
ninja -C build || exit 1
echo "test.sh: build $((SECONDS - t0)) s"
args=()
if [ $# -gt 0 ]; then
  for s in "$@"; do [ "$s" = sanitize ] || [ "$s" = python ] || args+=(--suite "$s"); done
else
  args=(--suite quick --suite matrix --suite exhaustive --no-suite matrix-full)
fi
rc=0 logs=()
if [ ${#args[@]} -gt 0 ]; then
  t0=$SECONDS
  # two at a time: the multi-threaded proofs (2^32 runs, MPI, golden) are
  # is_parallel : false and run alone
  meson test -C build --print-errorlogs --num-processes 2 "${args[@]}" || rc=1
  echo "test.sh: meson test $((SECONDS - t0)) s"
  logs+=(build/meson-logs/testlog.json)
fi
# The default run (CI) also builds the whole test tree with AddressSanitizer
# and UndefinedBehaviorSanitizer (LeakSanitizer included) and runs its quick
# suite: every test of the tree, sanitized (docs/testing.md, "The sanitized
# tree").  At -O1, the level the sanitizers are meant for; each flag variant
# keeps the flags that choose code and drops its -O level, and the x86-64
# variant, the baseline build once its -O3 is gone, is left out there
# (tests/meson.build).
if [ $# -eq 0 ] || [[ " $* " == *" sanitize "* ]]; then
  san_opts=(-Db_sanitize=address,undefined -Db_lundef=false -Doptimization=1
            -Dcuda=disabled -Dlibrary=disabled)
  if [ ! -d build-san ]; then
    meson setup build-san "${san_opts[@]}" || exit 1
  else
    meson configure build-san "${san_opts[@]}" || exit 1
  fi
  t0=$SECONDS
  ninja -C build-san || exit 1
  echo "test.sh: sanitized build $((SECONDS - t0)) s"
  t0=$SECONDS
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
    meson test -C build-san --print-errorlogs --num-processes 2 --suite quick || rc=1
  echo "test.sh: sanitized tests $((SECONDS - t0)) s"
  logs+=(build-san/meson-logs/testlog.json)
fi
# The default run (CI) and `scripts/test.sh python` also build the Python
# package and run its pytest suite (scripts/python.sh; well under a minute).
# Each pytest test counts as one test; no PyTorch: one skipped test.
py_junit= py_skip=0
if [ $# -eq 0 ] || [[ " $* " == *" python "* ]]; then
  py_junit=build/pytest-junit.xml
  rm -f "$py_junit"
  py_rc=0
  t0=$SECONDS
  REPDL_LIB=$PWD/build/librepdl.so bash scripts/python.sh test "$py_junit" || py_rc=$?
  echo "test.sh: python $((SECONDS - t0)) s"
  if [ $py_rc -eq 77 ]; then py_skip=1 py_junit=
  elif [ $py_rc -ne 0 ]; then rc=1; [ -f "$py_junit" ] || py_junit=FAILED; fi
fi
echo "test.sh: total $SECONDS s"
PY_JUNIT=$py_junit PY_SKIP=$py_skip python3 - "${logs[@]}" <<'PY'
import json, os, sys
import xml.etree.ElementTree as ET
counts = {"OK": 0, "FAIL": 0, "SKIP": 0}
timed_out = []  # meson's "TIMEOUT": the test ran out of time, no verdict
for log in sys.argv[1:]:
    for line in open(log):
        t = json.loads(line)
        r = t.get("result", "")
        if r in ("OK", "EXPECTEDFAIL"): counts["OK"] += 1
        elif r == "SKIP": counts["SKIP"] += 1
        elif r == "TIMEOUT": timed_out.append(t.get("name", "?"))
        else: counts["FAIL"] += 1
counts["SKIP"] += int(os.environ.get("PY_SKIP", "0"))
junit = os.environ.get("PY_JUNIT", "")
if junit == "FAILED":
    counts["FAIL"] += 1  # the Python package did not build
elif junit:
    for case in ET.parse(junit).iter("testcase"):
        tags = {c.tag for c in case}
        if tags & {"failure", "error"}: counts["FAIL"] += 1
        elif "skipped" in tags: counts["SKIP"] += 1
        else: counts["OK"] += 1
print(f'{counts["SKIP"]} skipped')
if timed_out:
    print(f'{len(timed_out)} timed out: {", ".join(timed_out)}')
print(f'{counts["OK"]} passed, {counts["FAIL"]} failed')
sys.exit(1 if timed_out else 0)
PY
[ $? -eq 0 ] || rc=1
exit $rc
