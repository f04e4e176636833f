# SPDX-License-Identifier: MIT
"""pytest configuration of the repdl Python tests (docs/python.md).

The reference for every bit is the C library reached by a second,
independent path: ctypes on librepdl.so (src/librepdl.c, one C99
translation unit, exported symbols), never the extension repdl._C (the
headers compiled as C++14 through torch.utils.cpp_extension).  The library
is $REPDL_LIB, else build/librepdl.so of the meson build, else compiled here
from src/librepdl.c with cc.
"""
import os
import shutil
import subprocess

import pytest

torch = pytest.importorskip('torch', reason='PyTorch (python3-torch) is not installed')

from clib import CLib  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope='session')
def clib(tmp_path_factory):
    path = os.environ.get('REPDL_LIB') or os.path.join(ROOT, 'build', 'librepdl.so')
    if not os.path.exists(path):
        cc = shutil.which('cc') or shutil.which('gcc')
        if cc is None:
            pytest.skip('no librepdl.so (meson build) and no C compiler to build one')
        path = str(tmp_path_factory.mktemp('lib') / 'librepdl.so')
        subprocess.run([cc, '-std=c99', '-O2', '-shared', '-fPIC', '-pthread',
                        '-I' + os.path.join(ROOT, 'include'),
                        os.path.join(ROOT, 'src', 'librepdl.c'), '-o', path, '-lm'], check=True)
    return CLib(path)


@pytest.fixture(autouse=True)
def _threads():
    n = torch.get_num_threads()
    yield
    torch.set_num_threads(n)
