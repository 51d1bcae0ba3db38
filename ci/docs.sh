#!/usr/bin/env bash
# make docs: the reviewer documents are current and their commands exist.
#   1. each line's MAINTAINERS-notes/<line> is what make notes generates now;
#   2. every command in a ```sh block of README.md and Documentation/**.md
#      is checked without side effects: make targets with make -n (the
#      target and its variables exist), python scripts with --help (they
#      import and parse), shell scripts with bash -n; anything else fails.
# Results: out/<line>/docs/results.tsv.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

res=$OUT/docs
rm -rf "$res"
mkdir -p "$res"
: > "$res/results.tsv"
fail=0
result() { printf '%s\t%s\n' "$1" "$2" >> "$res/results.tsv"; printf '%-4s %s%s\n' "$1" "$2" "${3:+: $3}"; [ "$1" = PASS ] || fail=1; }

for l in $LINES; do
	n=$(line_name "$l")
	if LINE=$l NOTES_CHECK=1 bash "$TOP/ci/notes.sh" > "$res/notes-$n.log" 2>&1; then
		result PASS "docs:MAINTAINERS-notes/$n"
	else
		result FAIL "docs:MAINTAINERS-notes/$n" "$(tail -n2 "$res/notes-$n.log" | head -n1)"
	fi
done

# Every command of a ```sh block, checked without running it.
mapfile -t docs < <(cd "$TOP" && find Documentation -name '*.md' | LC_ALL=C sort)
python3 - "$TOP" "$res" README.md "${docs[@]}" <<'PY' >> "$res/results.tsv" || fail=1
import os
import shlex
import subprocess
import sys

top, res, *docs = sys.argv[1:]
bad = 0
for doc in docs:
    inside = False
    for n, line in enumerate(open(os.path.join(top, doc), encoding='utf-8'), 1):
        if line.startswith('```'):
            inside = line.strip() == '```sh' if not inside else False
            continue
        cmd = line.strip()
        if not inside or not cmd or cmd.startswith('#'):
            continue
        words = shlex.split(cmd)
        env = dict(os.environ)
        while words and '=' in words[0] and not words[0].startswith('-'):
            k, v = words.pop(0).split('=', 1)
            env[k] = v
        if words[:1] == ['make']:
            check = ['make', '-C', top, '-n'] + words[1:]
        elif words[:1] == ['python3']:
            check = ['python3', os.path.join(top, words[1]), '--help']
        elif words[:1] == ['bash']:
            check = ['bash', '-n', os.path.join(top, words[1])]
        else:
            check = None
        r = subprocess.run(check, env=env, capture_output=True, text=True) if check else None
        ok = r is not None and r.returncode == 0
        why = 'no rule to check it' if r is None else (r.stderr or r.stdout).strip().splitlines()[-1:] 
        print(f'{"PASS" if ok else "FAIL"}\tdocs:{doc}:{n}')
        print(f'{"PASS" if ok else "FAIL"} docs:{doc}:{n}: {cmd}' + ('' if ok else f' ({why})'),
              file=sys.stderr)
        bad += not ok
sys.exit(1 if bad else 0)
PY
echo "docs: $(grep -c '^PASS' "$res/results.tsv") passed, $(grep -c '^FAIL' "$res/results.tsv" || true) failed"
[ "$fail" = 0 ] || die "a document is stale or shows a command that does not exist" "make$LINEOPT docs"
