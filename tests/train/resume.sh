#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/train/resume.sh: stop a published run at step K, save, resume from
# the checkpoint: the resumed run must print the published hashes of the
# uninterrupted one.
#
#   resume.sh EXE EXPECTED SECTION K [extra args...]
set -euo pipefail
exe=$1 expected=$2 section=$3 k=$4
shift 4
dir=$(mktemp -d "${TMPDIR:-/tmp}/repdl-train-resume.XXXXXX")
trap 'rm -rf "$dir"' EXIT
hdr=$(grep -E "^\[$section\]( |$)" "$expected")
read -r -a args <<<"${hdr#\[$section\]}"
echo "resume: $exe ${args[*]} --stop-at $k --save CKPT $*"
out=$("$exe" "${args[@]}" --quiet --stop-at "$k" --save "$dir/ckpt" "$@")
echo "$out"
grep -q "^stopped_at_step $k\$" <<<"$out" || { echo "resume: FAIL: did not stop at $k"; exit 1; }
[ -s "$dir/ckpt" ] || { echo "resume: FAIL: no checkpoint written"; exit 1; }
ls "$dir" | grep -q tmp && { echo "resume: FAIL: temporary file left behind"; exit 1; }
bash "$(dirname "$0")/check.sh" "$exe" "$expected" "$section" --resume "$dir/ckpt" "$@"
