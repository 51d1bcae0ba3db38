#!/usr/bin/env python3
"""Turn the raw KUnit logs of a `make bench` run into results.

Input: a run list (TSV: mode, kernel, boot, raw log path) and a JSON file of
run metadata.  Each raw log holds one line per benchmark case, printed by
the iov_iter_bench suite as a KTAP diagnostic:

    # bench_kvec_to: bench name=kvec_to unit=ns n=15 mean=.. median=.. min=..
      max=.. stddev=..

(kunit.py's JSON drops diagnostics, so the raw console is parsed.)

Output: results.json, a text table per mode (also as Markdown for the cover
letter); ci/forest.py draws the charts.  The figure of one boot is the median of
its samples; base and series are the mean over boots.  For native time the
95% confidence interval of the ratio series/base comes from the delta
method on the boot-level figures, with Student's t at nb + ns - 2 degrees
of freedom.  In icount mode the figures are instruction counts: no
interval is given, and the boots are checked to agree.

--smoke only checks that every expected case printed a well-formed line in
every log, and prints nothing else of substance.  --lines LOG checks one
KUnit log the same way for the cases that reported a result in it (every
KUnit stage runs the benchmarks at smoke size: ci/kunit.sh).
"""
import argparse
import json
import math
import re
import statistics
import sys

from ktap_check import read_manifest

LINE = re.compile(r'#\s*bench_(?P<case>\w+): bench name=(?P<name>\w+) unit=(?P<unit>\S+)'
                  r' n=(?P<n>\d+) mean=(?P<mean>\d+) median=(?P<median>\d+)'
                  r' min=(?P<min>\d+) max=(?P<max>\d+) stddev=(?P<stddev>\d+)\s*$')
OK = re.compile(r'(?:^|\s)ok \d+ bench_(?P<case>\w+)\s*$')
SKIP = re.compile(r'^\s*ok \d+ bench_(?P<case>\w+) # SKIP ?(?P<why>.*)$')
STATS = ('n', 'mean', 'median', 'min', 'max', 'stddev')

# Two-sided 95% Student's t quantiles by degrees of freedom.
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365,
       8: 2.306, 9: 2.262, 10: 2.228, 12: 2.179, 14: 2.145, 16: 2.120,
       18: 2.101, 20: 2.086, 30: 2.042}


def t95(df):
    if df <= 0:
        return math.nan
    keys = sorted(T95)
    for k in keys:
        if df <= k:
            return T95[k]
    return 1.96


def parse_log(path):
    """{case: stats} and {case: skip reason} of one raw log."""
    cases, skips = {}, {}
    with open(path, encoding='utf-8', errors='replace') as f:
        for line in f:
            m = LINE.search(line)
            if m:
                if m['case'] != m['name']:
                    raise ValueError(f'{path}: case {m["case"]} printed name {m["name"]}')
                stats = {k: int(m[k]) for k in STATS}
                stats['unit'] = m['unit']
                if stats['n'] < 1 or not stats['min'] <= stats['median'] <= stats['max']:
                    raise ValueError(f'{path}: inconsistent line: {line.strip()}')
                cases[m['case']] = stats
                continue
            m = SKIP.search(line)
            if m:
                skips[m['case']] = m['why'].strip() or 'skipped'
    return cases, skips


def check_lines(log, label, results):
    """Every bench case that passed in LOG printed a well-formed line."""
    with open(log, encoding='utf-8', errors='replace') as f:
        passed = [m['case'] for m in map(OK.search, f) if m]
    try:
        cases, _ = parse_log(log)
        bad = [f'bench_{c} passed without a well-formed line' for c in passed if c not in cases]
    except ValueError as exc:
        bad = [str(exc)]
    if not passed:
        bad.append('no benchmark case passed')
    for why in bad:
        print(f'FAIL {label}bench-lines: {why} (log: {log})')
    if results:
        with open(results, 'a', encoding='utf-8') as f:
            f.write(f'{"FAIL" if bad else "PASS"}\t{label}bench-lines\n')
    print(f'bench lines: {len(passed)} cases passed, {len(bad)} problem(s)')
    return 1 if bad else 0


def ratio_ci(base, series):
    """Ratio of means and its 95% CI (delta method), or None if n < 2."""
    mb, ms = statistics.fmean(base), statistics.fmean(series)
    r = ms / mb if mb else math.nan
    if len(base) < 2 or len(series) < 2 or not mb or not ms:
        return r, None
    vb, vs = statistics.variance(base), statistics.variance(series)
    se = r * math.sqrt(vs / (len(series) * ms * ms) + vb / (len(base) * mb * mb))
    t = t95(len(base) + len(series) - 2)
    return r, [r - t * se, r + t * se]


def load_runs(path):
    runs = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.strip():
                mode, kernel, boot, log = line.rstrip('\n').split('\t')
                runs.append((mode, kernel, int(boot), log))
    return runs


def expected_cases(manifest):
    prefix = 'iov_iter_bench.bench_'
    return [n[len(prefix):] for n in read_manifest(manifest) if n.startswith(prefix)]


def build(runs, meta, expected):
    res = {'meta': meta, 'modes': {}, 'skipped': [], 'missing': [], 'series_only': []}
    parsed = [(mode, kernel, boot, log) + parse_log(log) for mode, kernel, boot, log in runs]
    # Cases that no base run printed were added after the benchmark patch
    # (ci/kunit.sh has already checked each run against its own source).
    in_base = {c for _, kernel, _, _, cases, skips in parsed if kernel == 'base'
               for c in list(cases) + list(skips)}
    has_base = any(kernel == 'base' for _, kernel, _, _, _, _ in parsed)
    if has_base and not meta.get('same_kernel'):
        res['series_only'] = [c for c in expected if c not in in_base]
    for mode, kernel, boot, log, cases, skips in parsed:
        if kernel == 'base' and not meta.get('same_kernel'):
            want = [c for c in expected if c not in res['series_only']]
        else:
            want = expected
        mres = res['modes'].setdefault(mode, {'label': meta['modes'][mode]['label'],
                                              'cases': {}})
        for case in want:
            if case in skips:
                res['skipped'].append({'mode': mode, 'kernel': kernel, 'boot': boot,
                                       'case': case, 'reason': skips[case]})
            elif case not in cases:
                res['missing'].append({'mode': mode, 'kernel': kernel, 'boot': boot,
                                       'case': case, 'log': log})
        for case, st in cases.items():
            c = mres['cases'].setdefault(case, {'unit': st['unit'], 'base': [], 'series': []})
            c[kernel].append(dict(st, boot=boot))
    for mode, mres in res['modes'].items():
        deterministic = meta['modes'][mode].get('deterministic', False)
        for case, c in mres['cases'].items():
            b = [x['median'] for x in c['base']]
            s = [x['median'] for x in c['series']]
            if s:
                c['series_value'] = statistics.fmean(s)
            if not b or not s:
                continue
            r, ci = ratio_ci(b, s)
            c['base_value'] = statistics.fmean(b)
            c['series_value'] = statistics.fmean(s)
            c['ratio'] = r
            c['ci95'] = None if deterministic else ci
            if deterministic:
                c['boots_identical'] = len(set(b)) == 1 and len(set(s)) == 1
    return res


def fmt(v):
    return f'{v:,.0f}' if v >= 100 else f'{v:,.1f}'


def emit_table(text, md, title, hdr, rows):
    """Append one titled table to the plain-text and the Markdown output."""
    widths = [max(len(str(x)) for x in col) for col in zip(hdr, *rows)]
    text.append(title)
    text.append('  ' + '  '.join(h.ljust(w) for h, w in zip(hdr, widths)))
    for row in rows:
        text.append('  ' + '  '.join(str(x).rjust(w) if i else str(x).ljust(w)
                                     for i, (x, w) in enumerate(zip(row, widths))))
    text.append('')
    md.extend([title, '', '| ' + ' | '.join(hdr) + ' |', '|' + '|'.join('---' for _ in hdr) + '|'])
    md.extend('| ' + ' | '.join(row) + ' |' for row in rows)
    md.append('')


def tables(res, only=None):
    text, md = [], []
    for mode, mres in res['modes'].items():
        if only and mode != only:
            continue
        det = res['meta']['modes'][mode].get('deterministic', False)
        hdr = ['case', 'unit', 'base', 'series', 'ratio'] + (
            ['overhead base', 'overhead series', 'overhead ratio'] if det else ['95% CI'])
        rows = []
        for case in sorted(mres['cases']):
            c = mres['cases'][case]
            if 'ratio' not in c:
                continue
            # Under icount a "ns" is one guest instruction.
            unit = c['unit'].replace('ns', 'insns') if det else c['unit']
            row = [case, unit, fmt(c['base_value']), fmt(c['series_value']),
                   f'{c["ratio"]:.3f}']
            if not det:
                row.append(f'{c["ci95"][0]:.3f}..{c["ci95"][1]:.3f}' if c['ci95'] else 'n/a')
            else:
                row += overhead(mres['cases'], case)
            rows.append(row)
        names = ''
        if 'base' in res['meta'] and 'series' in res['meta']:
            names = (f"; base {res['meta']['base']['commit'][:12]}, "
                     f"series {res['meta']['series']['commit'][:12]}")
        emit_table(text, md, f'{mode}: {mres["label"]}{names}', hdr, rows)
        variants = variant_rows(mres)
        if det:
            for v in variants:
                v[1] = v[1].replace('ns', 'insns')
        if variants:
            emit_table(text, md, f'{mode}: step variants at the series tip, against the inline walk',
                       ['case', 'unit', 'series', 'reference', 'ratio to reference'], variants)
    # the x86_64 walkers' sizes go with the x86_64 table (once, when the
    # cover letter asks for one mode at a time)
    if res.get('code_size') and only in (None, 'icount'):
        text.append('code size of the walkers, series x86_64 bench kernel (nm -S):')
        md.append('code size of the walkers, series x86_64 bench kernel (nm -S):')
        md.append('')
        for name, size in sorted(res['code_size'].items()):
            text.append(f'  {name:24} {size:6} bytes')
            md.append(f'- `{name}`: {size} bytes')
        text.append('')
        md.append('')
    for s in res['skipped']:
        text.append(f'skipped: {s["mode"]} {s["kernel"]} boot {s["boot"]}: {s["case"]}: {s["reason"]}')
    return '\n'.join(text), '\n'.join(md)


# Cases that copy the same bytes in the same chunks (one page) as the memcpy
# reference of their direction: their overhead is the case minus it.
SAME_CHUNKS = re.compile(r'^(kvec|iovec|bvec|bvec_split|xarray)_(to|from)$')


def overhead(cases, case):
    """Iteration overhead of an icount case: base, series, ratio (or '-')."""
    m = SAME_CHUNKS.match(case)
    ref = cases.get(f'memcpy_{m[2]}') if m else None
    c = cases[case]
    if not ref or 'base_value' not in ref or 'series_value' not in ref:
        return ['-', '-', '-']
    ob = c['base_value'] - ref['base_value']
    os_ = c['series_value'] - ref['series_value']
    return [fmt(ob), fmt(os_), f'{os_ / ob:.3f}' if ob > 0 else '-']


VARIANT = re.compile(r'^(?P<kind>\w+?)_(?P<what>to|walk)_(?P<how>kernel|indirect)$')


def variant_rows(mres):
    """Rows comparing each kernel-only/indirect case to its inline twin."""
    rows = []
    for case in sorted(mres['cases']):
        m = VARIANT.match(case)
        ref = f'{m["kind"]}_{m["what"]}_inline' if m else None
        c, r = mres['cases'][case], mres['cases'].get(ref or '', {})
        if not m or 'series_value' not in c or 'series_value' not in r:
            continue
        rows.append([f'{case} / {ref}', c['unit'], fmt(c['series_value']),
                     fmt(r['series_value']), f'{c["series_value"] / r["series_value"]:.3f}'])
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('runs', nargs='?', help='TSV: mode, kernel (base|series), boot, raw log')
    ap.add_argument('--meta', help='JSON metadata of the run')
    ap.add_argument('--manifest', help='kunit/6.1.y/expected-tests.bench')
    ap.add_argument('--table-from', metavar='RESULTS_JSON',
                    help='only print the text table of a results.json')
    ap.add_argument('--mode', help='with --table-from: only this mode')
    ap.add_argument('--sizes', help='nm -S output of the series kernel\'s lib/iov_iter_kunit.o')
    ap.add_argument('--out', help='directory for results.json, table.txt, table.md')
    ap.add_argument('--smoke', action='store_true',
                    help='only check that every case printed a well-formed line')
    ap.add_argument('--results', help='append PASS/FAIL TSV lines per run and case')
    ap.add_argument('--lines', metavar='RAW_LOG',
                    help='only check the benchmark lines of one KUnit log')
    ap.add_argument('--label', default='', help='with --lines: prefix of the result name')
    args = ap.parse_args()

    if args.lines:
        return check_lines(args.lines, args.label, args.results)

    if args.table_from:
        with open(args.table_from, encoding='utf-8') as f:
            text, _ = tables(json.load(f), args.mode)
        print(text.rstrip('\n'))
        return 0
    if not (args.runs and args.meta and args.manifest):
        ap.error('runs, --meta and --manifest are required')
    with open(args.meta, encoding='utf-8') as f:
        meta = json.load(f)
    expected = expected_cases(args.manifest)
    if not expected:
        sys.exit(f'bench_report: no bench cases in {args.manifest}')
    try:
        res = build(load_runs(args.runs), meta, expected)
    except ValueError as exc:
        sys.exit(f'bench_report: {exc}')
    for m in res['missing']:
        print(f'FAIL bench line missing: {m["mode"]} {m["kernel"]} boot {m["boot"]}: '
              f'{m["case"]} (log: {m["log"]})')
    if args.results:
        missing = {(m['mode'], m['kernel'], m['boot'], m['case']) for m in res['missing']}
        with open(args.results, 'a', encoding='utf-8') as f:
            for mode, kernel, boot, _ in load_runs(args.runs):
                for case in expected:
                    if kernel == 'base' and case in res['series_only']:
                        continue
                    bad = (mode, kernel, boot, case) in missing
                    f.write(f'{"FAIL" if bad else "PASS"}\tbench:{mode}:{kernel}:{boot}:{case}\n')
    if args.smoke:
        nlogs = len(load_runs(args.runs))
        print(f'bench smoke: {len(expected)} cases x {nlogs} runs, '
              f'{len(res["missing"])} missing, {len(res["skipped"])} skipped')
        return 1 if res['missing'] else 0
    if args.sizes:
        res['code_size'] = {}
        with open(args.sizes, encoding='utf-8') as f:
            for ln in f:
                w = ln.split()
                if len(w) == 4 and w[3].startswith('bench_iter_'):
                    res['code_size'][w[3].split('.')[0]] = int(w[1], 16)
    text, md = tables(res)
    print(text)
    if args.out:
        with open(f'{args.out}/results.json', 'w', encoding='utf-8') as f:
            json.dump(res, f, indent=1, sort_keys=True)
            f.write('\n')
        with open(f'{args.out}/table.txt', 'w', encoding='utf-8') as f:
            f.write(text + '\n')
        with open(f'{args.out}/table.md', 'w', encoding='utf-8') as f:
            f.write(md + '\n')
    for mode, mres in res['modes'].items():
        ratios = [c['ratio'] for c in mres['cases'].values() if 'ratio' in c]
        if ratios:
            gm = math.exp(statistics.fmean(math.log(r) for r in ratios))
            print(f'summary: {mode}: {len(ratios)} cases, series/base geometric mean '
                  f'{gm:.3f} (range {min(ratios):.3f}..{max(ratios):.3f})')
    return 1 if res['missing'] else 0


if __name__ == '__main__':
    sys.exit(main())
