#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/config/check_doc_constants.py ROOT

The docs write out the constants that an implementation from the docs alone
needs to reproduce every bit; this keeps them equal to the headers':
  - docs/nn-act-pool.md, gelu's backward: the coefficient lists P1, R1, R2,
    R3 (hex floats) == the arrays of the same names in the function
    repdl__gelu_q (whichever header of include/repdl/ holds it), and the
    exp reduction's constants == those of repdl__act_exp;
  - docs/rng-optim.md, Philox4x32-10: M0, M1, W0, W1 == the constants of
    repdl__philox4x32_round and repdl__philox4x32_r (include/repdl/rng.h).
Compares values (a decimal literal in C against a hex float in the page),
prints each mismatch, exits 1 if there is any.
"""
import glob, os, re, sys

root = sys.argv[1]
bad = []
FLOAT = r'-?(?:0x[0-9a-fA-F.]+p[-+]?\d+|\d+\.\d*(?:e[-+]?\d+)?|\d+e[-+]?\d+)'


def read(p):
    return open(os.path.join(root, p), encoding='utf-8').read()


def c_function(name):
    """The text of the function `name` (from its definition to the next
    top-level closing brace) in whichever header defines it."""
    for p in sorted(glob.glob(os.path.join(root, 'include/repdl/**/*.h'), recursive=True)):
        s = open(p, encoding='utf-8').read()
        m = re.search(r'REPDL_FN [^;{(]*\b%s\(' % re.escape(name), s)
        if m:
            end = s.index('\n}', m.end())
            return s[m.start():end]
    bad.append('no definition of %s in include/repdl/' % name)
    return ''


def c_array(body, name):
    m = re.search(r'static const double %s\[(\d+)\]\s*=\s*\{(.*?)\};' % name, body, re.S)
    if not m:
        bad.append('array %s not found' % name)
        return []
    vals = [float.fromhex(v) if 'x' in v else float(v)
            for v in re.findall(FLOAT, re.sub(r'/\*.*?\*/', '', m.group(2), flags=re.S))]
    if len(vals) != int(m.group(1)):
        bad.append('array %s: %d values parsed, %s declared' % (name, len(vals), m.group(1)))
    return vals


def doc_list(text, name):
    """The hex floats listed under `name (c[0] .. c[N]):` in the page."""
    i = text.find(name + ' (c[0] .. c[')
    if i < 0:
        bad.append('docs: no list %s' % name)
        return []
    vals = []
    for line in text[i:].split('\n')[1:]:
        if not re.match(r'^\s+\d+ ', line):
            break
        vals += [float.fromhex(v) for v in re.findall(r'-?0x[0-9a-f.]+p[-+]?\d+', line)]
    return vals


def same(what, doc, code):
    if not doc or doc != code:
        bad.append('%s: docs %s, header %s' % (what, [v.hex() for v in doc], [v.hex() for v in code]))


# gelu's backward
page = read('docs/nn-act-pool.md')
i = page.find('**gelu (erf form).**')
gelu_doc = page[i:page.find('**softplus.**', i)] if i >= 0 else ''
def gelu_rows(body):
    """repdl__gelu_q_coeffs' table T[4 * 16]: the rows P1, R1, R2, R3, each
    zero-padded to 16 (the padding is checked to be exact zeros)."""
    m = re.search(r'static const double T\[4 \* 16\]\s*=\s*\{(.*?)\};', body, re.S)
    if not m:
        bad.append('gelu backward: table T[4 * 16] not found')
        return {}
    parts = re.split(r'/\*\s*(P1|R1|R2|R3)\s*\*/', m.group(1))
    rows = {}
    for name, text in zip(parts[1::2], parts[2::2]):
        rows[name] = [float.fromhex(v) if 'x' in v else float(v)
                      for v in re.findall(FLOAT, re.sub(r'/\*.*?\*/', '', text, flags=re.S))]
    for name in ('P1', 'R1', 'R2', 'R3'):
        if len(rows.get(name, [])) != 16:
            bad.append('gelu backward: row %s has %d values, not 16' % (name, len(rows.get(name, []))))
    return rows


rows = gelu_rows(c_function('repdl__gelu_q_coeffs'))
for name in ('P1', 'R1', 'R2', 'R3'):
    doc, row = doc_list(gelu_doc, name), rows.get(name, [])
    same('gelu backward ' + name, doc, row[:len(doc)])
    if any(v != 0.0 for v in row[len(doc):]):
        bad.append('gelu backward %s: the padding after c[%d] is not zero' % (name, len(doc) - 1))
e = c_function('repdl__act_exp')
code_exp = [float.fromhex(v) if 'x' in v else float(v)
            for v in re.findall(FLOAT, re.sub(r'/\*.*?\*/', '', e, flags=re.S))]
step3 = gelu_doc[gelu_doc.find('3. e = exp(a)'):gelu_doc.find('4. Q = Phi')]
for v in sorted(set(float.fromhex(h) for h in re.findall(r'0x[0-9a-f.]+p[-+]?\d+', step3))):
    if v not in code_exp:
        bad.append('gelu backward: the exp step\'s %s is not a constant of repdl__act_exp' % v.hex())
if len(re.findall(r'0x[0-9a-f.]+p[-+]?\d+', step3)) < 8:
    bad.append('gelu backward: the exp step lists fewer than 8 constants')

# Philox
rng = read('include/repdl/rng.h')
page = read('docs/rng-optim.md')
for name in ('M0', 'M1', 'W0', 'W1'):
    m = re.search(r'\b%s = (0x[0-9A-Fa-f]{8})\b' % name, page)
    if not m:
        bad.append('docs/rng-optim.md: no %s' % name)
        continue
    pat = {'M0': r'0x%s[uU]?\s*\*\s*c\[0\]', 'M1': r'0x%s[uU]?\s*\*\s*c\[2\]',
           'W0': r'k0 \+= 0x%s', 'W1': r'k1 \+= 0x%s'}[name]
    if not re.search(pat % m.group(1)[2:], rng, re.I):
        bad.append('Philox %s = %s (docs/rng-optim.md) is not rng.h\'s' % (name, m.group(1)))

for b in bad:
    print('mismatch:', b)
print('doc constants: %d mismatches' % len(bad))
sys.exit(1 if bad else 0)
