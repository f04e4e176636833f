# SPDX-License-Identifier: MIT
"""The CUDA build of repdl._C without a GPU (docs/python.md, "CUDA"), and
the host identity its variance rests on.  The comparisons of CUDA results
with CPU results need a GPU: test_cuda.py."""
import ctypes
import os

import numpy as np
import pytest
import torch

import repdl
from common import assert_bits, canon, data, t2n
from repdl import ops

# every function of repdl._C that takes float32 tensors, each with a CUDA
# form cuda_<name> in the CUDA build (csrc/cuda_ops.cpp): the layer
# operations' bindings with a launcher, as include/repdl/layer_table.h
# registers them, and the others
CUDA_FUNCTIONS = list(repdl._C.layer_cuda_bindings) + [
    'unary', 'unary_backward', 'scale', 'reduce_rows', 'reduce_rows_backward', 'dot', 'gemm',
    'gemm_cr', 'dropout_forward', 'dropout_backward', 'uniform_fill', 'normal_fill', 'sgd_step',
    'adam_step']


def test_var_identity_of_the_cuda_path(clib):
    """The CUDA variance (repdl_cuda_var_rows_f32, cuda/reduce.cu) is the mean m, the stored
    deviations e_i = RN(x_i - m), the canonical dot of e with itself, one
    division by n - ddof: on the host this is repdl_var_f32 (reduce.h's
    REPDL__TERM_SQDEV sum), special values and sizes across leaves
    included."""
    for n, seed, ddof in ((1, 1, 0), (2, 2, 1), (3, 7, 3), (1000, 3, 1), (1024, 4, 0),
                          (5000, 5, 1), (70000, 6, 0)):
        x = t2n(data((n,), seed, specials=3 if n > 100 else 0))
        m = np.float32(clib.full('mean', x))
        with np.errstate(all='ignore'):
            e = (x - m).astype(np.float32)
            d = np.float32(clib.dot(e, e))
            want = np.array([d / np.float32(n - ddof) if n > ddof else np.nan], np.float32)
        assert_bits(np.array([clib.full('var', x, ddof)], np.float32), canon(want),
                    f'var n={n} ddof={ddof}')


def test_cuda_build():
    """In the CUDA build: every tensor function has its CUDA form; a CUDA
    form refuses CPU tensors; repdl._device raises PyTorch's error on two
    devices and refuses other devices; the launchers are linked in
    (repdl_cuda_check_device: REPDL_OK with a GPU, REPDL_ERR_CUDA and the
    CUDA error without one).  scripts/python.sh check-cuda sets
    REPDL_EXPECT_CUDA_BUILD=1: the module must then be the CUDA build."""
    if not repdl.cuda_built:
        assert os.environ.get('REPDL_EXPECT_CUDA_BUILD') != '1', \
            f'REPDL_EXPECT_CUDA_BUILD=1 but {repdl._C.__file__} is the CPU build'
        pytest.skip('repdl._C is the CPU build (repdl.cuda_built is False): the CUDA build is '
                    'checked by scripts/python.sh check-cuda (test python-cuda-build)')
    assert repdl._C.cuda_built is True
    missing = [f for f in CUDA_FUNCTIONS if not callable(getattr(repdl._C, 'cuda_' + f, None))]
    assert not missing, f'no cuda_ form: {missing}'
    assert sorted(repdl._C.cuda_forms) == sorted(CUDA_FUNCTIONS)
    assert all(repdl._C.cuda_forms[f] is getattr(repdl._C, 'cuda_' + f) for f in CUDA_FUNCTIONS)
    with pytest.raises(RuntimeError, match='CUDA function of repdl._C got a tensor on cpu'):
        repdl._C.cuda_unary('exp', torch.ones(3))
    with pytest.raises(RuntimeError, match='Expected all tensors to be on the same device'):
        repdl._device.C.dot(torch.ones(3), torch.ones(3, device='meta'))
    with pytest.raises(RuntimeError, match='CPU and CUDA tensors only'):
        ops.exp(torch.ones(3, device='meta'))
    lib = ctypes.CDLL(repdl._C.__file__)
    lib.repdl_py_cuda_error_string.restype = ctypes.c_char_p
    st = lib.repdl_cuda_check_device()
    if torch.cuda.is_available():
        assert st == 0
    else:
        err = lib.repdl_cuda_last_cuda_error()
        msg = lib.repdl_py_cuda_error_string(err).decode()
        assert st == -4 and err != 0, (st, err, msg)
