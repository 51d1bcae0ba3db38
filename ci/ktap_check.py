#!/usr/bin/env python3
"""Judge one KUnit run from its raw console log.

The KTAP is parsed by kunit.py's own parser (tools/testing/kunit in the
kernel tree); this script only adds what kunit.py does not do:

  * an expected-tests manifest: every listed suite.case must have a result,
    so a test that crashed the guest or silently vanished fails the run;
  * an expected-skips list: a case may skip only on the runs the list
    names, with the reason it gives, and a listed case that runs fails too,
    so the list stays what the runs do;
  * a kernel splat scan of the whole console (WARN, BUG, Oops, KASAN, UBSAN,
    lockdep, RCU stalls, ...) with an allowlist of known-harmless lines;
  * an expected-warnings list, for kernels whose KUnit cannot count a
    warning itself: the WARNs a case must print, in order, between its
    own KTAP lines.  A listed case that prints fewer, more or other
    warnings fails; the warnings it was meant to print are not splats.

It writes one result per test case and per guard as TSV lines
(status<TAB>name) with --results, and exits 1 when anything failed.
"""
import argparse
import fnmatch
import os
import re
import sys


def load_parser(kunit_dir):
    sys.path.insert(0, kunit_dir)
    try:
        import kunit_parser  # noqa: E402  pylint: disable=import-outside-toplevel
    except ImportError as exc:
        sys.exit(f'ktap_check: cannot import kunit_parser from {kunit_dir}: {exc}')
    # kunit_parser prints its progress, which kunit.py has already shown:
    # keep our output to our verdicts.  Older parsers (6.1, 6.12) print
    # through their module's stdout printer; newer ones (7.x) take a
    # printer argument, and kunit_printer has a silent one.
    if hasattr(kunit_parser, 'stdout'):
        kunit_parser.stdout._output = open(os.devnull, 'w', encoding='utf-8')  # pylint: disable=protected-access,consider-using-with
        kunit_parser.stdout._use_color = False  # pylint: disable=protected-access
        return kunit_parser, kunit_parser.parse_run_tests
    import kunit_printer  # noqa: E402  pylint: disable=import-outside-toplevel
    return kunit_parser, lambda lines: kunit_parser.parse_run_tests(lines, kunit_printer.null_printer)


def walk(test, prefix=''):
    """Yield (dotted name, test, is_leaf) for every test below this one."""
    for sub in test.subtests:
        name = f'{prefix}.{sub.name}' if prefix else sub.name
        yield name, sub, not sub.subtests
        yield from walk(sub, name)


BLOCK_MAX_LINES = 60


def read_patterns(path, what):
    if not os.path.isfile(path):
        # A check that is not working must not look like a clean log.
        sys.exit(f'ktap_check: {what} file {path} is missing')
    pats = []
    with open(path, encoding='utf-8') as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            try:
                if line.startswith('BLOCK '):
                    start, sep, end = line[len('BLOCK '):].partition(' ==> ')
                    if not sep:
                        sys.exit(f'ktap_check: {path}:{lineno}: BLOCK needs "<start> ==> <end>"')
                    pats.append((re.compile(start), re.compile(end)))
                else:
                    pats.append(re.compile(line))
            except re.error as exc:
                sys.exit(f'ktap_check: {path}:{lineno}: bad regex: {exc}')
    return pats


def scan_splats(lines, deny, allow, covered=frozenset()):
    """Line numbers and text of splat lines that no allowlist entry covers.

    An allowlist entry is a regex for single lines, or a BLOCK: from a line
    matching its start up to one matching its end (or BLOCK_MAX_LINES lines),
    nothing is a splat.  That covers output that is the test working, such
    as the stack dump fault injection prints with each injected failure.
    """
    singles = [p for p in allow if not isinstance(p, tuple)]
    blocks = [p for p in allow if isinstance(p, tuple)]
    splats = []
    block_end, block_left = None, 0
    for lineno, line in enumerate(lines, 1):
        # A block start opens a block, or restarts the one that is open:
        # dumps without an end marker (i386, UML) follow one another.
        for start, end in blocks:
            if start.search(line):
                block_end, block_left = end, BLOCK_MAX_LINES
                break
        if lineno - 1 in covered:
            continue
        if block_end is not None:
            block_left -= 1
            if block_end.search(line) or block_left == 0:
                block_end = None
            continue
        if any(p.search(line) for p in deny) and not any(p.search(line) for p in singles):
            splats.append(f'{lineno}: {line.strip()}')
    return splats


WARNING = re.compile(r'\bWARNING: ')
CUT_HERE = re.compile(r'-+\[ cut here \]-+')
END_TRACE = re.compile(r'---\[ end trace [0-9a-f]* \]---')
WARN_BLOCK_MAX_LINES = 100
WARN_CUT_MAX_LINES = 5      # the cut-here line, then the WARN()'s message
CALL_TRACE = re.compile(r'\bCall Trace:')
TIMESTAMP = re.compile(r'^\[\s*\d+\.\d+\]\s?')


def untimed(line):
    """A console line without its printk timestamp, if it has one."""
    return TIMESTAMP.sub('', line, count=1)


def read_expected_warnings(path, run):
    """The (suite.case, regex) pairs of the list for this run, in file order.

    Each line: a glob of run names (x86_64, i386-kmap-force, *), a
    suite.case name and an extended regex that the case's WARNING: line
    must match (the file and function it names), separated by white
    space.  A case with several warnings has one line for each, in the
    order it prints them.  The run glob is for what differs by arch: a
    WARN_ON_ONCE in an inline function warns once per call site where the
    arch's bug table keeps the flag (x86, arm64, s390), once per function
    where a static variable does (UML).
    """
    if not os.path.isfile(path):
        sys.exit(f'ktap_check: expected-warnings file {path} is missing')
    entries = []
    with open(path, encoding='utf-8') as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            fields = line.split(None, 2)
            if len(fields) < 3 or fields[1].count('.') != 1:
                sys.exit(f'ktap_check: {path}:{lineno}: want "<run glob> <suite.case> <regex>"')
            try:
                pat = re.compile(fields[2])
            except re.error as exc:
                sys.exit(f'ktap_check: {path}:{lineno}: bad regex: {exc}')
            if fnmatch.fnmatch(run, fields[0]):
                entries.append((fields[1], pat))
    return entries


KTAP_SUBTEST = re.compile(r'^(\s*)# Subtest: (\S+)\s*$')
KTAP_EVENT = re.compile(r'^(\s*)(?:(?:not )?ok \d+ (?:- )?(\S+)|1\.\.\d+)')


def case_spans(lines, wanted):
    """The console lines (first, last: 0-based, inclusive) of each suite.case
    of @wanted: from the KTAP line before the case's own (its suite's plan
    or header, or the previous case's result) to the case's result line."""
    spans = {}
    for idx, line in enumerate(lines):
        m = KTAP_SUBTEST.match(untimed(line))
        if not m:
            continue
        suite, indent = m.group(2), m.group(1)
        cases = {n.split('.', 1)[1] for n in wanted if n.split('.', 1)[0] == suite}
        if not cases:
            continue
        first = idx
        for j in range(idx + 1, len(lines)):
            e = KTAP_EVENT.match(untimed(lines[j]))
            if not e:
                continue
            if len(e.group(1)) < len(indent):
                break          # the suite's own result: its cases are done
            if e.group(1) != indent:
                continue       # a parameter's line, inside its case
            if e.group(2) in cases:
                spans[f'{suite}.{e.group(2)}'] = (first, j)
            first = j
    return spans


def check_warnings(lines, entries, seen, known):
    """Results for the expected warnings, and the console lines they cover.

    Each case of the list must print exactly its warnings, in order,
    within its span; their blocks, from the cut-here line before to the
    end-trace line after, are then not splats.  A case the log does not
    have is not judged here (the manifest says whether it must be there),
    but a name that is no test of the log or of the manifests fails.
    """
    want = {}
    for name, pat in entries:
        want.setdefault(name, []).append(pat)
    results, covered = [], set()
    spans = case_spans(lines, want)
    for name, pats in want.items():
        if name not in spans:
            if name in seen:
                # A case that ran but whose lines this script cannot find
                # would pass unjudged: the log's format is not the one read.
                results.append(('FAIL', f'expected-warning:{name}',
                                'the case has a result, but its KTAP lines were not found '
                                'in the console', True))
            elif name not in known:
                results.append(('FAIL', f'expected-warning:{name}',
                                'the expected-warnings list names no test of this run '
                                'or of the manifests', True))
            continue
        first, last = spans[name]
        got = [i for i in range(first, last + 1) if WARNING.search(lines[i])]
        bad = None
        if len(got) != len(pats):
            bad = f'printed {len(got)} warning(s), the list expects {len(pats)}'
        else:
            for n, (i, pat) in enumerate(zip(got, pats), 1):
                if not pat.search(lines[i]):
                    bad = f'warning {n} is "{lines[i].strip()}", the list expects /{pat.pattern}/'
                    break
        if bad:
            results.append(('FAIL', f'expected-warning:{name}', bad, True))
            continue
        # Only the lines that make a warning dump a splat are excused: its
        # cut-here line, the WARNING: line, Call Trace: and the end-trace
        # line.  Anything else the denylist matches in the block (a BUG,
        # a KASAN report) is still a splat, and a dump with no end-trace
        # line before the case ends cannot be told apart from what follows.
        ends = []
        for i in got:
            end = next((k for k in range(i + 1, min(last, i + WARN_BLOCK_MAX_LINES) + 1)
                        if END_TRACE.search(lines[k]) or WARNING.search(lines[k])), None)
            if end is None or not END_TRACE.search(lines[end]):
                bad = f'the warning at line {i + 1} has no end-trace line before the next one'
                break
            ends.append(end)
        if bad:
            results.append(('FAIL', f'expected-warning:{name}', bad, True))
            continue
        results.append(('PASS', f'expected-warning:{name}',
                        f'{len(got)} expected warning(s) printed', True))
        for i, end in zip(got, ends):
            covered.update((i, end))
            for k in range(i - 1, max(first, i - WARN_CUT_MAX_LINES) - 1, -1):
                if CUT_HERE.search(lines[k]):
                    covered.add(k)
                    break
                if END_TRACE.search(lines[k]) or KTAP_EVENT.match(untimed(lines[k])):
                    break
            covered.update(k for k in range(i + 1, end) if CALL_TRACE.search(lines[k]))
    return results, covered


def read_manifest(path):
    names = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                names.append(line)
    return names


def read_expected_skips(path, run):
    """The (name glob, reason) pairs the list expects to skip on this run.

    Each line: a glob of run names (x86_64, i386-kmap-force, *), a glob of
    suite.case[.param] names, and the reason, which is required: a skip
    nobody can explain is not expected.
    """
    if not os.path.isfile(path):
        sys.exit(f'ktap_check: expected-skips file {path} is missing')
    names = []
    with open(path, encoding='utf-8') as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            fields = line.split(None, 2)
            if len(fields) < 3:
                sys.exit(f'ktap_check: {path}:{lineno}: want "<run glob> <suite.case> <reason>"')
            if fnmatch.fnmatch(run, fields[0]):
                names.append((fields[1], fields[2]))
    return names


def listed_skip(name, may_skip):
    """The reason the list gives for this test to skip, or None."""
    for glob, reason in may_skip:
        if fnmatch.fnmatchcase(name, glob):
            return reason
    return None


def expected_name(name, flt):
    """Whether a manifest name is in a run limited by kunit.py's filter glob.

    The glob is "suite" or "suite.case", as kunit.py takes it; parameters
    of a case (suite.case.param) follow their case.
    """
    parts = name.split('.')
    if '.' in flt:
        return fnmatch.fnmatch('.'.join(parts[:2]), flt)
    return fnmatch.fnmatch(parts[0], flt)


def source_matches(paths, regex):
    """Every first group of REGEX in the C files PATHS (comma-separated)."""
    found = set()
    for path in paths.split(','):
        with open(path, encoding='utf-8') as f:
            found.update(re.findall(regex, f.read()))
    return found


def source_cases(paths):
    """The case functions that KUNIT_CASE*() registers in the C files."""
    # KUNIT_CASE*(), and a file's own wrappers of them (*_CASE_PARAMS()).
    return source_matches(paths, r'\b(?:KUNIT_CASE\w*|\w+_CASE_PARAMS)\(\s*(\w+)')


def source_suites(paths):
    """The suite names the C files give their struct kunit_suite (.name)."""
    return source_matches(paths, r'\.name\s*=\s*"(\w+)"')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('log', help='raw console log of the run (test.log)')
    ap.add_argument('--kunit-dir', required=True,
                    help='tools/testing/kunit of the kernel tree')
    ap.add_argument('--manifest', action='append', default=[],
                    help='expected suite.case names, one per line')
    ap.add_argument('--denylist', required=True, help='splat regexes')
    ap.add_argument('--allowlist', required=True,
                    help='regexes of known-harmless lines')
    ap.add_argument('--results', help='append TSV results here')
    ap.add_argument('--filter', help='the filter glob the run was limited to '
                    '(suite or suite.case, as kunit.py takes it): only manifest '
                    'names it matches are expected')
    ap.add_argument('--expected-skips', required=True, metavar='FILE',
                    help='the cases that may skip, per run: a skip it does not list '
                         'fails, and so does a case it lists that ran')
    ap.add_argument('--expected-warnings', metavar='FILE',
                    help='the warnings a case must print, in order (for kernels whose '
                         'KUnit cannot count them): each line a run glob, a suite.case '
                         'and a regex')
    ap.add_argument('--run', default='',
                    help='the run name the expected skips are matched against '
                         '(default: the label without its colon)')
    ap.add_argument('--present-suites', action='store_true',
                    help='only expect manifest names of suites that the log has '
                         '(runs of earlier patches, before a suite was added); '
                         'with --source-cases, the sources decide instead')
    ap.add_argument('--source-cases', metavar='FILE',
                    help='C files whose KUNIT_CASE*() names are the cases this kernel '
                         'has: manifest names of other cases are not expected (runs '
                         'of earlier patches, before a case was added)')
    ap.add_argument('--label', default='', help='prefix for result names')
    ap.add_argument('--print-names', action='store_true',
                    help='only print the suite.case names of the log '
                         '(to write a manifest from a known-good run)')
    args = ap.parse_args()

    parser, parse_run_tests = load_parser(args.kunit_dir)
    deny = read_patterns(args.denylist, 'denylist')
    allow = read_patterns(args.allowlist, 'allowlist')
    run = args.run or args.label.rstrip(':')
    may_skip = read_expected_skips(args.expected_skips, run)

    with open(args.log, encoding='utf-8', errors='replace') as f:
        lines = f.readlines()

    results = []  # (status, name, detail, is_guard)
    root = parse_run_tests(lines)
    if args.print_names:
        for name, _, _ in walk(root):
            print(name)
        return 0
    ok = (parser.TestStatus.SUCCESS, parser.TestStatus.SKIPPED)
    seen = {}
    # 6.1's KUnit prints a parameter's result without its SKIP directive
    # ("ok 16 xarray_large-single"); only the case's own count line says
    # how many of its parameters skipped ("# case: pass:30 fail:0 skip:5
    # total:35").  A listed skip that printed "ok" is taken as skipped when
    # that count equals the number of the case's parameters the list names.
    # (a count line belongs to the case whose result line follows it:
    # "# case: pass:..." then "ok N case"; a suite's count line is
    # followed by the suite's own result, another name)
    skip_counts = {}
    for k, ln in enumerate(lines):
        m = re.search(r'#\s+(\S+): pass:\d+ fail:\d+ skip:(\d+) total:\d+', ln)
        if not m:
            continue
        nxt = next((x for x in lines[k + 1:k + 3] if x.strip()), '')
        r = re.search(r'\bok \d+ (?:- )?(\S+)', nxt)
        if r and r.group(1) == m.group(1):
            skip_counts[m.group(1)] = int(m.group(2))
    listed_params = {}
    directive_seen = set()
    for name, test, leaf in walk(root):
        if not leaf or name.count('.') < 2:
            continue
        if test.status == parser.TestStatus.SKIPPED:
            # this kernel prints the directive: the count is not needed
            directive_seen.add(name.rsplit('.', 1)[0])
        if listed_skip(name, may_skip) is not None:
            listed_params.setdefault(name.rsplit('.', 1)[0], []).append(name)
    if root.status == parser.TestStatus.FAILURE_TO_PARSE_TESTS:
        results.append(('FAIL', 'ktap', 'no KTAP output in the log (crash or timeout?)', True))
    # A case that counts more skipped parameters than the list names, with
    # no directive to say which: one of them skipped unlisted, and its
    # "ok" line would pass for a run.
    param_cases = {name.rsplit('.', 1)[0] for name, _, leaf in walk(root)
                   if leaf and name.count('.') >= 2}
    for case in sorted(param_cases - directive_seen):
        counted = skip_counts.get(case.split('.')[-1], 0)
        named = len(listed_params.get(case, []))
        if counted > named:
            results.append(('FAIL', case, f'counts {counted} skipped parameter(s) and prints no '
                            f'SKIP directive; {args.expected_skips} names {named} of its '
                            f'parameters for {run or "this run"}', False))
    for name, test, leaf in walk(root):
        seen[name] = test.status
        if not leaf:
            if test.status not in ok and test.status != parser.TestStatus.NO_TESTS:
                # A suite whose own result line is missing or failed.
                if all(t.status in ok for t in test.subtests):
                    results.append(('FAIL', name, test.status.name, False))
            continue
        if test.status == parser.TestStatus.SKIPPED:
            if listed_skip(name, may_skip) is not None:
                results.append(('SKIP', name, '', False))
            else:
                results.append(('FAIL', name, f'skipped, and {args.expected_skips} '
                                f'does not list it for {run or "this run"}', False))
        elif test.status in ok:
            reason = listed_skip(name, may_skip)
            case = name.rsplit('.', 1)[0]
            if (reason is not None and name.count('.') >= 2 and case not in directive_seen and
                    skip_counts.get(case.split('.')[-1]) == len(listed_params.get(case, []))):
                results.append(('SKIP', name, 'no SKIP directive on its line; '
                                 f'{case} counts {skip_counts[case.split(".")[-1]]} skipped, '
                                 'the cases the list names', False))
                continue
            results.append(('PASS', name, '', False))
            if reason is not None:
                # The reason it skipped is gone: the list must say so.
                results.append(('FAIL', f'expected-skip:{name}',
                                 f'listed as skipped on {run} ({reason}), '
                                 f'but it ran and passed: drop it from {args.expected_skips}',
                                 True))
        else:
            results.append(('FAIL', name, test.status.name, False))

    for manifest in args.manifest:
        expected = read_manifest(manifest)
        if args.filter:
            expected = [n for n in expected if expected_name(n, args.filter)]
        if args.present_suites and not args.source_cases:
            # Without the sources, a suite the log lacks is taken as one
            # the tree does not have yet.  With them (below), a case the
            # sources register is expected whether or not its suite ran,
            # so a suite lost to a config line is caught.
            suites = {name.split('.')[0] for name in seen}
            expected = [n for n in expected if n.split('.')[0] in suites]
        if args.source_cases:
            # A case is expected if the sources register it; a suite's own
            # entry if the sources define the suite (an earlier patch may
            # lack a later suite, with all its cases).
            # The parameters of a case may grow later in the series
            # (a type or layout added by a later patch): here a case is
            # expected as a whole, and its parameters only at the tip,
            # whose run has no --source-cases.
            cases = source_cases(args.source_cases)
            suites = source_suites(args.source_cases)
            expected = [n for n in expected
                        if (len(n.split('.')) < 2 and n in suites)
                        or (len(n.split('.')) == 2 and n.split('.')[1] in cases)]
        missing = [n for n in expected if n not in seen]
        detail = (f'{len(missing)} of {len(expected)} expected tests have no result: '
                  + ', '.join(missing[:10]) + (' ...' if len(missing) > 10 else ''))
        results.append(('FAIL' if missing else 'PASS',
                        f'manifest:{os.path.basename(manifest)}',
                        detail if missing else f'{len(expected)} expected tests present',
                        True))

    # An entry of the skips list that names no test, of the log or of the
    # manifests, is a typo or a case that is gone: it would excuse nothing,
    # and hide the day a case of that name skips for another reason.
    known = set(seen)
    for manifest in args.manifest:
        known.update(read_manifest(manifest))
    for glob, _ in may_skip:
        if not any(fnmatch.fnmatchcase(n, glob) for n in known):
            results.append(('FAIL', f'expected-skip:{glob}',
                            f'{args.expected_skips} lists it for {run}, but it names '
                            'no test of this run or of the manifests', True))

    covered = set()
    if args.expected_warnings:
        wres, covered = check_warnings(
            lines, read_expected_warnings(args.expected_warnings, run), seen, known)
        results.extend(wres)
    splats = scan_splats(lines, deny, allow, covered)
    results.append(('FAIL' if splats else 'PASS', 'splat-scan',
                    f'{len(splats)} splat line(s); first: {splats[0]}' if splats
                    else 'no kernel splats', True))

    for status, name, detail, guard in results:
        if status == 'FAIL' or guard:
            print(f'{status:4} {args.label}{name}' + (f': {detail}' if detail else ''))
    for s in splats[:20]:
        print(f'     splat {s}')
    counts = {k: sum(1 for r in results if r[0] == k) for k in ('PASS', 'FAIL', 'SKIP')}
    print(f'{args.label}ktap_check: {counts["PASS"]} passed, {counts["FAIL"]} failed, '
          f'{counts["SKIP"]} skipped')
    if args.results:
        with open(args.results, 'a', encoding='utf-8') as f:
            for status, name, _, _ in results:
                f.write(f'{status}\t{args.label}{name}\n')
    return 1 if counts['FAIL'] else 0


if __name__ == '__main__':
    sys.exit(main())
