#!/usr/bin/env python3
"""Draw make bench's results as forest plots: one chart per mode.

Each case is a row: its ratio series/base as a point, its 95% CI as a
horizontal interval, on an axis around 1, with a solid line at 1 (no
change) and dashed lines at the +-1% goal.  Rows whose interval reaches
past the axis are clipped, with an arrow and the true bounds written beside
them, so that a few wide rows do not squeeze the rest into a dot.

  forest.py native RESULTS_JSON PNG      ci/native_report.py's results.json:
                                         the ratio over the layouts with
                                         its t interval; the memcpy null
                                         rows in grey
  forest.py icount RESULTS_JSON MODE PNG ci/bench_report.py's results.json,
                                         one mode (icount, icount-arm64):
                                         the overhead ratio where the case
                                         has a memcpy twin, else the ratio;
                                         instruction counts are exact, so
                                         there is no interval
  forest.py syscall RESULTS_TSV PNG      ci/syscall-bench.sh's results.tsv:
                                         exact ratios per system call

The venv's python has matplotlib (ci/requirements.txt).
"""
import csv
import json
import os
import re
import sys
import textwrap

GOAL = 0.01          # the +-1% band
HALF_SPAN = 0.06     # the axis shows 1 +- this at least
CLIP = 0.25          # and never more than 1 +- this


def native_rows(path):
    res = json.load(open(path, encoding='utf-8'))
    trees = res.get('trees', {})
    rows = []
    for c in res['cases']:
        if c['group'] != 'ab':
            continue
        null = c['case'].startswith('memcpy_')
        rows.append((c['case'] + (' (null)' if null else ''), c['ratio'],
                     c['ci95'][0], c['ci95'][1], 'grey' if null else None))
    title = (f"native, x86_64 (this CPU): series {trees.get('series', '?')[:12]} / base "
             f"{trees.get('base', '?')[:12]}, {trees.get('config', '?')} objects, "
             f"{len(res.get('layouts', []))} layouts; 95% t interval over the layouts")
    return title, rows


SAME_CHUNKS = re.compile(r'^(kvec|iovec|bvec|bvec_split|xarray)_(to|from)$')


def spread(c, kernel):
    """The lowest and highest sample of a case over the boots of one kernel."""
    boots = c.get(kernel) or []
    lo = [b.get('min', b['median']) for b in boots]
    hi = [b.get('max', b['median']) for b in boots]
    v = c[f'{kernel}_value']
    return (min(lo) if lo else v), (max(hi) if hi else v)


def icount_rows(path, mode):
    res = json.load(open(path, encoding='utf-8'))
    if mode not in res['modes']:
        sys.exit(f'forest: {path} has no mode {mode}')
    mres, meta = res['modes'][mode], res['meta']
    cases = mres['cases']
    rows = []
    for name in sorted(cases):
        c = cases[name]
        if 'ratio' not in c:
            continue
        blo, bhi = spread(c, 'base')
        slo, shi = spread(c, 'series')
        m = SAME_CHUNKS.match(name)
        ref = cases.get(f'memcpy_{m[2]}') if m else None
        if ref and 'base_value' in ref:
            ob = c['base_value'] - ref['base_value']
            os_ = c['series_value'] - ref['series_value']
            rblo, rbhi = spread(ref, 'base')
            rslo, rshi = spread(ref, 'series')
            if ob > 0 and bhi - rblo > 0 and blo - rbhi > 0:
                rows.append((f'{name} (overhead)', os_ / ob, (slo - rshi) / (bhi - rblo),
                             (shi - rslo) / (blo - rbhi), None))
                continue
        rows.append((name, c['ratio'], slo / bhi, shi / blo, None))
    title = (f"{mode}: {mres['label']}; series {meta['series']['commit'][:12]} / base "
             f"{meta['base']['commit'][:12]}; the interval spans the lowest to the highest "
             "sample of the boots (instruction counts: no statistical CI)")
    return title, rows


def syscall_rows(path):
    rows = []
    with open(path, newline='', encoding='utf-8') as f:
        for r in csv.DictReader(f, delimiter='\t'):
            if r['case'].startswith('calibration'):
                continue        # the timing loop's own check, not a call
            x = float(r['ratio'])
            rows.append((r['case'], x, x, x, None))
    names = ''
    try:
        with open(os.path.join(os.path.dirname(path), 'table.md'), encoding='utf-8') as f:
            m = re.search(r'base (\w+) vs series (\w+)', f.readline())
        if m:
            names = f'; series {m[2]} / base {m[1]}'
    except OSError:
        pass
    return f'per system call, x86_64 under icount: guest instructions, exact{names}', rows


def draw(title, rows, png):
    import matplotlib  # pylint: disable=import-outside-toplevel
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt  # pylint: disable=import-outside-toplevel

    if not rows:
        sys.exit('forest: nothing to draw')
    span = max([HALF_SPAN] + [abs(v - 1) * 1.1 for _, x, lo, hi, _ in rows
                              for v in (x, lo, hi) if abs(v - 1) <= CLIP])
    span = min(span, CLIP)
    lo_ax, hi_ax = 1 - span, 1 + span
    fig, ax = plt.subplots(figsize=(9, 0.26 * len(rows) + 1.6))
    ax.axvspan(1 - GOAL, 1 + GOAL, color='#dff0d8', zorder=0)
    ax.axvline(1, color='black', linewidth=0.8, zorder=1)
    for g in (1 - GOAL, 1 + GOAL):
        ax.axvline(g, color='green', linewidth=0.8, linestyle='--', zorder=1)
    for y, (label, x, lo, hi, colour) in enumerate(rows):
        slower = lo > 1 + GOAL
        faster = hi < 1 - GOAL
        col = colour or ('#c0392b' if slower else '#1f6fb2' if faster else 'black')
        a, b = max(lo, lo_ax), min(hi, hi_ax)
        ax.plot([a, b], [y, y], color=col, linewidth=1.6, zorder=2)
        ax.plot([min(max(x, lo_ax), hi_ax)], [y], 'o', color=col, markersize=4, zorder=3)
        if lo < lo_ax or hi > hi_ax or x < lo_ax or x > hi_ax:
            side = hi_ax if max(hi, x) > hi_ax else lo_ax
            ax.annotate(f'{x:.3f} ({lo:.3f}-{hi:.3f})', (side, y), fontsize=6.5,
                        xytext=(-4 if side == hi_ax else 4, 0), textcoords='offset points',
                        ha='right' if side == hi_ax else 'left', va='center', color=col,
                        bbox={'facecolor': 'white', 'edgecolor': 'none', 'pad': 0.5})
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r[0] for r in rows], fontsize=7)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlim(lo_ax, hi_ax)
    ax.set_xlabel('series / base (1 = no change; dashed: the +-1% goal; '
                  'red: slower beyond it, blue: faster)', fontsize=8)
    ax.tick_params(axis='x', labelsize=8)
    ax.grid(axis='x', color='#dddddd', linewidth=0.5, zorder=0)
    ax.set_title('\n'.join(textwrap.wrap(title, 110)), fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def main():
    a = sys.argv[1:]
    if a[:1] == ['native'] and len(a) == 3:
        title, rows = native_rows(a[1])
    elif a[:1] == ['icount'] and len(a) == 4:
        title, rows = icount_rows(a[1], a[2])
    elif a[:1] == ['syscall'] and len(a) == 3:
        title, rows = syscall_rows(a[1])
    else:
        sys.exit(__doc__)
    draw(title, rows, a[-1])


if __name__ == '__main__':
    main()
