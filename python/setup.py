# SPDX-License-Identifier: MIT
"""python/setup.py: builds the Python package repdl and its extension
repdl._C (repdl/csrc/repdl_ext.cpp) against the headers of this repository
(../include), with torch.utils.cpp_extension (docs/python.md).

    python3 setup.py build_ext --inplace     (what scripts/python.sh runs)
"""
import os

from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

here = os.path.dirname(os.path.abspath(__file__))
include = os.path.join(os.path.dirname(here), 'include')

setup(
    name='repdl',
    version='0.1.0',
    description='repdl from PyTorch: bitwise-reproducible ops, modules and optimizers',
    packages=['repdl'],
    ext_modules=[
        CppExtension(
            'repdl._C',
            ['repdl/csrc/repdl_ext.cpp'],
            include_dirs=[include],
            # -ffp-contract=off: the few formulas of the extension itself
            # are never fused into FMAs (the headers keep their own order
            # whatever the flags, config.h).
            extra_compile_args=['-O2', '-ffp-contract=off', '-fno-fast-math'],
            extra_link_args=['-pthread'],
        )
    ],
    cmdclass={'build_ext': BuildExtension},
)
