# SPDX-License-Identifier: MIT
"""The floating-point environment check of the repdl package (docs/python.md,
"Floating-point environment"; docs/api.md, section 4).

repdl's bits assume IEEE arithmetic with subnormals kept and rounding to
nearest.  A library built with -ffast-math, -Ofast or
-funsafe-math-optimizations carries gcc's/clang's crtfastmath.o, whose
constructor sets flush-to-zero and denormals-are-zero for the whole process
when the library is loaded (import of an extension, ctypes.CDLL,
LD_PRELOAD); a program linked with those flags starts that way.  Then
exp(-100) becomes 0 and 1e-40 + 1e-40 becomes 0, silently.

check() runs at `import repdl` and raises FloatingPointEnvironmentError,
naming what it found; every repdl operation also refuses by itself
(REPDL_ERR_FPENV becomes a RuntimeError) when a library loaded later
changes the environment.  The probe is Python float (binary64)
arithmetic on values made at run time, which the same MXCSR/FPCR bits
govern as the binary32 arithmetic of repdl's C code.
"""
import os
import struct

__all__ = ['FloatingPointEnvironmentError', 'problems', 'check']


class FloatingPointEnvironmentError(RuntimeError):
    """The process's floating-point environment would change repdl's bits."""


def _bits(x):
    # bit patterns in and out: float.fromhex and float comparisons are
    # themselves floating-point operations, which these modes change
    return struct.unpack('<Q', struct.pack('<d', x))[0]


def _val(b):
    return struct.unpack('<d', struct.pack('<Q', b))[0]


def problems():
    """The modes found, as short strings; empty in the IEEE default environment."""
    found = []
    # 2^-1022 * 0.5 = 2^-1023, a subnormal result
    if _bits(_val(0x0010000000000000) * _val(0x3fe0000000000000)) != 0x0008000000000000:
        found.append('flush-to-zero (a subnormal result became 0)')
    # (2^-1022 - 2^-1074) + 2^-1074 = 2^-1022: subnormal operands, normal result
    if _bits(_val(0x000fffffffffffff) + _val(0x0000000000000001)) != 0x0010000000000000:
        found.append('denormals-are-zero (a subnormal operand was read as 0)')
    # 1 + 0.75 ulp(1) and -1 - 0.75 ulp(1): 1 + ulp and -(1 + ulp) only when rounding to nearest
    one, q = _val(0x3ff0000000000000), _val(0x3ca8000000000000)
    if _bits(one + q) != 0x3ff0000000000001 or _bits(-one - q) != 0xbff0000000000001:
        found.append('a rounding mode other than round-to-nearest')
    return found


def check():
    """Raises FloatingPointEnvironmentError when problems() is not empty."""
    found = problems()
    if not found:
        return
    msg = ('repdl: refusing to run: the floating-point environment of this process is not '
           'the IEEE default: ' + '; '.join(found) + '.  repdl\'s results would change '
           'silently.  The usual cause is a shared library built with -ffast-math, -Ofast or '
           '-funsafe-math-optimizations loaded into the process (its crtfastmath.o '
           'constructor sets flush-to-zero and denormals-are-zero for the whole process), '
           'or a program linked with one of those flags; rebuild it without them, or load '
           'it in another process.')
    pre = os.environ.get('LD_PRELOAD')
    if pre:
        msg += '  LD_PRELOAD is set: ' + pre
    raise FloatingPointEnvironmentError(msg)
