#!/usr/bin/env python3
"""Turn a make check run's results into KCIDB JSON, and validate it.

    kcidb.py --run DIR --origin NAME --out FILE [--patch-url URL]
             [--git-repo URL] --line LINE PATCHES TREE BUILD [--line ...]

DIR is a run directory of ci/check.sh (out/check or out/check-full):
run.env, summary.tsv (stage, seconds, status, ...) and stage-results.tsv
(stage, status, result name).  Each --line names a line's patches
directory, work tree and build directory.

The KCIDB objects (schema: kcidb-io's latest):
  checkout  the line's base (the Debian source commit of make tree) plus a
            patch set: the whole series for the tip, the first k patches for
            a per-patch result (patchNNNN in its name); valid if the line's
            tree stage passed;
  build     a KUnit stage's kernel (architecture, KUnit configuration and
            variant, compiler from its .config); a per-patch build-<arch>
            result; otherwise the stage itself, for the checks it ran
            (no architecture, no status: none is claimed);
  test      every other result row, with its status: KUnit cases under
            "kunit.<suite>.<case>[.<param>]", the rest under
            "<stage>.<check>".
The file is validated with kcidb-io's schema validator before it is
written; an invalid file is an error.
"""

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys

import kcidb_io

SCHEMA = kcidb_io.schema.LATEST
PATCH_RE = re.compile(r'(?:^|:)patch(\d{4})(?::|$)')


def die(msg):
    sys.exit(f'kcidb.py: error: {msg}')


def read_tsv(path, width):
    rows = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            fields = line.rstrip('\n').split('\t')
            if len(fields) < width:
                die(f'{path}: short line {line!r}')
            rows.append(fields)
    return rows


def read_env(path):
    env = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            key, _, value = line.rstrip('\n').partition('=')
            env[key] = value
    return env


def path_of(*parts):
    """A KCIDB test path: dot-separated [a-zA-Z0-9_-] components."""
    out = []
    for part in parts:
        for comp in re.split(r'[.:/]', part):
            comp = re.sub(r'[^a-zA-Z0-9_-]', '_', comp)
            if comp:
                out.append(comp)
    return '.'.join(out)


def compiler_of(config):
    try:
        with open(config, encoding='utf-8') as f:
            for line in f:
                if line.startswith('CONFIG_CC_VERSION_TEXT="'):
                    return line.split('"')[1]
    except OSError:
        pass
    return None


class Line:
    """A line's base, series and work tree."""

    def __init__(self, name, patches, tree, build):
        self.name, self.patches, self.tree, self.build = name, patches, tree, build
        # Its directory name, the line's name in ids: a version line's
        # name with .y (6.1.y), another's as it is (mainline), as in
        # ci/lib.sh.
        self.dir = f'{name}.y' if name[:1].isdigit() else name
        base = read_env_colon(os.path.join(patches, 'BASE'))
        self.base_commit = base['base-commit']
        self.base_name = f'Linux {base["sublevel"]} ({base["source"]})'
        self.source_pkg = base['source'].split()[1]
        with open(os.path.join(patches, 'series'), encoding='utf-8') as f:
            self.series = [s.split('#')[0].strip() for s in f]
        self.series = [s for s in self.series if s]
        try:
            self.version = read_env_colon(os.path.join(patches, 'VERSION')).get('version', '1')
        except FileNotFoundError:
            self.version = '1'
        git = ['git', '-C', tree, 'log', '--reverse', '--format=%H %s', 'base..HEAD']
        commits = subprocess.run(git, check=True, capture_output=True, text=True).stdout
        self.commits = [c.split(' ', 1) for c in commits.splitlines()]
        if len(self.commits) != len(self.series):
            die(f'{tree} has {len(self.commits)} commits over base, {patches}/series '
                f'{len(self.series)} patches: run make tree')
        self.hashes = []
        for p in self.series:
            with open(os.path.join(patches, p), 'rb') as f:
                self.hashes.append(hashlib.sha256(f.read()).hexdigest())

    def patchset_hash(self, k):
        """KCIDB's patchset hash of the first k patches."""
        if k == 0:
            return ''
        return hashlib.sha256(''.join(h + '\n' for h in self.hashes[:k]).encode()).hexdigest()


def read_env_colon(path):
    out = {}
    with open(path, encoding='utf-8') as f:
        for line in f:
            if line.startswith('#') or ':' not in line:
                continue
            key, _, value = line.partition(':')
            out[key.strip()] = value.strip()
    return out


class Report:
    # pylint: disable=too-many-instance-attributes
    def __init__(self, args, env, lines):
        self.args, self.env, self.lines = args, env, lines
        self.origin = args.origin
        self.start = env['date']
        self.run_id = re.sub(r'[^0-9TZ]', '', self.start)
        self.checkouts, self.builds, self.tests = {}, {}, []
        self.test_n = {}
        self.tree_ok = {}

    def checkout(self, line, k):
        key = (line.name, k)
        if key not in self.checkouts:
            phash = line.patchset_hash(k)
            n = len(line.series)
            c = {
                'id': f'{self.origin}:{line.dir}-{k:02d}-{phash[:16]}',
                'origin': self.origin,
                'tree_name': line.source_pkg,
                'git_commit_hash': line.base_commit,
                'git_commit_name': line.base_name,
                'patchset_files': [
                    # A posting's patches are in its directory: KCIDB
                    # names have no '/', so the posting prefixes the name.
                    {'name': p.replace('/', ':'), 'url': self.args.patch_url + os.path.relpath(
                        os.path.join(line.patches, p), self.args.top)}
                    for p in line.series[:k]],
                'patchset_hash': phash,
                'start_time': self.start,
                'comment': f'{line.dir} series v{line.version}: '
                           + (f'all {n} patches' if k == n else f'patches 1-{k} of {n}'),
                'misc': {'tree_commit': line.commits[k - 1][0],
                         'last_patch': line.commits[k - 1][1],
                         'project_commit': self.env.get('project', 'unknown')},
            }
            # Valid only when this run's make tree applied the line's
            # patches; a run without that stage says nothing about it.
            if line.name in self.tree_ok:
                c['valid'] = self.tree_ok[line.name]
            if self.args.git_repo:
                c['git_repository_url'] = self.args.git_repo
            self.checkouts[key] = c
        return self.checkouts[key]['id']

    def build(self, line, k, key, stage, seconds, **fields):
        bkey = (line.name, k, key)
        if bkey not in self.builds:
            b = {
                'id': f'{self.origin}:{self.run_id}.{line.dir}-{k:02d}.{key}',
                'origin': self.origin,
                'checkout_id': self.checkout(line, k),
                'start_time': self.start,
                'misc': {'stage': stage},
            }
            if seconds is not None:
                b['duration'] = float(seconds)
            b.update({f: v for f, v in fields.items() if v is not None})
            self.builds[bkey] = b
        elif 'status' in fields:
            self.builds[bkey]['status'] = fields['status']
        return self.builds[bkey]['id']

    def test(self, build_id, path, status, name, environment=None):
        n = self.test_n.get(build_id, 0) + 1
        self.test_n[build_id] = n
        t = {
            'id': f'{build_id}.{n}',
            'origin': self.origin,
            'build_id': build_id,
            'path': path,
            'status': status,
            'start_time': self.start,
            'misc': {'result': name},
        }
        if environment:
            t['environment'] = {'comment': environment}
        self.tests.append(t)

    def add_stage(self, stage, seconds, status, rows):
        # pylint: disable=too-many-locals
        lname, _, base = stage.rpartition(':')
        line = self.lines.get(lname or '6.1')
        if line is None:
            die(f'stage {stage}: no --line {lname or "6.1"}')
        tip = len(line.series)
        if base.startswith('kunit-'):
            name = base[len('kunit-'):]
            arch, _, variant = name.partition('-')
            cases = [r for r in rows if re.match(r'^[^:]+:[^:]+\.', r[1])]
            bstatus = 'PASS' if cases else ('PASS' if status == 'pass' else 'FAIL')
            bid = self.build(line, tip, base, stage, seconds, architecture=arch,
                             config_name='kunit' + (f'+{variant}' if variant else ''),
                             compiler=compiler_of(os.path.join(self.args.top, 'out',
                                                          os.path.basename(line.build), 'kunit', name,
                                                          'config')),
                             command=f'make{"" if line.name == "6.1" else " LINE=" + line.name} '
                                     f'kunit ARCH={arch}' + (f' VARIANT={variant}' if variant else ''),
                             status=bstatus)
            env = f'kunit.py, {"UML" if arch == "um" else "QEMU " + arch}'
            for st, name_ in rows:
                self.test(bid, path_of('kunit', name_.split(':', 1)[1] if ':' in name_ else name_),
                          st, name_, env)
            return
        for st, name_ in rows:
            m = PATCH_RE.search(name_)
            k = int(m.group(1)) if m else tip
            if m and not 1 <= k <= tip:
                die(f'stage {stage}: result {name_} names patch {k} of {tip}')
            check = PATCH_RE.sub(':', name_).strip(':')
            # A result named after its stage ("6.12:mainline:x", "abi:x").
            for prefix in (stage + ':', base + ':'):
                if check.startswith(prefix):
                    check = check[len(prefix):]
                    break
            mb = re.fullmatch(r'build-([a-z0-9_]+)', check)
            if m and mb:
                arch = mb.group(1)
                self.build(line, k, check, stage, None, architecture=arch,
                           config_name='kunit+patchcheck', status=st,
                           compiler=compiler_of(os.path.join(line.build, 'patchcheck', 'kunit',
                                                             arch, '.config')))
                continue
            bid = self.build(line, k, base, stage, None if m else seconds, config_name=base)
            self.test(bid, path_of(base, '' if check == base else check), st, name_)

    def data(self):
        return {
            'version': {'major': SCHEMA.major, 'minor': SCHEMA.minor},
            'checkouts': list(self.checkouts.values()),
            'builds': list(self.builds.values()),
            'tests': self.tests,
        }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n', 1)[0])
    ap.add_argument('--run', required=True)
    ap.add_argument('--origin', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--top', required=True)
    ap.add_argument('--patch-url', required=True)
    ap.add_argument('--git-repo', default='')
    ap.add_argument('--line', nargs=4, action='append', required=True,
                    metavar=('LINE', 'PATCHES', 'TREE', 'BUILD'))
    args = ap.parse_args()
    if not re.fullmatch(r'[a-z0-9_]+', args.origin):
        die(f'origin {args.origin!r}: KCIDB origins are [a-z0-9_]+')
    for f in ('run.env', 'summary.tsv', 'stage-results.tsv'):
        if not os.path.isfile(os.path.join(args.run, f)):
            die(f'{args.run} has no {f}: run make check first')
    env = read_env(os.path.join(args.run, 'run.env'))
    lines = {name: Line(name, p, t, b) for name, p, t, b in args.line}
    report = Report(args, env, lines)
    rows = {}
    for stage, st, name in read_tsv(os.path.join(args.run, 'stage-results.tsv'), 3):
        rows.setdefault(stage, []).append((st, name))
    summary = read_tsv(os.path.join(args.run, 'summary.tsv'), 3)
    # make tree first: whether each line's patches applied to its base
    # decides its checkouts' validity, whatever order the stages ran in.
    for stage, _, status, *_ in summary:
        if stage.endswith('tree'):
            report.tree_ok[stage.rpartition(':')[0] or '6.1'] = status == 'pass'
    for stage, seconds, status, *_ in summary:
        if stage != 'deps' and not stage.endswith('tree'):
            report.add_stage(stage, seconds, status, rows.get(stage, []))
    data = report.data()
    try:
        SCHEMA.validate_exactly(data)
    except Exception as e:  # pylint: disable=broad-except
        die(f'the KCIDB data does not validate against kcidb-io schema v{SCHEMA.major}.'
            f'{SCHEMA.minor}: {str(e).splitlines()[0]}')
    tmp = args.out + '.tmp'
    with open(tmp, 'w', encoding='utf-8') as f:
        json.dump(data, f, indent=1)
        f.write('\n')
    os.replace(tmp, args.out)
    by = {}
    for t in data['tests']:
        by[t['status']] = by.get(t['status'], 0) + 1
    print(f'{args.out}: valid (kcidb-io {SCHEMA.major}.{SCHEMA.minor}): '
          f'{len(data["checkouts"])} checkouts, {len(data["builds"])} builds, '
          f'{len(data["tests"])} tests (' + ', '.join(f'{v} {k}' for k, v in sorted(by.items())) + ')')


if __name__ == '__main__':
    main()
