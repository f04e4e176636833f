# SPDX-License-Identifier: MIT
"""The package refuses a floating-point environment that would change its
bits (repdl/_fpenv.py; docs/python.md, "Floating-point environment").

A library built with -ffast-math (tests/fpenv/fastmath_lib.c, compiled
here) sets flush-to-zero and denormals-are-zero for the whole process when
it is loaded.  Loaded before `import repdl` (LD_PRELOAD), the import
refuses with a message naming the cause; loaded after (ctypes.CDLL with
RTLD_GLOBAL), every operation refuses (REPDL_ERR_FPENV as a RuntimeError)
and repdl.check_fpenv() raises.  Each case runs in a subprocess, so this
process keeps the IEEE default environment."""
import ctypes
import ctypes.util
import os
import platform
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

import repdl  # noqa: E402  (the package under test: its directory goes to the subprocesses)

PYDIR = os.path.dirname(os.path.dirname(os.path.abspath(repdl.__file__)))
PROBE = "h = float.fromhex; print(h('0x1p-1022') * h('0x1p-1') == 0.0)"


@pytest.fixture(scope='module')
def fastmath_lib(tmp_path_factory):
    cc = shutil.which('gcc') or shutil.which('cc')
    if cc is None:
        pytest.skip('no C compiler to build the -ffast-math library')
    path = str(tmp_path_factory.mktemp('fastmath') / 'libfastmath.so')
    args = [cc, '-shared', '-fPIC', '-ffast-math',
            os.path.join(ROOT, 'tests', 'fpenv', 'fastmath_lib.c'), '-o', path]
    crt = subprocess.run([cc, '-print-file-name=crtfastmath.o'], capture_output=True, text=True)
    if crt.returncode == 0 and os.path.isabs(crt.stdout.strip()):
        args.insert(-2, crt.stdout.strip())  # gcc >= 13 no longer adds it to a -shared link
    subprocess.run(args, check=True)
    # the library must really flush, else the cases below would prove nothing
    r = run_py(PROBE, path)
    assert r.stdout.strip() == 'True', 'the -ffast-math library does not set flush-to-zero: ' + r.stderr
    return path


def run_py(code, preload=None):
    env = dict(os.environ)
    env['PYTHONPATH'] = PYDIR + os.pathsep + env.get('PYTHONPATH', '')
    env.pop('LD_PRELOAD', None)
    if preload:
        env['LD_PRELOAD'] = preload
    return subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=env,
                          cwd=PYDIR, timeout=300)


def test_default_environment_accepted():
    from repdl import _fpenv
    assert _fpenv.problems() == []
    r = run_py('import repdl, torch; print(repdl.ops.exp(torch.tensor([-100.0])).item() > 0)')
    assert r.returncode == 0 and r.stdout.strip() == 'True', r.stderr


def test_import_refused_under_preloaded_fastmath_library(fastmath_lib):
    r = run_py('import repdl', fastmath_lib)
    assert r.returncode != 0
    assert 'FloatingPointEnvironmentError' in r.stderr, r.stderr
    for cause in ('flush-to-zero', 'denormals-are-zero', '-ffast-math', 'LD_PRELOAD'):
        assert cause in r.stderr, (cause, r.stderr)


def test_operations_refused_after_fastmath_library_loaded(fastmath_lib):
    code = '\n'.join([
        'import ctypes, torch, repdl',
        'x = torch.tensor([-100.0, 1e-40])',
        'y0 = repdl.ops.exp(x)',
        'ctypes.CDLL(%r, mode=ctypes.RTLD_GLOBAL)' % fastmath_lib,
        'out = []',
        'for name, f in [("exp", lambda: repdl.ops.exp(x)), ("relu", lambda: repdl.ops.relu(x)),',
        '                ("sum", lambda: repdl.ops.sum(x)), ("check", repdl.check_fpenv)]:',
        '    try:',
        '        f()',
        '        out.append(name + ": not refused")',
        '    except RuntimeError as e:',
        '        out.append(name + ": " + ("fast-math" in str(e) and "refused" or str(e)))',
        'print(";".join(out))',
    ])
    r = run_py(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == 'exp: refused;relu: refused;sum: refused;check: refused', r.stdout


@pytest.mark.skipif(platform.machine() not in ('x86_64', 'AMD64'),
                    reason="fesetround's mode values are x86's here")
def test_each_rounding_mode_named():
    from repdl import _fpenv
    libm = ctypes.CDLL(ctypes.util.find_library('m'))
    for mode in (0x400, 0x800, 0xc00):  # FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO
        assert libm.fesetround(mode) == 0
        try:
            found = _fpenv.problems()
        finally:
            libm.fesetround(0)
        assert found == ['a rounding mode other than round-to-nearest'], (hex(mode), found)
    assert _fpenv.problems() == []
