#!/usr/bin/env bash
# make mutants: prove that the KUnit suite can fail.  Each mutation of
# ci/mutations is applied, one at a time, to a scratch worktree of the tip
# of build/linux (build/mutants); the iov_iter suite is built and run, and
# must fail.  The unmutated tip must pass first.
#   MUTANT_ARCH=x86_64|um   where to run (default x86_64, QEMU)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ARCH=${MUTANT_ARCH:-x86_64}
LIST=$TOP/ci/mutations
KCONF=$TOP/kunit/iov_iter.kunitconfig
wt=$TOP/build/mutants
bdir=$TOP/build/kunit/mutants-$ARCH
res=$OUT/mutants
[ -d "$TREE/.git" ] || die "$TREE does not exist" "make tree"
[ -f "$KCONF" ] || die "$KCONF is missing"
rm -rf "$res"
mkdir -p "$res" "$bdir"

if ! git -C "$wt" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	rm -rf "$wt"
	tgit worktree prune
	tgit worktree add -q --detach "$wt" HEAD
fi
git -C "$wt" checkout -q -f --detach "$(tgit rev-parse HEAD)"
export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1

# run NAME: build and run the suite in the worktree; 0 if it passed.
run() {
	local log=$res/$1.log rc=0
	(cd "$wt" && python3 tools/testing/kunit/kunit.py run --arch="$ARCH" \
		--build_dir="$bdir" --kunitconfig="$KCONF" --make_options "CC=ccache gcc" \
		--jobs="$(nproc)" --timeout=120 'iov_iter') > "$log" 2>&1 || rc=$?
	cp "$bdir/test.log" "$res/$1.raw.log" 2>/dev/null || true
	if [ "$rc" = 0 ] && ! python3 "$TOP/ci/ktap_check.py" "$res/$1.raw.log" \
		--kunit-dir="$wt/tools/testing/kunit" --denylist="$TOP/ci/splat-denylist" \
		--allowlist="$TOP/ci/splat-allowlist" > "$res/$1.check" 2>&1; then
		rc=1
	fi
	return "$rc"
}

log "baseline: the unmutated tip ($ARCH)"
if ! run baseline; then
	tail -n 30 "$res/baseline.log" >&2
	die "the suite fails without any mutation: fix that first" "make mutants"
fi

caught=0 survived=0
: > "$res/results.tsv"
while IFS=$'\t' read -r name file find replace; do
	case $name in ''|'#'*) continue ;; esac
	git -C "$wt" checkout -q -f -- "$file"
	python3 - "$wt/$file" "$find" "$replace" <<'PY' || die "mutation $name no longer applies to $file: update ci/mutations"
import sys
path, find, repl = sys.argv[1:]
s = open(path).read()
n = s.count(find)
if n != 1:
    sys.exit(f'{path}: "{find}" occurs {n} times, not once')
open(path, 'w').write(s.replace(find, repl))
PY
	start=$(date +%s)
	if run "$name"; then
		survived=$((survived + 1))
		printf 'FAIL\tmutant:%s\n' "$name" >> "$res/results.tsv"
		printf 'SURVIVED %-28s (%ss) the suite passed with: %s -> %s\n' "$name" "$(($(date +%s) - start))" "$find" "$replace"
	else
		caught=$((caught + 1))
		printf 'PASS\tmutant:%s\n' "$name" >> "$res/results.tsv"
		why=$(grep -m1 -E 'FAIL|EXPECTATION FAILED|timed out|CRASHED' "$res/$name.log" "$res/$name.check" 2>/dev/null | cut -d: -f2- | cut -c1-90 || true)
		printf 'caught   %-28s (%ss) %s\n' "$name" "$(($(date +%s) - start))" "$why"
	fi
done < "$LIST"
git -C "$wt" checkout -q -f -- .

echo "mutants: $caught caught, $survived survived (logs: out/mutants/)"
[ "$survived" = 0 ] || die "$survived mutation(s) survived: the suite misses them" "make mutants"
