# SPDX-License-Identifier: MIT
"""repdl from PyTorch: bitwise-reproducible operations with autograd,
drop-in modules, model conversion and optimizers (docs/python.md).

    import torch, repdl
    model = repdl.from_torch_module(torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()))
    y = model(torch.randn(8, 4))            # repdl's canonical gemm and relu
    y.sum().backward()                      # repdl's backward passes

Every number comes from repdl's C99 functions (include/repdl/*.h),
compiled into the extension repdl._C: the same bits as the C library on
every machine and at every torch.set_num_threads.  float32 CPU tensors, and
CUDA tensors when repdl._C is the CUDA build (repdl.cuda_built: repdl's
CUDA launchers, the same bits; docs/python.md, "CUDA").
"""
# Refuse a floating-point environment that would change the bits (a
# library built with -ffast-math loaded into the process) before anything
# else: repdl/_fpenv.py.
from ._fpenv import check as check_fpenv, FloatingPointEnvironmentError
check_fpenv()
from . import _C
from ._device import cuda_built, cuda_available
from . import random
from . import ops
from . import nn
from . import optim
from . import distributed
from .convert import from_torch_module, UnsupportedModuleError
from .mode import mode, UnsupportedOperationError

__version__ = '%d.%d.%d' % tuple(_C.version)
__all__ = ['check_fpenv', 'FloatingPointEnvironmentError', 'ops', 'nn', 'optim', 'random', 'distributed', 'from_torch_module',
           'UnsupportedModuleError', 'mode', 'UnsupportedOperationError', 'cuda_built', 'cuda_available']
