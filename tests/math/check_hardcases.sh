#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/math/check_hardcases.sh HARDCASES F TABLE
# Regenerates F's hard-case table with reference/hardcases and checks that
# its entries ({input, result} pairs, sentinel included) equal TABLE's.
set -u
hc=$1 f=$2 table=$3
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp"' EXIT
"$hc" "$f" > "$tmp" || { echo "hardcases $f failed"; exit 1; }
grep -o '^{0x[0-9a-f]*u, 0x[0-9a-f]*u}' "$tmp" > "$tmp.new"
grep -o '^{0x[0-9a-f]*u, 0x[0-9a-f]*u}' "$table" > "$tmp.old"
if cmp -s "$tmp.new" "$tmp.old"; then
  echo "$table: $(($(wc -l < "$tmp.new") - 1)) entries, current"
  rm -f "$tmp.new" "$tmp.old"; exit 0
fi
echo "$table is stale: regenerate it with: hardcases $f > $table"
diff "$tmp.old" "$tmp.new" | head -20
rm -f "$tmp.new" "$tmp.old"
exit 1
