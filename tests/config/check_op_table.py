#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/config/check_op_table.py ROOT [--write]

include/repdl/op_table.h is the one list of the elementwise functions
(docs/architecture.md, "Adding an operation").  The C layers are generated
from it by the preprocessor (cuda/'s launchers, python/repdl/csrc's
bindings, tests/cuda's lists); this writes cuda.h's prototypes and
docs/api.md's table from it (--write) and checks everything else against
it, exiting 1 on any disagreement:

  1. the host functions each row promises are declared (REPDL_API) in
     include/repdl/*.h: repdl_F_f32 and repdl_F_array_f32; with HALF
     repdl_F_bf16, _f16, _array_bf16, _array_f16; with BX or BY
     repdl_F_backward_array_f32; and none of those a row does not promise;
  2. every declared repdl_*_array_f32, _array_bf16, _array_f16 and
     repdl_*_backward_array_f32 is a row's (no function outside the table);
  3. each row with a backward pass has its Python function: repdl/ops.py
     calls _unary('F');
  4. the sections written from the table are what it gives: the launcher
     prototypes of include/repdl/cuda.h and docs/api.md's table, each
     between its op_table.h markers (--write rewrites them: the output is
     checked in, so that cuda.h's prototypes stay spelled out for grep).
"""
import glob, os, re, sys

root = sys.argv[1] if len(sys.argv) > 1 else '.'
write = '--write' in sys.argv[2:]
fails = []

table = open(os.path.join(root, 'include/repdl/op_table.h')).read()
ROW = re.compile(r'^\s*S\(X,\s*(\w+),\s*(MAP|ACT),\s*(HALF|NOHALF),\s*(BX|BY|NOBWD)\)', re.M)
rows = ROW.findall(table)
if len(rows) != len(re.findall(r'^\s*S\(X,', table, re.M)):
    fails.append('op_table.h: a row is not S(X, name, MAP|ACT, HALF|NOHALF, BX|BY|NOBWD)')
if not rows:
    fails.append('op_table.h: no row read')

declared = set()
for h in glob.glob(os.path.join(root, 'include/repdl/*.h')):
    declared |= set(re.findall(r'\bREPDL(?:_HOST)?_API\b[^;{(]*?\b(repdl_[a-z0-9][a-z0-9_]*)\s*\(',
                               open(h).read()))

names = set()
for name, cuda, half, bwd in rows:
    names.add(name)
    want = {f'repdl_{name}_f32': True, f'repdl_{name}_array_f32': True}
    for fmt in ('bf16', 'f16'):
        want[f'repdl_{name}_{fmt}'] = half == 'HALF'
        want[f'repdl_{name}_array_{fmt}'] = half == 'HALF'
    want[f'repdl_{name}_backward_array_f32'] = bwd != 'NOBWD'
    for fn, present in want.items():
        if present and fn not in declared:
            fails.append(f'{name}: op_table.h promises {fn}, no header declares it')
        if not present and fn in declared:
            fails.append(f'{name}: {fn} is declared but op_table.h\'s row does not say so')

FORM = re.compile(r'^repdl_(\w+?)(?:_backward)?_array_(?:f32|bf16|f16)$')
for fn in sorted(declared):
    m = FORM.match(fn)
    if m and m.group(1) not in names:
        fails.append(f'{fn} is declared but {m.group(1)} has no row in op_table.h')

ops_py = open(os.path.join(root, 'python/repdl/ops.py')).read()
for name, cuda, half, bwd in rows:
    if bwd != 'NOBWD' and f"_unary('{name}'" not in ops_py:
        fails.append(f"{name}: a backward pass, but python/repdl/ops.py has no _unary('{name}', ...)")

# The written sections: (file, begin marker, end marker, text between).
def api_table():
    out = ['| function | host: scalar, array | 16-bit: bf16, f16 | CUDA launchers | backward (reads) | Python |\n',
           '|---|---|---|---|---|---|\n']
    for name, cuda, half, bwd in rows:
        f = f'repdl_{name}'
        host = f'`{f}_f32`, `{f}_array_f32`'
        h16 = f'`{f}_bf16`, `{f}_f16`, `_array_` forms' if half == 'HALF' else '-'
        cu = f'`repdl_cuda_{name}_array_f32` ({"math.cu" if cuda == "MAP" else "nn_act_pool.cu"})'
        if half == 'HALF':
            cu += ', `_array_bf16`, `_array_f16`'
        if bwd == 'NOBWD':
            back, py = '-', '-'
        else:
            back = f'`{f}_backward_array_f32` ({"y" if bwd == "BY" else "x"}), CUDA too'
            py = ("`repdl.ops.gelu(x, approximate='tanh')`" if name == 'gelu_tanh'
                  else f'`repdl.ops.{name}`')
        out.append(f'| {name} | {host} | {h16} | {cu} | {back} | {py} |\n')
    return ''.join(out)


def cuda_maps():
    out = [f'int repdl_cuda_{n}_array_f32(size_t n, const float *x, float *y, void *stream);\n'
           for n, c, h, b in rows]
    for n, c, h, b in rows:
        if h == 'HALF':
            out += [f'int repdl_cuda_{n}_array_{fmt}(size_t n, const uint16_t *x, uint16_t *y, '
                    'void *stream);\n' for fmt in ('bf16', 'f16')]
    return ''.join(out)


def cuda_backward():
    return ''.join(f'int repdl_cuda_{n}_backward_array_f32(size_t n, const float *{"y" if b == "BY" else "x"}, '
                   'const float *dy, float *dx, void *stream);\n' for n, c, h, b in rows if b != 'NOBWD')


W = 'tests/config/check_op_table.py --write'
sections = [
    ('docs/api.md', '<!-- op_table.h: begin -->\n', '<!-- op_table.h: end -->\n', api_table()),
    ('include/repdl/cuda.h', f'/* op_table.h maps: begin ({W}) */\n', '/* op_table.h maps: end */\n',
     cuda_maps()),
    ('include/repdl/cuda.h', f'/* op_table.h backward: begin ({W}) */\n',
     '/* op_table.h backward: end */\n', cuda_backward()),
]
for rel, begin, end, text in sections:
    path = os.path.join(root, rel)
    cur = open(path).read()
    if cur.count(begin) != 1 or cur.count(end) != 1:
        fails.append(f'{rel}: the markers {begin.strip()} ... {end.strip()} are not there once each')
        continue
    a = cur.index(begin) + len(begin)
    b = cur.index(end)
    if cur[a:b] != text:
        if write:
            open(path, 'w').write(cur[:a] + text + cur[b:])
            print(f'{rel}: section {begin.strip()} rewritten')
        else:
            fails.append(f'{rel}: the section {begin.strip()} differs from op_table.h '
                         f'(python3 tests/config/check_op_table.py . --write)')

for f in fails:
    print('FAIL', f)
if not fails:
    print(f'ok: {len(rows)} elementwise functions in op_table.h; headers, cuda.h, repdl/ops.py '
          'and docs/api.md agree')
sys.exit(1 if fails else 0)
