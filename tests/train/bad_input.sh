#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/train/bad_input.sh: examples/train_fmnist on bad input.  Each case
# must end with the documented exit status and a message naming the
# problem on stderr, print no hash, and leave no file behind.  Also: the
# checkpoint round trip on a small data set (stop/resume at an epoch
# boundary, mid-epoch, twice in a row, equal to the uninterrupted run), and
# the atomic save.
#
#   bad_input.sh EXE [DATA_DIR]
#
# The small data sets (256 training, 64 test images of DATA_DIR) and their
# corrupt copies are made in a temporary directory by python3 (only byte
# manipulation: gzip, zlib, struct).
#
# Memory: the loader reads a header first and never more than it announces.
# The cases gzip-bomb (a 1 MB gzip member: a header claiming 60000 images
# of 28x28, then 1 GiB of zeros), dev-zero (--train-images /dev/zero) and
# the trailing-garbage cases run under a 1 GiB address-space limit
# (RLIMIT_AS, which reading the file whole cannot fit: the old loader then
# said "out of memory") and must peak below 200 MB resident (the payload
# announced is 47 MB); in a sanitized build (ASan reserves terabytes of
# address space) the limit is left off and only the peak is checked.
# Before any work (nothing on stdout): an unwritable --save, a directory as
# --save, --stop-at below the checkpoint's step, and the floating-point
# environment (a -ffast-math shared library made here and LD_PRELOADed sets
# flush-to-zero: exit status 6 and a message naming -ffast-math).
set -uo pipefail
exe=$1
src=${2:-/usr/share/datasets/fashion-mnist}
command -v python3 >/dev/null || { echo "bad_input: SKIP: python3 not installed"; exit 77; }
[ -e "$src/train-images-idx3-ubyte.gz" ] || [ -e "$src/train-images-idx3-ubyte" ] ||
  { echo "bad_input: SKIP: no data in $src (apt-get install dataset-fashion-mnist)"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/repdl-train-bad.XXXXXX")
trap 'rm -rf "$dir"' EXIT
pass=0 fail=0

python3 - "$src" "$dir" <<'EOF' || { echo "bad_input: FAIL: could not make the data sets"; exit 1; }
import gzip, os, struct, sys
src, d = sys.argv[1], sys.argv[2]
def rd(name):
    p = os.path.join(src, name + '.gz')
    if os.path.exists(p):
        with gzip.open(p) as f: return f.read()
    with open(os.path.join(src, name), 'rb') as f: return f.read()
ti, tl = rd('train-images-idx3-ubyte'), rd('train-labels-idx1-ubyte')
ei, el = rd('t10k-images-idx3-ubyte'), rd('t10k-labels-idx1-ubyte')
def img(b, n, r=28, c=28, magic=0x803): return struct.pack('>IIII', magic, n, r, c) + b[16:16 + n * 784]
def lab(b, n, magic=0x801): return struct.pack('>II', magic, n) + b[8:8 + n]
TI, TL, EI, EL = 'train-images-idx3-ubyte', 'train-labels-idx1-ubyte', 't10k-images-idx3-ubyte', 't10k-labels-idx1-ubyte'
# the good set: training files gzip, test files plain (both readers used)
good = {TI: (img(ti, 256), True), TL: (lab(tl, 256), True),
        EI: (img(ei, 64), False), EL: (lab(el, 64), False)}
def gz(b): return gzip.compress(b, mtime=0)
def write(case, changes, raw=None, missing=None):
    p = os.path.join(d, case); os.mkdir(p)
    for name, (data, z) in good.items():
        if name == missing: continue
        if raw and name in raw:
            with open(os.path.join(p, name + ('.gz' if raw[name][1] else '')), 'wb') as f: f.write(raw[name][0])
            continue
        data, z = changes.get(name, (data, z))
        with open(os.path.join(p, name + ('.gz' if z else '')), 'wb') as f: f.write(gz(data) if z else data)
write('ok', {})
g = gz(img(ti, 256))
write('missing-labels', {}, missing=TL)
write('gz-truncated', {}, raw={TI: (g[:len(g) // 2], True)})
mid = bytearray(g); mid[len(g) // 2] ^= 0xff
write('gz-corrupt', {}, raw={TI: (bytes(mid), True)})
crc = bytearray(g); crc[-8] ^= 0x01
write('gz-bad-crc', {}, raw={TI: (bytes(crc), True)})
write('bad-magic-images', {TI: (img(ti, 256, magic=0x804), True)})
write('bad-magic-labels', {EL: (lab(el, 64, magic=0x803), False)})
write('wrong-dims', {EI: (struct.pack('>IIII', 0x803, 64, 32, 32) + ei[16:16 + 64 * 1024], False)})
write('truncated-images', {EI: (img(ei, 64)[:-100], False)})
write('trailing-bytes', {EI: (img(ei, 64) + b'\0\0\0', False)})
write('truncated-labels', {TL: (lab(tl, 256)[:-1], True)})
write('truncated-header', {EL: (b'\0\0\x08\x01\0\0', False)})
write('label-out-of-range', {TL: (lab(tl, 256)[:-1] + b'\x0a', True)})
write('count-mismatch', {EL: (lab(el, 63), False)})
write('no-images', {EI: (img(ei, 0), False), EL: (lab(el, 0), False)})
# after the gzip member: garbage, or a second member
write('gz-trailing-garbage', {}, raw={TI: (g + b'garbage\n', True)})
write('gz-second-member', {}, raw={TI: (g + gz(b'\0' * 784), True)})
# the bomb: one valid gzip member (right CRC and length) whose header claims
# 60000 images of 28x28 (47 MB) followed by 1 GiB of zeros; raw deflate
# blocks after a full flush do not depend on what came before, so one
# compressed block of 1 MiB of zeros repeats
import zlib
c = zlib.compressobj(9, zlib.DEFLATED, -15)
hdr = struct.pack('>IIII', 0x803, 60000, 28, 28)
head = c.compress(hdr) + c.flush(zlib.Z_FULL_FLUSH)
z = bytes(1 << 20)
blk = c.compress(z) + c.flush(zlib.Z_FULL_FLUSH)
n = 1024
crc = zlib.crc32(hdr)
for i in range(n): crc = zlib.crc32(z, crc)
bomb = (b'\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff' + head + blk * n + c.flush() +
        struct.pack('<II', crc, (16 + n * len(z)) & 0xffffffff))
write('gz-bomb', {TL: (lab(tl, 60000), True)}, raw={TI: (bomb, True)})
EOF

# expect CASE STATUS REGEX cmd...: the exit status, the stderr message, no
# hash on stdout (kept in $dir/stdout)
expect() {
  local name=$1 want=$2 re=$3 out err rc
  shift 3
  out=$("$@" 2>"$dir/stderr"); rc=$?
  printf '%s' "$out" >"$dir/stdout"
  err=$(cat "$dir/stderr")
  if [ $rc -ne "$want" ]; then
    echo "FAIL $name: exit status $rc, expected $want; stderr: $err"; fail=$((fail + 1)); return
  fi
  if ! grep -Eq -- "$re" <<<"$err"; then
    echo "FAIL $name: stderr '$err' does not match /$re/"; fail=$((fail + 1)); return
  fi
  if [ "$want" -ne 0 ] && grep -q 'trained_weights_sha256\|test_logits_sha256' <<<"$out"; then
    echo "FAIL $name: printed hashes despite the error"; fail=$((fail + 1)); return
  fi
  echo "ok   $name: exit $rc: $(head -1 <<<"$err")"; pass=$((pass + 1))
}
run() { "$exe" --batch 32 --quiet "$@"; }
# expect_early: as expect, and the run stopped before any work (nothing on
# stdout, not even init_weights_sha256)
expect_early() {
  local f0=$fail
  expect "$@"
  [ $fail -eq $f0 ] || return
  if [ -s "$dir/stdout" ]; then
    echo "FAIL $1: not refused up front: stdout: $(head -1 "$dir/stdout")"
    fail=$((fail + 1)); pass=$((pass - 1))
  fi
}
# bounded CASE STATUS REGEX cmd...: as expect, under a 1 GiB address-space
# limit (none in a sanitized build), and the peak resident size below 200 MB
cat >"$dir/bounded.py" <<'EOF'
import resource, subprocess, sys
limit = int(sys.argv[1])
def pre():
    if limit: resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
with open(sys.argv[2], 'w') as o, open(sys.argv[3], 'w') as e:
    r = subprocess.run(sys.argv[4:], stdout=o, stderr=e, preexec_fn=pre)
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
EOF
asan=0
grep -q __asan_init "$exe" && asan=1
bounded() {
  local name=$1 want=$2 re=$3 rc kb
  shift 3
  read -r rc kb < <(python3 "$dir/bounded.py" $((asan ? 0 : 1 << 30)) "$dir/stdout" "$dir/stderr" "$@")
  if [ "$rc" -ne "$want" ] || ! grep -Eq -- "$re" "$dir/stderr" || grep -q sha256 "$dir/stdout"; then
    echo "FAIL $name: exit status $rc (expected $want), stderr: $(head -1 "$dir/stderr") (expected /$re/)"
    fail=$((fail + 1)); return
  fi
  if [ "$kb" -ge 204800 ]; then
    echo "FAIL $name: peak resident size $kb kB, above 200 MB"; fail=$((fail + 1)); return
  fi
  echo "ok   $name: exit $rc, peak $((kb / 1024)) MB: $(head -1 "$dir/stderr")"; pass=$((pass + 1))
}

# ---- data ----
expect good-data 0 '^$' run --data "$dir/ok" --steps 2
expect missing-dir 4 'cannot open' run --data "$dir/nonexistent" --steps 2
expect missing-labels 4 'train-labels-idx1-ubyte: cannot open' run --data "$dir/missing-labels" --steps 2
expect gz-truncated 4 'corrupt or truncated gzip' run --data "$dir/gz-truncated" --steps 2
expect gz-corrupt 4 'corrupt or truncated gzip' run --data "$dir/gz-corrupt" --steps 2
expect gz-bad-crc 4 'corrupt or truncated gzip' run --data "$dir/gz-bad-crc" --steps 2
expect bad-magic-images 4 'bad magic 0x00000804' run --data "$dir/bad-magic-images" --steps 2
expect bad-magic-labels 4 'bad magic 0x00000803' run --data "$dir/bad-magic-labels" --steps 2
expect wrong-dims 4 'wrong dimensions 32x32' run --data "$dir/wrong-dims" --steps 2
expect truncated-images 4 'truncated: header announces 64 images' run --data "$dir/truncated-images" --steps 2
expect trailing-bytes 4 'trailing bytes' run --data "$dir/trailing-bytes" --steps 2
expect truncated-labels 4 'truncated: header announces 256 labels' run --data "$dir/truncated-labels" --steps 2
expect truncated-header 4 'truncated IDX header' run --data "$dir/truncated-header" --steps 2
expect label-out-of-range 4 'label 10 of item 255 is out of range' run --data "$dir/label-out-of-range" --steps 2
expect count-mismatch 4 '63 labels for 64 images' run --data "$dir/count-mismatch" --steps 2
expect no-images 4 'holds no image' run --data "$dir/no-images" --steps 2
bounded gz-bomb 4 'train-images-idx3-ubyte.gz: trailing bytes: the header announces 60000 images' \
  "$exe" --batch 32 --quiet --data "$dir/gz-bomb" --steps 2
bounded dev-zero 4 '/dev/zero: bad magic 0x00000000' "$exe" --batch 32 --quiet \
  --train-images /dev/zero --train-labels "$dir/ok/train-labels-idx1-ubyte.gz" \
  --test-images "$dir/ok/t10k-images-idx3-ubyte" --test-labels "$dir/ok/t10k-labels-idx1-ubyte" --steps 2
bounded gz-trailing-garbage 4 'trailing garbage after the gzip member' \
  "$exe" --batch 32 --quiet --data "$dir/gz-trailing-garbage" --steps 2
bounded gz-second-member 4 'trailing garbage after the gzip member' \
  "$exe" --batch 32 --quiet --data "$dir/gz-second-member" --steps 2
expect explicit-paths 0 '^$' run --train-images "$dir/ok/train-images-idx3-ubyte.gz" \
  --train-labels "$dir/ok/train-labels-idx1-ubyte.gz" --test-images "$dir/ok/t10k-images-idx3-ubyte" \
  --test-labels "$dir/ok/t10k-labels-idx1-ubyte" --steps 2
expect explicit-bad-path 4 'cannot open' run --train-images "$dir/ok/nope" \
  --train-labels "$dir/ok/train-labels-idx1-ubyte.gz" --test-images "$dir/ok/t10k-images-idx3-ubyte" \
  --test-labels "$dir/ok/t10k-labels-idx1-ubyte" --steps 2

# ---- usage ----
expect unknown-option 2 'unknown option --bogus' run --bogus
expect zero-batch 2 "bad value '0' for --batch" run --batch 0
expect zero-threads 2 "bad value '0' for --threads" run --threads 0
expect bad-device 2 "bad value 'tpu' for --device" run --device tpu
expect partial-paths 2 'give all four' run --train-images "$dir/ok/train-images-idx3-ubyte.gz"
expect batch-too-big 2 'exceeds the 256 training images' run --data "$dir/ok" --batch 512
expect save-every-alone 2 'save-every needs --save' run --data "$dir/ok" --steps 2 --save-every 1
expect save-every-zero 2 "bad value '0' for --save-every" run --data "$dir/ok" --steps 2 --save-every 0 --save "$dir/x"

# ---- checkpoints: round trips on the small set (8 steps an epoch) ----
ok="--data $dir/ok"
full=$(run $ok --steps 20) || { echo "FAIL: uninterrupted run"; exit 1; }
hashes() { grep -E '^(trained_weights|test_logits)_sha256|^test_accuracy' <<<"$1"; }
roundtrip() { # name stop...
  local name=$1 prev="" out k
  shift
  rm -f "$dir/rt.ckpt"
  for k in "$@"; do
    out=$(run $ok --steps 20 --stop-at "$k" --save "$dir/rt.ckpt" ${prev:+--resume "$dir/rt.ckpt"}) ||
      { echo "FAIL $name: stop at $k"; fail=$((fail + 1)); return; }
    prev=1
  done
  out=$(run $ok --steps 20 --resume "$dir/rt.ckpt") || { echo "FAIL $name: resume"; fail=$((fail + 1)); return; }
  if [ "$(hashes "$out")" = "$(hashes "$full")" ] && [ -n "$(hashes "$full")" ] &&
     [ "$(head -1 <<<"$out")" = "$(head -1 <<<"$full")" ]; then
    echo "ok   resume-$name: equals the uninterrupted run"; pass=$((pass + 1))
  else
    echo "FAIL resume-$name: differs from the uninterrupted run:"; echo "$full"; echo "$out"
    fail=$((fail + 1))
  fi
}
roundtrip epoch-boundary 8
roundtrip mid-epoch 11
roundtrip first-step 1
roundtrip twice 5 13
roundtrip last-step 19
# a changed weight must change the result (the check above can fail)
run $ok --steps 20 --stop-at 11 --save "$dir/c.ckpt" >/dev/null || { echo "FAIL: save"; exit 1; }
python3 - "$dir/c.ckpt" "$dir" <<'EOF'
import hashlib, struct, sys
p, d = sys.argv[1], sys.argv[2]
b = bytearray(open(p, 'rb').read())
body = b[:-32]
T = struct.unpack_from('<I', body, 16)[0]
counts = struct.unpack_from('<%dQ' % T, body, 20)
off = 20 + 8 * T + 8 * 4 + 4 * 2 + 8 * 2
k = struct.unpack_from('<Q', body, off - 16)[0]
par = off + 4 * k
def save(name, data):
    data = bytes(data)
    open(d + '/' + name, 'wb').write(data + hashlib.sha256(data).digest())
m = bytearray(body); m[par + 4 * 7] ^= 0x01           # last bit of conv1.w[7]
save('nudged.ckpt', m)
m = bytearray(body); struct.pack_into('<I', m, 8, 2)    # version 2
save('v2.ckpt', m)
m = bytearray(body); struct.pack_into('<QQ', m, 20, counts[0] - 1, counts[1] + 1)
save('shape.ckpt', m)                                   # same total, other shapes
m = bytearray(body); struct.pack_into('<I', m, 12, 7)   # another model id
save('model.ckpt', m)
m = bytearray(body); struct.pack_into('<Q', m, 20 + 8 * T + 8, 12)  # step 12 but 3 losses
save('epochpos.ckpt', m)
m = bytearray(body); struct.pack_into('<Q', m, off - 8, 3 * 32 + 1)  # 97 correct in 3 x 32
save('correct.ckpt', m)
m = bytearray(body); struct.pack_into('<Q', m, off - 8, 3 * 32)      # 96: the most there can be
save('correct-max.ckpt', m)
open(d + '/flipped.ckpt', 'wb').write(bytes(b[:par + 40]) + bytes([b[par + 40] ^ 0x10]) + bytes(b[par + 41:]))
open(d + '/short.ckpt', 'wb').write(bytes(b[:100]))
open(d + '/cut.ckpt', 'wb').write(bytes(b[:-41]))
open(d + '/long.ckpt', 'wb').write(bytes(b) + b'\0')
open(d + '/magic.ckpt', 'wb').write(b'XPDLCKPT' + bytes(b[8:]))
open(d + '/empty.ckpt', 'wb').write(b'')
EOF
a=$(run $ok --steps 20 --resume "$dir/c.ckpt") b=$(run $ok --steps 20 --resume "$dir/nudged.ckpt")
if [ -n "$(hashes "$a")" ] && [ "$(hashes "$a")" != "$(hashes "$b")" ]; then
  echo "ok   resume-negative-control: one flipped weight bit changes the hashes"; pass=$((pass + 1))
else
  echo "FAIL resume-negative-control: a flipped weight bit went unnoticed"; fail=$((fail + 1))
fi

# ---- a batch that 16 does not divide: micro-batches 16, 16, 16, 2 ----
b50() { "$exe" --quiet --data "$dir/ok" --batch 50 --steps 12 "$@"; }
a=$(b50 --threads 1) b=$(b50 --threads 3) c=$(b50 --threads 4)
if [ -n "$(hashes "$a")" ] && [ "$a" = "$b" ] && [ "$a" = "$c" ]; then
  echo "ok   batch-50: --threads 1, 3, 4 print the same hashes"; pass=$((pass + 1))
else
  echo "FAIL batch-50: --threads 1, 3, 4 differ:"; echo "$a"; echo "$b"; echo "$c"; fail=$((fail + 1))
fi

# ---- --save-every, and a process that dies (REPDL_TRAIN_DIE_AT, hidden) ----
rm -f "$dir/every.ckpt"
REPDL_TRAIN_DIE_AT=7 run $ok --steps 20 --save "$dir/every.ckpt" --save-every 3 --threads 2 \
  >/dev/null 2>"$dir/stderr"
rc=$?
run $ok --steps 20 --stop-at 6 --save "$dir/six.ckpt" >/dev/null
if [ $rc -eq 86 ] && cmp -s "$dir/every.ckpt" "$dir/six.ckpt"; then
  echo "ok   save-every-dies: died after step 7 (exit 86), the checkpoint of step 6 is whole"
  pass=$((pass + 1))
else
  echo "FAIL save-every-dies: exit $rc, or the checkpoint is not that of step 6"; fail=$((fail + 1))
fi
out=$(run $ok --steps 20 --resume "$dir/every.ckpt" --threads 3)
if [ -n "$(hashes "$out")" ] && [ "$(hashes "$out")" = "$(hashes "$full")" ]; then
  echo "ok   save-every-resume: equals the uninterrupted run"; pass=$((pass + 1))
else
  echo "FAIL save-every-resume: differs from the uninterrupted run"; fail=$((fail + 1))
fi

# ---- bad checkpoints ----
expect ckpt-missing 5 'cannot open checkpoint' run $ok --steps 20 --resume "$dir/none.ckpt"
expect ckpt-empty 5 'bad magic or truncated header' run $ok --steps 20 --resume "$dir/empty.ckpt"
expect ckpt-short 5 'truncated checkpoint' run $ok --steps 20 --resume "$dir/short.ckpt"
expect ckpt-cut 5 'truncated checkpoint' run $ok --steps 20 --resume "$dir/cut.ckpt"
expect ckpt-long 5 'checksum mismatch' run $ok --steps 20 --resume "$dir/long.ckpt"
expect ckpt-flipped 5 'checksum mismatch' run $ok --steps 20 --resume "$dir/flipped.ckpt"
expect ckpt-magic 5 'not a train_fmnist checkpoint' run $ok --steps 20 --resume "$dir/magic.ckpt"
expect ckpt-version 5 'format version 2, this program reads version 1' run $ok --steps 20 --resume "$dir/v2.ckpt"
expect ckpt-shape 5 'wrong model shape \(tensor 0 has 149 elements' run $ok --steps 20 --resume "$dir/shape.ckpt"
expect ckpt-model 5 'wrong model \(model id 7' run $ok --steps 20 --resume "$dir/model.ckpt"
expect ckpt-epoch-pos 5 'inconsistent epoch position' run $ok --steps 20 --resume "$dir/epochpos.ckpt"
expect ckpt-other-batch 5 'was written with seed 1, batch 32' "$exe" --quiet --batch 16 $ok --steps 20 --resume "$dir/c.ckpt"
expect ckpt-other-seed 5 'was written with seed 1' run $ok --seed 2 --steps 20 --resume "$dir/c.ckpt"
expect ckpt-past-end 2 'past the 10 steps' run $ok --steps 10 --resume "$dir/c.ckpt"
expect ckpt-correct-range 5 'corrupt checkpoint \(97 correct predictions in 3 steps of batch 32\)' \
  run $ok --steps 20 --resume "$dir/correct.ckpt"
expect ckpt-correct-max 0 '^$' run $ok --steps 20 --resume "$dir/correct-max.ckpt"
expect_early stop-below-ckpt 2 '--stop-at 5 is below the step of the checkpoint .*c\.ckpt \(11\)' \
  run $ok --steps 20 --stop-at 5 --resume "$dir/c.ckpt" --save "$dir/c2.ckpt"
[ -e "$dir/c2.ckpt" ] && { echo "FAIL stop-below-ckpt: wrote a checkpoint"; fail=$((fail + 1)); }
expect stop-at-ckpt 0 '^$' run $ok --steps 20 --stop-at 11 --resume "$dir/c.ckpt"

# ---- atomic save: checked before any work ----
expect_early save-no-dir 1 'cannot create a temporary file' run $ok --steps 3 --save "$dir/nodir/x.ckpt"
mkdir "$dir/isdir"
expect_early save-onto-dir 1 'isdir: is a directory' run $ok --steps 3 --save "$dir/isdir"
expect_early save-dir-slash 1 'is a directory' run $ok --steps 3 --save "$dir/ok/"
# leftovers of killed saves (mkstemp's PATH.tmp. + 6 characters) are removed
# before training; other names are not touched
touch "$dir/lo.ckpt.tmp.Ab12Cd" "$dir/lo.ckpt.tmp.zzzzzz" "$dir/lo.ckpt.tmp.keep" \
  "$dir/lo.ckpt.tmp.Ab12Cd7" "$dir/other.ckpt.tmp.Ab12Cd"
expect save-leftovers-removed 0 'removed .*/lo\.ckpt\.tmp\.(Ab12Cd|zzzzzz), left by an interrupted save' \
  run $ok --steps 3 --save "$dir/lo.ckpt"
left=$(cd "$dir" && ls -d lo.ckpt* other.ckpt* | tr '\n' ' ')
if [ "$left" = "lo.ckpt lo.ckpt.tmp.Ab12Cd7 lo.ckpt.tmp.keep other.ckpt.tmp.Ab12Cd " ]; then
  echo "ok   save-leftovers-kept: $left"; pass=$((pass + 1))
else echo "FAIL save-leftovers: left: $left"; fail=$((fail + 1)); fi
rm -f "$dir/lo.ckpt"* "$dir/other.ckpt"*
if ls "$dir" | grep -q '\.tmp\.'; then
  echo "FAIL save-leftovers: $(ls "$dir" | grep '\.tmp\.')"; fail=$((fail + 1))
else echo "ok   save-leftovers: no temporary file left behind"; pass=$((pass + 1)); fi
cp "$dir/c.ckpt" "$dir/over.ckpt"
run $ok --steps 20 --stop-at 4 --save "$dir/over.ckpt" >/dev/null
if cmp -s "$dir/c.ckpt" "$dir/over.ckpt"; then
  echo "FAIL save-replace: the old checkpoint was not replaced"; fail=$((fail + 1))
else
  expect save-replace 0 '^$' run $ok --steps 20 --resume "$dir/over.ckpt"
fi

# ---- the floating-point environment: a -ffast-math library loaded ----
# gcc and clang link crtfastmath.o into a -ffast-math shared library; its
# constructor sets FTZ/DAZ for the whole process.  The probe program checks
# that the library really does (else the case cannot say anything: SKIP).
cc=$(command -v cc || command -v gcc || command -v clang || true)
if [ -z "$cc" ]; then echo "skip fpenv-ffast-math-preload: no C compiler"
else
  printf 'int repdl_test_fastmath_lib(void) { return 1; }\n' >"$dir/fm.c"
  cat >"$dir/probe.c" <<'EOF'
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
    volatile float tiny = 1e-38f * (float)argc, half = tiny * 0.0625f;
    unsigned u; float h = half; memcpy(&u, &h, 4); (void)argv;
    printf("%s\n", u == 0 ? "flushes" : "keeps");
    return 0;
}
EOF
  if "$cc" -shared -fPIC -O2 -ffast-math -o "$dir/libfm.so" "$dir/fm.c" &&
     "$cc" -O0 -o "$dir/probe" "$dir/probe.c"; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
    if [ "$(LD_PRELOAD="$dir/libfm.so" "$dir/probe")" = flushes ] &&
       [ "$("$dir/probe")" = keeps ]; then
      expect_early fpenv-ffast-math-preload 6 'flushes subnormals to zero .*-ffast-math' \
        env LD_PRELOAD="$dir/libfm.so" "$exe" --batch 32 --quiet $ok --steps 2
      expect_early fpenv-ffast-math-help 6 'flushes subnormals' env LD_PRELOAD="$dir/libfm.so" "$exe" --help
    else
      echo "skip fpenv-ffast-math-preload: $cc's -ffast-math library does not set flush-to-zero here"
    fi
  else echo "FAIL fpenv: could not build the -ffast-math library"; fail=$((fail + 1)); fi
fi

# ---- device ----
# this executable is the build without CUDA: --device cuda must refuse
expect cuda-unavailable 3 'device cuda: this build of train_fmnist has no CUDA support' \
  run $ok --steps 2 --device cuda

echo "bad_input: $pass passed, $fail failed"
[ $fail -eq 0 ]
