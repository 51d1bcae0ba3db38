#!/usr/bin/env bash
# make docs: the reviewer documents are current and their commands exist.
#   1. each line's MAINTAINERS-notes/<line> is what make notes generates now;
#   1a. README.md is at most README_MAX_LINES (160) lines long;
#   1b. each line's Documentation/<line>/contracts.md matches its tree
#      (ci/contracts.sh);
#   1c. Documentation/testing.md's stage reference and cost table name the
#      stages, tiers and shares of ci/stages.tsv (COSTS_CHECK=1 make costs);
#   2. every command in a ```sh block of README.md and Documentation/**.md
#      is checked without side effects: make targets with make -n (the
#      target exists), the values of STAGES= and LINE= against
#      ci/stages.tsv and the lines, python scripts with --help (they
#      import and parse), shell scripts with bash -n; "a && b" is two
#      commands, and a comment is not one; anything else fails.
# Results: out/docs/results.tsv under make check (a stage of the whole
# project), out/<line>/docs/results.tsv when run alone.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

res=$OUT/docs
rm -rf "$res"
mkdir -p "$res"
: > "$res/results.tsv"
fail=0
result() { printf '%s\t%s\n' "$1" "$2" >> "$res/results.tsv"; printf '%-4s %s%s\n' "$1" "$2" "${3:+: $3}"; [ "$1" = PASS ] || fail=1; }

# The notes and the cost table: the real documents' checks (the
# self-tests, with DOCS_FILES, check commands only).
if [ -z "${DOCS_FILES:-}" ]; then
	for l in $LINES; do
		n=$(line_name "$l")
		if LINE=$l NOTES_CHECK=1 bash "$TOP/ci/notes.sh" > "$res/notes-$n.log" 2>&1; then
			result PASS "docs:MAINTAINERS-notes/$n"
		else
			result FAIL "docs:MAINTAINERS-notes/$n" "$(tail -n2 "$res/notes-$n.log" | head -n1)"
		fi
	done
	# README.md is a front page: what does not fit goes to Documentation/.
	readme_max=${README_MAX_LINES:-160}
	n=$(wc -l < "$TOP/README.md")
	if [ "$n" -le "$readme_max" ]; then
		result PASS docs:README-length
	else
		result FAIL docs:README-length "README.md has $n lines, over $readme_max: move the detail to Documentation/usage.md"
	fi
	# The contract tables, against each line's tree (ci/contracts.sh).
	for l in $LINES; do
		n=$(line_name "$l")
		[ -f "$TOP/Documentation/$n/contracts.md" ] || continue
		if LINE=$l bash "$TOP/ci/contracts.sh" > "$res/contracts-$n.log" 2>&1; then
			result PASS "docs:contracts/$n" "$(head -n1 "$res/contracts-$n.log")"
		else
			result FAIL "docs:contracts/$n" "$(grep -m1 'FAIL\|error' "$res/contracts-$n.log") (log: ${res#"$TOP"/}/contracts-$n.log)"
		fi
	done
	# testing.md's stage reference and cost table follow ci/stages.tsv.
	if COSTS_CHECK=1 bash "$TOP/ci/costs.sh" > "$res/costs.log" 2>&1; then
		result PASS docs:cost-table
	else
		result FAIL docs:cost-table "$(tail -n1 "$res/costs.log")"
	fi
fi

# Every command of a ```sh block, checked without running it.
# DOCS_FILES: check these files instead (the self-tests).
if [ -n "${DOCS_FILES:-}" ]; then
	read -r -a docs <<< "$DOCS_FILES"
else
	mapfile -t docs < <(cd "$TOP" && { echo README.md; find Documentation -name '*.md' | LC_ALL=C sort; })
fi
python3 - "$TOP" "$res" "${docs[@]}" <<'PY' >> "$res/results.tsv" || fail=1
import os
import shlex
import subprocess
import sys

top, res, *docs = sys.argv[1:]
bad = 0
with open(os.path.join(top, 'ci', 'stages.tsv'), encoding='utf-8') as f:
    stages = {ln.split('\t')[0] for ln in f if ln.strip() and not ln.startswith('#')}
lines = {d.removesuffix('.y') for d in os.listdir(os.path.join(top, 'ci'))
         if os.path.isfile(os.path.join(top, 'ci', d, 'line.conf'))}
for doc in docs:
    inside = False
    for n, line in enumerate(open(os.path.join(top, doc), encoding='utf-8'), 1):
        if line.startswith('```'):
            inside = line.strip() == '```sh' if not inside else False
            continue
        cmd = line.strip()
        if not inside or not cmd or cmd.startswith('#'):
            continue
        ok, why = True, ''
        # Each command of "a && b", comments dropped.
        words_all = shlex.split(cmd, comments=True)
        parts, cur = [], []
        for w in words_all:
            if w == '&&':
                parts.append(cur)
                cur = []
            else:
                cur.append(w)
        parts.append(cur)
        for words in parts:
            env = dict(os.environ)
            while words and '=' in words[0] and not words[0].startswith('-'):
                k, v = words.pop(0).split('=', 1)
                env[k] = v
                # make -n accepts any variable: the values that name
                # something are checked here.
                if k == 'STAGES':
                    unknown = [st for st in v.split() if st not in stages]
                    if unknown:
                        ok, why = False, f'no such stage in ci/stages.tsv: {" ".join(unknown)}'
                if k == 'LINE' and v.removesuffix('.y') not in lines:
                    ok, why = False, f'no such line: {v} (lines: {" ".join(sorted(lines))})'
            if words[:1] == ['make']:
                check = ['make', '-C', top, '-n'] + words[1:]
                for w in words[1:]:
                    if w.startswith('LINE=') and w[5:].removesuffix('.y') not in lines:
                        ok, why = False, f'no such line: {w[5:]} (lines: {" ".join(sorted(lines))})'
                    if w.startswith('STAGES='):
                        unknown = [st for st in w[7:].split() if st not in stages]
                        if unknown:
                            ok, why = False, f'no such stage in ci/stages.tsv: {" ".join(unknown)}'
            elif words[:1] == ['python3']:
                check = ['python3', os.path.join(top, words[1]), '--help']
            elif words[:1] == ['bash']:
                check = ['bash', '-n', os.path.join(top, words[1])]
            else:
                check = None
            r = subprocess.run(check, env=env, capture_output=True, text=True) if check else None
            if r is None or r.returncode != 0:
                ok = False
                why = why or ('no rule to check it' if r is None
                              else (r.stderr or r.stdout).strip().splitlines()[-1:])
        print(f'{"PASS" if ok else "FAIL"}\tdocs:{doc}:{n}')
        print(f'{"PASS" if ok else "FAIL"} docs:{doc}:{n}: {cmd}' + ('' if ok else f' ({why})'),
              file=sys.stderr)
        bad += not ok
sys.exit(1 if bad else 0)
PY
echo "docs: $(grep -c '^PASS' "$res/results.tsv") passed, $(grep -c '^FAIL' "$res/results.tsv" || true) failed"
[ "$fail" = 0 ] || die "a document is stale or shows a command that does not exist" "make$LINEOPT docs"
