#!/usr/bin/env python3
"""Check a line's contract table against its tree.

Documentation/<line>/contracts.md lists, for every exported function of
lib/iov_iter.c and every inline function of include/linux/uio.h and
include/linux/iov_iter.h, what it promises, for which iterator types, and
which test checks each promise:

    | function | promise | types | test |
    |---|---|---|---|
    | `iov_iter_npages()` | counts the pages ... | any | `iov_kunit_npages` |

A fifth column, `mutation`, names the bug of ci/<line>/mutations that
the row's tests catch (`make mutants` shows it caught), `none` where the
row has no mutation yet, and `-` on a gap or absent row:

    | function | promise | types | test | mutation |
    |---|---|---|---|---|
    | `iov_iter_npages()` | counts ... | any | `iov_kunit_npages` | `npages-off-by-one` |

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
  - with --mutations (which needs the mutation column): a tested row's
    cell is not a mutation of the list in backticks or `none`, a gap or
    absent row's is not `-`, two rows name the same mutation, or the
    rows with `none` are not exactly --max-unmutated (a ratchet too);
  - with --mutant-results DIR (make mutants, after a run of the whole
    list): a row's mutation made none of the row's own tests fail in
    that run (DIR/kunit/mutant-<name>/results.tsv, or
    DIR/kselftest-mutant-<name>/results.tsv);
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
        [--mutations FILE --max-unmutated N [--mutant-results DIR]]
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
ROW = re.compile(r'^\|\s*`(\w+)\(\)`\s*\|([^|]*)\|([^|]*)\|([^|]*)\|(?:([^|]*)\|)?\s*$')
HEADER = re.compile(r'^\|\s*function\s*\|\s*promise\s*\|\s*types\s*\|\s*test\s*\|'
                    r'(\s*mutation\s*\|)?\s*$')
SEPARATOR = re.compile(r'^\|(?:\s*:?-+:?\s*\|){4,5}\s*$')
MUTCELL = re.compile(r'^`([\w.-]+)`$')
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


def mutation_names(path):
    """The names of the mutations of a ci/<line>/mutations list."""
    names = []
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith('#'):
                names.append(line.split('\t', 1)[0])
    return names


def failed_cases(results):
    """The test names a results.tsv of a KUnit or kselftest run failed:
    KUnit cases as the table writes them (the case of suite.case[.param],
    an expected-warning's case too), kselftest cases as <stem>:<name>."""
    out = set()
    with open(results) as f:
        for line in f:
            status, _, name = line.rstrip('\n').partition('\t')
            if status != 'FAIL':
                continue
            m = re.match(r'kselftest:(?:[\w.-]+/)*([\w.-]+):([\w.-]+)$', name)
            if m:
                out.add(f'{m.group(1)}:{m.group(2).split(".")[-1]}')
                continue
            parts = name.split(':')[-1].split('.')
            if len(parts) >= 2:
                out.add(parts[1])
    return out


def mutant_errors(rows, outdir):
    """Rows whose mutation no test of the row caught in the last run."""
    errors, judged = [], 0
    for where, name, mutation, names in rows:
        for res in (os.path.join(outdir, 'kunit', f'mutant-{mutation}', 'results.tsv'),
                    os.path.join(outdir, f'kselftest-mutant-{mutation}', 'results.tsv')):
            if os.path.exists(res):
                break
        else:
            errors.append(f'{where}: {name}(): mutation {mutation} has no results in {outdir} '
                          '(not run by the last make mutants)')
            continue
        judged += 1
        failed = failed_cases(res)
        if not failed & set(names):
            errors.append(f'{where}: {name}(): mutation {mutation} made none of the row\'s '
                          f'tests fail ({", ".join(names)}); it failed: '
                          f'{", ".join(sorted(failed)[:6]) or "nothing"}')
    return errors, judged


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
    ap.add_argument('--mutations', help="the line's mutation list (ci/<line>/mutations)")
    ap.add_argument('--max-unmutated', type=int,
                    help='the tested rows without a mutation the line allows (its ratchet)')
    ap.add_argument('--mutant-results', metavar='DIR',
                    help="the line's output directory after make mutants: each row's "
                         "mutation must have made one of the row's tests fail")
    args = ap.parse_args()
    if args.mutations and args.max_unmutated is None:
        ap.error('--mutations needs --max-unmutated')

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
    mutcol = bool(HEADER.match(lines[starts[0]]).group(1))
    if args.mutations and not mutcol:
        print(f'contracts: {args.doc}: --mutations needs a table headed '
              '"| function | promise | types | test | mutation |"')
        return 1
    mutations = set(mutation_names(args.mutations)) if args.mutations else set()
    named = {}
    unmutated = []
    mutated = []
    shape = '| `function()` | promise | types | test |' + (' mutation |' if mutcol else '')
    n = starts[0] + 1
    if n >= len(lines) or not SEPARATOR.match(lines[n]):
        errors.append(f'{os.path.basename(args.doc)}:{n + 1}: the table has no separator line')
    n += 1
    while n < len(lines) and lines[n].startswith('|'):
        line, lineno = lines[n], n + 1
        n += 1
        where = f'{os.path.basename(args.doc)}:{lineno}'
        m = ROW.match(line)
        if not m or (m.group(5) is not None) != mutcol:
            errors.append(f'{where}: not a row of "{shape}"')
            continue
        name, promise, types, test = m.group(1), m.group(2), m.group(3), m.group(4)
        mcell = (m.group(5) or '').strip()
        rows.setdefault(name, []).append(where)
        cell = test.strip()
        if not promise.strip():
            errors.append(f'{where}: {name}(): empty promise')
        bad = [t for t in types.split() if t not in TYPES]
        if not types.split() or bad:
            errors.append(f'{where}: {name}(): types must be words of '
                          f'{" ".join(sorted(TYPES))}{": not " + " ".join(bad) if bad else ""}')
        if args.mutations:
            if cell in ('gap', 'absent'):
                if mcell != '-':
                    errors.append(f'{where}: {name}(): a {cell} row\'s mutation cell must be -')
            elif mcell == 'none':
                unmutated.append(f'{where}: {name}(): {promise.strip()}')
            elif not MUTCELL.match(mcell):
                errors.append(f'{where}: {name}(): the mutation cell must be a mutation '
                              'name in backticks, none, or - (gap and absent rows)')
            else:
                mname = MUTCELL.match(mcell).group(1)
                if mname not in mutations:
                    errors.append(f'{where}: {name}(): no mutation {mname} in {args.mutations}')
                elif mname in named:
                    errors.append(f'{where}: {name}(): mutation {mname} is already the row '
                                  f'of {named[mname]}: one row each')
                else:
                    named[mname] = where
                    mutated.append((where, name, mname, TESTNAME.findall(cell)))
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
    if args.mutations:
        print(f'contracts: {len(mutated)} rows with a mutation, {len(unmutated)} tested '
              f'rows without one (allowed: {args.max_unmutated}); '
              f'{len(mutations) - len(named)} mutations of the list name no row')
    for g in gaps:
        print(f'  gap  {g}')
    for u in unmutated:
        print(f'  none {u}')
    for e in errors:
        print(f'  FAIL {e}')
    if len(gaps) > args.max_gaps:
        errors.append(f'{len(gaps)} gap rows, over the {args.max_gaps} allowed')
        print(f'  FAIL {errors[-1]}')
    elif len(gaps) < args.max_gaps:
        errors.append(f'{len(gaps)} gap rows, under the {args.max_gaps} allowed: '
                      f'lower CONTRACT_MAX_GAPS to {len(gaps)}')
        print(f'  FAIL {errors[-1]}')
    if args.mutations:
        if len(unmutated) > args.max_unmutated:
            errors.append(f'{len(unmutated)} tested rows without a mutation, over the '
                          f'{args.max_unmutated} allowed')
            print(f'  FAIL {errors[-1]}')
        elif len(unmutated) < args.max_unmutated:
            errors.append(f'{len(unmutated)} tested rows without a mutation, under the '
                          f'{args.max_unmutated} allowed: lower CONTRACT_MAX_UNMUTATED '
                          f'to {len(unmutated)}')
            print(f'  FAIL {errors[-1]}')
    if args.mutant_results:
        merrors, judged = mutant_errors(mutated, args.mutant_results)
        print(f'contracts: {judged} rows\' mutations judged from {args.mutant_results}, '
              f'{len(merrors)} not caught by the row\'s own tests')
        for e in merrors:
            print(f'  FAIL {e}')
        errors.extend(merrors)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
