#!/usr/bin/env python3
"""The report of make native-sim (ci/native-sim.sh).

Reads DIR/raw/<layout>.<side>.cgd (cg_diff of cachegrind runs of N and 2N
calls: N calls' worth, per function) and DIR/raw/<layout>.<side>.clg
(callgrind, collected inside sim_region() only, per instruction), and writes
DIR/report.md and DIR/functions.tsv, DIR/instructions.tsv: per call, the
mean over the layouts.  Side a is the base tree, side b the series.
"""
import argparse
import bisect
import collections
import os
import re
import subprocess
import sys

SHOW = ['Ir', 'Bc', 'Bcm', 'Bi', 'Bim', 'I1mr', 'D1mr', 'D1mw', 'DLmr']


def parse_cachegrind(path):
    """{function: {event: count}} of a cachegrind (or cg_diff) file."""
    events, per_fn, fn = None, collections.defaultdict(collections.Counter), None
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        if line.startswith('events:'):
            events = line.split()[1:]
        elif line.startswith('fn='):
            fn = line[3:]
        elif line and (line[0].isdigit() or line[0] == '-') and events and fn:
            nums = line.split()[1:]
            for e, v in zip(events, nums):
                per_fn[fn][e] += int(v)
    if events is None:
        sys.exit(f'native_sim: {path} has no events: line')
    return per_fn


NAMED = re.compile(r'^\((\d+)\)(?: (.*))?$')


def parse_callgrind(path):
    """{(object, address): {event: count}} (self cost) of a callgrind file
    made with --dump-instr=yes, and {(object, address): function} from its
    fn= lines.  Names compressed as "(id) name" are defined on fn=, cfn=,
    fi= ... lines alike, one table per kind of name (functions: fn and cfn;
    objects: ob and cob; files: fl, fi, fe, cfi, cfl)."""
    events, positions = None, ['line']
    kinds = {'fn': 'fn', 'cfn': 'fn', 'ob': 'ob', 'cob': 'ob',
             'fl': 'fl', 'fi': 'fl', 'fe': 'fl', 'cfi': 'fl', 'cfl': 'fl'}
    names = {'fn': {}, 'ob': {}, 'fl': {}}
    cost = collections.defaultdict(collections.Counter)
    fn_of = {}
    fn = None
    ob = None

    def name(kind, val):
        m = NAMED.match(val)
        if not m:
            return val
        if m.group(2) is not None:
            names[kind][m.group(1)] = m.group(2)
        return names[kind].get(m.group(1), val)
    last = []
    skip_next = False

    def subpos(tokens):
        nonlocal last
        pos = []
        for k, t in enumerate(tokens):
            prev = last[k] if k < len(last) else 0
            if t == '*':
                v = prev
            elif t[0] in '+-':
                v = prev + int(t, 0)
            else:
                v = int(t, 0)
            pos.append(v)
        last = pos
        return pos

    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        if not line or line.startswith('#'):
            continue
        if line.startswith('events:'):
            events = line.split()[1:]
            continue
        if line.startswith('positions:'):
            positions = line.split()[1:]
            continue
        key, eq, val = line.partition('=')
        if eq and key.isalpha():
            if key in kinds:
                v = name(kinds[key], val)
                if key == 'fn':
                    fn = v
                elif key == 'ob':
                    ob = v
            elif key == 'calls':
                skip_next = True
            continue
        if line[0].isdigit() or line[0] in '+-*':
            if events is None:
                sys.exit(f'native_sim: {path}: a cost line before the events: line')
            tokens = line.split()
            np = len(positions)
            pos = subpos(tokens[:np])
            if skip_next:
                skip_next = False
                continue
            addr = pos[positions.index('instr')] if 'instr' in positions else None
            if addr is None:
                sys.exit(f'native_sim: {path} has no instr positions (--dump-instr=yes)')
            for e, v in zip(events, tokens[np:]):
                cost[(ob, addr)][e] += int(v)
            fn_of[(ob, addr)] = fn
    return cost, fn_of


def symbols(binary):
    """Sorted (address, name) of the text symbols of BINARY."""
    out = subprocess.run(['nm', '-n', binary], capture_output=True, text=True, check=True).stdout
    syms = []
    for l in out.splitlines():
        p = l.split()
        if len(p) == 3 and p[1] in 'tTwW':
            syms.append((int(p[0], 16), p[2]))
    return syms


def disassembly(binary):
    out = subprocess.run(['objdump', '-d', '--no-show-raw-insn', binary],
                         capture_output=True, text=True, check=True).stdout
    ins = {}
    for l in out.splitlines():
        m = re.match(r'^\s*([0-9a-f]+):\s+(.*)$', l)
        if m:
            ins[int(m.group(1), 16)] = re.sub(r'\s+', ' ', m.group(2)).strip()
    return ins


def fmt(v):
    return f'{v:.2f}' if abs(v) < 100 else f'{v:.0f}'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--case', required=True)
    ap.add_argument('--calls', type=int, required=True)
    ap.add_argument('--layouts', type=int, required=True)
    ap.add_argument('--bin-dir', required=True)
    ap.add_argument('--args', default='')
    ap.add_argument('--top', type=int, default=12)
    ap.add_argument('dir')
    a = ap.parse_args()
    n, nl = a.calls, a.layouts
    layouts = [f's{k}' for k in range(1, nl + 1)]

    # per function, per call, mean over the layouts
    fns = {s: collections.defaultdict(collections.Counter) for s in 'ab'}
    totals = {s: [] for s in 'ab'}
    for l in layouts:
        for s in 'ab':
            per_fn = parse_cachegrind(f'{a.dir}/raw/{l}.{s}.cgd')
            tot = collections.Counter()
            for f, c in per_fn.items():
                for e, v in c.items():
                    fns[s][f][e] += v / n / nl
                    tot[e] += v / n
            totals[s].append(tot)
    if any(t['Ir'] <= 0 for t in totals['a'] + totals['b']):
        sys.exit('native_sim: a run of 2N calls counted no more than its run of N')

    # per instruction: (function, offset) -> per call, mean over layouts
    ins_cost = {s: collections.defaultdict(collections.Counter) for s in 'ab'}
    text = {}
    for l in layouts:
        binary = f'{a.bin_dir}/native-bench.{l}'
        syms = symbols(binary)
        starts = [x[0] for x in syms]
        dis = disassembly(binary) if l == layouts[0] else None
        for s in 'ab':
            cost, fn_of = parse_callgrind(f'{a.dir}/raw/{l}.{s}.clg')
            for (ob, addr), c in cost.items():
                # the harness's own code by its symbols; a shared object's
                # (libc) by callgrind's function name, offsets unknown
                k = bisect.bisect_right(starts, addr) - 1
                # (valgrind names no object for the harness's .text.nb,
                # the section its layouts link the trees into: "???")
                own = not ob or ob == '???' or os.path.basename(ob) == os.path.basename(binary)
                if not own:
                    key = (f'{os.path.basename(ob)}:{fn_of.get((ob, addr)) or "?"}', 0)
                elif k >= 0:
                    key = (syms[k][1], addr - syms[k][0])
                else:
                    key = (fn_of.get((ob, addr)) or '?', addr)
                for e, v in c.items():
                    ins_cost[s][key][e] += v / n / nl
                if own and dis is not None and addr in dis:
                    text[(s, key)] = dis[addr]

    def mean(s, e):
        return sum(t[e] for t in totals[s]) / nl

    rows = []
    rows.append(f'# make native-sim: {a.case}\n')
    rows.append(f'valgrind {subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout.strip()}'
                f' (cachegrind and callgrind, --cache-sim=yes --branch-sim=yes: valgrind\'s model of the caches'
                f' and of a simple branch predictor, not this host\'s CPU); {n} calls per run; layouts '
                f'{", ".join(layouts)}; harness arguments `{a.args}`.  Side a is the base tree, side b the series.'
                ' Counts are per call.  Valgrind counts every iteration of a `rep movs` as an instruction'
                ' and a conditional branch, so the copies dominate Ir and Bc; they are the same code in both'
                ' trees.\n')
    try:
        trees = dict(l.rstrip('\n').split('\t')[:2] for l in open(f'{a.dir}/trees.tsv'))
        rows.append(f'Trees: base {trees.get("base", "?")[:12]}, series {trees.get("series", "?")[:12]}.\n')
    except OSError:
        pass
    rows.append('## Totals per call (cachegrind, N and 2N calls differenced)\n')
    rows.append('| event | a (base) | b (series) | b - a | b / a | b - a per layout |')
    rows.append('|---|---:|---:|---:|---:|---|')
    for e in SHOW:
        va, vb = mean('a', e), mean('b', e)
        per = ', '.join(fmt(tb[e] - ta[e]) for ta, tb in zip(totals['a'], totals['b']))
        rows.append(f'| {e} | {fmt(va)} | {fmt(vb)} | {fmt(vb - va)} | '
                    f'{(vb / va if va else float("nan")):.3f} | {per} |')
    rows.append('')
    rows.append('## Functions (per call, mean over the layouts; largest |b - a| in Ir, Bcm+Bim, misses first)\n')
    rows.append('| function | Ir a | Ir b | Bcm a | Bcm b | Bim a | Bim b | I1mr a | I1mr b | D1mr a | D1mr b |')
    rows.append('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    names = set(fns['a']) | set(fns['b'])

    def weight(f):
        ca, cb = fns['a'].get(f, {}), fns['b'].get(f, {})
        return (abs(cb.get('Ir', 0) - ca.get('Ir', 0)) +
                10 * abs(cb.get('Bcm', 0) + cb.get('Bim', 0) - ca.get('Bcm', 0) - ca.get('Bim', 0)) +
                10 * abs(cb.get('I1mr', 0) + cb.get('D1mr', 0) - ca.get('I1mr', 0) - ca.get('D1mr', 0)))
    with open(f'{a.dir}/functions.tsv', 'w') as ft:
        ft.write('function\tside\t' + '\t'.join(SHOW) + '\n')
        for f in sorted(names, key=weight, reverse=True):
            ca, cb = fns['a'].get(f, collections.Counter()), fns['b'].get(f, collections.Counter())
            for s, c in (('a', ca), ('b', cb)):
                ft.write(f'{f}\t{s}\t' + '\t'.join(f'{c.get(e, 0):.4f}' for e in SHOW) + '\n')
            if weight(f) < 0.05:
                continue
            rows.append(f'| {f} | ' + ' | '.join(f'{fmt(ca.get(e, 0))} | {fmt(cb.get(e, 0))}'
                                                 for e in ('Ir', 'Bcm', 'Bim', 'I1mr', 'D1mr')) + ' |')
    rows.append('')
    with open(f'{a.dir}/instructions.tsv', 'w') as it:
        it.write('side\tfunction\toffset\t' + '\t'.join(SHOW) + '\tinstruction\n')
        for s in 'ab':
            for (f, off), c in sorted(ins_cost[s].items(), key=lambda x: -x[1].get('Ir', 0)):
                it.write(f'{s}\t{f}\t{off:#x}\t' + '\t'.join(f'{c.get(e, 0):.4f}' for e in SHOW) +
                         f'\t{text.get((s, (f, off)), "")}\n')
    for what, evs in (('mispredicted branches (Bcm + Bim)', ('Bcm', 'Bim')),
                      ('cache misses (I1mr + D1mr + D1mw)', ('I1mr', 'D1mr', 'D1mw')),
                      ('instructions (Ir)', ('Ir',))):
        rows.append(f'## The instructions with the most {what}, per call (callgrind, layout s1\'s disassembly)\n')
        for s in 'ab':
            top = sorted(ins_cost[s].items(), key=lambda x: -sum(x[1].get(e, 0) for e in evs))[:a.top]
            top = [t for t in top if sum(t[1].get(e, 0) for e in evs) > 0]
            tot = sum(sum(c.get(e, 0) for e in evs) for c in ins_cost[s].values())
            rows.append(f'Side {s} ({"base" if s == "a" else "series"}): {fmt(tot)} in all.\n')
            if not top:
                rows.append('(none)\n')
                continue
            cols = list(evs) + (['Ir'] if 'Ir' not in evs else [])
            rows.append('| function+offset | ' + ' | '.join(cols) + ' | instruction |')
            rows.append('|---|' + '---:|' * len(cols) + '---|')
            for (f, off), c in top:
                rows.append(f'| {f}+{off:#x} | ' + ' | '.join(fmt(c.get(e, 0)) for e in cols) +
                            f' | `{text.get((s, (f, off)), "?")}` |')
            rows.append('')
    # The functions whose counts differ most, every instruction they ran,
    # in address order: the two loops side by side, to read.
    differ = [f for f in sorted(names, key=weight, reverse=True) if weight(f) >= 0.5][:3]
    for f in differ:
        rows.append(f'## {f}: every instruction run, per call, in address order\n')
        for s in 'ab':
            mine = sorted((off, c) for (g, off), c in ins_cost[s].items() if g == f)
            rows.append(f'Side {s} ({"base" if s == "a" else "series"}): {len(mine)} instructions, '
                        f'{fmt(sum(c.get("Ir", 0) for _, c in mine))} executed per call.\n')
            rows.append('| offset | Ir | Bc | Bcm | D1mr | D1mw | instruction |')
            rows.append('|---|---:|---:|---:|---:|---:|---|')
            for off, c in mine[:120]:
                rows.append(f'| {off:#x} | ' + ' | '.join(fmt(c.get(e, 0)) for e in ('Ir', 'Bc', 'Bcm', 'D1mr', 'D1mw')) +
                            f' | `{text.get((s, (f, off)), "?")}` |')
            if len(mine) > 120:
                rows.append(f'| ... | {len(mine) - 120} more in instructions.tsv | | | | | |')
            rows.append('')
    open(f'{a.dir}/report.md', 'w').write('\n'.join(rows) + '\n')
    print('\n'.join(rows[:20]))


if __name__ == '__main__':
    main()
