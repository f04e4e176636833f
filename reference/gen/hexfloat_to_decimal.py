#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# reference/gen/hexfloat_to_decimal.py FILE...: rewrites the hexadecimal
# floating constants in the code (not the comments) of C headers as decimal
# constants that denote exactly the same binary64/binary32 value (shortest
# round-trip form, each one asserted), so that the headers are valid C++14,
# which has no hexadecimal floating constants.  Used once, 2026-11-23, on
# include/repdl/*.h; the generators still print hex, convert their output
# with this script before pasting it into a header.
import re,sys,struct
HEX=re.compile(r'0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+([fFlL]?)')
def f32(x): return struct.unpack('<f',struct.pack('<f',x))[0]
def dec(h):
    suf=h[-1] if h[-1] in 'fFlL' else ''
    core=h[:-1] if suf else h
    v=float.fromhex(core)
    if suf in 'fF' and suf:
        assert f32(v)==v, h
        for p in range(1,10):
            t='%.*g'%(p,v)
            if f32(float(t))==v: break
        assert f32(float(t))==v
    else:
        assert suf=='', h
        t=repr(v)
        assert float(t)==v
    if not re.search(r'[.eE]',t): t+='.0'
    return t+suf
def convert(s):
    out=[];i=0;n=len(s);count=0
    while i<n:
        if s.startswith('/*',i):
            j=s.find('*/',i+2); j=n if j<0 else j+2; out.append(s[i:j]); i=j; continue
        if s.startswith('//',i):
            j=s.find('\n',i); j=n if j<0 else j; out.append(s[i:j]); i=j; continue
        if s[i]=='"':
            j=i+1
            while s[j]!='"':
                j+= 2 if s[j]=='\\' else 1
            out.append(s[i:j+1]); i=j+1; continue
        m=HEX.match(s,i)
        if m and (i==0 or not (s[i-1].isalnum() or s[i-1] in '_.')):
            out.append(dec(m.group(0))); i=m.end(); count+=1; continue
        out.append(s[i]); i+=1
    return ''.join(out),count
for p in sys.argv[1:]:
    s=open(p).read()
    t,c=convert(s)
    if c: open(p,'w').write(t); print(p,c)
