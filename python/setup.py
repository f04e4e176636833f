# SPDX-License-Identifier: MIT
"""python/setup.py: builds the Python package repdl and its extension
repdl._C (repdl/csrc/repdl_ext.cpp) against the headers of this repository
(../include), with torch.utils.cpp_extension (docs/python.md).

    python3 setup.py build_ext --inplace     (what scripts/python.sh runs)

The CUDA build (docs/python.md, "CUDA") adds repdl/csrc/cuda_ops.cpp (the
cuda_<name> functions, REPDL_WITH_CUDA) and links repdl's CUDA launchers
(../cuda/*.cu) and repdl/csrc/cuda_glue.cu, compiled here by nvcc with the
flags of cuda/meson.build.  Environment:
    REPDL_TORCH_CUDA   1: the CUDA build (nvcc required; with a torch that
                       has no CUDA, e.g. Debian's, it only compiles and
                       links: the compile check); 0: the CPU build; unset:
                       the CUDA build when torch was built with CUDA
                       (torch.version.cuda) and nvcc is found, else the CPU
                       build
    REPDL_CUDA_ARCHS   the SM architectures, "80" or "75;80;90" (default:
                       the sm_archs option of ../meson_options.txt)
    NVCC               nvcc (default: torch's CUDA_HOME/bin/nvcc, nvcc in
                       PATH, /usr/local/cuda/bin/nvcc)
    MAX_JOBS           parallel compile jobs (torch's variable)
    REPDL_CUDA_PREBUILT  a librepdl_cuda.a that meson built (cuda/meson.build,
                       the same sources and nvcc flags, -fPIC): linked
                       instead of compiling ../cuda/*.cu again (the CI
                       compile check, tests/python/meson.build); only
                       cuda_glue.cu is compiled here then
"""
import glob
import os
import re
import shlex
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import torch
from setuptools import setup
from torch.utils import cpp_extension
from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
include = os.path.join(root, 'include')
csrc = os.path.join(here, 'repdl', 'csrc')

# -ffp-contract=off: every number comes from the headers, which keep their
# own order whatever the flags (config.h), except repdl.mode's AdamW kernel
# (repdl/csrc/adamw_torch.h), whose roundings, one a statement, rely on it.  -fopenmp: at::parallel_for (the elementwise ops) runs its
# ranges on torch's OpenMP threads only in code compiled with it.  -O3, not Python's -O2: gcc 12 at -O2 vectorizes only loops
# that need no run-time alias check, so the array loops of the headers
# (whose output may be the input: in place is allowed) stay scalar and
# branchy there; relu on 2^20 random-sign floats took 5.4 ms at -O2 and
# 0.18 ms at -O3 (docs/bench-python.md).  The bits are the same at every
# optimisation level (the headers' claim, tested by the build matrix).
CXX_ARGS = ['-O3', '-ffp-contract=off', '-fno-fast-math', '-fopenmp']


def find_nvcc():
    for c in (os.environ.get('NVCC'),
              cpp_extension.CUDA_HOME and os.path.join(cpp_extension.CUDA_HOME, 'bin', 'nvcc'),
              shutil.which('nvcc'), '/usr/local/cuda/bin/nvcc'):
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def cuda_wanted(nvcc):
    v = os.environ.get('REPDL_TORCH_CUDA', '')
    if v not in ('', '0', '1'):
        raise SystemExit(f'repdl: REPDL_TORCH_CUDA must be 0, 1 or unset, not {v!r}')
    if v == '1' and nvcc is None:
        raise SystemExit('repdl: REPDL_TORCH_CUDA=1 but no nvcc ($NVCC, CUDA_HOME/bin, PATH, '
                         '/usr/local/cuda/bin)')
    return v == '1' or (v == '' and torch.version.cuda is not None and nvcc is not None)


def sm_archs():
    """REPDL_CUDA_ARCHS, else the default of meson's sm_archs option."""
    v = os.environ.get('REPDL_CUDA_ARCHS')
    if not v:
        with open(os.path.join(root, 'meson_options.txt')) as f:
            m = re.search(r"option\('sm_archs'[^)]*value\s*:\s*'([^']*)'", f.read())
        if not m:
            raise SystemExit('repdl: no sm_archs option in meson_options.txt')
        v = m.group(1)
    archs = [a.strip() for a in v.split(';') if a.strip()]
    if not archs or not all(a.isdigit() for a in archs):
        raise SystemExit(f'repdl: bad architecture list {v!r} (e.g. "75;80;86;89;90")')
    return archs


def nvcc_command(nvcc, archs):
    """cuda/meson.build's nvcc_base and arch flags: SASS for each
    architecture, PTX of the last (JIT on newer GPUs); nvcc's defaults kept
    (--fmad=true, -ftz=false, -prec-div=true, -prec-sqrt=true)."""
    cmd = [nvcc, '-std=c++17', '-O3', '-I' + include, '-I' + os.path.join(root, 'cuda'),
           '-Xcompiler=-fPIC,-Wall,-Wextra']
    cmd += ['-gencode=arch=compute_%s,code=sm_%s' % (a, a) for a in archs]
    cmd += ['-gencode=arch=compute_%s,code=compute_%s' % (archs[-1], archs[-1])]
    return cmd


def nvcc_lib_dir(nvcc):
    """The directory of the libcudart that nvcc links: the first non-stubs
    -L of its --dryrun LIBRARIES line (an nvcc in PATH may be a wrapper
    script far from its toolkit), else <nvcc's directory>/../lib64."""
    r = subprocess.run([nvcc, '--dryrun', '-c', '-x', 'cu', os.devnull, '-o', os.devnull],
                       capture_output=True, text=True)
    for line in (r.stdout + r.stderr).splitlines():
        key, _, val = line.lstrip('#$ ').partition('=')
        if key == 'LIBRARIES':
            for tok in shlex.split(val):
                if tok.startswith('-L') and os.path.basename(tok[2:].rstrip('/')) != 'stubs':
                    return os.path.normpath(tok[2:])
    return os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))), 'lib64')


def depfile_inputs(path):
    """The prerequisites listed in a make depfile written by nvcc -MD."""
    with open(path) as f:
        text = f.read().replace('\\\n', ' ')
    return text.split(':', 1)[1].split() if ':' in text else []


class BuildExt(BuildExtension):
    """BuildExtension, plus: the nvcc objects of the CUDA build (compiled
    before the extension, up to date by their depfiles and command line),
    and a rebuild whenever the build variant (CPU, or CUDA with its flags)
    differs from the one that produced the existing module, which has the
    same file name."""

    def run(self):
        os.makedirs(self.build_temp, exist_ok=True)
        stamp = os.path.join(self.build_temp, 'repdl-variant.txt')
        old = open(stamp).read() if os.path.exists(stamp) else None
        if old != VARIANT:
            self.force = True
        super().run()
        with open(stamp, 'w') as f:
            f.write(VARIANT)

    def build_extensions(self):
        for ext in self.extensions:
            cu = getattr(ext, 'repdl_cuda_sources', [])
            if cu:
                objs = self.nvcc_objects(cu, ext.repdl_nvcc)
                # (a prebuilt archive last: the objects' references pull its members)
                ext.extra_objects = objs + list(ext.extra_objects or [])
                ext.depends = list(ext.depends or []) + objs
        super().build_extensions()

    def nvcc_objects(self, sources, cmd):
        out = os.path.join(self.build_temp, 'repdl_cuda')
        os.makedirs(out, exist_ok=True)

        def one(src):
            obj = os.path.join(out, os.path.basename(src) + '.o')
            full = cmd + ['-MD', '-MF', obj + '.d', '-c', src, '-o', obj]
            line = ' '.join(full)
            if not self.force and os.path.exists(obj) and os.path.exists(obj + '.cmd') and \
                    os.path.exists(obj + '.d') and open(obj + '.cmd').read() == line:
                t = os.path.getmtime(obj)
                if all(os.path.exists(p) and os.path.getmtime(p) <= t
                       for p in depfile_inputs(obj + '.d')):
                    return obj
            print(line, flush=True)
            subprocess.run(full, check=True)
            with open(obj + '.cmd', 'w') as f:
                f.write(line)
            return obj

        jobs = max(1, int(os.environ.get('MAX_JOBS') or os.cpu_count() or 1))
        with ThreadPoolExecutor(jobs) as pool:
            return list(pool.map(one, sources))


def extension():
    global VARIANT
    nvcc = find_nvcc()
    if not cuda_wanted(nvcc):
        VARIANT = 'cpu'
        return CppExtension('repdl._C', ['repdl/csrc/repdl_ext.cpp'], include_dirs=[include],
                            extra_compile_args=CXX_ARGS, extra_link_args=['-pthread', '-fopenmp'])
    torch_cuda = torch.version.cuda is not None
    archs = sm_archs()
    cmd = nvcc_command(nvcc, archs)
    lib = nvcc_lib_dir(nvcc)
    macros = [('REPDL_WITH_CUDA', None)]
    # torch's current stream and device guard need torch's CUDA headers and
    # libraries (c10_cuda): only a torch built with CUDA has them
    if torch_cuda:
        macros.append(('REPDL_TORCH_CUDA_STREAM', None))
    make = CUDAExtension if torch_cuda else CppExtension
    ext = make('repdl._C', ['repdl/csrc/repdl_ext.cpp', 'repdl/csrc/cuda_ops.cpp'],
               include_dirs=[include], define_macros=macros, extra_compile_args=CXX_ARGS,
               library_dirs=[lib], libraries=['cudart'],
               extra_link_args=['-pthread', '-fopenmp', '-Wl,-rpath,' + lib])
    # every launcher source of the library (cuda/meson.build's
    # repdl_cuda_srcs), or meson's archive of them, and the extension's own
    # device code
    prebuilt = os.environ.get('REPDL_CUDA_PREBUILT', '')
    if prebuilt:
        if not os.path.isfile(prebuilt):
            raise SystemExit(f'repdl: REPDL_CUDA_PREBUILT={prebuilt!r} is not a file '
                             '(meson builds it: build/cuda/librepdl_cuda.a)')
        ext.repdl_cuda_sources = [os.path.join(csrc, 'cuda_glue.cu')]
        ext.extra_objects = [prebuilt]
    else:
        ext.repdl_cuda_sources = sorted(glob.glob(os.path.join(root, 'cuda', '*.cu'))) + \
            [os.path.join(csrc, 'cuda_glue.cu')]
    ext.repdl_nvcc = cmd
    VARIANT = 'cuda torch_cuda=%d %s prebuilt=%s' % (torch_cuda, ' '.join(cmd), prebuilt)
    return ext


VARIANT = None

setup(
    name='repdl',
    version='0.1.0',
    description='repdl from PyTorch: bitwise-reproducible ops, modules and optimizers',
    packages=['repdl'],
    ext_modules=[extension()],
    cmdclass={'build_ext': BuildExt},
)
