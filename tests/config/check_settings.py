#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/config/check_settings.py ROOT

docs/api.md's section "Compile-time settings" names every macro a user
may define to configure repdl.  The headers of include/ have two kinds:

  value settings  `#ifndef REPDL_X` whose next line is `#define REPDL_X v`
                  with a value v (an include guard defines no value);
  switches        REPDL_X tested by `#ifdef` or `defined(REPDL_X)` in a
                  directive, and #defined by no header.

Private names (REPDL__) are not settings.  The table's rows are the lines
`| \`REPDL_X\` | default | ...`; the line beginning "Test hooks" (up to
the next blank line) names the hooks, switches a test defines, which stay
out of the table.  Fails (exit 1), naming each, when
  * a setting or switch of the headers is neither a row nor a hook;
  * a row or a hook names a macro that no header has as either kind
    (a private REPDL__ name in the hooks line must be a value setting);
  * a value setting's default differs from its row's second column
    (backticked, compared without spaces and outer parentheses; each
    header that defines it, so two headers must agree), or a switch's row
    does not say `undefined`;
  * a name has two rows, or a row is also a hook.
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else '.'
inc = os.path.join(root, 'include')
doc = os.path.join(root, 'docs', 'api.md')


def strip_comments(text):
    # keeps line numbers: a comment's newlines stay
    return re.sub(r'/\*.*?\*/|//[^\n]*',
                  lambda m: '\n' * m.group(0).count('\n'), text, flags=re.S)


def norm(v):
    v = re.sub(r'\s+', '', v)
    while v.startswith('(') and v.endswith(')'):
        depth = 0
        for i, ch in enumerate(v):
            depth += ch == '('
            depth -= ch == ')'
            if depth == 0 and i < len(v) - 1:
                return v            # "(a) << (b)": the outer pair is not one
        v = v[1:-1]
    return v


values = {}      # name -> {header: default}
tested = {}      # switch name -> first header testing it
defined = set()  # every REPDL_ name some header #defines
IFNDEF = re.compile(r'^[ \t]*#[ \t]*ifndef[ \t]+(REPDL_\w+)[ \t]*$', re.M)
DEFINE = re.compile(r'^[ \t]*#[ \t]*define[ \t]+(REPDL_\w+)(\([^)]*\))?(.*)$', re.M)
DIRECTIVE = re.compile(r'^[ \t]*#[ \t]*(?:if|ifdef|elif)\b(?:[^\n]*\\\n)*[^\n]*', re.M)
for d, _, fs in os.walk(inc):
    for f in sorted(fs):
        if not f.endswith(('.h', '.inc', '.cuh')):
            continue
        path = os.path.join(d, f)
        rel = os.path.relpath(path, inc).replace(os.sep, '/')
        text = strip_comments(open(path, encoding='utf-8').read())
        for m in DEFINE.finditer(text):
            defined.add(m.group(1))
        for m in IFNDEF.finditer(text):
            name = m.group(1)
            rest = text[m.end():].lstrip('\n \t')
            dm = DEFINE.match(rest)
            if not dm or dm.group(1) != name or not dm.group(3).strip():
                continue            # an include guard, or not a default
            values.setdefault(name, {})[rel] = dm.group(3).strip()
        for m in DIRECTIVE.finditer(text):
            words = m.group(0)
            names = re.findall(r'defined[ \t]*\(?[ \t]*(REPDL_\w+)', words)
            first = re.match(r'[ \t]*#[ \t]*ifdef[ \t]+(REPDL_\w+)', words)
            if first:
                names.append(first.group(1))
            for name in names:
                tested.setdefault(name, rel)
switches = {n: h for n, h in tested.items() if n not in defined and not n.startswith('REPDL__')}
public_values = {n for n in values if not n.startswith('REPDL__')}

bad = []
if not values:
    print('check_settings: no setting found under', inc)
    sys.exit(1)
text = open(doc, encoding='utf-8').read()
sec = re.search(r'^## Compile-time settings\n(.*?)(?=^## |\Z)', text, re.S | re.M)
if not sec:
    print('check_settings: docs/api.md has no section "## Compile-time settings"')
    sys.exit(1)
body = sec.group(1)
rows = {}
for m in re.finditer(r'^\|[ \t]*`(REPDL_\w+)`[ \t]*\|([^|\n]*)\|', body, re.M):
    name, default = m.group(1), m.group(2).strip()
    if name in rows:
        bad.append('docs/api.md: %s has two rows' % name)
    rows[name] = default
hm = re.search(r'^Test hooks\b(.*?)(?:\n[ \t]*\n|\Z)', body, re.S | re.M)
hooks = set(re.findall(r'`(REPDL_\w+)`', hm.group(1))) if hm else set()

for name in sorted(public_values | set(switches)):
    if name not in rows and name not in hooks:
        where = ', '.join(sorted(values[name])) if name in values else switches[name]
        bad.append('%s (include/%s) is missing from docs/api.md\'s "Compile-time settings"'
                   % (name, where))
for name in sorted(rows):
    if name in hooks:
        bad.append('docs/api.md: %s is both a row and a test hook' % name)
    if name in values:
        for hdr, v in sorted(values[name].items()):
            dv = re.fullmatch(r'`([^`]*)`', rows[name])
            if not dv or norm(dv.group(1)) != norm(v):
                bad.append('docs/api.md: %s default %s, include/%s says %s' % (name, rows[name], hdr, v))
    elif name in switches:
        if rows[name] != 'undefined':
            bad.append('docs/api.md: switch %s has default %s, not "undefined"' % (name, rows[name]))
    else:
        bad.append('docs/api.md: %s is in the table but no header of include/ has it' % name)
for name in sorted(hooks):
    if name not in switches and name not in values:
        bad.append('docs/api.md: test hook %s is not in include/' % name)

for b in bad:
    print(b)
print('check_settings: %d value settings, %d switches, %d rows, %d hooks: %s'
      % (len(public_values), len(switches), len(rows), len(hooks), 'FAIL' if bad else 'ok'))
sys.exit(1 if bad else 0)
