#!/usr/bin/env python3
"""Match make uaudit's Coccinelle hits against their explanations.

Inputs (ci/uaudit.sh writes the first three):
  --files      commit, path, blob: the preselected files at every commit
               ("base" for the base)
  --hits       blob, kind, path, line, function, expression: spatch's hits
  --commits    commit, subject of each patch, in order
  --explained  ci/6.1.y/uaudit-explained: kind, file, function, expression,
               verdict, reason (tab-separated; # comments).  The verdict is
               "safe"; "risk", accepted with a risk the reason states (the
               table shows it, for the cover letter to say); or "until
               <subject>": acceptable only before the patch with that
               subject, which makes the read reachable with an ITER_UBUF
               (so its fix must come earlier).
Fails on a hit with no explanation, on an "until" hit at or after its patch,
on an "until" subject the series does not have, and on an explanation that
matches nothing at any commit.  Writes results (PASS/FAIL lines) and the
markdown table of Documentation/6.1.y/porting.md.
"""
import argparse
import collections
import sys


def norm(expr):
    return ''.join(expr.split())


def read_tsv(path, ncols):
    rows = []
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line or line.startswith('#'):
                continue
            cols = line.split('\t')
            if len(cols) != ncols:
                sys.exit(f'{path}:{n}: {len(cols)} columns, want {ncols}: {line!r}')
            rows.append(cols)
    return rows


def main():
    ap = argparse.ArgumentParser()
    for a in ('files', 'hits', 'commits', 'explained', 'table', 'results'):
        ap.add_argument('--' + a, required=True)
    args = ap.parse_args()

    commits = [('base', 'the base')] + [tuple(r) for r in read_tsv(args.commits, 2)]
    index = {c: i for i, (c, _) in enumerate(commits)}
    by_subject = {s: i for i, (_, s) in enumerate(commits) if i}
    files = collections.defaultdict(list)
    for c, path, blob in read_tsv(args.files, 3):
        files[c].append((path, blob))
    hits = collections.defaultdict(list)
    for blob, kind, path, line, fn, expr in read_tsv(args.hits, 6):
        hits[blob].append((kind, path, int(line), fn, norm(expr)))

    explained = {}
    bad = []
    for kind, path, fn, expr, verdict, reason in read_tsv(args.explained, 6):
        key = (kind, path, fn, norm(expr))
        if key in explained:
            bad.append(f'{args.explained}: {"/".join(key)} is listed twice')
        until = None
        if verdict.startswith('until '):
            until = by_subject.get(verdict[6:])
            if until is None:
                bad.append(f'{args.explained}: {"/".join(key)}: no patch "{verdict[6:]}" in the series')
        elif verdict not in ('safe', 'risk'):
            bad.append(f'{args.explained}: {"/".join(key)}: verdict "{verdict}" is not "safe", "risk" or "until <subject>"')
        explained[key] = (verdict, until, reason)

    seen = collections.defaultdict(list)  # key -> commit indices
    lines = collections.defaultdict(dict)  # key -> commit index -> lines
    results = []
    failed = 0
    for i, (c, subject) in enumerate(commits):
        problems = []
        for path, blob in files[c]:
            for kind, hpath, line, fn, expr in hits.get(blob, []):
                key = (kind, path, fn, expr)
                seen[key].append(i)
                lines[key].setdefault(i, []).append(line)
                where = f'{path}:{line}: {fn}(): {kind} {expr}'
                if key not in explained:
                    problems.append(f'unexplained: {where}')
                    continue
                verdict, until, _ = explained[key]
                if until is not None and i >= until:
                    problems.append(f'reachable: {where}: must be gone before "{commits[until][1]}" (patch {until})')
        name = 'base' if i == 0 else f'{i:02d} {subject}'
        hitn = sum(len(hits.get(b, [])) for _, b in files[c])
        if problems:
            failed += 1
            results.append(('FAIL', f'uaudit:{name}'))
            print(f'{name}: {hitn} hits, {len(problems)} not accepted:')
            for p in sorted(set(problems)):
                print('  ' + p)
        else:
            results.append(('PASS', f'uaudit:{name}'))
            print(f'{name}: {hitn} hits, all explained')
    for key, (verdict, until, _) in explained.items():
        if key not in seen:
            bad.append(f'stale explanation, no hit at any commit: {"/".join(key)}')
    for b in bad:
        print(b)
        results.append(('FAIL', 'uaudit:explained: ' + b))
    with open(args.results, 'w', encoding='utf-8') as f:
        for st, name in results:
            f.write(f'{st}\t{name}\n')

    last = len(commits) - 1

    def span(idx):
        idx = sorted(set(idx))
        if idx == list(range(0, last + 1)):
            return 'all'
        out, start, prev = [], idx[0], idx[0]
        for n in idx[1:] + [None]:
            if n is not None and n == prev + 1:
                prev = n
                continue
            a = 'base' if start == 0 else str(start)
            b = 'base' if prev == 0 else str(prev)
            out.append(a if start == prev else f'{a}-{b}')
            if n is not None:
                start = prev = n
        return ', '.join(out)

    with open(args.table, 'w', encoding='utf-8') as f:
        f.write('| file | function | hit | at patches | verdict | why |\n')
        f.write('|---|---|---|---|---|---|\n')
        for key in sorted(explained, key=lambda k: (k[1], k[2], k[0], k[3])):
            kind, path, fn, expr = key
            verdict, until, reason = explained[key]
            if until is not None:
                verdict = f'gone before {until} ("{commits[until][1]}")'
            at = span(seen[key]) if key in seen else 'none'
            f.write(f'| `{path}` | `{fn}()` | {kind} `{expr}` | {at} | {verdict} | {reason} |\n')
    return 1 if failed or bad else 0


if __name__ == '__main__':
    sys.exit(main())
