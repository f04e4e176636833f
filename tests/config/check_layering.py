#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/config/check_layering.py ROOT

The headers of include/repdl/ form three layers, each including only its
own layer or the ones below:

  0  config.h             includes no repdl header
  1  detail/*.h, *.inc    include detail/ and config.h
  2  every other *.h      (the public headers) include any of the above

Reads every quoted #include of include/repdl/ (a directive inside a
comment does not count), resolves it against the including file's
folder, and lists each edge that goes up a layer or names a file that does
not exist; exits 1 if there is any, 0 otherwise.  Also refuses a cycle
among the headers (a header reaching itself through its includes).
"""
import os, re, sys

root = sys.argv[1] if len(sys.argv) > 1 else '.'
inc = os.path.join(root, 'include', 'repdl')


def layer(rel):
    if rel == 'config.h':
        return 0
    if rel.startswith('detail/'):
        return 1
    return 2


def strip_comments(text):
    # keeps line numbers: a comment's newlines stay
    return re.sub(r'/\*.*?\*/|//[^\n]*',
                  lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)


INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
files = []
for d, _, fs in os.walk(inc):
    for f in fs:
        if f.endswith(('.h', '.inc')):
            files.append(os.path.relpath(os.path.join(d, f), inc).replace(os.sep, '/'))
files.sort()
if 'config.h' not in files:
    print('check_layering: no include/repdl/config.h under', root)
    sys.exit(1)

bad = []
edges = {}
for rel in files:
    text = strip_comments(open(os.path.join(inc, rel), encoding='utf-8').read())
    edges[rel] = []
    for m in INCLUDE.finditer(text):
        line = text.count('\n', 0, m.start()) + 1
        target = os.path.normpath(os.path.join(os.path.dirname(rel), m.group(1))).replace(os.sep, '/')
        if target not in files:
            bad.append('include/repdl/%s:%d: includes "%s", not a header of include/repdl/'
                       % (rel, line, m.group(1)))
            continue
        edges[rel].append(target)
        if layer(target) > layer(rel):
            bad.append('include/repdl/%s:%d: upward include of %s (layer %d includes layer %d)'
                       % (rel, line, target, layer(rel), layer(target)))

# cycles: depth-first search, colour 1 = on the current path
colour = {}


def visit(n, path):
    colour[n] = 1
    for t in edges.get(n, []):
        if colour.get(t) == 1:
            bad.append('include cycle: ' + ' -> '.join(path[path.index(t):] + [t]))
        elif t not in colour:
            visit(t, path + [t])
    colour[n] = 2


for f in files:
    if f not in colour:
        visit(f, [f])

for b in bad:
    print(b)
n_edges = sum(len(v) for v in edges.values())
print('check_layering: %d headers, %d includes, %d problems' % (len(files), n_edges, len(bad)))
sys.exit(1 if bad else 0)
