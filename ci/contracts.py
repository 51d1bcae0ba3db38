#!/usr/bin/env python3
"""Check a line's contract table against its tree.

Documentation/<line>/contracts.md lists, for every exported function of
lib/iov_iter.c and every inline function of include/linux/uio.h and
include/linux/iov_iter.h, what it promises, for which iterator types, and
which test checks each promise:

    | function | promise | types | test |
    |---|---|---|---|
    | `iov_iter_npages()` | counts the pages ... | any | `iov_kunit_npages` |

A function the line lacks has one row whose test cell is `absent` (the
check verifies that it is absent).  A promise no test checks yet has the
test cell `gap`.  A test cell is exactly `gap`, `absent`, or a comma
list of test names in backticks; a types cell is words of UBUF IOVEC KVEC
BVEC FOLIOQ XARRAY DISCARD PIPE, `any` or `-`.

The check fails when
  - a line of the table is not a well-formed row (a row the check cannot
    read would hide a gap);
  - a function of the tree has no row, or a row names a function the tree
    does not have (and does not say `absent`), or says `absent` of one it has;
  - a row names a test that is not a case of the line's test files;
  - there are more gap rows than the line allows (--max-gaps, the ratchet
    in ci/<line>/contracts.conf), or fewer: then the allowance must come down;
  - with --gap-reasons, a function with a gap row has no bullet in the
    section headed "## Why the gap rows have no test", or a bullet there
    names a function with no gap row (a reason outliving its gap).  A
    bullet starts with the function in backticks: "- `f()` ...".

The functions: every EXPORT_SYMBOL*() of lib/iov_iter.c (the namespaced
and module-limited ones too), and every static inline function defined
in the two headers, less those --exclude names.

Test names: KUnit cases, the first argument of KUNIT_CASE*(...) or of a
macro whose name ends in _CASE_PARAMS(...) in a kunit_case array of a
suite the file registers, less the suites --skip-suites names (the
benchmarks); and kselftest harness cases, TEST(name) and
TEST_F(fixture, name), written <file stem>:<name>.  Comments, #define
lines and #if 0 blocks are not read.

    contracts.py --tree TREE --doc contracts.md --tests FILE... --max-gaps N
        [--skip-suites NAME...] [--exclude NAME...] [--gap-reasons]
"""
import argparse
import os
import re
import sys

EXPORT = re.compile(r'\bEXPORT_SYMBOL\w*\(\s*(\w+)')
INLINE_START = re.compile(r'^static\s+(?:inline|__always_inline)\b', re.M)
# Annotations that take arguments and may stand before the function name.
ANNOTATION = re.compile(r'^(__attribute__|__printf|__scanf|__alloc_size|__malloc|'
                        r'__nonnull|__section|__aligned|__diagnose_as|__assume_aligned)$')
CASE = re.compile(r'\b(?:KUNIT_CASE\w*|\w+_CASE_PARAMS)\(\s*(\w+)')
ARRAY = re.compile(r'struct\s+kunit_case\s+(?:\w+\s+)*(\w+)\s*\[\s*\]\s*=\s*\{(.*?)\};', re.S)
SUITE = re.compile(r'struct\s+kunit_suite\s+(\w+)\s*=\s*\{(.*?)\};', re.S)
REGISTER = re.compile(r'\bkunit_test_suites?\(([^;]*)\);')
KSFT = re.compile(r'^TEST(?:_F)?\(\s*(?:\w+\s*,\s*)?(\w+)\s*\)', re.M)
ROW = re.compile(r'^\|\s*`(\w+)\(\)`\s*\|([^|]*)\|([^|]*)\|([^|]*)\|\s*$')
HEADER = re.compile(r'^\|\s*function\s*\|\s*promise\s*\|\s*types\s*\|\s*test\s*\|\s*$')
SEPARATOR = re.compile(r'^\|(?:\s*:?-+:?\s*\|){4}\s*$')
TESTCELL = re.compile(r'^`[\w.:-]+`(?:\s*,\s*`[\w.:-]+`)*$')
TESTNAME = re.compile(r'`([\w.:-]+)`')
REASONS = re.compile(r'^##\s+Why the gap rows have no test\s*$')
REASON = re.compile(r'^- `(\w+)\(\)`')
TYPES = {'UBUF', 'IOVEC', 'KVEC', 'BVEC', 'FOLIOQ', 'XARRAY', 'DISCARD', 'PIPE', 'any', '-'}


def source(text):
    """C text without comments, #define lines and #if 0 blocks."""
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', '', text)
    out, skip = [], 0
    for line in text.split('\n'):
        t = line.strip()
        if skip:
            if re.match(r'#\s*if', t):
                skip += 1
            elif re.match(r'#\s*endif', t):
                skip -= 1
            continue
        if re.match(r'#\s*if\s+0\b', t):
            skip = 1
            continue
        if re.match(r'#\s*define\b', t):
            continue
        out.append(line)
    return '\n'.join(out)


def inline_name(text, start):
    """The name of the inline function whose definition starts at @start:
    the identifier before the first '(' that does not open an annotation."""
    pos = start
    while True:
        m = re.compile(r'(\w+)\s*\(').search(text, pos)
        if not m or text.find(';', pos, m.start()) >= 0 or text.find('{', pos, m.start()) >= 0:
            return None
        if not ANNOTATION.match(m.group(1)):
            return m.group(1)
        # skip the annotation's balanced parentheses
        depth, i = 0, m.end() - 1
        while i < len(text):
            depth += {'(': 1, ')': -1}.get(text[i], 0)
            i += 1
            if depth == 0:
                break
        pos = i


def functions(tree, exclude=()):
    """The functions a table must cover: (name, where) in file order."""
    out = []
    with open(os.path.join(tree, 'lib/iov_iter.c')) as f:
        for name in EXPORT.findall(source(f.read())):
            out.append((name, 'lib/iov_iter.c'))
    for hdr in ('include/linux/uio.h', 'include/linux/iov_iter.h'):
        path = os.path.join(tree, hdr)
        if not os.path.exists(path):
            continue
        with open(path) as f:
            text = source(f.read())
        for m in INLINE_START.finditer(text):
            name = inline_name(text, m.end())
            if name:
                out.append((name, hdr))
    seen, uniq = set(exclude), []
    for name, where in out:
        if name not in seen:
            seen.add(name)
            uniq.append((name, where))
    return uniq


def tests(paths, skip_suites=()):
    names = set()
    for path in paths:
        with open(path) as f:
            text = source(f.read())
        arrays = {m.group(1): CASE.findall(m.group(2)) for m in ARRAY.finditer(text)}
        suites = {}
        for m in SUITE.finditer(text):
            name = re.search(r'\.name\s*=\s*"([^"]*)"', m.group(2))
            cases = re.search(r'\.test_cases\s*=\s*(\w+)', m.group(2))
            if name and cases:
                suites[m.group(1)] = (name.group(1), cases.group(1))
        for m in REGISTER.finditer(text):
            for var in re.findall(r'&?\s*(\w+)', m.group(1)):
                if var in suites and suites[var][0] not in skip_suites:
                    names.update(arrays.get(suites[var][1], []))
        stem = os.path.splitext(os.path.basename(path))[0]
        names.update(f'{stem}:{n}' for n in KSFT.findall(text))
    return names


def reason_errors(lines, gap_names, doc):
    """The gap rows' functions against the reason bullets of their section."""
    heads = [n for n, line in enumerate(lines) if REASONS.match(line)]
    if len(heads) != 1:
        return [f'{doc} must have one section "## Why the gap rows have no test", '
                f'not {len(heads)}'] if gap_names or heads else []
    reasons = set()
    for line in lines[heads[0] + 1:]:
        if line.startswith('## '):
            break
        m = REASON.match(line)
        if m:
            reasons.add(m.group(1))
    return ([f'{n}() has a gap row but no reason in "Why the gap rows have no test"'
             for n in sorted(gap_names - reasons)] +
            [f'{n}() has a reason in "Why the gap rows have no test" but no gap row'
             for n in sorted(reasons - gap_names)])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--tree', required=True, help="the line's kernel tree")
    ap.add_argument('--doc', required=True, help='Documentation/<line>/contracts.md')
    ap.add_argument('--tests', nargs='+', required=True,
                    help='the test sources, relative to the tree')
    ap.add_argument('--max-gaps', type=int, required=True,
                    help='the gap rows the line allows (its ratchet)')
    ap.add_argument('--skip-suites', nargs='*', default=[],
                    help='KUnit suites whose cases are not tests (benchmarks)')
    ap.add_argument('--exclude', nargs='*', default=[],
                    help='functions the table leaves out (ci/<line>/contracts.conf says why)')
    ap.add_argument('--gap-reasons', action='store_true',
                    help='every function with a gap row must have a reason bullet')
    args = ap.parse_args()

    have = functions(args.tree, args.exclude)
    have_names = {n for n, _ in have}
    known = tests((os.path.join(args.tree, t) for t in args.tests), args.skip_suites)
    if not known:
        print(f'contracts: no test case found in {" ".join(args.tests)}')
        return 1

    rows = {}
    gaps = []
    gap_names = set()
    errors = []
    with open(args.doc) as f:
        lines = f.read().split('\n')
    starts = [n for n, line in enumerate(lines) if HEADER.match(line)]
    if len(starts) != 1:
        print(f'contracts: {args.doc} must have one table headed '
              f'"| function | promise | types | test |", not {len(starts)}')
        return 1
    n = starts[0] + 1
    if n >= len(lines) or not SEPARATOR.match(lines[n]):
        errors.append(f'{os.path.basename(args.doc)}:{n + 1}: the table has no separator line')
    n += 1
    while n < len(lines) and lines[n].startswith('|'):
        line, lineno = lines[n], n + 1
        n += 1
        where = f'{os.path.basename(args.doc)}:{lineno}'
        m = ROW.match(line)
        if not m:
            errors.append(f'{where}: not a row of "| `function()` | promise | types | test |"')
            continue
        name, promise, types, test = m.group(1), m.group(2), m.group(3), m.group(4)
        rows.setdefault(name, []).append(where)
        cell = test.strip()
        if not promise.strip():
            errors.append(f'{where}: {name}(): empty promise')
        bad = [t for t in types.split() if t not in TYPES]
        if not types.split() or bad:
            errors.append(f'{where}: {name}(): types must be words of '
                          f'{" ".join(sorted(TYPES))}{": not " + " ".join(bad) if bad else ""}')
        if cell == 'absent':
            if name in have_names:
                errors.append(f'{where}: {name}() says absent, but the tree has it')
            continue
        if name not in have_names:
            errors.append(f'{where}: {name}() is not an export of lib/iov_iter.c or an '
                          'inline of uio.h/iov_iter.h in this tree (stale row?)')
        if cell == 'gap':
            gaps.append(f'{where}: {name}(): {promise.strip()}')
            gap_names.add(name)
            continue
        if not TESTCELL.match(cell):
            errors.append(f'{where}: {name}(): the test cell must be gap, absent, or '
                          'test names in backticks separated by commas')
            continue
        for t in TESTNAME.findall(cell):
            if t not in known:
                errors.append(f'{where}: {name}(): no test case {t} in '
                              f'{" ".join(args.tests)}')
    for name, src in have:
        if name not in rows:
            errors.append(f'{name}() ({src}) has no row')
    if args.gap_reasons:
        errors.extend(reason_errors(lines, gap_names, os.path.basename(args.doc)))

    covered = len([n for n in have_names if n in rows])
    print(f'contracts: {len(have)} functions, {covered} with rows, '
          f'{sum(len(v) for v in rows.values())} rows, {len(gaps)} gap rows '
          f'(allowed: {args.max_gaps})')
    for g in gaps:
        print(f'  gap  {g}')
    for e in errors:
        print(f'  FAIL {e}')
    if len(gaps) > args.max_gaps:
        errors.append(f'{len(gaps)} gap rows, over the {args.max_gaps} allowed')
        print(f'  FAIL {errors[-1]}')
    elif len(gaps) < args.max_gaps:
        errors.append(f'{len(gaps)} gap rows, under the {args.max_gaps} allowed: '
                      f'lower CONTRACT_MAX_GAPS to {len(gaps)}')
        print(f'  FAIL {errors[-1]}')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
