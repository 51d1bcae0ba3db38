#!/usr/bin/env python3
"""Codegen audit: what each function of an object calls to copy, base vs tip.

For every function of the objects given (objdump -dr of a base and a tip
build with the same x86_64 configuration), it collects:
  copy      calls to memcpy, memset, __memcpy_flushcache, copy_user_*,
            __copy_user_*, csum_* (relocations of call/jmp), and inlined
            rep movs / rep stos;
  indirect  calls or jumps through a retpoline thunk, or through a register;
  frame     bytes of stack: pushes plus the largest sub from %rsp;
  size      bytes of code.

It prints a table of the functions whose figures changed, and fails when,
at the tip, a function gains an indirect call or changes its copy
primitives, unless ci/<line>/codegen-allow lists the object, the function and the
kind ("indirect" or "copy") with a reason.

  codegen.py --base=DIR --tip=DIR --allow=FILE --out=DIR OBJ...
"""
import argparse
import os
import re
import subprocess
import sys

COPY = re.compile(r'^(memcpy|memset|memmove|__memcpy|__memset|__memcpy_flushcache|'
                  r'copy_user_\w+|__copy_user_\w+|_copy_(to|from)_user|'
                  r'raw_copy_\w+|csum_\w+|copy_mc_\w+|clear_user\w*)$')
FUNC = re.compile(r'^[0-9a-f]+ <([^>]+)>:$')
INSN = re.compile(r'^\s*([0-9a-f]+):\s+(.*)$')
RELOC = re.compile(r'^\s*[0-9a-f]+: R_X86_64_\w+\s+([^\s+-]+)')


def audit(path):
    out = subprocess.run(['objdump', '-dr', '--no-show-raw-insn', path],
                         check=True, capture_output=True, text=True).stdout
    funcs = {}
    cur = None
    last = None
    for line in out.splitlines():
        m = FUNC.match(line)
        if m:
            cur = {'copy': {}, 'indirect': 0, 'push': 0, 'sub': 0,
                   'start': None, 'end': 0}
            funcs[m.group(1)] = cur
            last = None
            continue
        if cur is None:
            continue
        m = RELOC.match(line)
        if m and last in ('call', 'jmp'):
            sym = m.group(1)
            if sym.startswith('__x86_indirect_thunk') or sym.startswith('__x86_indirect_its'):
                cur['indirect'] += 1
            elif COPY.match(sym):
                cur['copy'][sym] = cur['copy'].get(sym, 0) + 1
            last = None
            continue
        m = INSN.match(line)
        if not m:
            continue
        addr = int(m.group(1), 16)
        if cur['start'] is None:
            cur['start'] = addr
        cur['end'] = addr
        insn = m.group(2).split()
        if not insn:
            continue
        op = insn[0]
        last = op if op in ('call', 'jmp') else None
        if op in ('rep', 'repz') and len(insn) > 1 and insn[1][:4] in ('movs', 'stos'):
            k = 'inline rep ' + insn[1][:5]
            cur['copy'][k] = cur['copy'].get(k, 0) + 1
        elif op in ('call', 'jmp') and len(insn) > 1 and insn[1].startswith('*'):
            cur['indirect'] += 1
        elif op == 'push':
            cur['push'] += 8
        elif op == 'sub' and len(insn) > 1 and insn[1].endswith(',%rsp'):
            v = insn[1].split(',')[0]
            if v.startswith('$0x'):
                cur['sub'] = max(cur['sub'], int(v[3:], 16))
    sizes = {}
    nm = subprocess.run(['nm', '-S', '--defined-only', path], check=True,
                        capture_output=True, text=True).stdout
    for line in nm.splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in 'tTwW':
            sizes[p[3]] = int(p[1], 16)
    for name, f in funcs.items():
        f['frame'] = f['push'] + f['sub']
        f['size'] = sizes.get(name, (f['end'] - (f['start'] or 0)) + 1)
    return funcs


def copies(f):
    return ', '.join(f'{k} x{v}' for k, v in sorted(f['copy'].items())) or '-'


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--base', required=True)
    ap.add_argument('--tip', required=True)
    ap.add_argument('--allow', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('objects', nargs='+')
    a = ap.parse_args()
    # The allow list by its path in the project (ci/<line>/codegen-allow).
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    allow_name = os.path.relpath(os.path.abspath(a.allow), top)
    if allow_name.startswith('..'):
        allow_name = a.allow

    allow = {}
    with open(a.allow) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if not line:
                continue
            p = line.split(None, 3)
            if len(p) < 4:
                sys.exit(f'{a.allow}: "{line}": want OBJECT FUNCTION KIND REASON')
            allow[(p[0], p[1], p[2])] = p[3]

    rows, failures, used = [], [], set()
    totals = {}
    specs = []
    for spec in a.objects:
        obj, _, pat = spec.partition(':')
        keep = re.compile(pat or '.')
        bpath = os.path.join(a.base, obj)
        base = audit(bpath) if os.path.exists(bpath) else {}
        tip = audit(os.path.join(a.tip, obj))
        specs.append((obj, {k: v for k, v in base.items() if keep.match(k)},
                      {k: v for k, v in tip.items() if keep.match(k)}))
    # A function the series moved to another object is compared with its
    # base version there.
    base_any = {}
    for obj, base, _ in specs:
        for name, f in base.items():
            base_any.setdefault(name, (obj, f))
    tip_names = {name for _, _, tip in specs for name in tip}
    for obj, base, tip in specs:
        t = totals.setdefault(obj, {'base': [0, 0, 0], 'tip': [0, 0, 0]})
        for side, funcs in (('base', base), ('tip', tip)):
            for f in funcs.values():
                t[side][0] += 1
                t[side][1] += f['indirect']
                t[side][2] += sum(v for k, v in f['copy'].items() if k.startswith('inline'))
        for name in sorted(set(base) | set(tip)):
            b, n = base.get(name), tip.get(name)
            moved = ''
            if b is None and name in base_any:
                moved, b = base_any[name]
                moved = f' (from {os.path.basename(moved)})'
            if n is None and name in tip_names:
                continue	# reported where it is now
            if b and n and (b['copy'], b['indirect'], b['frame'], b['size']) == \
                    (n['copy'], n['indirect'], n['frame'], n['size']):
                continue
            rows.append((obj, name + moved, b, n))
            if n is None:
                continue
            checks = []
            if n['indirect'] > (b['indirect'] if b else 0):
                checks.append('indirect')
            if b and b['copy'].keys() != n['copy'].keys():
                checks.append('copy')
            if not b and any(k.startswith('inline') for k in n['copy']):
                checks.append('copy')
            for kind in checks:
                key = (obj, name, kind)
                if key in allow:
                    used.add(key)
                else:
                    failures.append(f'{obj}: {name}: {kind}: '
                                    f'{copies(b) if b else "(new)"} -> {copies(n)}, '
                                    f'indirect {b["indirect"] if b else 0} -> {n["indirect"]}')
    stale = sorted(set(allow) - used)

    fmt = lambda f, k: '-' if f is None else str(f[k])
    lines = ['| object | function | copy primitives (base -> tip) | indirect | frame | size |',
             '|---|---|---|---|---|---|']
    for obj, name, b, n in rows:
        cb = copies(b) if b else '(none)'
        cn = copies(n) if n else '(gone)'
        cp = cb if cb == cn else f'{cb} -> {cn}'
        lines.append(f'| {os.path.basename(obj)} | {name} | {cp} | '
                     f'{fmt(b, "indirect")} -> {fmt(n, "indirect")} | '
                     f'{fmt(b, "frame")} -> {fmt(n, "frame")} | '
                     f'{fmt(b, "size")} -> {fmt(n, "size")} |')
    summary = []
    for obj, t in totals.items():
        summary.append(f'{obj}: functions {t["base"][0]} -> {t["tip"][0]}, indirect calls '
                       f'{t["base"][1]} -> {t["tip"][1]}, inlined rep movs/stos '
                       f'{t["base"][2]} -> {t["tip"][2]}')
    allowed = [f'allowed by {allow_name}: {o}: {f}: {k}: {allow[(o, f, k)]}'
               for (o, f, k) in sorted(used)]
    text = '\n'.join(summary + [''] + lines + [''] + allowed) + '\n'
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, 'table.md'), 'w') as f:
        f.write(text)
    sys.stdout.write(text)
    for s in stale:
        print(f'codegen: note: {allow_name} entry {" ".join(s)} matched nothing')
    if failures:
        print(f'\ncodegen: changes that {allow_name} does not list:', file=sys.stderr)
        for f in failures:
            print(f'  {f}', file=sys.stderr)
        sys.exit(1)


if __name__ == '__main__':
    main()
