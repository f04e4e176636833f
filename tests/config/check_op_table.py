#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/config/check_op_table.py ROOT [--write]

include/repdl/op_table.h is the one list of the elementwise functions,
include/repdl/layer_table.h that of the layer operations
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
     calls _unary('F') or _C.unary_backward('F', ...);
  4. the sections written from the table are what it gives: the launcher
     prototypes of include/repdl/cuda.h and docs/api.md's table, each
     between its op_table.h markers (--write rewrites them: the output is
     checked in, so that cuda.h's prototypes stay spelled out for grep).

The layer table's rows (S(X, op, function, pass, cuda, py, binding)):

  5. repdl_FUNCTION_f32 is declared (REPDL_API) in include/repdl/*.h;
     unless cuda is NOCUDA, the source it names in cuda/ defines
     repdl_cuda_FUNCTION_f32 and cuda/meson.build builds that source
     (names it, or reads --list cuda);
  6. py PY or VIA: repdl._C's BINDING is defined (layers.inc, or both
     repdl_ext.cpp and, with a launcher, cuda_ops.cpp; without one, not
     layers.inc, which the CUDA build compiles), repdl/ops.py has
     def OP(; the binding files register no table binding by hand (they
     register REPDL_LAYER_BINDINGS, the CUDA build REPDL_LAYER_CUDA_BINDINGS);
  7. the sections written from the table: for each cuda/ source of the
     table, its launcher prototypes in include/repdl/cuda.h (the host
     declaration with repdl_cuda_ and `void *stream` appended, a
     repdl_X_shape typedef as struct repdl_X_shape), docs/api.md's
     section 7 and include/repdl/repdl.h's includes of the headers that
     declare the rows' host functions; no table launcher is declared in
     cuda.h outside them, no such header included by hand in repdl.h;
  8. every launcher that cuda/*.cu defines is declared in cuda.h.
"""
import glob, os, re, sys

root = sys.argv[1] if len(sys.argv) > 1 else '.'
write = '--write' in sys.argv[2:]
fails = []

LROW = re.compile(r'^\s*S\(X,\s*(\w+),\s*(\w+),\s*(FWD|BWD|FWDBWD|AUX),\s*(\w+),'
                  r'\s*(PY|VIA|NOPY),\s*(\w+|-)\)', re.M)

# --list tests | cuda: what the build reads from the layer table at
# configure time (one name a line, table order, each once):
#   tests  each op whose tests/<op>/test_<op>.c exists in a folder with no
#          meson.build of its own: tests/meson.build builds it as the
#          standard variants and as C++ (tests/common/cpp_include.cpp);
#   cuda   each cuda/ stem of a row (not NOCUDA): cuda/meson.build adds it
#          to the library's sources.
if '--list' in sys.argv[2:]:
    what = sys.argv[sys.argv.index('--list') + 1:][:1]
    out = []
    for op, fn, ps, cu, py, binding in LROW.findall(
            open(os.path.join(root, 'include/repdl/layer_table.h')).read()):
        if what == ['tests']:
            d = os.path.join(root, 'tests', op)
            if os.path.exists(os.path.join(d, f'test_{op}.c')) and \
                    not os.path.exists(os.path.join(d, 'meson.build')):
                out.append(op)
        elif what == ['cuda']:
            if cu != 'NOCUDA':
                out.append(cu)
        else:
            sys.exit('--list tests|cuda')
    print('\n'.join(dict.fromkeys(out)))
    sys.exit(0)

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
    if bwd != 'NOBWD' and f"_unary('{name}'" not in ops_py and \
            f"unary_backward('{name}'" not in ops_py:
        fails.append(f"{name}: a backward pass, but python/repdl/ops.py has neither "
                     f"_unary('{name}', ...) nor _C.unary_backward('{name}', ...)")

# ---- The layer table ----
ltable = open(os.path.join(root, 'include/repdl/layer_table.h')).read()
lrows = LROW.findall(ltable)
if len(lrows) != len(re.findall(r'^\s*S\(X,', ltable, re.M)):
    fails.append('layer_table.h: a row is not S(X, op, function, FWD|BWD|FWDBWD|AUX, cuda|NOCUDA, '
                 'PY|VIA|NOPY, binding|-)')
if not lrows:
    fails.append('layer_table.h: no row read')

host_decl, host_header = {}, {}
for h in sorted(glob.glob(os.path.join(root, 'include/repdl/*.h'))):
    for m in re.finditer(r'\bREPDL(?:_HOST)?_API\s+repdl_status\s+(repdl_\w+)\s*\(([^)]*)\)',
                         open(h).read()):
        host_decl[m.group(1)] = m.group(2)
        host_header[m.group(1)] = os.path.basename(h)


def read(rel):
    path = os.path.join(root, rel)
    return open(path).read() if os.path.exists(path) else ''


csrc = {f: read('python/repdl/csrc/' + f) for f in ('layers.inc', 'repdl_ext.cpp', 'cuda_ops.cpp')}
cuda_meson = read('cuda/meson.build')


def defines(text, name):
    """A C++ function definition of name at the start of a line."""
    return re.search(r'^[A-Za-z].*[\s*&]%s\(' % re.escape(name), text, re.M) is not None


bindings = set()
for op, fn, ps, cu, py, binding in lrows:
    host = f'repdl_{fn}_f32'
    if host not in host_decl:
        fails.append(f'layer_table.h: {fn}: no header declares REPDL_API repdl_status {host}')
    if cu != 'NOCUDA':
        src = read(f'cuda/{cu}.cu')
        if not re.search(r'\bint\s+repdl_cuda_%s_f32\s*\(' % fn, src):
            fails.append(f'layer_table.h: {fn}: cuda/{cu}.cu does not define repdl_cuda_{fn}_f32')
        if f"'{cu}'" not in cuda_meson and "'--list', 'cuda'" not in cuda_meson:
            fails.append(f"layer_table.h: {fn}: cuda/meson.build does not build '{cu}'")
    if py == 'NOPY':
        continue
    if py == 'PY':
        if binding in bindings:
            fails.append(f'layer_table.h: binding {binding} has two PY rows (the others: VIA)')
        bindings.add(binding)
    elif binding not in bindings:
        fails.append(f'layer_table.h: {fn}: VIA {binding}, but no earlier PY row registers it')
    shared = defines(csrc['layers.inc'], binding)
    if shared and cu == 'NOCUDA':
        fails.append(f'layer_table.h: {fn}: NOCUDA, but its binding {binding} is in layers.inc, '
                     'which the CUDA build compiles too (define it in repdl_ext.cpp)')
    if not shared and not defines(csrc['repdl_ext.cpp'], binding):
        fails.append(f'layer_table.h: {fn}: repdl._C.{binding} is defined in neither layers.inc '
                     'nor repdl_ext.cpp')
    if cu != 'NOCUDA' and not shared and not defines(csrc['cuda_ops.cpp'], binding):
        fails.append(f'layer_table.h: {fn}: cuda_{binding} is defined in neither layers.inc nor '
                     'cuda_ops.cpp')
    if f'def {op}(' not in ops_py:
        fails.append(f'layer_table.h: {fn}: repdl/ops.py has no def {op}(')
for f in ('repdl_ext.cpp', 'cuda_ops.cpp'):
    for b in sorted(bindings):
        if re.search(r'm\.def\("%s"|REPDL_PY_CUDA_DEF\(%s\)' % (b, b), csrc[f]):
            fails.append(f'python/repdl/csrc/{f} registers {b} by hand (layer_table.h registers it)')
    want = 'REPDL_LAYER_BINDINGS(' if f == 'repdl_ext.cpp' else 'REPDL_LAYER_CUDA_BINDINGS('
    if csrc[f] and want not in csrc[f]:
        fails.append(f'python/repdl/csrc/{f} does not register {want[:-1]}')

cuda_h = read('include/repdl/cuda.h')


def launcher(fn):
    """cuda.h's prototype of repdl_cuda_fn_f32, from the host declaration."""
    params = re.sub(r'\s+', ' ', host_decl.get(f'repdl_{fn}_f32', '')).strip()
    params = re.sub(r'(?<!struct )\brepdl_(\w+)_shape\b', r'struct repdl_\1_shape', params)
    parts = [p.strip() for p in params.split(',') if p.strip()] + ['void *stream']
    head = f'int repdl_cuda_{fn}_f32('
    lines, cur = [], head
    for i, p in enumerate(parts):
        tail = ');' if i == len(parts) - 1 else ','
        piece = p + tail
        if cur not in (head,) and len(cur) + 1 + len(piece) > 100:
            lines.append(cur)
            cur = ' ' * len(head) + piece
        else:
            cur += ('' if cur == head else ' ') + piece
    lines.append(cur)
    return '\n'.join(lines) + '\n'


def layer_api_table():
    out = ['| operation | host functions (pass) | CUDA launchers | Python |\n', '|---|---|---|---|\n']
    ops_order = []
    for r in lrows:
        if r[0] not in ops_order:
            ops_order.append(r[0])
    for op in ops_order:
        rs = [r for r in lrows if r[0] == op]
        host = ', '.join(f'`repdl_{r[1]}_f32` ({r[2].lower()})' for r in rs)
        cus = sorted({r[3] for r in rs if r[3] != 'NOCUDA'})
        cu = ', '.join(f'`repdl_cuda_{r[1]}_f32`' for r in rs if r[3] != 'NOCUDA')
        cu = f'{cu} ({", ".join(c + ".cu" for c in cus)})' if cu else '-'
        pys = [r for r in rs if r[4] != 'NOPY']
        py = (f'`repdl.ops.{op}`; `repdl._C.' + '`, `'.join(dict.fromkeys(r[5] for r in pys)) + '`'
              if pys else '-')
        out.append(f'| {op} | {host} | {cu} | {py} |\n')
    return ''.join(out)


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
stems = []
for r in lrows:
    if r[3] != 'NOCUDA' and r[3] not in stems:
        stems.append(r[3])
for stem in stems:
    sections.append(('include/repdl/cuda.h', f'/* layer_table.h {stem}: begin ({W}) */\n',
                     f'/* layer_table.h {stem}: end */\n',
                     ''.join(launcher(r[1]) for r in lrows if r[3] == stem)))
sections.append(('docs/api.md', '<!-- layer_table.h: begin -->\n', '<!-- layer_table.h: end -->\n',
                 layer_api_table()))
# repdl.h includes the header of each row's host function, in the table's
# order, in its section, and nowhere else
layer_headers = list(dict.fromkeys(host_header[f'repdl_{r[1]}_f32'] for r in lrows
                                   if f'repdl_{r[1]}_f32' in host_header))
sections.append(('include/repdl/repdl.h', f'/* layer_table.h headers: begin ({W}) */\n',
                 '/* layer_table.h headers: end */\n',
                 ''.join(f'#include "{h}"\n' for h in layer_headers)))
for h in layer_headers:
    if len(re.findall(r'^#include "%s"' % re.escape(h), read('include/repdl/repdl.h'), re.M)) > 1:
        fails.append(f'include/repdl/repdl.h includes {h} by hand too (it is in the '
                     'layer_table.h section)')
# a table launcher declared once in cuda.h: inside its section
for r in lrows:
    if r[3] != 'NOCUDA' and len(re.findall(r'\bint\s+repdl_cuda_%s_f32\s*\(' % r[1], cuda_h)) > 1:
        fails.append(f'include/repdl/cuda.h declares repdl_cuda_{r[1]}_f32 more than once '
                     '(by hand outside the layer_table.h section?)')
# a layer-op source without its cuda.h section yet: --write adds one (a
# heading naming the source and the header, the markers) above the closing
# extern "C" brace, so a new op never edits cuda.h by hand
CUDA_TAIL = '#ifdef __cplusplus\n}\n#endif\n'
for stem in stems:
    begin = f'/* layer_table.h {stem}: begin ({W}) */\n'
    end = f'/* layer_table.h {stem}: end */\n'
    cur = read('include/repdl/cuda.h')
    if write and cur.count(begin) == 0 and cur.count(end) == 0 and CUDA_TAIL in cur:
        hdr = sorted(set(host_header.get(f'repdl_{r[1]}_f32', '?') for r in lrows if r[3] == stem))
        head = (f'/* ---- cuda/{stem}.cu ({", ".join("include/repdl/" + h for h in hdr)}) ----\n'
                '   The host functions on device arrays, plus the stream: their checks,\n'
                '   statuses and bits (the header is the definition). */\n')
        i = cur.rindex(CUDA_TAIL)
        cur = cur[:i] + head + begin + end + f'/* (end {stem}) */\n\n' + cur[i:]
        open(os.path.join(root, 'include/repdl/cuda.h'), 'w').write(cur)
        print(f'include/repdl/cuda.h: section for cuda/{stem}.cu added')
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

# every launcher of cuda/ declared (after --write rewrote cuda.h)
cuda_h = read('include/repdl/cuda.h')
for fn in sorted(set(re.findall(r'\bint\s+(repdl_cuda_\w+)\s*\(', ''.join(
        read(os.path.relpath(c, root)) for c in glob.glob(os.path.join(root, 'cuda/*.cu')))))):
    if not re.search(r'\bint\s+%s\s*\(' % fn, cuda_h):
        fails.append(f'cuda/ defines {fn}, include/repdl/cuda.h does not declare it')

for f in fails:
    print('FAIL', f)
if not fails:
    print(f'ok: {len(rows)} elementwise functions in op_table.h, {len(lrows)} layer functions in '
          'layer_table.h; headers, cuda/, cuda.h, python/repdl and docs/api.md agree')
sys.exit(1 if fails else 0)
