#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/config/check_citations.py ROOT

A citation is a promise: every repository path that a comment or a
document names (include/..., cuda/..., reference/..., tests/..., bench/...,
docs/..., examples/..., scripts/..., src/..., cmake/..., results/..., and the
relative targets of Markdown links) must exist in the tree.  Lists each broken one
with its file and line; exits 1 if there is any.  Placeholders (<name>,
*, ..., $VAR, {a,b}) and build outputs (build*/) are not citations.
"""
import os, re, subprocess, sys

root = sys.argv[1]
files = subprocess.run(['git', '-C', root, 'ls-files'], capture_output=True, text=True).stdout.split()
if not files:  # not a git checkout: walk the tree
    files = [os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root)
             if '/.git' not in d and '/build' not in d for f in fs]
exts = ('.h', '.c', '.cu', '.cuh', '.cpp', '.inc', '.md', '.sh', '.py', '.build', '.txt', '.in', '.sollya')
PATH = re.compile(r'(?<![\w./$-])((?:include|cuda|reference|tests|bench|docs|examples|scripts|src|cmake|results)/[A-Za-z0-9_./+-]*[A-Za-z0-9_/])')
LINK = re.compile(r'\]\(([^)#\s]+)(?:#[^)]*)?\)')
bad = []
checked = 0
for f in files:
    if not f.endswith(exts) and os.path.basename(f) not in ('CMakeLists.txt', 'meson.build'):
        continue
    try:
        text = open(os.path.join(root, f), encoding='utf-8', errors='replace').read()
    except OSError:
        continue
    for n, line in enumerate(text.split('\n'), 1):
        cands = [(m.group(1), root) for m in PATH.finditer(line)
                 if line[m.end():m.end() + 1] not in ('*', '<', '$', '{')]
        if f.endswith('.md'):
            cands += [(m.group(1), os.path.join(root, os.path.dirname(f))) for m in LINK.finditer(line)
                      if '://' not in m.group(1) and not m.group(1).startswith('mailto:')]
        for p, base in cands:
            if any(c in p for c in '<>*${}') or '...' in p or p.startswith('build'):
                continue
            if re.search(r'(^|[/_.-])(F|N|DEVICE|DATE|foo)([/_.-]|$)', p):
                continue  # a placeholder name (docs/functions/F.md)
            if 'random123' in line.lower() and p.startswith('tests/kat_vectors'):
                continue  # a path in Random123's repository, not ours
            checked += 1
            q = os.path.normpath(os.path.join(base, p))
            # a program that the build makes from a source beside it
            # (bench/linalg/bench_gemm, examples/train_fmnist, reference/hardcases)
            if any(os.path.exists(q + e) for e in ('.c', '.cpp', '.cu')):
                continue
            mb = os.path.join(os.path.dirname(q), 'meson.build')
            if os.path.exists(mb) and "'%s'" % os.path.basename(q) in open(mb).read():
                continue  # an executable named in that directory's meson.build
            if not os.path.exists(q):
                bad.append(f'{f}:{n}: {p}')
for b in bad:
    print('broken citation', b)
print(f'{checked} citations checked, {len(bad)} broken')
sys.exit(1 if bad else 0)
