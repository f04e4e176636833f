# SPDX-License-Identifier: MIT
"""The documented install path (docs/python.md, "Build and install"): a
wheel built from python/ by pip, installed into a fresh venv that sees the
system's torch, imported from outside the checkout, computing the C
library's bits.  Slow (the wheel compiles the extension: about 3 minutes
on one core), so it runs only with REPDL_TEST_INSTALL=1 and is reported as
skipped otherwise."""
import glob
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

pytestmark = pytest.mark.skipif(os.environ.get('REPDL_TEST_INSTALL') != '1',
                                reason='the wheel install test builds the extension (minutes): '
                                       'REPDL_TEST_INSTALL=1 runs it')

CHECK = r'''
import os, sys, hashlib, torch, repdl
assert repdl.__file__.startswith(sys.prefix), repdl.__file__
torch.manual_seed(0)
m = repdl.from_torch_module(torch.nn.Sequential(torch.nn.Linear(6, 4), torch.nn.GELU()))
x = torch.randn(5, 6)
y = m(x)
y.sum().backward()
print(repdl.__file__)
print(hashlib.sha256(y.detach().numpy().tobytes() + m[0].weight.grad.numpy().tobytes()).hexdigest())
'''


def test_wheel_in_venv(tmp_path):
    wheels = tmp_path / 'dist'
    r = subprocess.run([sys.executable, '-m', 'pip', 'wheel', '--no-build-isolation', '--no-deps',
                        '-w', str(wheels), os.path.join(ROOT, 'python')],
                       capture_output=True, text=True, env=dict(os.environ, MAX_JOBS='1'))
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    (whl,) = glob.glob(str(wheels / 'repdl-*.whl'))
    venv = tmp_path / 'env'
    subprocess.run([sys.executable, '-m', 'venv', '--system-site-packages', str(venv)], check=True)
    py = str(venv / 'bin' / 'python')
    r = subprocess.run([py, '-m', 'pip', 'install', '--no-deps', '--no-index', whl],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    # outside the checkout, without PYTHONPATH: the venv's repdl
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
    got = subprocess.run([py, '-c', CHECK], capture_output=True, text=True, cwd=str(tmp_path),
                         env=env)
    assert got.returncode == 0, got.stderr[-3000:]
    path, h = got.stdout.split()
    assert path.startswith(str(venv)), path
    # the same bits as this process's repdl (the checkout's build)
    here = subprocess.run([sys.executable, '-c', CHECK.replace(
        "assert repdl.__file__.startswith(sys.prefix), repdl.__file__", '')],
        capture_output=True, text=True)
    assert here.returncode == 0, here.stderr[-3000:]
    assert here.stdout.split()[1] == h
