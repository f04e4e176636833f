# SPDX-License-Identifier: MIT
"""tests/oracle/test_oracle.py CASE TOOL PLANTED_SO LLVM_SO LIBREPDL_SO

Runs repdl-oracle (reference/oracle_tool.c) and checks its exit status,
counts and reported inputs (tests/oracle/meson.build lists the cases).
LLVM_SO or LIBREPDL_SO may be '' (not built here): their case skips (77).
"""
import ctypes
import re
import struct
import subprocess
import sys

CASE, TOOL, PLANTED, LLVM, LIBREPDL = sys.argv[1:6]
failures = []


def run(*args):
    p = subprocess.run([TOOL, '--quiet'] + list(args), capture_output=True, text=True, timeout=100)
    return p.returncode, p.stdout, p.stderr


def summary(out):
    """(wrong, wrong_class, max_ulps, max_ulps_input or None, checked) of the summary line."""
    m = re.search(r'(\d+) inputs .*: (\d+) incorrectly rounded \((\d+) of the wrong class\), '
                  r'largest error (\d+) ulps?(?: at x = \S+ \(0x([0-9a-f]+)\))?', out)
    if not m:
        return None
    return (int(m.group(2)), int(m.group(3)), int(m.group(4)),
            int(m.group(5), 16) if m.group(5) else None, int(m.group(1)))


def failures_listed(out):
    """[(input, got, want, ulps or 'class')] of the 'x = ...' lines."""
    rows = []
    for m in re.finditer(r'x = \S+ \(0x([0-9a-f]+)\): got \S+ \(0x([0-9a-f]+)\), correctly rounded \S+ '
                         r'\(0x([0-9a-f]+)\) \((?:(\d+) ulps?|(wrong class))\)', out):
        rows.append((int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16),
                     int(m.group(4)) if m.group(4) else 'class'))
    return rows


def check(cond, what, out=''):
    print(('ok    ' if cond else 'FAIL  ') + what)
    if not cond:
        failures.append(what)
        if out:
            print(out)


def f32(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]


if CASE == 'planted':
    # exp, +1 ulp at 0x3e8a3d71 only (planted.c): found, and nothing else
    rc, out, err = run('--lib', PLANTED, '--symbol', 'planted_expf', '--function', 'exp',
                       '--range', '3e000000:3f000000', '--threads', '2')
    s, rows = summary(out), failures_listed(out)
    check(rc == 1, 'planted exp: exit 1 (got %d)' % rc, out + err)
    check(s is not None and s[:4] == (1, 0, 1, 0x3e8a3d71) and s[4] == 0x1000001,
          'planted exp: 1 wrong of 2^24 + 1, 1 ulp at 0x3e8a3d71', out)
    check(len(rows) == 1 and rows[0][0] == 0x3e8a3d71 and rows[0][1] == rows[0][2] + 1 and rows[0][3] == 1,
          'planted exp: the listed failure is the planted input, got = correctly rounded + 1', out)
    # the same range without the planted input: clean, exit 0
    rc, out, err = run('--lib', PLANTED, '--symbol', 'planted_expf', '--function', 'exp',
                       '--range', '3e8a3d72:3f000000', '--threads', '2')
    check(rc == 0 and summary(out)[:3] == (0, 0, 0), 'planted exp: range past the input: exit 0, 0 wrong', out)
    # NaN where a number is correct: one of the wrong class, no ulp count
    rc, out, err = run('--lib', PLANTED, '--symbol', 'planted_expf_nan', '--function', 'exp',
                       '--range', '3f9d7000:3f9d7fff')
    rows = failures_listed(out)
    check(rc == 1 and summary(out)[:3] == (1, 1, 0) and rows == [(0x3f9d70a4, 0x7fc00000, rows[0][2], 'class')],
          'planted NaN: 1 wrong of the wrong class at 0x3f9d70a4, largest error 0', out)
    # +0 for sqrt(-0) = -0: a zero of the wrong sign; the NaNs of sqrt(x < 0) are right
    rc, out, err = run('--lib', PLANTED, '--symbol', 'planted_sqrtf_zero', '--function', 'sqrt',
                       '--range', '80000000:80100000')
    rows = failures_listed(out)
    check(rc == 1 and summary(out)[:3] == (1, 1, 0) and rows == [(0x80000000, 0, 0x80000000, 'class')],
          'planted signed zero: sqrt(-0) = +0 reported as the wrong class', out)
    # +inf for log(2) = 0x3f317218 (the binary32 nearest 0.693147180559945...):
    # 0x7f800000 - 0x3f317218 ulps, the ordered distance
    rc, out, err = run('--lib', PLANTED, '--symbol', 'planted_logf_inf', '--function', 'log',
                       '--range', '3ff00000:40100000')
    check(rc == 1 and summary(out)[:4] == (1, 0, 0x7f800000 - 0x3f317218, 0x40000000),
          'planted inf: log(2) = +inf is %d ulps' % (0x7f800000 - 0x3f317218), out)
    # bfloat16: -1 ulp at 0x3f40 among all 2^16 inputs
    rc, out, err = run('--lib', PLANTED, '--symbol', 'planted_exp_bf16', '--function', 'exp', '--format', 'bf16')
    rows = failures_listed(out)
    check(rc == 1 and summary(out)[:4] == (1, 0, 1, 0x3f40) and len(rows) == 1 and rows[0][1] + 1 == rows[0][2],
          'planted bf16: 1 wrong of 65536, at 0x3f40, one ulp low', out)
    # two errors: --show 1 lists the first by input, the largest error is the other
    rc, out, err = run('--lib', PLANTED, '--symbol', 'planted_sin_twice', '--function', 'sin',
                       '--range', '3f000000:3f7fffff', '--show', '1', '--threads', '2')
    rows = failures_listed(out)
    check(rc == 1 and summary(out)[:4] == (2, 0, 2, 0x3f400000) and len(rows) == 1 and rows[0][0] == 0x3f000000,
          'planted sin: 2 wrong, the first listed 0x3f000000, the largest 2 ulps at 0x3f400000', out)

elif CASE == 'glibc':
    # glibc's expf(0x1.fefe02p-16): exp(x) = 1.0000304579734725824...,
    # 0.49999994 ulp above 0x1.0001fep+0 (mpmath at 200 bits, docs/oracle.md),
    # so 0x3f8000ff is correct and glibc 2.36's 0x3f800100 is one ulp high.
    libm = ctypes.CDLL('libm.so.6')
    libm.expf.restype, libm.expf.argtypes = ctypes.c_float, [ctypes.c_float]
    x = float.fromhex('0x1.fefe02p-16')
    if f32(libm.expf(x)) != 0x3f800100:
        print('SKIP: this libm gives expf(0x1.fefe02p-16) = 0x%08x, not the known 0x3f800100'
              % f32(libm.expf(x)))
        sys.exit(77)
    rc, out, err = run('--lib', 'libm.so.6', '--symbol', 'expf', '--function', 'exp',
                       '--range', '37ff7000:37ff7fff')
    rows = failures_listed(out)
    check(rc == 1 and (0x37ff7f01, 0x3f800100, 0x3f8000ff, 1) in rows,
          'glibc expf: 0x1.fefe02p-16 reported, got 0x3f800100, correctly rounded 0x3f8000ff', out + err)
    # glibc's sqrtf of a negative number is -nan (0xffc00000), not the
    # canonical 0x7fc00000: any NaN is right where NaN is correct
    libm.sqrtf.restype, libm.sqrtf.argtypes = ctypes.c_float, [ctypes.c_float]
    check(f32(libm.sqrtf(-1.0)) == 0xffc00000, 'premise: glibc sqrtf(-1) = 0xffc00000')
    rc, out, err = run('--lib', 'libm.so.6', '--symbol', 'sqrtf', '--function', 'sqrt',
                       '--range', 'bf800000:bf8fffff')
    check(rc == 0 and summary(out)[:2] == (0, 0), 'glibc sqrtf of negatives: -nan accepted, 0 wrong', out + err)

elif CASE == 'llvmlibc':
    if not LLVM:
        print('SKIP: no libllvmlibc.a on this machine')
        sys.exit(77)
    # functions with 0 wrong on all 2^32 inputs in docs/oracle.md's table;
    # a 1/65521 sample of every input each
    for f in ['exp', 'log', 'exp2', 'log2', 'expm1', 'log1p', 'sqrt', 'rsqrt', 'sin', 'cos', 'tanh', 'erf']:
        rc, out, err = run('--lib', LLVM, '--symbol', 'llvmlibc_%sf' % f, '--function', f, '--stride', '65521')
        s = summary(out)
        check(rc == 0 and s is not None and s[0] == 0 and s[4] == 0xffffffff // 65521 + 1,
              'llvmlibc %sf: 65551 inputs, 0 wrong' % f, out + err)

elif CASE == 'repdl':
    if not LIBREPDL:
        print('SKIP: librepdl.so not built (meson option library)')
        sys.exit(77)
    funcs = ['exp', 'log', 'tanh', 'sqrt', 'sigmoid', 'exp2', 'expm1', 'log2', 'log1p', 'erf', 'silu',
             'softplus', 'gelu', 'gelu_tanh', 'rsqrt', 'sin', 'cos']
    for f in funcs:
        rc, out, err = run('--lib', LIBREPDL, '--symbol', 'repdl_%s_f32' % f, '--function', f, '--stride', '65521')
        check(rc == 0 and summary(out)[0] == 0, 'repdl_%s_f32: 65551 inputs, 0 wrong' % f, out + err)
    for fmt in ['bf16', 'f16']:
        for f in funcs:
            rc, out, err = run('--lib', LIBREPDL, '--symbol', 'repdl_%s_%s' % (f, fmt), '--function', f,
                               '--format', fmt, '--stride', '7')
            check(rc == 0 and summary(out)[0] == 0, 'repdl_%s_%s: 1/7 of 65536 inputs, 0 wrong' % (f, fmt),
                  out + err)

elif CASE == 'bad-input':
    def bad(args, code, msg, what):
        rc, out, err = run(*args)
        check(rc == code and msg in err, '%s: exit %d and "%s"' % (what, code, msg),
              'exit %d\n%s%s' % (rc, out, err))
    bad(['--lib', '/nonexistent/libm.so', '--symbol', 'expf', '--function', 'exp'], 3,
        "cannot load library '/nonexistent/libm.so'", 'missing library')
    bad(['--lib', 'libm.so.6', '--symbol', 'no_such_expf', '--function', 'exp'], 3,
        "no symbol 'no_such_expf'", 'missing symbol')
    bad(['--lib', 'libm.so.6', '--symbol', 'expf', '--function', 'expo'], 2,
        "unknown function 'expo'", 'unknown function')
    # exp is double exp(double): called as float(float) it returns the low
    # bits of a double; logf is another function
    bad(['--lib', 'libm.so.6', '--symbol', 'exp', '--function', 'exp', '--range', '3f800000:3f80ffff'], 3,
        'does not behave like exp', 'another signature (double exp)')
    bad(['--lib', 'libm.so.6', '--symbol', 'logf', '--function', 'exp', '--range', '3f800000:3f80ffff'], 3,
        'does not behave like exp', 'another function (logf as exp)')
    bad(['--lib', 'libm.so.6', '--symbol', 'expf', '--function', 'exp', '--format', 'bf16', '--range', '3f80:3fff'], 3,
        'does not behave like exp', 'a binary32 function as bf16')
    bad(['--symbol', 'expf', '--function', 'exp'], 2, 'are required', 'no --lib')
    bad(['--lib', 'libm.so.6', '--symbol', 'expf', '--function', 'exp', '--range', '10:1'], 2,
        '--range', 'LO > HI')
    bad(['--lib', 'libm.so.6', '--symbol', 'expf', '--function', 'exp', '--range', '0:1ffffffff'], 2,
        '--range', 'HI beyond binary32')
    bad(['--lib', 'libm.so.6', '--symbol', 'expf', '--function', 'exp', '--format', 'f16', '--range', '0:10000'],
        2, '--range', 'HI beyond f16')
    bad(['--lib', 'libm.so.6', '--symbol', 'expf', '--function', 'exp', '--range', '12'], 2,
        '--range', 'a range without a colon')
    bad(['--lib', 'libm.so.6', '--symbol', 'expf', '--function', 'exp', '--stride', '0'], 2,
        '--stride', 'stride 0')
    bad(['--lib', 'libm.so.6', '--symbol', 'expf', '--function', 'exp', '--format', 'f64'], 2,
        '--format', 'unknown format')
    bad(['--lib', 'libm.so.6', '--symbol', 'expf', '--function', 'exp', '--frobnicate', '1'], 2,
        'unknown option --frobnicate', 'unknown option')
    # --no-probe runs the check anyway: double exp as binary32 is wrong almost everywhere
    rc, out, err = run('--lib', 'libm.so.6', '--symbol', 'exp', '--function', 'exp', '--no-probe',
                       '--range', '3f800000:3f8000ff')
    s = summary(out)
    check(rc == 1 and s is not None and s[0] >= 200, '--no-probe: the mismatched signature checked: exit 1, '
          '%s of 256 wrong' % (s[0] if s else '?'), out + err)
else:
    print('unknown case ' + CASE)
    sys.exit(2)

print('%d failure(s)' % len(failures))
sys.exit(1 if failures else 0)
