#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/train/gpt_serve.sh: serving invariance of examples/train_gpt on the
# trained [gpt-short] model (issue 30, item 6; docs/train.md, "Decoding
# through the key/value cache").
#
#   gpt_serve.sh EXE EXPECTED
#
# Trains the [gpt-short] run of EXPECTED with --save (its lines, the
# sample decoded through the cache, must be the published ones), then:
#   --generate (the cache) and --generate --no-cache (recomputation) print
#   the published sample_sha256;
#   --serve-check prints the logits' SHA-256 of 8 prompts of different
#   lengths in 9 ways (recompute alone; through the cache alone and in a
#   batch of 8, prefilled whole and in chunks of 1, 7, 32): all 9 hashes
#   are the same and every way reports 8/8 prompts identical; the 200 rows
#   of logits of the sample (past the context: the sliding window) are the
#   same hash through the cache and by recomputation;
#   a prompt longer than the context gives the same sample both ways;
#   the same 9 ways on a tiny model of context 64 (prompts up to 48 bytes,
#   split by the chunks of 32 as well).
set -uo pipefail
exe=$1 expected=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/repdl-gpt-serve.XXXXXX")
trap 'rm -rf "$dir"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
section=gpt-short
hdr=$(grep -E "^\[$section\]( |$)" "$expected") || { echo "no [$section] in $expected"; exit 1; }
read -r -a args <<<"${hdr#\[$section\]}"
want=$(awk -v s="[$section]" '$1 == s { on = 1; next } /^\[/ { on = 0 } on && !/^#/ && NF { print }' "$expected")
want_sample=$(grep '^sample_sha256 ' <<<"$want")
[ -n "$want_sample" ] || { echo "no sample_sha256 in [$section]"; exit 1; }

got=$("$exe" "${args[@]}" --quiet --save "$dir/ck")
[ "$got" = "$want" ] && ok || bad "the [$section] run (sample through the cache) printed: $got"

g=$("$exe" --generate --resume "$dir/ck" | grep '^sample_sha256 ')
[ "$g" = "$want_sample" ] && ok || bad "--generate (cache): '$g', published '$want_sample'"
g=$("$exe" --generate --no-cache --resume "$dir/ck" | grep '^sample_sha256 ')
[ "$g" = "$want_sample" ] && ok || bad "--generate --no-cache: '$g', published '$want_sample'"

out=$("$exe" --serve-check --resume "$dir/ck"); rc=$?
echo "$out"
[ "$rc" = 0 ] && ok || bad "--serve-check exit status $rc"
hashes=$(awk '$1 == "serve_logits_sha256" { print $3 }' <<<"$out")
ways=$(awk '$1 == "serve_logits_sha256" { print $2 }' <<<"$out" | tr '\n' ' ')
[ "$ways" = "recompute alone-cache-whole alone-cache-chunk1 alone-cache-chunk7 alone-cache-chunk32 batch8-cache-whole batch8-cache-chunk1 batch8-cache-chunk7 batch8-cache-chunk32 " ] \
  && ok || bad "the ways printed: '$ways'"
ref=$(awk '$1 == "serve_logits_sha256" && $2 == "recompute" { print $3 }' <<<"$out")
[ "$(wc -l <<<"$hashes")" = 9 ] && [ "$(sort -u <<<"$hashes")" = "$ref" ] && [ ${#ref} = 64 ] \
  && ok || bad "the 9 logits hashes are not all the recomputation's ($ref)"
[ "$(awk '$1 == "serve_logits_sha256" && $4 == "same" && $5 == "8/8"' <<<"$out" | wc -l)" = 9 ] \
  && ok || bad "a way with fewer than 8/8 prompts identical"
[ "$(awk '$1 == "serve_prompt"' <<<"$out" | wc -l)" = 8 ] && \
  [ "$(awk '$1 == "serve_prompt" { print $4 }' <<<"$out" | sort -un | wc -l)" = 8 ] \
  && ok || bad "not 8 prompts of different lengths"
s1=$(awk '$1 == "serve_sample_logits_sha256" && $2 == "recompute" { print $3 }' <<<"$out")
s2=$(awk '$1 == "serve_sample_logits_sha256" && $2 == "cache" { print $3 }' <<<"$out")
[ ${#s1} = 64 ] && [ "$s1" = "$s2" ] && ok || bad "the sample's logits: recompute '$s1', cache '$s2'"
grep -qx 'serve_invariance ok' <<<"$out" && ok || bad "no 'serve_invariance ok'"

# a prompt longer than the context (32): the window of its last 32 bytes
long='The quick brown fox jumps over the lazy dog, then sleeps.'
a=$("$exe" --generate --resume "$dir/ck" --prompt "$long" | grep '^sample_sha256 ')
b=$("$exe" --generate --no-cache --resume "$dir/ck" --prompt "$long" | grep '^sample_sha256 ')
[ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "a prompt past the context: cache '$a', recompute '$b'"
# context 64: prompts up to 48 bytes, so the chunks of 32 split them too
"$exe" --layers 1 --dmodel 8 --heads 2 --ctx 64 --batch 2 --steps 3 --val-seqs 2 --quiet \
  --save "$dir/ck64" > /dev/null || bad "the context-64 run"
out=$("$exe" --serve-check --resume "$dir/ck64"); rc=$?
hashes=$(awk '$1 == "serve_logits_sha256" && $5 == "8/8" { print $3 }' <<<"$out")
maxlen=$(awk '$1 == "serve_prompt" { print $4 }' <<<"$out" | sort -n | tail -1)
[ "$rc" = 0 ] && [ "$(wc -l <<<"$hashes")" = 9 ] && [ "$(sort -u <<<"$hashes" | wc -l)" = 1 ] && \
  [ "${maxlen:-0}" -gt 32 ] && grep -qx 'serve_invariance ok' <<<"$out" \
  && ok || bad "context 64: exit $rc, longest prompt $maxlen: $out"
echo "gpt_serve: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
