#!/usr/bin/env python3
"""backport_classify.py MAIL REV WORKTREE: whether the code an upstream
patch changes is in the tree at REV (make backport, ci/backport.sh).

Exit status 0: the code is there (the patch conflicts); 2: its result is
there in another form (already in); 1: neither (N/A).

Per hunk, in the bodies of the functions the hunk belongs to (the one its
@@ line names, and any whose definition line is in the hunk; the whole
file for a hunk outside any function; the hunk does not count when none
of them is in the file): the code is there when at least half of the
lines the hunk removes are, or, for a hunk that only adds, when all of its
context is; the result is there when at least half of the lines it adds
are.  Lines of 8 or more characters count, and an assignment also matches
by its right-hand side, as a declaration split from its initialisation
does.  Mails in git's form and in quilt's are read alike.
"""
import re
import subprocess
import sys


def parse(text):
    files, cur, hunk = {}, None, None

    def close():
        if cur is not None and hunk is not None:
            files.setdefault(cur, []).append(hunk)

    for ln in text.split('\n'):
        if ln.startswith('+++ '):
            close()
            hunk = None
            path = ln[4:].split('\t')[0].strip()
            cur = path[2:] if path.startswith('b/') else path.split('/', 1)[-1]
        elif ln.startswith('@@') and cur is not None:
            close()
            m = re.search(r'@@[^@]*@@.*?(\w+)\s*\(', ln)
            hunk = {'fn': [m.group(1)] if m else [], 'rm': [], 'add': [], 'ctx': []}
        elif hunk is not None and ln[:1] in ('-', '+', ' ') and not ln.startswith(('---', '+++')):
            s = ln[1:].strip()
            d = re.match(r'[A-Za-z_][\w \t*]*?\b(\w+)\s*\([^;]*$', ln[1:])
            if d and ln[1:2] not in (' ', '\t'):
                hunk['fn'].append(d.group(1))
            if len(s.replace(' ', '')) >= 8:
                hunk[{'-': 'rm', '+': 'add', ' ': 'ctx'}[ln[0]]].append(s)
    close()
    return files


def body(src, fn):
    """The definition of fn, from its first line to its closing brace."""
    m = re.search(r'^[^\n;]*\b' + re.escape(fn) + r'\s*\([^;{]*?\)\s*\{', src, re.M | re.S)
    if not m:
        return None
    depth = 0
    for j in range(m.end() - 1, len(src)):
        if src[j] == '{':
            depth += 1
        elif src[j] == '}':
            depth -= 1
            if depth == 0:
                return src[m.start():j + 1]
    return src[m.start():]


def variants(k):
    out = {k}
    if '=' in k and '==' not in k:
        out.add(k.split('=', 1)[1].strip())
    return out


def has(lines, k):
    return any(v in lines or any(ln.endswith(v) for ln in lines) for v in variants(k))


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    mail, rev, wt = sys.argv[1:]
    with open(mail, encoding='utf-8', errors='replace') as f:
        files = parse(f.read())
    verdict = 1
    for path, hunks in files.items():
        r = subprocess.run(['git', '-C', wt, 'show', f'{rev}:{path}'],
                           capture_output=True, text=True, errors='replace', check=False)
        if r.returncode:
            continue
        for h in hunks:
            if h['fn']:
                bodies = [b for b in (body(r.stdout, fn) for fn in h['fn']) if b]
                if not bodies:
                    continue
                region = '\n'.join(bodies)
            else:
                region = r.stdout
            lines = {ln.strip() for ln in region.split('\n')}
            if h['rm']:
                if 2 * sum(has(lines, k) for k in h['rm']) >= len(h['rm']):
                    sys.exit(0)
            elif h['ctx'] and all(has(lines, k) for k in h['ctx']):
                sys.exit(0)
            if h['add'] and 2 * sum(has(lines, k) for k in h['add']) >= len(h['add']):
                verdict = 2
    sys.exit(verdict)


if __name__ == '__main__':
    main()
