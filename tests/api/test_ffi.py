#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/api/test_ffi.py LIBREPDL FFI_REF INCLUDE_DIR NM

The linkable build (src/librepdl.c) seen from outside C:
  1. the dynamic symbols of librepdl.so are exactly the public functions,
     i.e. the names the headers declare REPDL_API / REPDL_HOST_API
     (read from the headers here, not listed by hand), and no private
     repdl__ helper;
  2. Python's ctypes calls a sample of them and gets the bits that the
     header-only program FFI_REF prints for the same calls.
"""
import ctypes, glob, os, re, struct, subprocess, sys

lib_path, ref, inc, nm = sys.argv[1:5]
fails = 0

declared = set()
for h in glob.glob(os.path.join(inc, 'repdl', '*.h')):
    if os.path.basename(h) == 'mpi.h':
        continue  # needs MPI: not in librepdl (docs/mpi.md)
    declared |= set(re.findall(r'\bREPDL(?:_HOST)?_API\b[^;{(]*?\b(repdl_[a-z0-9][a-z0-9_]*)\s*\(',
                               open(h).read()))
declared.discard('repdl_cuda')  # none: the CUDA launchers are not in librepdl
declared.discard('repdl_dp_step_mpi_f32')  # data_parallel.h's REPDL_DP_MPI part: needs MPI
out = subprocess.run([nm, '-D', '--defined-only', lib_path], capture_output=True, text=True,
                     check=True).stdout
exported = {l.split()[-1] for l in out.splitlines() if l.split()[-1].startswith('repdl')}
if exported != declared:
    print('FAIL exported vs declared: missing', sorted(declared - exported)[:10],
          'extra', sorted(exported - declared)[:10])
    fails += 1
else:
    print(f'ok: {len(exported)} symbols exported, exactly the REPDL_API functions')

lib = ctypes.CDLL(lib_path)
f32, sz, P = ctypes.c_float, ctypes.c_size_t, ctypes.POINTER(ctypes.c_float)
for name in ('repdl_exp_f32', 'repdl_log_f32', 'repdl_tanh_f32', 'repdl_sigmoid_f32'):
    getattr(lib, name).restype = f32
    getattr(lib, name).argtypes = [f32]
lib.repdl_sum_f32.restype = f32
lib.repdl_sum_f32.argtypes = [sz, P]
lib.repdl_dot_f32.restype = f32
lib.repdl_dot_f32.argtypes = [sz, P, P]
lib.repdl_softmax_f32.restype = ctypes.c_int  # repdl_status
lib.repdl_softmax_f32.argtypes = [sz, sz, P, P]

def bits(x):
    return '%08x' % struct.unpack('<I', struct.pack('<f', x))[0]

def val(u):
    return struct.unpack('<f', struct.pack('<I', u))[0]

got = []
for i in range(65536):
    x = val((i * 65537) & 0xffffffff)
    got.append(' '.join(bits(getattr(lib, n)(x)) for n in
                        ('repdl_exp_f32', 'repdl_log_f32', 'repdl_tanh_f32', 'repdl_sigmoid_f32')))
n = 100003
v = (ctypes.c_float * n)(*[((i * 2654435761) % 2001 - 1000) / 64.0 for i in range(n)])
w = (ctypes.c_float * n)(*[((i * 40503) % 999 - 499) / 32.0 for i in range(n)])
got.append(bits(lib.repdl_sum_f32(n, v)) + ' ' + bits(lib.repdl_dot_f32(n, v, w)))
sm = (ctypes.c_float * (12 * 37))(*[v[i * 7] for i in range(12 * 37)])
sy = (ctypes.c_float * (12 * 37))()
if lib.repdl_softmax_f32(12, 37, sm, sy) != 0:
    print('FAIL softmax through librepdl.so: status not REPDL_OK')
    fails += 1
if lib.repdl_softmax_f32(1 << 40, 1 << 40, sm, sy) != -2:
    print('FAIL softmax of 2^80 elements: status not REPDL_ERR_OVERFLOW')
    fails += 1
got += [bits(sy[i]) for i in range(12 * 37)]

want = subprocess.run([ref], capture_output=True, text=True, check=True).stdout.split('\n')[:-1]
bad = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
if len(got) != len(want) or bad:
    print(f'FAIL ctypes vs header-only: {len(bad)} of {len(want)} lines differ, first {bad[:5]}')
    fails += 1
else:
    print(f'ok: ctypes through librepdl.so == header-only, {len(want)} lines '
          f'({65536 * 4} function values, sum, dot, softmax)')
sys.exit(1 if fails else 0)
