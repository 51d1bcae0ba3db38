#!/usr/bin/env bash
# make check: the project's test suite (README, CI).  Runs each stage,
# prints a table of stage durations, and ends with "N passed, N failed",
# counting every KUnit case, guard, self-test and lint result.
#   STAGES="lint kunit-um"  run only these stages (deps and tree always run)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ALL_STAGES="lint selftest patchcheck sizes b4 docs kunit-x86_64 kunit-um kunit-i386 kunit-x86_64-kasan kunit-i386-kmap-force mutants bench-smoke"
STAGES=${STAGES:-$ALL_STAGES}
dir=$OUT/check
rm -rf "$dir"
mkdir -p "$dir"
summary=$dir/summary.tsv
: > "$summary"
t0=$(date +%s)

# run_stage NAME RESULTS-FILE CMD...: run one stage, record its duration and
# status; a stage that failed without a FAIL result counts as one failure.
run_stage() {
	local name=$1 results=$2 rc=0 start
	shift 2
	start=$(date +%s)
	printf '\n=== %s ===\n' "$name"
	"$@" || rc=$?
	if [ "$results" = - ]; then
		results=$dir/$name.tsv
		printf '%s\t%s\n' "$([ $rc = 0 ] && echo PASS || echo FAIL)" "$name" > "$results"
	elif [ ! -f "$results" ]; then
		: > "$results"
	fi
	if [ "$rc" != 0 ] && ! grep -q '^FAIL' "$results"; then
		printf 'FAIL\t%s\n' "$name" >> "$results"
	fi
	cat "$results" >> "$dir/results.tsv"
	printf '%s\t%s\t%s\n' "$name" "$(($(date +%s) - start))" "$([ $rc = 0 ] && echo pass || echo FAIL)" >> "$summary"
	return "$rc"
}

finish() {
	printf '\n%-16s %8s  %s\n' stage seconds status
	while IFS=$'\t' read -r n s st; do printf '%-16s %8s  %s\n' "$n" "$s" "$st"; done < "$summary"
	printf '%-16s %8s\n' total "$(($(date +%s) - t0))"
	local p f s
	p=$(grep -c '^PASS' "$dir/results.tsv" || true)
	f=$(grep -c '^FAIL' "$dir/results.tsv" || true)
	s=$(grep -c '^SKIP' "$dir/results.tsv" || true)
	if [ "$f" != 0 ]; then
		printf '\nfailed:\n'
		grep '^FAIL' "$dir/results.tsv" | cut -f2 | sed 's/^/  /'
	fi
	echo "$p passed, $f failed, $s skipped" | tee "$dir/final"
	[ "$f" = 0 ]
}
: > "$dir/results.tsv"

# Prerequisites: without them nothing else can run.
if ! run_stage deps - bash "$TOP/ci/deps.sh" || ! run_stage tree - bash "$TOP/ci/tree.sh"; then
	finish
	exit 1
fi

for st in $STAGES; do
	case $st in
	lint) run_stage lint - bash "$TOP/ci/lint.sh" || true ;;
	selftest) run_stage selftest "$OUT/selftest/results.tsv" bash "$TOP/ci/selftest.sh" || true ;;
	bench-smoke) run_stage bench-smoke "$OUT/bench-smoke/results.tsv" env BENCH_SMOKE=1 bash "$TOP/ci/bench.sh" || true ;;
	patchcheck) run_stage patchcheck "$OUT/patchcheck/results.tsv" env PATCHCHECK_KUNIT=1 bash "$TOP/ci/patchcheck.sh" || true ;;
	sizes) run_stage sizes - env COVER_CHECK=1 bash "$TOP/ci/sizes.sh" || true ;;
	b4) run_stage b4 - env MBOX_CHECK=1 bash "$TOP/ci/mbox.sh" || true ;;
	docs) run_stage docs "$OUT/docs/results.tsv" bash "$TOP/ci/docs.sh" || true ;;
	mutants) run_stage mutants "$OUT/mutants/results.tsv" bash "$TOP/ci/mutants.sh" || true ;;
	kunit-*)
		# kunit-<arch>[-<variant>]
		rest=${st#kunit-}
		a=${rest%%-*}
		v=${rest#"$a"}
		v=${v#-}
		rm -f "$OUT/kunit/$rest/results.tsv"
		run_stage "$st" "$OUT/kunit/$rest/results.tsv" env ARCH="$a" VARIANT="$v" REV='' bash "$TOP/ci/kunit.sh" || true
		;;
	*) die "unknown stage $st (stages: $ALL_STAGES)" ;;
	esac
done
finish
