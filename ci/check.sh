#!/usr/bin/env bash
# make check / make check-full: the project's test suite (README, CI).
# Runs the stages of ci/stages.tsv for the tier (TIER=ci, what CI runs, or
# TIER=full), times each one, judges the run cold or warm by what ccache
# held as it started, prints a table of durations against each stage's
# budget share of that kind, warns when the total passes the CI budget,
# and ends with "N passed, N failed", counting every KUnit case, guard,
# self-test and lint result.
#   STAGES="lint kunit-um"  run only these stages (deps and tree always run)
#   RESUME=1                go on with the last run of this target in its
#                           directory, which stopped before its end (a
#                           session's limit, a machine going away): the
#                           series must be the same (its tips are checked
#                           after the tree stages), the stages that passed
#                           are kept, the others run; run.env notes each
#                           resumption and its project commit
#   LINE=6.12               run only that line's stages (without LINE: every
#                           line's, and the stages of the whole project; a
#                           stage of a line is named "<line>:<stage>" in
#                           ci/stages.tsv, e.g. 6.12:kunit-x86_64)
# Output: out/check/ (TIER=ci) or out/check-full/: summary.tsv (stage,
# seconds, status, share, ccache hit %), results.tsv, stage-results.tsv
# (the same with each result's stage; the kcidb stage, which runs last,
# turns them into KCIDB JSON), budget.txt, run.env, final.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

TIER=${TIER:-ci}
STAGE_LIST=${STAGE_LIST:-$TOP/ci/stages.tsv}
BUDGET_COLD=3600 BUDGET_WARM=1800
# With the verdict cache (ci/verdict.sh) warm too: nothing changed (every
# check replayed), and one patch of one line edited (at least half of the
# checks replayed).
BUDGET_UNCHANGED=600 BUDGET_EDIT=900
# A run is cold when ccache held fewer than this many files as it started
# (one kernel build leaves thousands), and every stage is then held to its
# cold share; otherwise to its warm share.  Not a hit rate: within one cold
# run, each patch's build reuses the last one's objects.
WARM_MIN_FILES=${WARM_MIN_FILES:-1000}

# The lines this run covers: the one LINE names, or all of them.  The run's
# summary goes under out/ either way (or the OUT given: the self-tests run
# this script on a scratch directory).
LINES_RUN=${LINE_GIVEN:+$LINE}
LINES_RUN=${LINES_RUN:-$LINES}
OUT=$OUT_ALL
case $TIER in
ci) dir=$OUT/check tiers=ci target="make${LINE_GIVEN:+ LINE=$LINE_GIVEN} check" ;;
full) dir=$OUT/check-full tiers='ci full' target="make${LINE_GIVEN:+ LINE=$LINE_GIVEN} check-full" ;;
*) die "unknown TIER=$TIER (ci or full)" ;;
esac

# stage_field NAME COLUMN: a column (2 tier, 3 cold, 4 warm) of ci/stages.tsv.
stage_field() { awk -F'\t' -v s="$1" -v c="$2" '!/^#/ && $1 == s { print $c }' "$STAGE_LIST"; }
# stage_line NAME: the line a stage belongs to ("6.12:x" is 6.12.y's), or
# nothing for a stage of the whole project (selftest, docs, plan, ...).
stage_line() { case $1 in *:*) echo "${1%%:*}" ;; esac; }
# A run of one line (LINE=...) leaves out the stages of the whole project.
tier_stages=$(awk -F'\t' -v t=" $tiers " '!/^#/ && NF >= 4 && index(t, " " $2 " ") && $1 != "deps" && $1 !~ /:tree$/ { print $1 }' "$STAGE_LIST" |
	while read -r st; do
		l=$(stage_line "$st")
		if [ -z "$l" ]; then
			[ -n "$LINE_GIVEN" ] || echo "$st"
		else
			case " $LINES_RUN " in *" $l "*) echo "$st" ;; esac
		fi
	done | paste -sd' ' -)
STAGES_GIVEN=${STAGES:-}
STAGES=${STAGES:-$tier_stages}
# kcidb converts the results of the stages before it: it runs last, after
# the full tier too.
# shellcheck disable=SC2086
case " $STAGES " in
*" kcidb "*) STAGES="$(printf '%s\n' $STAGES | grep -vx kcidb | paste -sd' ' -) kcidb" ;;
esac

summary=$dir/summary.tsv
resume=0
if [ "${RESUME:-0}" = 1 ]; then
	renv() { sed -n "s/^$1=//p" "$dir/run.env" 2>/dev/null | tail -n1; }
	[ -f "$dir/run.env" ] || die "RESUME=1: $dir holds no run to go on with" "$target"
	[ "$(renv target)" = "$target" ] ||
		die "RESUME=1: the run in $dir is '$(renv target)', not '$target'" "$target"
	[ ! -f "$dir/final" ] || die "RESUME=1: the run in $dir finished ($(cat "$dir/final")): start a new one" "$target"
	[ "$(renv stages_given)" = "$STAGES_GIVEN" ] ||
		die "RESUME=1: the run in $dir ran STAGES='$(renv stages_given)', not '$STAGES_GIVEN'" "$target"
	[ -n "$(renv tips)" ] || die "RESUME=1: the run in $dir recorded no series tips (it stopped before its trees were made): start a new one" "$target"
	[ "$TIER" = full ] || die "RESUME=1 is for make check-full: make check's verdict counts and budget are a single run's" "$target"
	# The stages kept were judged by the checks of the project commit the
	# run began on: the checks must be the same now, committed.
	first=$(renv project)
	git -C "$TOP" diff --quiet HEAD -- ci kunit configs bench Makefile 2>/dev/null ||
		die "RESUME=1: ci/, kunit/, configs/, bench/ or the Makefile has local changes: commit them, or start a new run" "git -C $TOP status"
	git -C "$TOP" diff --quiet "$first" HEAD -- ci kunit configs bench Makefile 2>/dev/null ||
		die "RESUME=1: ci/, kunit/, configs/, bench/ or the Makefile changed since the run began at ${first:0:12}: the stages it kept were judged by other checks; start a new run" \
			"git -C $TOP diff --stat $first HEAD -- ci kunit configs bench Makefile"
	resume=1
fi
if [ "$resume" = 0 ]; then
	rm -rf "$dir"
	mkdir -p "$dir"
	: > "$summary"
	: > "$dir/results.tsv"
	: > "$dir/stage-results.tsv"
fi
# The verdict cache (ci/verdict.sh) notes each hit and miss here.
export VERDICT_LOG=$dir/verdicts.tsv
[ "$resume" = 1 ] || : > "$VERDICT_LOG"
# (a resumed run's clock starts with the seconds its kept stages took)
# (deps and the trees run again in a resumed run: they are not kept)
# shellcheck disable=SC2016 # an awk program
kept_stage='$3 == "pass" && $1 != "deps" && $1 !~ /:tree$/'
t0=$(($(date +%s) - $( [ "$resume" = 1 ] && awk -F'\t' "$kept_stage"' { s += $2 } END { print s + 0 }' "$summary" || echo 0)))
[ "$resume" = 0 ] ||
	log "resuming the run of $(renv date) in ${dir#"$TOP"/}: $(awk -F'\t' "$kept_stage" "$summary" | wc -l) stage(s) passed there and are kept"
[ "$resume" = 1 ] || {
	echo "target=$target"
	echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "project=$(git -C "$TOP" rev-parse HEAD 2>/dev/null || echo unknown)"
	echo "dirty=$([ -z "$(git -C "$TOP" status --porcelain 2>/dev/null)" ] && echo no || echo yes)"
	echo "cores=$(nproc)"
	# A run of some stages or of one line is no measure of the whole
	# (make costs leaves it out).
	echo "partial=$([ -z "$STAGES_GIVEN$LINE_GIVEN" ] && echo no || echo yes)"
	echo "stages_given=$STAGES_GIVEN"
} > "$dir/run.env"

# ccache_files: the files ccache holds (0 without ccache).
ccache_files() {
	command -v ccache >/dev/null || { echo 0; return; }
	ccache --print-stats 2>/dev/null | awk -F'\t' '$1 == "files_in_cache" { n = $2 } END { print n + 0 }'
}
# verdict_entries: the passing verdicts the verdict cache holds.
verdict_entries() {
	local d=${VERDICT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/iov_iter-series/verdicts}
	# (none yet on a new machine: find fails, and that is 0)
	{ find "$d" -mindepth 2 -maxdepth 2 -name ok 2>/dev/null || true; } | wc -l
}
# What the caches held as the run started decides its kind (a resumed
# run's, as its first part started: the caches it filled since do not
# make it warm).
if [ "$resume" = 1 ] && [ -n "$(renv ccache_files_at_start)" ]; then
	start_files=$(renv ccache_files_at_start)
	start_verdicts=$(renv verdicts_at_start)
else
	start_files=$(ccache_files)
	start_verdicts=$(verdict_entries)
fi
if [ "$start_files" -lt "$WARM_MIN_FILES" ]; then run_warm=0; else run_warm=1; fi
if [ "$resume" = 0 ] || [ -z "$(renv kind)" ]; then
	{
		echo "ccache_files_at_start=$start_files"
		echo "verdicts_at_start=$start_verdicts"
		echo "kind=$([ "$run_warm" = 1 ] && echo warm || echo cold)"
	} >> "$dir/run.env"
fi

# ccache_counts: "hits misses" so far, for the ccache that the builds use.
ccache_counts() {
	command -v ccache >/dev/null || { echo '0 0'; return; }
	ccache --print-stats 2>/dev/null | awk -F'\t' '
		$1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { h += $2 }
		$1 == "cache_miss" { m += $2 }
		END { print h + 0, m + 0 }'
}

# hit_pct H0 M0 H1 M1: percentage of compilations ccache served between
# two counts, or - when nothing was compiled.
hit_pct() {
	local h=$(($3 - $1)) m=$(($4 - $2))
	if [ $((h + m)) -eq 0 ]; then echo -; else echo $((100 * h / (h + m))); fi
}

# run_stage NAME RESULTS-FILE CMD...: run one stage, record its duration,
# ccache hit rate and status; a stage that failed without a FAIL result
# counts as one failure.
run_stage() {
	local name=$1 results=$2 rc=0 start c0 c1 share pct v0 hits checks saved
	shift 2
	if [ "$resume" = 1 ]; then
		# a stage run again replaces what it left in the resumed run
		awk -F'\t' -v s="$name" '$1 != s' "$summary" > "$summary.new" && mv "$summary.new" "$summary"
		awk -F'\t' -v s="$name" '$1 != s' "$dir/stage-results.tsv" > "$dir/stage-results.new" &&
			mv "$dir/stage-results.new" "$dir/stage-results.tsv"
		cut -f2- "$dir/stage-results.tsv" > "$dir/results.tsv"
	fi
	start=$(date +%s)
	c0=$(ccache_counts)
	v0=$(wc -l < "$VERDICT_LOG")
	# No result of an earlier run may be counted as this run's: the
	# stage's results file goes before it starts (a stage that dies
	# early then counts as one failure, below).
	[ "$results" = - ] || rm -f "$results"
	printf '\n=== %s ===\n' "$name"
	"$@" || rc=$?
	c1=$(ccache_counts)
	# shellcheck disable=SC2086
	pct=$(hit_pct $c0 $c1)
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
	# The same results tagged with their stage (make kcidb reads them).
	awk -v s="$name" 'BEGIN { FS = OFS = "\t" } { print s, $0 }' "$results" >> "$dir/stage-results.tsv"
	# The share that applies: the run's kind (cold or warm) decides it.
	share=$(stage_field "$name" $((run_warm ? 4 : 3)))
	# The verdict cache's share of the stage: checks replayed of checks
	# looked up, and the seconds the replayed ones took when they ran.
	read -r hits checks saved < <(tail -n +"$((v0 + 1))" "$VERDICT_LOG" |
		awk -F'\t' '{ n++ } $1 == "hit" { h++; s += $2 } END { print h + 0, n + 0, s + 0 }')
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$(($(date +%s) - start))" \
		"$([ $rc = 0 ] && echo pass || echo FAIL)" "${share:--}" "$pct" \
		"$([ "$checks" = 0 ] && echo - || echo "$hits/$checks")" "$([ "$checks" = 0 ] && echo - || echo "$saved")" >> "$summary"
	return "$rc"
}

pct_text() { if [ "$1" = - ]; then echo -; else echo "$1%"; fi; }

finish() {
	local p f s total over=0 n sec st share pct flag warm=$run_warm vh vn vs budget kind
	total=$(($(date +%s) - t0))
	# shellcheck disable=SC2086,SC2046
	pct=$(hit_pct $c_start $(ccache_counts))
	read -r vh vn vs < <(awk -F'\t' '{ n++ } $1 == "hit" { h++; s += $2 } END { print h + 0, n + 0, s + 0 }' "$VERDICT_LOG")
	# The budget that applies to the whole run.
	if [ "$warm" = 1 ] && [ "$vn" -gt 0 ] && [ "$vh" = "$vn" ]; then
		budget=$BUDGET_UNCHANGED kind='warm, every check replayed'
	elif [ "$warm" = 1 ] && [ "$vn" -gt 0 ] && [ $((2 * vh)) -ge "$vn" ]; then
		budget=$BUDGET_EDIT kind='warm, most checks replayed (an edit)'
	elif [ "$warm" = 1 ]; then
		budget=$BUDGET_WARM kind='warm ccache'
	else
		budget=$BUDGET_COLD kind="cold: ccache held $start_files files at the start"
	fi
	{
		printf '\n%-26s %8s %8s %7s %9s %7s  %s\n' stage seconds share ccache 'hits' saved status
		while IFS=$'\t' read -r n sec st share pct_ rh rs; do
			flag=
			if [ "$share" != - ] && [ "$sec" -gt "$share" ]; then
				flag='  OVER ITS SHARE'
				over=$((over + 1))
			fi
			printf '%-26s %8s %8s %7s %9s %7s  %s%s\n' "$n" "$sec" "$share" "$(pct_text "$pct_")" "$rh" "$rs" "$st" "$flag"
		done < "$summary"
		printf '%-26s %8s %8s %7s %9s %7s\n' total "$total" "$budget" "$(pct_text "$pct")" "$vh/$vn" "$vs"
		echo "(this run: $kind; share: the stage's budget in ci/stages.tsv, cold or warm by what ccache held at the start ($start_files files; cold under $WARM_MIN_FILES); ccache: compilations ccache served;"
		echo " hits: checks replayed from the verdict cache of those looked up (ci/verdict.sh), saved: the seconds they took when they ran)"
		if [ "$total" -gt "$budget" ]; then
			echo "check: WARNING: $target took ${total} s, over the budget of a run of this kind ($kind): $budget s"
		fi
		[ "$over" = 0 ] || echo "check: WARNING: $over stage(s) over their share of the budget (ci/stages.tsv)"
	} | tee "$dir/budget.txt"
	{
		echo "seconds=$total"
		echo "budget=$budget ($kind)"
		echo "verdicts_replayed=$vh/$vn"
		echo "ccache_hit_pct=$pct"
		echo "stages=$(cut -f1 "$summary" | paste -sd' ' -)"
	} >> "$dir/run.env"
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

# Every stage named must be in ci/stages.tsv with a share, and the ci
# tier's shares must fit the budget: the table is the plan.
for st in $STAGES; do
	[ -n "$(stage_field "$st" 2)" ] || die "unknown stage $st (stages: $tier_stages; list: ci/stages.tsv)"
done
read -r cold warm < <(awk -F'\t' '!/^#/ && $2 == "ci" { c += $3; w += $4 } END { print c + 0, w + 0 }' "$STAGE_LIST")
if [ "$cold" -gt "$BUDGET_COLD" ] || [ "$warm" -gt "$BUDGET_WARM" ]; then
	die "ci/stages.tsv: the ci tier's shares add up to ${cold} s cold and ${warm} s warm, over the budget ($BUDGET_COLD, $BUDGET_WARM)"
fi

c_start=$(ccache_counts)
# Prerequisites: without them nothing else can run.  Each line's tree.
prereq_ok=1
# CHECK_PREREQ=0 (the self-tests, on a scratch OUT) runs neither.
if [ "${CHECK_PREREQ:-1}" = 1 ]; then
	run_stage deps - bash "$TOP/ci/deps.sh" || prereq_ok=0
fi
for l in $LINES_RUN; do
	[ "${CHECK_PREREQ:-1}" = 1 ] || break
	[ "$prereq_ok" = 1 ] || break
	run_stage "$l:tree" - env LINE="$l" bash "$TOP/ci/tree.sh" || prereq_ok=0
done
if [ "$prereq_ok" != 1 ]; then
	# (a resumed run stays resumable: no final line)
	[ "$resume" = 1 ] && die "RESUME=1: a prerequisite failed (summary: ${summary#"$TOP"/}); the run can be resumed once it passes" "$target"
	finish
	exit 1
fi
# The series each line's tree holds: a resumed run must test the same.
tips=$(for l in $LINES_RUN; do
	t=$(line_dir "$l" build)/linux
	if [ -e "$t/.git" ]; then
		printf '%s:%s ' "$l" "$(git -C "$t" rev-parse HEAD 2>/dev/null || echo none)"
	else
		printf '%s:none ' "$l"
	fi
done)
tips=${tips% }
if [ "$resume" = 1 ]; then
	case " $tips " in *:none\ *) die "RESUME=1: a line's tree is missing ($tips)" "$target" ;; esac
	[ "$(renv tips)" = "$tips" ] ||
		die "RESUME=1: the series changed since the run in ${dir#"$TOP"/} began (then: $(renv tips); now: $tips): start a new run" "$target"
	echo "resumed=$(date -u +%Y-%m-%dT%H:%M:%SZ) $(git -C "$TOP" rev-parse HEAD 2>/dev/null || echo unknown)" >> "$dir/run.env"
else
	echo "tips=$tips" >> "$dir/run.env"
fi
# deps may have installed ccache: count from here.
[ "$c_start" != '0 0' ] || c_start=$(ccache_counts)

for st in $STAGES; do
	if [ "$resume" = 1 ] && awk -F'\t' -v s="$st" '$1 == s && $3 == "pass" { f = 1 } END { exit !f }' "$summary"; then
		log "$st passed in the resumed run: kept, not run again"
		continue
	fi
	# A stage of a line runs with that line's LINE and out/ directory; a
	# stage of the whole project with the default line's.
	l=$(stage_line "$st")
	base=${st#"$l":}
	if [ -n "$l" ]; then
		lo=$(line_dir "$l" out)
		lenv=(env LINE="$l" OUT="$lo")
	else
		lo=$OUT_ALL
		lenv=(env LINE="$DEFAULT_LINE" OUT="$lo")
	fi
	case $base in
	lint) run_stage "$st" - "${lenv[@]}" bash "$TOP/ci/lint.sh" || true ;;
	selftest) run_stage "$st" "$lo/selftest/results.tsv" "${lenv[@]}" bash "$TOP/ci/selftest.sh" || true ;;
	bench-smoke) run_stage "$st" "$lo/bench-smoke/results.tsv" "${lenv[@]}" BENCH_SMOKE=1 bash "$TOP/ci/bench.sh" || true ;;
	patchcheck) run_stage "$st" "$lo/patchcheck/results.tsv" "${lenv[@]}" PATCHCHECK_KUNIT=0 bash "$TOP/ci/patchcheck.sh" || true ;;
	patch-builds) run_stage "$st" "$lo/patch-builds/results.tsv" "${lenv[@]}" PATCHCHECK_BUILD=arches bash "$TOP/ci/patchcheck.sh" || true ;;
	patch-kunit) run_stage "$st" "$lo/patch-kunit/results.tsv" "${lenv[@]}" PATCHCHECK_KUNIT=only bash "$TOP/ci/patchcheck.sh" || true ;;
	checkpatch) run_stage "$st" "$lo/patchcheck/results.tsv" "${lenv[@]}" PATCHCHECK_BUILD=0 bash "$TOP/ci/patchcheck.sh" || true ;;
	sizes) run_stage "$st" - "${lenv[@]}" COVER_CHECK=1 bash "$TOP/ci/sizes.sh" || true ;;
	abi) run_stage "$st" "$lo/abi/results.tsv" "${lenv[@]}" COVER_CHECK=1 bash "$TOP/ci/abi.sh" || true ;;
	uaudit) run_stage "$st" "$lo/uaudit/results.tsv" "${lenv[@]}" bash "$TOP/ci/uaudit.sh" || true ;;
	divergence) run_stage "$st" - "${lenv[@]}" bash "$TOP/ci/divergence.sh" || true ;;
	backport) run_stage "$st" - "${lenv[@]}" bash "$TOP/ci/backport.sh" || true ;;
	gki) run_stage "$st" "$lo/gki/results.tsv" "${lenv[@]}" bash "$TOP/ci/gki.sh" || true ;;
	codegen) run_stage "$st" - "${lenv[@]}" COVER_CHECK=1 bash "$TOP/ci/codegen.sh" || true ;;
	native-smoke) run_stage "$st" - "${lenv[@]}" NATIVE_SMOKE=1 bash "$TOP/ci/native-bench.sh" || true ;;
	native-sim-smoke) run_stage "$st" - "${lenv[@]}" SIM_SMOKE=1 SIM_CASE=iovec_to_512 bash "$TOP/ci/native-sim.sh" || true ;;
	# The round trip signs as a stand-in sender (make mbox refuses the
	# project's identity); its .invalid address gets the warning it should.
	b4) run_stage "$st" - "${lenv[@]}" GIT_AUTHOR_NAME='Round Trip' GIT_AUTHOR_EMAIL=round-trip@check.invalid \
		MBOX_CHECK=1 MBOX_OWN_WORDS=1 bash "$TOP/ci/mbox.sh" || true ;;
	kselftest) run_stage "$st" "$lo/kselftest/results.tsv" "${lenv[@]}" REV='' bash "$TOP/ci/kselftest.sh" || true ;;
	docs) run_stage "$st" "$lo/docs/results.tsv" "${lenv[@]}" bash "$TOP/ci/docs.sh" || true ;;
	plan) run_stage "$st" - "${lenv[@]}" bash "$TOP/ci/plan.sh" || true ;;
	tuxmake) run_stage "$st" "$lo/tuxmake/6.1.y-kunit-x86_64/results.tsv" "${lenv[@]}" TUXMAKE_ROW=6.1.y-kunit-x86_64 bash "$TOP/ci/tuxmake.sh" || true ;;
	kcidb) run_stage "$st" - "${lenv[@]}" KCIDB_RUN="$dir" bash "$TOP/ci/kcidb.sh" || true ;;
	mutants) run_stage "$st" "$lo/mutants/results.tsv" "${lenv[@]}" bash "$TOP/ci/mutants.sh" || true ;;
	kunit-*)
		# kunit-<arch>[-<variant>]
		rest=${base#kunit-}
		a=${rest%%-*}
		v=${rest#"$a"}
		v=${v#-}
		rm -f "$lo/kunit/$rest/results.tsv"
		run_stage "$st" "$lo/kunit/$rest/results.tsv" "${lenv[@]}" ARCH="$a" VARIANT="$v" REV='' bash "$TOP/ci/kunit.sh" || true
		;;
	*) die "stage $st is in ci/stages.tsv but ci/check.sh cannot run it" ;;
	esac
done
rc=0
finish || rc=$?
# A run of every stage, or of every stage of the 6.1.y line (the only
# line whose cover letter quotes a run), is complete for that cover letter.
if [ "$TIER" = full ] && [ -z "$STAGES_GIVEN" ] && [ "${LINE_GIVEN:-$DEFAULT_LINE}" = "$DEFAULT_LINE" ] && [ "$rc" = 0 ]; then
	# The cover letter quotes the last complete, green full run (make
	# export carries it into patches/).
	bash "$TOP/ci/cover-testing.sh" "$dir" || rc=1
fi
exit "$rc"
