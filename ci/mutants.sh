#!/usr/bin/env bash
# make mutants: prove that the KUnit suite can fail.  Each mutation of
# ci/6.1.y/mutations is applied, one at a time, to build/6.1.y/linux; the suite is
# built (incrementally, in the x86_64 KUnit build directory) and run with
# ci/kunit.sh, and must fail.  The file is restored after each one, and on
# any exit.  The unmutated tip must pass first.  A mutation with a fifth
# column ARCH[:VARIANT] runs there instead (a bug that shows only with
# highmem, say); the tip must pass there first too.  A fifth column
# "kselftest" runs the line's user-mode kselftests (ci/kselftest.sh) in a
# guest of the mutated tree instead, for a bug only user memory that
# faults can show.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ARCH=${MUTANT_ARCH:-x86_64}
LIST=${MUTANT_LIST:-$MUTATIONS}	# MUTANT_LIST=<file>: only those mutations
res=$OUT/mutants
[ -d "$TREE/.git" ] || die "$TREE does not exist" "make$LINEOPT tree"
[ -z "$(tgit status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes; mutants needs a clean tree" "git -C $TREE status"
rm -rf "$res"
mkdir -p "$res"
# Each build and run has a process group of its own (setsid), which a stop
# ends, and waits for, before the tree is restored: a compile still running
# after the restore stores under the mutated source's ccache key the object
# of the restored one (or leaves a mutated object newer than the restored
# source).  A run stopped that way once made a mutation "survive" the next.
child=
stop_child() {
	local n=0
	[ -n "$child" ] || return 0
	kill -TERM -- "-$child" 2>/dev/null || true
	wait "$child" 2>/dev/null || true
	while kill -0 -- "-$child" 2>/dev/null && [ "$n" -lt 300 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	child=
}
trap 'stop_child; tgit checkout -q -- .' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# run NAME [ARCH[:VARIANT]|kselftest]: build and run the suite; 0 if it
# passed every check.
run() {
	local where=${2:-$ARCH} rc=0
	if [ "$where" = kselftest ]; then
		KSELFTEST_RUN=mutant-$1 KSELFTEST_TIMEOUT=${MUTANT_TIMEOUT:-300} REV='' \
			setsid -w bash "$TOP/ci/kselftest.sh" < /dev/null > "$res/$1.log" 2>&1 &
	else
		RUN_NAME=mutant-$1 ARCH=${where%%:*} VARIANT=$([ "$where" = "${where#*:}" ] || echo "${where#*:}") \
			REV='' KUNIT_TIMEOUT=${MUTANT_TIMEOUT:-120} \
			setsid -w bash "$TOP/ci/kunit.sh" < /dev/null > "$res/$1.log" 2>&1 &
	fi
	child=$!
	wait "$child" || rc=$?
	child=
	return "$rc"
}

# results_dir NAME [WHERE]: where the run of NAME leaves its results.
results_dir() {
	if [ "${2:-}" = kselftest ]; then
		echo "$OUT/kselftest-mutant-$1"
	else
		echo "$OUT/kunit/mutant-$1"
	fi
}
# objects_since STAMP [WHERE]: the checksums of the objects the build of
# WHERE wrote after STAMP (not those that change at every link: init/,
# the boot image's, vmlinux.o, kallsyms' temporaries).
objects_since() {
	local where=${2:-$ARCH} d
	if [ "$where" = kselftest ]; then
		d=$LB/kselftest/obj
	else
		d=$LB/kunit/${where%%:*}$([ "$where" = "${where#*:}" ] || echo "-${where#*:}")
	fi
	[ -d "$d" ] || return 0
	(cd "$d" && find . -name '*.o' -newer "$1" ! -path './init/*' ! -path '*/boot/*' \
		! -name vmlinux.o ! -name '.tmp*' ! -name '*.mod.o' -print0 | sort -z | xargs -0r sha256sum)
}
# survives NAME FILE [WHERE]: 0 if mutation NAME, applied to FILE, survives
# the suite.  A survivor is built and run once more, FILE touched and
# ccache not read (CCACHE_RECACHE, which also replaces a stale entry): a
# stopped run can leave the unmutated object cached under the mutated
# source's key.  When that rebuild writes the very objects the first build
# had, the first was not stale, and the mutation survives whatever the
# second run says (under TCG a run can also fail by its timing).
survives() {
	local name=$1 file=$2 where=${3:-} before after
	: > "$res/.stamp"
	run "$name" "$where" || return 1
	mv "$res/$name.log" "$res/$name.cached.log"
	rm -rf "$(results_dir "$name" "$where").cached"
	[ ! -d "$(results_dir "$name" "$where")" ] ||
		mv "$(results_dir "$name" "$where")" "$(results_dir "$name" "$where").cached"
	log "$name survived: building it again without ccache's stored objects"
	before=$(objects_since "$res/.stamp" "$where")
	touch "$TREE/$file"
	CCACHE_RECACHE=1 run "$name" "$where" && return 0
	after=$(objects_since "$res/.stamp" "$where")
	if [ "$before" = "$after" ]; then
		log "$name: the rebuild wrote the same objects, so the first build was not stale; its second run failed all the same (see $name.log)"
		return 0
	fi
	recached=" (on the rebuild without ccache's objects; the cached build passed: $name.cached.log)"
	return 1
}

grep -qv -e '^#' -e '^$' "$LIST" || die "$LIST lists no mutation" "make$LINEOPT mutants"
# The baselines the list needs: ARCH for the mutations without a fifth
# column, and each fifth column (one word each: ARCH[:VARIANT] or kselftest).
# shellcheck disable=SC2013
for where in $(awk -F'\t' -v a="$ARCH" '!/^#/ && NF >= 4 { print (NF >= 5 && $5 != "" ? $5 : a) }' "$LIST" | sort -u); do
	log "baseline: the unmutated tip ($where)"
	if ! run "baseline-${where/:/-}" "$where"; then
		tail -n 30 "$res/baseline-${where/:/-}.log" >&2
		die "the suite fails without any mutation: fix that first" \
			"$([ "$where" = kselftest ] && echo "make$LINEOPT kselftest" ||
				echo "make$LINEOPT kunit ARCH=${where%%:*}$([ "$where" = "${where#*:}" ] || echo " VARIANT=${where#*:}")")"
	fi
done

caught=0 survived=0 unproven=0
: > "$res/results.tsv"
while IFS=$'\t' read -r name file find replace where; do
	case $name in ''|'#'*) continue ;; esac
	mutate "$TREE/$file" "$find" "$replace" || die "mutation $name no longer applies to $file: update ci/$LINE_NAME/mutations"
	start=$(date +%s)
	recached=
	if survives "$name" "$file" "${where:-}"; then
		survived=$((survived + 1))
		printf 'FAIL\tmutant:%s\n' "$name" >> "$res/results.tsv"
		printf 'SURVIVED %-30s %4ss  the suite passed with: %s -> %s\n' "$name" "$(($(date +%s) - start))" "$find" "$replace"
	else
		# Only a failing case (or a crash the manifest names, or a
		# splat) catches a mutation; a build error or a bare kunit.py
		# failure proves nothing about the suite.
		if [ "${where:-}" = kselftest ]; then
			v=$(mutant_verdict "$OUT/kselftest-mutant-$name/results.tsv")
		else
			v=$(mutant_verdict "$OUT/kunit/mutant-$name/results.tsv")
		fi
		why=$(grep -m1 -E '^FAIL|build for .* failed' "$res/$name.log" | cut -c1-100 || true)
		case $v in
		caught)
			caught=$((caught + 1))
			printf 'PASS\tmutant:%s\n' "$name" >> "$res/results.tsv"
			printf 'caught   %-30s %4ss  %s%s\n' "$name" "$(($(date +%s) - start))" "$why" "$recached" ;;
		nobuild)
			unproven=$((unproven + 1))
			printf 'FAIL\tmutant:%s:did-not-build\n' "$name" >> "$res/results.tsv"
			printf 'NOBUILD  %-30s %4ss  the mutated tree did not build: fix the mutation (%s)\n' "$name" "$(($(date +%s) - start))" "$why" ;;
		*)
			unproven=$((unproven + 1))
			printf 'FAIL\tmutant:%s:no-case-failed\n' "$name" >> "$res/results.tsv"
			printf 'UNPROVEN %-30s %4ss  the run failed, but no case did: %s\n' "$name" "$(($(date +%s) - start))" "$why" ;;
		esac
	fi
	tgit checkout -q -- "$file"
done < "$LIST"

echo "mutants: $caught caught, $survived survived, $unproven failed without a failing case (logs: ${res#"$TOP"/}/, ${OUT#"$TOP"/}/kunit/mutant-*/)"
[ "$survived" = 0 ] || die "$survived mutation(s) survived: the suite misses them" "make$LINEOPT mutants"
[ "$unproven" = 0 ] || die "$unproven mutation(s) did not build or failed without a failing case" "make$LINEOPT mutants"
# Each row of the contract table names its mutation: after a run of the
# whole list, that mutation must have failed one of the row's own tests
# (ci/contracts.sh with CONTRACT_MUTANT_RESULTS), not only some other.
if [ "$LIST" = "$MUTATIONS" ] && [ -f "$TOP/Documentation/$LINE_NAME/contracts.md" ]; then
	if ! CONTRACT_MUTANT_RESULTS=$OUT bash "$TOP/ci/contracts.sh" > "$res/contracts.log" 2>&1; then
		grep -E 'FAIL|error' "$res/contracts.log" | head -n 20 >&2
		die "a contract row's mutation did not fail the row's own tests (log: ${res#"$TOP"/}/contracts.log)" \
			"CONTRACT_MUTANT_RESULTS=${OUT#"$TOP"/} LINE=$LINE_NAME bash ci/contracts.sh"
	fi
	log "$(grep -m1 "mutations judged" "$res/contracts.log")"
fi
