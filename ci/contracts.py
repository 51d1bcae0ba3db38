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
test cell `gap`.

The check fails when
  - a function of the tree has no row, or a row names a function the tree
    does not have (and does not say `absent`), or says `absent` of one it has;
  - a row names a test that is not a case of the line's test files;
  - there are more gap rows than the line allows (--max-gaps, the ratchet
    in ci/<line>/line.conf), or fewer: then the allowance must come down.

Test names: KUnit cases, the first argument of KUNIT_CASE*(...) or of a
macro whose name ends in _CASE_PARAMS(...), and kselftest harness cases,
TEST(name) and TEST_F(fixture, name), written <file stem>:<name>.

    contracts.py --tree TREE --doc contracts.md --tests FILE... --max-gaps N
"""
import argparse
import os
import re
import sys

EXPORT = re.compile(r'\bEXPORT_SYMBOL(?:_GPL)?\(\s*(\w+)\s*\)')
INLINE = re.compile(r'^static\s+(?:inline|__always_inline)\b[^;{}()]*?\b(\w+)\s*\(',
                    re.M)
KUNIT = re.compile(r'\b(?:KUNIT_CASE\w*|\w+_CASE_PARAMS)\(\s*(\w+)')
KSFT = re.compile(r'^TEST(?:_F)?\(\s*(?:\w+\s*,\s*)?(\w+)\s*\)', re.M)
ROW = re.compile(r'^\|\s*`(\w+)\(\)`\s*\|(.*)\|(.*)\|(.*)\|\s*$')
TESTNAME = re.compile(r'`([\w.:-]+)`')


def strip_comments(text):
    return re.sub(r'/\*.*?\*/', '', text, flags=re.S)


def functions(tree):
    """The functions a table must cover: (name, where) in file order."""
    out = []
    src = os.path.join(tree, 'lib/iov_iter.c')
    with open(src) as f:
        for name in EXPORT.findall(strip_comments(f.read())):
            out.append((name, 'lib/iov_iter.c'))
    for hdr in ('include/linux/uio.h', 'include/linux/iov_iter.h'):
        path = os.path.join(tree, hdr)
        if not os.path.exists(path):
            continue
        with open(path) as f:
            for name in INLINE.findall(strip_comments(f.read())):
                out.append((name, hdr))
    seen, uniq = set(), []
    for name, where in out:
        if name not in seen:
            seen.add(name)
            uniq.append((name, where))
    return uniq


def tests(paths):
    names = set()
    for path in paths:
        with open(path) as f:
            text = strip_comments(f.read())
        names.update(KUNIT.findall(text))
        stem = os.path.splitext(os.path.basename(path))[0]
        names.update(f'{stem}:{n}' for n in KSFT.findall(text))
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--tree', required=True, help="the line's kernel tree")
    ap.add_argument('--doc', required=True, help='Documentation/<line>/contracts.md')
    ap.add_argument('--tests', nargs='+', required=True,
                    help='the test sources, relative to the tree')
    ap.add_argument('--max-gaps', type=int, required=True,
                    help='the gap rows the line allows (its ratchet)')
    args = ap.parse_args()

    have = functions(args.tree)
    have_names = {n for n, _ in have}
    known = tests(os.path.join(args.tree, t) for t in args.tests)
    if not known:
        print(f'contracts: no test case found in {" ".join(args.tests)}')
        return 1

    rows = {}
    gaps = []
    errors = []
    with open(args.doc) as f:
        for lineno, line in enumerate(f, 1):
            m = ROW.match(line)
            if not m:
                continue
            name, promise, types, test = m.group(1), m.group(2), m.group(3), m.group(4)
            where = f'{os.path.basename(args.doc)}:{lineno}'
            rows.setdefault(name, []).append(where)
            cell = test.strip()
            if cell == 'absent':
                if name in have_names:
                    errors.append(f'{where}: {name}() says absent, but the tree has it')
                continue
            if name not in have_names:
                errors.append(f'{where}: {name}() is not an export of lib/iov_iter.c or an '
                              'inline of uio.h/iov_iter.h in this tree (stale row?)')
            if not promise.strip() or not types.strip():
                errors.append(f'{where}: {name}(): empty promise or types')
            if cell == 'gap':
                gaps.append(f'{where}: {name}(): {promise.strip()}')
                continue
            named = TESTNAME.findall(cell)
            if not named:
                errors.append(f'{where}: {name}(): the test cell names no test '
                              '(a test in backticks, or gap)')
            for t in named:
                if t not in known:
                    errors.append(f'{where}: {name}(): no test case {t} in '
                                  f'{" ".join(args.tests)}')
    for name, src in have:
        if name not in rows:
            errors.append(f'{name}() ({src}) has no row')

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
