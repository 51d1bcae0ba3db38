#!/usr/bin/env python3
"""Combine the native harness's per-layout results into one table.

Each results.<layout>.tsv (bench/native/runtime.c) gives, per case, the
median cycles per call of side a and side b and the median ratio b/a with
its distribution-free 95% CI over the pairs.  Code placement moves a ratio
by more than that CI, so each layout's ratio is one draw of the placement:
the combined ratio is their geometric mean, and its 95% CI the t interval
of the mean log ratio over the layouts (n - 1 degrees of freedom).  With
one layout (the smoke run) it is that layout's own CI.  The range of the
layouts' CIs is kept as "placement_range".

The cycle columns are paired: base is the geometric mean over the layouts
of side a's median cycles per call, series is base x ratio, so the two
columns and the ratio always agree.

The iteration overhead of a case is its cycles minus those of the memcpy
reference over the same bytes and chunks in the same tree (memcpy_<frag>),
both timed in the same pair (bench/native/runtime.c).  Per layout the
harness gives the median base overhead, the median series overhead and the
median of the pairs' difference (series overhead - base overhead) with its
distribution-free 95% CI; over layouts the difference is their mean with
the t interval (one layout: its own CI).  The memcpy rows run the same code
in both trees: they are the harness's null test, summarised on their own
line and not counted as cases.

Writes OUT/results.json, OUT/table.md and OUT/table.txt.
"""
import argparse
import csv
import json
import math
import os
import statistics
import sys

# two-sided 95% t quantiles by degrees of freedom (1-40 exact to three
# decimals, then 60, 120 and the normal limit)
T95 = [None, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
       2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
       2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
       2.040, 2.037, 2.035, 2.032, 2.030, 2.028, 2.026, 2.024, 2.023, 2.021]


def t95(df):
    if df < len(T95):
        return T95[df]
    return 2.000 if df < 120 else 1.980 if df < 1000 else 1.960


def load(path):
    with open(path, newline='') as f:
        return {r['case']: r for r in csv.DictReader(f, delimiter='\t')}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('results', nargs='+', help='results.<layout>.tsv files')
    ap.add_argument('--trees', help='trees.tsv: tree<TAB>commit')
    ap.add_argument('--out', required=True)
    a = ap.parse_args()

    layouts = {}
    for p in a.results:
        name = os.path.basename(p)[len('results.'):-len('.tsv')]
        layouts[name] = load(p)
    if not layouts:
        sys.exit('native_report: no results')
    first = next(iter(layouts.values()))
    cases = []
    for case, row in first.items():
        rows = [lay[case] for lay in layouts.values() if case in lay]
        if len(rows) != len(layouts):
            sys.exit(f'native_report: {case} is missing from a layout')
        med = lambda k: statistics.median(float(r[k]) for r in rows)
        c = {
            'case': case, 'group': row['group'], 'type': row['type'],
            'a': row['a'], 'b': row['b'],
            'bytes': int(row['bytes']), 'frag': int(row['frag']),
            'a_cycles': med('a_cycles'), 'b_cycles': med('b_cycles'),
            'a_ns': med('a_ns'), 'b_ns': med('b_ns'),
            'placement_range': [min(float(r['ci_lo']) for r in rows),
                                max(float(r['ci_hi']) for r in rows)],
            'pairs': sum(int(r['pairs']) for r in rows),
            'layouts': {n: {'ratio': float(lay[case]['ratio']),
                            'ci95': [float(lay[case]['ci_lo']),
                                     float(lay[case]['ci_hi'])]}
                        for n, lay in layouts.items()},
        }
        logs = [math.log(float(r['ratio'])) for r in rows]
        mid = statistics.median(logs)
        # layouts more than 10% from the median layout: a mean and a t
        # interval describe such a case poorly, and the table says so
        c['far_layouts'] = sum(1 for x in logs if abs(x - mid) > math.log(1.1))
        if len(logs) == 1:
            c['ratio'] = float(rows[0]['ratio'])
            c['ci95'] = [float(rows[0]['ci_lo']), float(rows[0]['ci_hi'])]
        else:
            m = statistics.mean(logs)
            h = t95(len(logs) - 1) * statistics.stdev(logs) / math.sqrt(len(logs))
            c['ratio'] = math.exp(m)
            c['ci95'] = [math.exp(m - h), math.exp(m + h)]
        cases.append(c)

    for c in cases:
        rows = [lay[c['case']] for lay in layouts.values()]
        # paired cycle columns: side a over the layouts, side b = a x ratio
        c['a_cycles'] = math.exp(statistics.mean(math.log(float(r['a_cycles'])) for r in rows))
        c['b_cycles'] = c['a_cycles'] * c['ratio']
        c['overhead'] = None
        if rows[0].get('ref', '-') in ('-', None):
            continue
        diffs = [float(r['ov_diff']) for r in rows]
        if len(diffs) == 1:
            lo, hi = float(rows[0]['ov_diff_lo']), float(rows[0]['ov_diff_hi'])
            d = diffs[0]
        else:
            d = statistics.mean(diffs)
            h = t95(len(diffs) - 1) * statistics.stdev(diffs) / math.sqrt(len(diffs))
            lo, hi = d - h, d + h
        base = statistics.mean(float(r['ov_a']) for r in rows)
        c['overhead'] = {'ref': rows[0]['ref'], 'base': base, 'series': base + d,
                         'diff': d, 'diff_ci95': [lo, hi],
                         'ratio': (base + d) / base if base > 0 else None}

    trees = {}
    if a.trees:
        with open(a.trees) as f:
            trees = dict(line.rstrip('\n').split('\t') for line in f if line.strip())
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, 'results.json'), 'w') as f:
        json.dump({'trees': trees, 'layouts': list(layouts), 'cases': cases}, f, indent=1)

    ab = [c for c in cases if c['group'] == 'ab' and not c['case'].startswith('memcpy_')]
    null = [c for c in cases if c['group'] == 'ab' and c['case'].startswith('memcpy_')]
    st = [c for c in cases if c['group'] == 'step']
    mit = sorted({line.strip()[2:] for p in a.results
                  for line in open(os.path.join(os.path.dirname(p), 'run.' + os.path.basename(
                      p)[len('results.'):-len('.tsv')] + '.log'), errors='replace')
                  if line.startswith('# mitigations:')} if a.results else set())
    short = lambda k: trees.get(k, '?')[:12]
    lines = [f"Native, x86_64 (this CPU): base {short('base')} against series {short('series')}, "
             f"objects of the {trees.get('config', '?')} configuration, {len(layouts)} link "
             'layout(s).']
    lines += [m[0].upper() + m[1:] + '.' for m in mit]
    lines += ['Cycles per call (TSC): base is side a\'s median (geometric mean over the '
              'layouts), series = base x ratio; ratio = series/base, the median of the pairs, '
              'geometric mean over the layouts, with the 95% t interval of that mean.  '
              'Overhead = case - memcpy_<frag> of the same tree, timed in the same pair; '
              'delta = series overhead - base overhead (mean over the layouts of the pairs\' '
              'median difference, with its 95% interval).',
             '',
             '| case | base cycles | series cycles | ratio | 95% CI | overhead base | '
             'overhead series | overhead delta (95% CI) |',
             '|---|---:|---:|---:|---|---:|---:|---|']
    for c in ab:
        o = c['overhead']
        ov = ('| - | - | - |' if not o else
              f"| {o['base']:.0f} | {o['series']:.0f} | {o['diff']:+.0f} "
              f"({o['diff_ci95'][0]:+.0f} to {o['diff_ci95'][1]:+.0f}) |")
        lines.append(f"| {c['case']} | {c['a_cycles']:.0f} | {c['b_cycles']:.0f} | "
                     f"{c['ratio']:.3f} | {c['ci95'][0]:.3f}-{c['ci95'][1]:.3f} {ov}")
    if st:
        lines += ['', 'Step variants at the tip, against the inline step (walks: against '
                  'the inline empty walk)',
                  '', '| case | inline cycles | variant cycles | ratio | 95% CI |',
                  '|---|---:|---:|---:|---|']
        for c in st:
            lines.append(f"| {c['case']} | {c['a_cycles']:.0f} | {c['b_cycles']:.0f} | "
                         f"{c['ratio']:.3f} | {c['ci95'][0]:.3f}-{c['ci95'][1]:.3f} |")
    over = [c['case'] for c in ab if c['ci95'][1] > 1.01]
    lines += ['', f"CI upper bound above 1.01: {len(over)} of {len(ab)} cases"
              + (f" ({', '.join(over)})" if over else '')]
    far = [f"{c['case']} ({c['far_layouts']})" for c in ab if c.get('far_layouts')]
    if far:
        lines.append('Layouts more than 10% from the case\'s median layout (the mean and its '
                     'interval describe these poorly): ' + ', '.join(far))
    wide = [c['case'] for c in ab if (c['ci95'][1] - c['ci95'][0]) / 2 > 0.005 * c['ratio']]
    lines.append(f"CI half-width above 0.5%: {len(wide)} of {len(ab)} cases"
                 + (f" ({', '.join(wide)})" if wide else ''))
    if null:
        lines.append('Null rows (memcpy, the same code in both trees; not cases): '
                     + ', '.join(f"{c['case']} {c['ratio']:.3f} ({c['ci95'][0]:.3f}-"
                                 f"{c['ci95'][1]:.3f})" for c in null))
    text = '\n'.join(lines) + '\n'
    with open(os.path.join(a.out, 'table.md'), 'w') as f:
        f.write(text)
    with open(os.path.join(a.out, 'table.txt'), 'w') as f:
        f.write(text)
    sys.stdout.write(text)


if __name__ == '__main__':
    main()
