#!/usr/bin/env bash
# make selftest: prove that the glue in ci/ catches what it must catch.
#   - ktap_check.py on recorded console logs: a clean run passes; a failed
#     case, a WARN splat and a missing test are each caught; a skip the
#     expected-skips list lacks fails, and so does a listed one that runs;
#     a case prints exactly the warnings of the expected-warnings list;
#     a suite.case filter expects that case; a suite lost from a per-patch
#     run is caught, and so is a config symbol the line's tip lacks;
#   - make costs: testing.md's stage reference and cost table fail when
#     ci/stages.tsv changes a share, a tier or adds a stage; a run of some
#     stages or one line measures nothing;
#   - make lint: a last-full-run block of another tip fails unless the
#     cover letter says that this version has none yet;
#   - make export of a line of several postings: a directory, cover letter
#     and numbering each, the one on the base based there, byte-stable,
#     and a count the series cannot fill refused;
#   - ci/qemu-tcg.sh drops every accelerator but TCG;
#   - tree/export/lint on a tiny 6.1-shaped tree: export is byte-stable, a
#     broken patch stops make tree and is named, a series/file mismatch and
#     unexported commits are refused;
#   - codegen.py on two tiny objects: a new indirect call and a changed copy
#     primitive fail the audit unless the allow file names them;
#   - make plan follows ci/stages.tsv (one more KUnit stage, one more job),
#     and its validator refuses a plan with an unknown device or arch,
#     a bad kconfig item or a job TuxSuite's schema rejects;
#   - make kcidb writes valid KCIDB for a tiny run (a per-patch build
#     failure is a failed build of that patch's checkout), and refuses a bad
#     origin and a result naming a patch the series does not have;
#   - make deps stops on a disk without room;
#   - make divergence fails above the line's DIVERGENCE_MAX;
#   - a checkpatch exception naming a subject the series lacks fails;
#   - make mutants: only a failing case (or a crash the manifest names, or
#     a splat) catches a mutation; no results means "did not build";
#   - the verdict cache (ci/verdict.sh): a second run with the same key is
#     replayed (results and logs), and a change of the tree, the config,
#     the toolchain or the scripts reruns the check, as do NOCACHE=1, make
#     check-full (TIER=full) and a key whose last run failed;
#   - make check clears a stage's old results (a stage that dies early
#     counts as one failure); W=1/sparse's make failing without "error:"
#     is an error; make kunit stops on a missing manifest or skips list
#     before it builds; make tuxmake refuses make kunit results of
#     another tree;
#   - the native harness (bench/native/runtime.c) with a fake glue: a wrong
#     walk return, iov_offset or nr_segs after a run fails its data checks;
#     the mitigations it chooses for each CPU vendor and family its choice
#     branches on, from a CPU identity and a sysfs directory the test gives
#     (6.1.y's choice, the host kernel's from sysfs, or the refusal);
#   - syscall_share.py on plugin counts written here: the iterator's share
#     of the median call; a window left open, a plugin output cut off or
#     with a cut line, a guest that did not finish, a count -icount does
#     not confirm and a floor window that counts kernel work fail; the
#     ranges of vmlinux are made disjoint;
#   - shellcheck on every script.
# Writes PASS/FAIL lines to out/<line>/selftest/results.tsv.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

res=$OUT/selftest/results.tsv
mkdir -p "${res%/*}"
: > "$res"
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
data=$TOP/ci/testdata
kunit_dir=$TREE/tools/testing/kunit
[ -f "$kunit_dir/kunit_parser.py" ] || die "$kunit_dir/kunit_parser.py missing" "make$LINEOPT tree"

nfail=0
result() { # result PASS|FAIL name [detail]
	printf '%s\t%s\n' "$1" "$2" >> "$res"
	printf '%-4s selftest:%s%s\n' "$1" "$2" "${3:+: $3}"
	[ "$1" = PASS ] || nfail=$((nfail + 1))
}

# expect NAME RC PATTERN -- CMD...: CMD must exit with RC (0 or non-zero)
# and print something matching PATTERN (an empty PATTERN checks nothing).
# The output stays in $work/out.NAME.
expect() {
	local name=$1 want=$2 pat=$3
	shift 4
	local rc=0
	"$@" > "$work/out.$name" 2>&1 || rc=$?
	cp "$work/out.$name" "$work/out"
	if { [ "$want" = 0 ] && [ "$rc" != 0 ]; } || { [ "$want" != 0 ] && [ "$rc" = 0 ]; }; then
		result FAIL "$name" "exit $rc, expected $want"
		sed 's/^/    | /' "$work/out" | tail -n 15
	elif [ -n "$pat" ] && ! grep -qE -- "$pat" "$work/out"; then
		result FAIL "$name" "output lacks /$pat/"
		sed 's/^/    | /' "$work/out" | tail -n 15
	else
		result PASS "$name"
	fi
}

# --- ktap_check.py on recorded logs -------------------------------------------
: > "$work/no-skips"
check() { # check LOG [ARGS...]: LOG under ci/testdata/ktap, or a path
	local log=$1
	case $log in /*) ;; *) log=$data/ktap/$log ;; esac
	python3 "$TOP/ci/ktap_check.py" "$log" --kunit-dir="$kunit_dir" \
		--manifest="$data/ktap/expected-tests" --expected-skips="${SKIPS:-$work/no-skips}" \
		--denylist="$TOP/ci/splat-denylist" --allowlist="$data/ktap/allowlist" "${@:2}"
}
expect ktap-clean 0 '^PASS splat-scan' -- check clean.log
expect ktap-failed-case 1 '^FAIL memcpy\.memmove_test' -- check failed-case.log
expect ktap-warn-splat 1 '^ +splat [0-9]+: WARNING: CPU' -- check warn.log
expect ktap-missing-test 1 '^FAIL manifest:.*memcpy\.strtomem_test' -- check missing-test.log
expect ktap-crash 1 '^FAIL (ktap|manifest)' -- check crash.log
expect ktap-allowlisted 0 '^PASS splat-scan' -- check allowlisted.log
# Skips: only a listed one passes, and a listed one that runs fails.
with_skips() { local SKIPS=$1; shift; check "$@"; }
printf 'x86_64\tmemcpy.memcpy_*\tthe reason\n' > "$work/skips"
expect ktap-unexpected-skip 1 '^FAIL memcpy\.memcpy_test: skipped, and .* does not list it' -- check skip.log
expect ktap-expected-skip 0 '0 failed, 1 skipped' -- with_skips "$work/skips" skip.log --run=x86_64
expect ktap-skip-other-run 1 '^FAIL memcpy\.memcpy_test: skipped' -- with_skips "$work/skips" skip.log --run=arm64
# 6.1's KUnit prints a skipped parameter as "ok 2 b", with no directive:
# the case's count line decides (skip:1, and the list names one of its
# parameters); with a count of 0, the listed parameter ran.
printf 'um\tdemo.demo_case.b\tthe reason\n' > "$work/param-skips"
expect ktap-param-skip-counted 0 ' 0 failed, 1 skipped' -- \
	env SKIPS="$work/param-skips" python3 "$TOP/ci/ktap_check.py" "$data/ktap/param-skip.log" --kunit-dir="$kunit_dir" \
	--expected-skips="$work/param-skips" --denylist="$TOP/ci/splat-denylist" --allowlist="$data/ktap/allowlist" --run=um
# ... and a count the list does not account for is an unlisted skip
expect ktap-param-skip-unlisted 1 '^FAIL demo\.demo_case: counts 1 skipped parameter\(s\) and prints no SKIP directive; .* names 0' -- \
	check param-skip.log --run=um
sed 's/skip:1 total:2/skip:0 total:2/' "$data/ktap/param-skip.log" > "$work/param-ran.log"
expect ktap-param-skip-ran 1 '^FAIL expected-skip:demo\.demo_case\.b: listed as skipped on um' -- \
	python3 "$TOP/ci/ktap_check.py" "$work/param-ran.log" --kunit-dir="$kunit_dir" \
	--expected-skips="$work/param-skips" --denylist="$TOP/ci/splat-denylist" --allowlist="$data/ktap/allowlist" --run=um
expect ktap-listed-skip-runs 1 '^FAIL expected-skip:memcpy\.memcpy_test: .*ran and passed' -- with_skips "$work/skips" clean.log --run=x86_64
printf 'x86_64\tmemcpy.memcpy_tset\tmisspelt\n' > "$work/skips.typo"
expect ktap-skip-names-nothing 1 '^FAIL expected-skip:memcpy\.memcpy_tset: .*names no test' -- with_skips "$work/skips.typo" clean.log --run=x86_64
printf 'x86_64 memcpy.memcpy_test\n' > "$work/skips.bad"
expect ktap-skip-without-reason 1 'want "<run glob> <suite.case> <reason>"' -- with_skips "$work/skips.bad" clean.log
expect ktap-no-skips-list 1 'expected-skips file .* is missing' -- with_skips "$work/none" clean.log
# Expected warnings: the case's own, in order, pass and are no splats; a
# missing, extra, other or misplaced one fails, and so does a name that
# is no test.
printf '*\tmemcpy.memcpy_test\t\\blib/iov_iter\\.c:[0-9]+ iov_iter_revert\\+\n' > "$work/warns"
expect ktap-expected-warning 0 '^PASS expected-warning:memcpy\.memcpy_test: 1 expected' -- check warn.log --expected-warnings="$work/warns"
expect ktap-expected-warning-no-splat 0 '^PASS splat-scan' -- check warn.log --expected-warnings="$work/warns"
expect ktap-expected-warning-missing 1 '^FAIL expected-warning:memcpy\.memcpy_test: printed 0 warning' -- check clean.log --expected-warnings="$work/warns"
sed 's/memcpy_test/memmove_test/' "$work/warns" > "$work/warns.other-case"
expect ktap-expected-warning-other-case 1 '^ +splat [0-9]+: WARNING: CPU' -- check warn.log --expected-warnings="$work/warns.other-case"
sed 's/iov_iter_revert/iov_iter_init/' "$work/warns" > "$work/warns.other-site"
expect ktap-expected-warning-other-site 1 '^FAIL expected-warning:memcpy\.memcpy_test: warning 1 is ' -- check warn.log --expected-warnings="$work/warns.other-site"
cat "$work/warns" "$work/warns" > "$work/warns.two"
expect ktap-expected-warning-too-few 1 'printed 1 warning\(s\), the list expects 2' -- check warn.log --expected-warnings="$work/warns.two"
sed 's/memcpy_test/memcpy_tset/' "$work/warns" > "$work/warns.typo"
expect ktap-expected-warning-names-nothing 1 '^FAIL expected-warning:memcpy\.memcpy_tset: .*names no test' -- check warn.log --expected-warnings="$work/warns.typo"
# Inside an expected warning's dump only the dump's own lines are
# excused: a BUG there is a splat, and a dump without its end-trace line
# fails the case.
sed 's/^ kthread+0xe6\/0x110$/BUG: kernel NULL pointer dereference, address: 0000000000000000/' \
	"$data/ktap/warn.log" > "$work/warn-bug-inside.log"
expect ktap-expected-warning-bug-inside 1 '^ +splat [0-9]+: BUG: kernel NULL' -- check "$work/warn-bug-inside.log" --expected-warnings="$work/warns"
grep -v 'end trace' "$data/ktap/warn.log" > "$work/warn-no-end.log"
expect ktap-expected-warning-no-end 1 '^FAIL expected-warning:memcpy\.memcpy_test: the warning at line [0-9]+ has no end-trace' -- check "$work/warn-no-end.log" --expected-warnings="$work/warns"
# Two warnings: the list's order is the order they must come in.
awk '/cut here/ && !d { b=1 } b { blk = blk $0 "\n" } /end trace/ && b { b=0; d=1; printf "%s", blk; gsub(/iov_iter_revert/, "iov_iter_init", blk); printf "%s", blk; next } !b { print }' \
	"$data/ktap/warn.log" > "$work/warn-two.log"
printf '*\tmemcpy.memcpy_test\t iov_iter_revert\\+\n*\tmemcpy.memcpy_test\t iov_iter_init\\+\n' > "$work/warns.ordered"
expect ktap-expected-warnings-in-order 0 '^PASS expected-warning:memcpy\.memcpy_test: 2 expected' -- check "$work/warn-two.log" --expected-warnings="$work/warns.ordered"
tac "$work/warns.ordered" > "$work/warns.swapped"
expect ktap-expected-warnings-swapped 1 '^FAIL expected-warning:memcpy\.memcpy_test: warning 1 is ' -- check "$work/warn-two.log" --expected-warnings="$work/warns.swapped"
expect ktap-expected-warning-extra 1 'printed 2 warning\(s\), the list expects 1' -- check "$work/warn-two.log" --expected-warnings="$work/warns"
# A console with printk timestamps.
awk '{ printf "[%5d.%06d] %s\n", NR / 1000, NR, $0 }' "$data/ktap/warn.log" > "$work/warn-timed.log"
expect ktap-expected-warning-timestamps 0 '^PASS expected-warning:memcpy\.memcpy_test: 1 expected' -- check "$work/warn-timed.log" --expected-warnings="$work/warns"
sed 's/^    ok 2 memcpy_test$/    ok 2 - memcpy_test/' "$data/ktap/warn.log" > "$work/warn-dash.log"
sed 's/^\*/arm64/' "$work/warns" > "$work/warns.arm64"
expect ktap-expected-warning-other-run 1 '^ +splat [0-9]+: WARNING: CPU' -- check warn.log --expected-warnings="$work/warns.arm64" --run=x86_64
expect ktap-expected-warning-dash 0 '^PASS expected-warning:memcpy\.memcpy_test' -- check "$work/warn-dash.log" --expected-warnings="$work/warns"
# A suite.case filter expects that case alone; a suite filter its suite.
grep -v -E '^ +ok [0-9]+ (memset|memmove|strtomem)_test$' "$data/ktap/clean.log" |
	sed -e 's/^    1\.\.4$/    1..1/' -e 's/^    ok 2 memcpy_test$/    ok 1 memcpy_test/' > "$work/one-case.log"
expect ktap-filter-case 0 '^PASS manifest:.*1 expected tests present' -- check "$work/one-case.log" --filter=memcpy.memcpy_test
expect ktap-filter-suite 1 '^FAIL manifest:.*memcpy\.memset_test' -- check "$work/one-case.log" --filter=memcpy
# With the sources, a suite missing from the log is still expected when
# the sources register its cases (a suite lost to a dropped config line).
printf 'static struct kunit_case c[] = {\n\tKUNIT_CASE(memset_test),\n\tKUNIT_CASE(memcpy_test),\n};\n' > "$work/cases.c"
{ sed '/^KTAP version 1$/,$d' "$data/ktap/clean.log"; printf 'KTAP version 1\n1..0\n'; } > "$work/no-suite.log"
expect ktap-present-suites 0 '^PASS manifest:.*0 expected tests present' -- check "$work/no-suite.log" --present-suites
expect ktap-lost-suite 1 '^FAIL manifest:.*2 of 2 expected tests have no result' -- check "$work/no-suite.log" --present-suites --source-cases="$work/cases.c"
# A parameter that a later patch adds: the tip's run (no sources) expects
# it, a run of an earlier patch (with the sources) expects its case only.
printf 'memcpy.memcpy_test.later-param\n' > "$work/param-manifest"
expect ktap-later-param-tip 1 '^FAIL manifest:param-manifest: 1 of 1 expected tests have no result' -- check clean.log --manifest="$work/param-manifest"
expect ktap-later-param-patch 0 '^PASS manifest:param-manifest: 0 expected tests present' -- check clean.log --manifest="$work/param-manifest" --present-suites --source-cases="$work/cases.c"
check_real() {
	python3 "$TOP/ci/ktap_check.py" "$data/ktap/$1" --kunit-dir="$kunit_dir" \
		--manifest="$data/ktap/expected-tests" --expected-skips="$work/no-skips" \
		--denylist="$TOP/ci/splat-denylist" --allowlist="$TOP/ci/splat-allowlist"
}
expect ktap-fault-injection-block 0 '^PASS splat-scan' -- check_real fault-injection.log
expect ktap-fault-injection-i386 0 '^PASS splat-scan' -- check_real fault-injection-i386.log
expect ktap-warn-after-block 1 '^ +splat [0-9]+: WARNING: CPU' -- check_real fault-injection-then-warn.log
expect ktap-no-denylist 1 'denylist file .* is missing' -- \
	python3 "$TOP/ci/ktap_check.py" "$data/ktap/clean.log" --kunit-dir="$kunit_dir" \
	--expected-skips="$work/no-skips" --denylist="$work/none" --allowlist="$data/ktap/allowlist"

# --- make costs: testing.md's tables follow ci/stages.tsv ---------------------
costs_check() { env STAGE_LIST="$1" COSTS_CHECK=1 bash "$TOP/ci/costs.sh"; }
expect costs-current 0 'agrees with ci/stages.tsv' -- costs_check "$TOP/ci/stages.tsv"
sed 's/^\(6\.1:lint\tci\t\)5/\17/' "$TOP/ci/stages.tsv" > "$work/stages.share"
expect costs-share-changed 1 'cost table .* disagrees with ci/stages.tsv' -- costs_check "$work/stages.share"
sed 's/^\(6\.1:mutants\t\)full/\1ci/' "$TOP/ci/stages.tsv" > "$work/stages.tier"
expect costs-tier-changed 1 'stage reference .* disagrees' -- costs_check "$work/stages.tier"
{ cat "$TOP/ci/stages.tsv"; printf '6.1:new-stage\tfull\t10\t10\n'; } > "$work/stages.new"
expect costs-stage-added 1 'stage reference .* disagrees.*6\.1:new-stage' -- costs_check "$work/stages.new"

# Only a whole run measures the stages: a partial one is left out.
mkdir -p "$work/costrun"
cp "$TOP/Documentation/testing.md" "$work/costdoc.md"
printf '6.1:lint\t3\tpass\t5\t-\t-\t-\n' > "$work/costrun/summary.tsv"
printf 'target=make check\ndate=2026-01-02T03:04:05Z\nproject=%040d\ndirty=no\ncores=2\npartial=yes\nseconds=3\n' 1 > "$work/costrun/run.env"
echo '1 passed, 0 failed, 0 skipped' > "$work/costrun/final"
expect costs-partial-run-left-out 0 'costrun is not a whole run \(partial=yes' -- \
	env CHECK_DIRS="$work/costrun" COSTS_DOC="$work/costdoc.md" bash "$TOP/ci/costs.sh"
expect costs-partial-run-not-shown 1 '' -- grep -F '2026-01-02T03:04:05Z' "$work/costdoc.md"
sed -i 's/^partial=yes$/partial=no/' "$work/costrun/run.env"
# shellcheck disable=SC2016 # the inner shell expands them
expect costs-whole-run-shown 0 '2026-01-02T03:04:05Z' -- \
	env CHECK_DIRS="$work/costrun" COSTS_DOC="$work/costdoc.md" bash -c 'bash "$TOP/ci/costs.sh" && cat "$COSTS_DOC"'
# Every stage of one line (make LINE=6.1 check-full) measures that line's;
# one of some stages (STAGES=) does not.
sed -i 's/^partial=no$/partial=yes/; s/^target=make check$/target=make LINE=6.1 check-full\nstages_given=/' "$work/costrun/run.env"
cp "$TOP/Documentation/testing.md" "$work/costdoc.md"
# shellcheck disable=SC2016 # the inner shell expands them
expect costs-line-run-shown 0 '^\| `6\.1:lint` \| ci \| 5 \| 2 \| 3 \| - \|$' -- \
	env CHECK_DIRS="$work/costrun" COSTS_DOC="$work/costdoc.md" bash -c 'bash "$TOP/ci/costs.sh" && cat "$COSTS_DOC"'
expect costs-line-run-said 0 'one line: its stages only' -- cat "$work/costdoc.md"
sed -i 's/^stages_given=$/stages_given=6.1:lint/' "$work/costrun/run.env"
cp "$TOP/Documentation/testing.md" "$work/costdoc.md"
expect costs-stages-run-left-out 0 'costrun is not a whole run \(partial=yes' -- \
	env CHECK_DIRS="$work/costrun" COSTS_DOC="$work/costdoc.md" bash "$TOP/ci/costs.sh"
sed -i 's/^stages_given=6\.1:lint$/stages_given=/; s/^partial=yes$/partial=no/; s/^target=make LINE=6\.1 check-full$/target=make check/' "$work/costrun/run.env"
# A resumed run is shown as one, in parts.
echo "resumed=2026-01-03T00:00:00Z $(printf '%040d' 2)" >> "$work/costrun/run.env"
# shellcheck disable=SC2016 # the inner shell expands them
expect costs-resumed-run-said 0 '2026-01-02T03:04:05Z.*resumed 1 time' -- \
	env CHECK_DIRS="$work/costrun" COSTS_DOC="$work/costdoc.md" bash -c 'bash "$TOP/ci/costs.sh" && cat "$COSTS_DOC"'

# --- tree / export / lint on a tiny tree ---------------------------------------
mini=$work/src
mkdir -p "$mini/lib"
printf 'VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\nEXTRAVERSION =\n' > "$mini/Makefile"
printf 'int one(void)\n{\n\treturn 1;\n}\n' > "$mini/lib/one.c"
printf 'int two(void)\n{\n\treturn 2;\n}\n' > "$mini/lib/two.c"
mkdir -p "$work/patches"
: > "$work/patches/series"
printf 'test: a tiny series\n\nUsed by ci/selftest.sh.\n' > "$work/patches/cover-letter.txt"
env_=(env KERNEL_SRC="$mini" TREE="$work/linux" PATCHES="$work/patches")
t() { "${env_[@]}" bash "$TOP/ci/$1.sh"; }
mt=(git -C "$work/linux" -c user.name=Tester -c user.email=tester@invalid)

expect tree-empty-series 0 'base [0-9a-f]+ \+ 0 patches' -- t tree
printf 'int one(void)\n{\n\treturn 11;\n}\n' > "$mini/../one.c"
cp "$mini/../one.c" "$work/linux/lib/one.c"
"${mt[@]}" commit -q -a -s -m 'lib: one returns 11' -m 'Body.'
printf 'int two(void)\n{\n\treturn 22;\n}\n' > "$work/linux/lib/two.c"
"${mt[@]}" commit -q -a -s -m 'lib: two returns 22' -m 'Body.'
expect tree-refuses-unexported 1 'not in patches/' -- t tree
expect export-two 0 'patches/ updated: 2 patches' -- t export
expect lint-consistent 0 'consistent \(2 patches\)' -- t lint
cp -a "$work/patches" "$work/patches.1"
expect tree-reapply 0 '\+ 2 patches' -- t tree
expect tree-second-is-noop 0 'up to date' -- t tree
expect export-byte-stable 0 'already matches' -- t export
expect export-same-bytes 0 '' -- diff -r "$work/patches.1" "$work/patches"
# A tree made from another version of the base package than BASE
# records: lint says so in our words, and so does any check that needs
# BASE's commit in the tree (make mbox's round trip), never git's "fatal:".
cp "$work/patches/BASE" "$work/BASE.orig"
sed -i 's/^base-commit: .*/base-commit: 5cccad46aed8810b49ff2378e5bf1c8ea048a064/; s/^source: .*/source: debian linux-source-6.1 6.1.192-2/' "$work/patches/BASE"
expect lint-other-base 1 'was made from dir .*, but .*BASE records debian linux-source-6.1 6.1.192-2 .*make deps fetches the recorded version' -- t lint
# shellcheck disable=SC2016
expect base-commit-missing 1 'names the base commit 5cccad46aed8, which .* does not have: that tree was made from dir .*BASE records debian linux-source-6.1 6.1.192-2' -- \
	"${env_[@]}" bash -c '. "$1/ci/lib.sh"; need_base_commit 5cccad46aed8810b49ff2378e5bf1c8ea048a064 "the posting x"' _ "$TOP"
expect base-commit-missing-not-git 1 '' -- grep -q 'fatal:' "$work/out.base-commit-missing"
cp "$work/BASE.orig" "$work/patches/BASE"
# Every line's base is the commit make tree makes of Debian's tree
# (BASE_COMMIT_PUBLIC=no in each line.conf): no posting names it.
expect cover-names-no-base 1 '' -- grep '^base-commit:' "$work/patches/0000-cover-letter.patch"
# The cover letter's last-full-run block names this tip, or the text
# before it says that this version has no run yet.
cp "$work/patches/cover-letter.txt" "$work/cover.orig"
printf 'version: 2\n' > "$work/patches/VERSION"
printf 'The last full run:\n\n--- last full run (generated) ---\nmake check-full, series tip 0123456789ab ("old"):\n--- end of last full run ---\n' >> "$work/patches/cover-letter.txt"
t export > /dev/null 2>&1
expect lint-stale-full-run 1 'names series tip 0123456789ab, not this tip' -- t lint
sed -i 's/^The last full run:$/The last full run (of version 1; none of version 2 yet):/' "$work/patches/cover-letter.txt"
t export > /dev/null 2>&1
expect lint-full-run-none-yet 0 'consistent' -- t lint
sed -i "s/series tip 0123456789ab/series tip $("${mt[@]}" rev-parse --short=12 HEAD)/; s/ (of version 1; none of version 2 yet)//" "$work/patches/cover-letter.txt"
t export > /dev/null 2>&1
expect lint-full-run-current 0 'consistent' -- t lint
# The codegen table names the tip it was made at: this one.
# (its first line as ci/codegen.sh writes it: CODEGEN_HEAD, ci/lib.sh)
printf '\n--- codegen (generated by make codegen; do not edit) ---\n%s\n--- end of codegen ---\n' "x86_64 KUnit configuration, tip = 0123456789 old" >> "$work/patches/cover-letter.txt"
t export > /dev/null 2>&1
expect lint-codegen-no-tip 1 'the codegen table has no line .* so the tip it was made at is unknown' -- t lint
sed -i "s/^x86_64 KUnit configuration, tip = /$CODEGEN_HEAD/" "$work/patches/cover-letter.txt"
t export > /dev/null 2>&1
expect lint-stale-codegen 1 'codegen table was made at tip 0123456789, not at this tip' -- t lint
sed -i "s/tip = 0123456789 old/tip = $("${mt[@]}" rev-parse --short=9 HEAD) new/" "$work/patches/cover-letter.txt"
t export > /dev/null 2>&1
expect lint-codegen-current 0 'consistent' -- t lint
# A table of another commit of the same tree (a commit message changed)
# is current; one of another tree is not.
sed -i "s/tip = [0-9a-f]* new/tip = 0123456789 (tree $("${mt[@]}" rev-parse --short=12 'HEAD^{tree}')) reworded/" "$work/patches/cover-letter.txt"
t export > /dev/null 2>&1
expect lint-codegen-same-tree 0 'consistent' -- t lint
sed -i "s/tip = 0123456789 (tree [0-9a-f]*)/tip = 0123456789 (tree 0123456789ab)/" "$work/patches/cover-letter.txt"
t export > /dev/null 2>&1
expect lint-codegen-other-tree 1 'codegen table was made at tip 0123456789 \(tree 0123456789ab\), not at this tip' -- t lint
cp "$work/cover.orig" "$work/patches/cover-letter.txt"
rm "$work/patches/VERSION"
t export > /dev/null 2>&1
# A line of several postings: each its own directory, cover letter and
# numbering; one on the base must apply there alone; the counts must add up.
mkdir -p "$work/patches/p1" "$work/patches/p2"
printf 'p1: the first\n\nBody.\n' > "$work/patches/p1/cover-letter.txt"
printf 'p2: the second\n\nBody.\n' > "$work/patches/p2/cover-letter.txt"
printf 'p1\t1\tPATCH\tprev\np2\t1\tPATCH\tbase\n' > "$work/patches/postings"
expect export-postings 0 'patches/ updated: 2 patches' -- t export
expect export-postings-files 0 '^p1/0001-lib-one-returns-11.patch p2/0001-lib-two-returns-22.patch$' -- \
	bash -c "grep -v '^#' '$work/patches/series' | paste -sd' ' -"
expect export-postings-base 1 '' -- grep -E '^(base-commit|prerequisite-patch-id):' "$work/patches/p2/0000-cover-letter.patch"
expect export-postings-subject 0 '^Subject: \[PATCH 0/1\] p2: the second' -- cat "$work/patches/p2/0000-cover-letter.patch"
expect lint-postings 0 'consistent \(2 patches\)' -- t lint
expect export-postings-stable 0 'already matches' -- t export
# A line whose base no reviewer can resolve (BASE_COMMIT_PUBLIC=no, as
# mainline's): no base-commit line; a posting on the one before it names
# that one's patches by patch id.
printf 'p1\t1\tPATCH\tprev\np2\t1\tPATCH\tprev\n' > "$work/patches/postings"
expect export-local-base 0 'patches/ updated' -- env BASE_COMMIT_PUBLIC=no "${env_[@]}" bash "$TOP/ci/export.sh"
expect export-local-base-no-commit 1 '' -- grep -rh '^base-commit:' "$work/patches/p1" "$work/patches/p2"
expect export-local-base-prereq 0 "^prerequisite-patch-id: $("${mt[@]}" show HEAD~1 | git patch-id --stable | cut -d' ' -f1)\$" -- \
	cat "$work/patches/p2/0000-cover-letter.patch"
# make mbox signs with the sender's identity, refuses the identity the
# stored patches carry (here Tester's), and warns on a reserved domain.
printf 'version: 1\n' > "$work/patches/VERSION"
mb=(env BASE_COMMIT_PUBLIC=no OUT="$work/mbox-out" "${env_[@]}")
expect mbox-refuses-placeholder 1 'must name a person' -- \
	env GIT_AUTHOR_NAME=Tester GIT_AUTHOR_EMAIL=tester@invalid "${mb[@]}" bash "$TOP/ci/mbox.sh"
expect mbox-says-how 0 'reproduce with: GIT_AUTHOR_NAME=' -- cat "$work/out.mbox-refuses-placeholder"
expect mbox-signs-sender 0 '2 messages, from Ann Sender <ann@sender.org>' -- \
	env GIT_AUTHOR_NAME='Ann Sender' GIT_AUTHOR_EMAIL=ann@sender.org "${mb[@]}" bash "$TOP/ci/mbox.sh"
expect mbox-signed-off-by 0 '^Signed-off-by: Ann Sender <ann@sender.org>$' -- cat "$work/mbox-out/mbox/iov_iter-6.1.y-p2-v1.mbx"
expect mbox-no-project-identity 1 '' -- grep -h 'tester@invalid\|^Tester (' "$work/mbox-out/mbox/iov_iter-6.1.y-p2-v1.mbx"
expect mbox-shortlog-sender 0 '^Ann Sender \(1\):$' -- cat "$work/mbox-out/mbox/iov_iter-6.1.y-p2-v1.mbx"
# Every patch says it was written with an AI coding assistant
# (coding-assistants.rst), and the sender cannot turn that off.
expect mbox-assisted-by 0 '^Assisted-by: LLM coccinelle sparse$' -- cat "$work/mbox-out/mbox/iov_iter-6.1.y-p2-v1.mbx"
expect mbox-assisted-by-kept 1 'want "LLM \[tool ...\]"' -- \
	env GIT_AUTHOR_NAME='Ann Sender' GIT_AUTHOR_EMAIL=ann@sender.org MBOX_ASSISTED_BY=none "${mb[@]}" bash "$TOP/ci/mbox.sh"
expect mbox-reserved-domain 0 'warning: ann@sender.example is at a reserved domain' -- \
	env GIT_AUTHOR_NAME='Ann Sender' GIT_AUTHOR_EMAIL=ann@sender.example "${mb[@]}" bash "$TOP/ci/mbox.sh"
printf '# A stale base\nbase-commit: %040d\n' 0 >> "$work/patches/p2/0000-cover-letter.patch"
expect mbox-local-base-named 1 'names base-commit 0+, a commit of this machine' -- \
	env GIT_AUTHOR_NAME='Ann Sender' GIT_AUTHOR_EMAIL=ann@sender.org "${mb[@]}" bash "$TOP/ci/mbox.sh"
rm "$work/patches/VERSION"
printf 'p1\t1\tPATCH\tprev\np2\t2\tPATCH\tbase\n' > "$work/patches/postings"
# A posting's prefix goes into its patches' subjects ("RFC_PATCH" is
# "RFC PATCH", "PATCH_net-next" "PATCH net-next": only the underscore is
# a space), and make mbox keeps it.
printf 'p1\t1\tPATCH_net-next\tprev\np2\t1\tRFC_PATCH\tbase\n' > "$work/patches/postings"
t export > /dev/null 2>&1 || true
expect export-postings-prefix 0 '^Subject: \[RFC PATCH 1/1\] lib: two returns 22' -- \
	cat "$work/patches/p2/0001-lib-two-returns-22.patch"
expect export-postings-dash-kept 0 '^Subject: \[PATCH net-next 1/1\] ' -- \
	cat "$work/patches/p1/0001-"*.patch
printf 'p1\t1\tPATCH\tprev\np2\t2\tPATCH\tbase\n' > "$work/patches/postings"
expect export-postings-count 1 'p2 takes 2 patches, but the series has only 1 left' -- t export
rm -r "$work/patches/p1" "$work/patches/p2" "$work/patches/postings"
t export > /dev/null 2>&1
expect lint-flat-again 0 'consistent \(2 patches\)' -- t lint
# A port keeps its author.  The sender's mainline clone (a scratch tree)
# holds the upstream commit; our work tree has its port, stored From: its
# author with stable's "commit <id> upstream." line, our words, the
# upstream author's sign-off, our "[ 6.1: ... ]" note and the project's
# sign-off last.  make mbox makes only that last line the sender's, says
# which ports lack UPSTREAM_TREE, and with it takes the upstream message.
up=$work/upstream
git init -q "$up"
cp -a "$mini/." "$up/"
rm -rf "$up/.git/index"
git -C "$up" add -A
git -C "$up" -c user.name=Tester -c user.email=tester@invalid commit -q -m v6.1 || true
printf 'int three(void)\n{\n\treturn 3;\n}\n' > "$up/lib/three.c"
git -C "$up" add lib/three.c
GIT_AUTHOR_NAME='Una Upstream' GIT_AUTHOR_EMAIL=una@upstream.invalid \
	git -C "$up" -c user.name='Max Maint' -c user.email=max@upstream.invalid commit -q -F - <<'MSG'
lib: add three

The upstream words.

Signed-off-by: Una Upstream <una@upstream.invalid>
Reviewed-by: Rae Reviewer <rae@upstream.invalid>
Signed-off-by: Max Maint <max@upstream.invalid>
MSG
upid=$(git -C "$up" rev-parse HEAD)
pt=(env KERNEL_SRC="$mini" TREE="$work/plinux" PATCHES="$work/ppatches" OUT="$work/pout" BASE_COMMIT_PUBLIC=no)
rm -rf "$work/ppatches"
cp -a "$work/patches.1" "$work/ppatches"
printf 'version: 1\n' > "$work/ppatches/VERSION"
"${pt[@]}" bash "$TOP/ci/tree.sh" > /dev/null 2>&1
cp "$up/lib/three.c" "$work/plinux/lib/three.c"
git -C "$work/plinux" add lib/three.c
GIT_AUTHOR_NAME='Una Upstream' GIT_AUTHOR_EMAIL=una@upstream.invalid \
	git -C "$work/plinux" -c user.name=Tester -c user.email=tester@invalid commit -q -F - <<MSG
lib: three, in our words

commit $upid upstream.

Our words.

Signed-off-by: Una Upstream <una@upstream.invalid>
[ 6.1: our note ]
Signed-off-by: Tester <tester@invalid>
MSG
"${pt[@]}" bash "$TOP/ci/export.sh" > /dev/null 2>&1
mkdir -p "$work/ppatches/stable/three"
printf 'three (6.1.y)\n\nPlease apply to 6.1.y the mainline commit\n\n  %s ("lib: add three")\n\nHow it was tested: here.\n' "$upid" > "$work/ppatches/stable/three/cover-letter.txt"
printf 'three\tlib: three, in our words\tPATCH_6.1.y\tstable@vger.kernel.org\tUna Upstream <una@upstream.invalid>\n' > "$work/ppatches/stable/postings"
# A request for a mainline commit the series has no port of: its text alone.
mkdir -p "$work/ppatches/stable/four"
printf 'four (6.1.y)\n\nPlease apply\n0123456789ab ("lib: add four")\nto 6.1.y.\n' > "$work/ppatches/stable/four/cover-letter.txt"
printf 'four\trequest 0123456789ab\tPATCH_6.1.y\tstable@vger.kernel.org\t\n' >> "$work/ppatches/stable/postings"
ann=(env GIT_AUTHOR_NAME='Ann Sender' GIT_AUTHOR_EMAIL=ann@sender.org)
pmbx=$work/pout/mbox/iov_iter-6.1.y-v1.mbx
smbx=$work/pout/mbox/iov_iter-6.1.y-stable-three-v1.mbx
# msgof MBOX N: the message of patch N, up to its "---"; tailof MBOX N K:
# its last K lines joined by "|".
msgof() {
	python3 - "$1" "$2" <<'PY'
import re
import sys
for m in re.split(r'^From (?:[0-9a-f]{40} |mboxrd@z )', open(sys.argv[1], encoding='utf-8').read(), flags=re.M)[1:]:
    if re.search(r'^Subject: \[[^]\n]* 0*' + sys.argv[2] + r'/[0-9]+\]', m, re.M):
        print(m.split('\n\n', 1)[1].split('\n---\n')[0].rstrip('\n'))
PY
}
tailof() { msgof "$1" "$2" | tail -n "$3" | paste -sd'|' -; }
expect mbox-port-needs-upstream 1 'error: 1 port\(s\) of iov_iter-6.1.y carry our description.*UPSTREAM_TREE=.*\(0003 \('"${upid:0:12}"'\)\); MBOX_OWN_WORDS=1' -- \
	"${ann[@]}" "${pt[@]}" bash "$TOP/ci/mbox.sh"
expect mbox-port-refused-no-mbox 1 '' -- test -e "$pmbx"
expect mbox-port-own-words 0 'warning: 1 port\(s\) .*MBOX_OWN_WORDS=1, a dry run' -- \
	"${ann[@]}" "${pt[@]}" MBOX_OWN_WORDS=1 bash "$TOP/ci/mbox.sh"
expect mbox-no-message-ids 1 '' -- grep -q '^Message-Id:' "$pmbx" "$smbx"
expect mbox-port-author-kept 0 '^From: Una Upstream <una@upstream.invalid>$' -- cat "$pmbx"
expect mbox-port-chain-note-sender 0 '^Signed-off-by: Una Upstream <una@upstream.invalid>\|\[ 6.1: our note \]\|Assisted-by: LLM coccinelle sparse\|Signed-off-by: Ann Sender <ann@sender.org>$' -- tailof "$pmbx" 3 4
expect mbox-own-from-sender 0 '^From: Ann Sender <ann@sender.org>$' -- bash -c "sed -n '/^From [0-9a-f]\{40\} /,/^Subject/p' '$pmbx' | sed -n '/^From: /p' | sort -u"
expect mbox-stable-request 0 '^Subject: \[6.1.y\] please apply commit '"${upid:0:12}"' \("lib: add three"\)$' -- cat "$smbx"
expect mbox-stable-request-no-patch 1 '' -- grep -q '^diff --git' "$smbx"
rmbx=$work/pout/mbox/iov_iter-6.1.y-stable-four-v1.mbx
expect mbox-stable-request-row 0 '^Subject: \[6.1.y\] please apply commit 0123456789ab \("lib: add four"\)$' -- cat "$rmbx"
expect mbox-stable-request-row-no-patch 1 '' -- grep -q '^diff --git' "$rmbx"
expect mbox-upstream-tree 0 'iov_iter-6.1.y-v1.mbx: 4 messages' -- \
	"${ann[@]}" "${pt[@]}" UPSTREAM_TREE="$up" bash "$TOP/ci/mbox.sh"
expect mbox-upstream-message 0 '^The upstream words.$' -- msgof "$pmbx" 3
has() { msgof "$1" "$2" | grep -q -- "$3"; }
expect mbox-upstream-not-ours 1 '' -- has "$pmbx" 3 '^Our words.$'
expect mbox-upstream-chain-note-sender 0 '^Reviewed-by: Rae Reviewer <rae@upstream.invalid>\|Signed-off-by: Max Maint <max@upstream.invalid>\|\[ 6.1: our note \]\|Assisted-by: LLM coccinelle sparse\|Signed-off-by: Ann Sender <ann@sender.org>$' -- tailof "$pmbx" 3 5
expect mbox-upstream-commit-line 0 "^commit $upid upstream.\$" -- msgof "$pmbx" 3
expect mbox-upstream-subject 0 '^Subject: \[PATCH vendor-6.1 3/3\] lib: add three$' -- cat "$pmbx"
# UPSTREAM_TREE alone keeps the stable posting a request (the default);
# MBOX_STABLE_FORM=patch makes it the commit in stable's form.
expect mbox-stable-request-kept 0 '^Subject: \[6.1.y\] please apply commit ' -- cat "$smbx"
expect mbox-stable-form-needs-tree 1 'MBOX_STABLE_FORM=patch takes the commit from UPSTREAM_TREE' -- \
	"${ann[@]}" "${pt[@]}" MBOX_STABLE_FORM=patch bash "$TOP/ci/mbox.sh"
expect mbox-stable-form-patch 0 'iov_iter-6.1.y-v1.mbx: 4 messages' -- \
	"${ann[@]}" "${pt[@]}" UPSTREAM_TREE="$up" MBOX_STABLE_FORM=patch bash "$TOP/ci/mbox.sh"
expect mbox-stable-cherry-pick 0 "^commit $upid upstream.\$" -- cat "$smbx"
expect mbox-stable-cherry-pick-author 0 '^From: Una Upstream <una@upstream.invalid>$' -- cat "$smbx"
expect mbox-stable-cherry-pick-tags 0 '^Reviewed-by: Rae Reviewer <rae@upstream.invalid>$' -- cat "$smbx"
expect mbox-stable-cherry-pick-sender 0 '^Signed-off-by: Ann Sender <ann@sender.org>$' -- cat "$smbx"
expect mbox-stable-cherry-pick-diff 0 '^diff --git a/lib/three.c b/lib/three.c$' -- cat "$smbx"
git init -q "$work/otherup"
git -C "$work/otherup" -c user.name=Tester -c user.email=tester@invalid commit -q --allow-empty -m other
expect mbox-upstream-lacks-commit 1 "has no commit $upid, which .*0003-lib-three-in-our-words.patch ports" -- \
	"${ann[@]}" "${pt[@]}" UPSTREAM_TREE="$work/otherup" bash "$TOP/ci/mbox.sh"
# A port stored From: the project (the sender would become its author).
cp -a "$work/ppatches" "$work/ppatches2"
sed -i 's/^From: Una Upstream <una@upstream.invalid>$/From: Tester <tester@invalid>/' "$work/ppatches2/0003-lib-three-in-our-words.patch"
expect mbox-port-as-project 1 '0003-lib-three-in-our-words.patch ports commit .* but is stored From: the project' -- \
	"${ann[@]}" "${pt[@]}" PATCHES="$work/ppatches2" bash "$TOP/ci/mbox.sh"
# Trailers the sender's process asks for: every patch, ports, one number,
# each before the sender's sign-off.
printf '*\tAssisted-by: Tool:model\nports\tBug: 123\n1\tChange-Id: I0123\n' > "$work/trailers"
expect mbox-trailers 0 '4 messages' -- "${ann[@]}" "${pt[@]}" MBOX_OWN_WORDS=1 MBOX_TRAILERS="$work/trailers" bash "$TOP/ci/mbox.sh"
expect mbox-trailers-port 0 '^Assisted-by: Tool:model\|Bug: 123\|Signed-off-by: Ann Sender <ann@sender.org>$' -- tailof "$pmbx" 3 3
expect mbox-trailers-own 0 '^Assisted-by: Tool:model\|Signed-off-by: Ann Sender <ann@sender.org>$' -- tailof "$pmbx" 2 2
expect mbox-trailers-number 0 '^Assisted-by: Tool:model\|Change-Id: I0123\|Signed-off-by: Ann Sender <ann@sender.org>$' -- tailof "$pmbx" 1 3
printf 'ports\tChange-Id: I0123\n' > "$work/trailers-cid"
expect mbox-trailers-change-id-once 1 'a Change-Id: names one change' -- "${ann[@]}" "${pt[@]}" MBOX_OWN_WORDS=1 MBOX_TRAILERS="$work/trailers-cid" bash "$TOP/ci/mbox.sh"
printf 'everywhere\tBug: 1\n' > "$work/trailers-bad"
expect mbox-trailers-bad 1 'want "<\*\|ports\|own\|n,m,...><TAB><Tag>: <value>"' -- "${ann[@]}" "${pt[@]}" MBOX_TRAILERS="$work/trailers-bad" bash "$TOP/ci/mbox.sh"
# A per-patch KUnit run may drop only the config lines of symbols the
# line's tip defines: against this tiny tip, which defines none, the
# line's fragments fail by name instead of losing their suites.
expect kunit-unknown-kconfig 1 'sets .*KUNIT.* which no Kconfig of the line.s tip defines' -- \
	env TREE="$work/linux" OUT="$work/kout" KUNIT_PRESENT_SUITES=1 KUNIT_CONFIG_ONLY=1 bash "$TOP/ci/kunit.sh"

sed -i '1d' "$work/patches/series"
expect lint-series-mismatch 1 '0001-lib-one-returns-11.patch is not listed in series' -- t lint
cp "$work/patches.1/series" "$work/patches/series"
sed -i 's/^-\treturn 2;/-\treturn 3;/' "$work/patches/0002-lib-two-returns-22.patch"
expect tree-broken-patch 1 'patch 0002-lib-two-returns-22.patch does not apply.*' -- env FORCE=1 \
	KERNEL_SRC="$mini" TREE="$work/linux" PATCHES="$work/patches" bash "$TOP/ci/tree.sh"
expect tree-broken-patch-repro 0 'reproduce with: git -C .* am --3way .*0002-lib-two-returns-22.patch' -- cat "$work/out.tree-broken-patch"
expect lint-tree-disagrees 1 '/linux and .*/patches/ disagree' -- t lint

# KERNEL_SRC may be a git checkout: its HEAD's content becomes the base.
git -C "$mini" init -q && git -C "$mini" add -A &&
	git -C "$mini" -c user.name=Tester -c user.email=tester@invalid commit -q -m v6.1
expect tree-kernel-src-git 0 'exporting .*src \([0-9a-f]{40}\)' -- env KERNEL_SRC="$mini" \
	TREE="$work/linux-git" PATCHES="$work/patches.1" bash "$TOP/ci/tree.sh"
expect tree-kernel-src-git-applied 0 '^2$' -- git -C "$work/linux-git" rev-list --count base..HEAD

# --- stages start from nothing: no result of an earlier run is counted -----------
# A stage that dies before its script clears its results (abi.sh on a
# missing tree) leaves the last run's PASS lines: make check must count
# one failure, not them.
co=$work/check-stale
mkdir -p "$co/6.1.y/abi"
printf 'PASS\tabi:stale-from-last-run\n' > "$co/6.1.y/abi/results.tsv"
expect check-stage-clears-results 1 '^0 passed, 1 failed' -- env OUT="$co" TREE="$work/none" LINE=6.1 \
	STAGES=6.1:abi CHECK_PREREQ=0 bash "$TOP/ci/check.sh"
expect check-stale-results-gone 1 '' -- grep stale "$co/check/results.tsv" "$co/6.1.y/abi/results.tsv"

# --- W=1/sparse: a make that fails without "error:" is a failure --------------------
printf '  CHECK   lib/iov_iter.c\nmake[1]: *** [scripts/Makefile.build:250: lib/iov_iter.o] Error 127\n' > "$work/w1-nosparse.log"
# shellcheck disable=SC2016 # the inner shell expands them
dl() { bash -c 'set -euo pipefail; . "$1/ci/lib.sh"; diag_lines "$2" "$3" lib/iov_iter.c linux' _ "$TOP" "$@"; }
expect w1-make-failed 0 '^lib/iov_iter.c: error: make W=1 C=2 failed \(exit 2\): make\[1\]: \*\*\* .*Error 127$' -- dl "$work/w1-nosparse.log" 2
printf '/x/linux/lib/iov_iter.c:12:3: warning: unused variable\n' > "$work/w1-warn.log"
expect w1-diag-normalised 0 '^lib/iov_iter.c: warning: unused variable$' -- dl "$work/w1-warn.log" 0
# empty CMD...: CMD prints nothing.
empty() { local o; o=$("$@"); [ -z "$o" ] || { printf '%s\n' "$o"; return 1; }; }
expect w1-clean-make 0 '' -- empty dl "$work/w1-nosparse.log" 0

# --- make kunit: a missing manifest stops the run before it builds ---------------------
mkdir -p "$work/kunitd"
cp "$KUNITD"/*.kunitconfig "$KUNITD/expected-skips" "$work/kunitd/"
expect kunit-missing-manifest 1 'the manifest .*/kunitd/expected-tests is missing' -- \
	env KUNITD="$work/kunitd" OUT="$work/kout-m" bash "$TOP/ci/kunit.sh"
cp "$KUNITD"/expected-tests* "$work/kunitd/"
rm "$work/kunitd/expected-skips"
expect kunit-missing-skips 1 'the expected-skips list .*/kunitd/expected-skips is missing' -- \
	env KUNITD="$work/kunitd" OUT="$work/kout-m" bash "$TOP/ci/kunit.sh"

# A misspelt "is not set" line fails by name at the tip, too.
cp "$KUNITD"/expected-skips "$work/kunitd/"
kcfgs=("$work"/kunitd/*.kunitconfig)
printf '# CONFIG_KUNIT_FAULT_TSET is not set\n' >> "${kcfgs[0]}"
expect kunit-unknown-not-set 1 'sets KUNIT_FAULT_TSET, which no Kconfig' -- \
	env KUNITD="$work/kunitd" OUT="$work/kout-m" KUNIT_CONFIG_ONLY=1 bash "$TOP/ci/kunit.sh"

# --- make tuxmake compares with make kunit's results of the same tree only ------------
to=$work/tux-out
mkdir -p "$to/6.1.y/kunit/x86_64"
printf 'PASS\tx86_64:iov_iter.a\n' > "$to/6.1.y/kunit/x86_64/results.tsv"
printf '%040d\n' 0 > "$to/6.1.y/kunit/x86_64/tree"
expect tuxmake-other-tree 1 "results of x86_64 .* are not of the work tree's tip" -- \
	env OUT="$to" TUXMAKE_ROW=6.1.y-kunit-x86_64 bash "$TOP/ci/tuxmake.sh"
rm "$to/6.1.y/kunit/x86_64/results.tsv"
expect tuxmake-no-results 1 'no make kunit results of x86_64' -- \
	env OUT="$to" TUXMAKE_ROW=6.1.y-kunit-x86_64 bash "$TOP/ci/tuxmake.sh"

# --- make check's plan and its record in the cover letter ------------------------
awk -F'\t' 'BEGIN { OFS = "\t" } !/^#/ && $2 == "ci" { $3 = 4000 } { print }' \
	"$TOP/ci/stages.tsv" > "$work/stages-over.tsv"
expect check-shares-over-budget 1 "shares add up to .* over the budget" -- \
	env STAGE_LIST="$work/stages-over.tsv" OUT="$work/check-out" bash "$TOP/ci/check.sh"
expect check-unknown-stage 1 'unknown stage nosuch' -- \
	env STAGES=nosuch OUT="$work/check-out" bash "$TOP/ci/check.sh"
# A run is cold or warm by what ccache held as it started (a fake ccache
# says how much), and every stage is held to that kind's share.
mkdir -p "$work/fake-ccache"
# shellcheck disable=SC2016 # $FAKE_FILES is for the fake to expand
printf '#!/bin/sh\nprintf "files_in_cache\\t%%s\\ncache_miss\\t0\\n" "$FAKE_FILES"\n' > "$work/fake-ccache/ccache"
chmod +x "$work/fake-ccache/ccache"
# (a verdict cache that does not exist yet, as on a new machine)
kind_run() { env FAKE_FILES="$1" PATH="$work/fake-ccache:$PATH" STAGES=6.1:divergence CHECK_PREREQ=0 \
	VERDICT_CACHE="$work/no-verdicts-yet" OUT="$work/kind-$1" bash "$TOP/ci/check.sh"; }
div_share() { awk -F'\t' '$1 == "6.1:divergence" { print $'"$1"' }' "$TOP/ci/stages.tsv"; }
expect check-kind-cold 0 'this run: cold: ccache held 0 files at the start' -- kind_run 0
expect check-kind-cold-share 0 "^6\\.1:divergence +[0-9]+ +$(div_share 3) " -- cat "$work/kind-0/check/budget.txt"
expect check-kind-warm 0 'this run: warm ccache' -- kind_run 5000
expect check-kind-warm-share 0 "^6\\.1:divergence +[0-9]+ +$(div_share 4) " -- cat "$work/kind-5000/check/budget.txt"
# LINE=6.1.y is LINE=6.1: the same target, so the same run to resume or
# to quote.
expect check-line-y 0 ' 0 failed' -- env LINE=6.1.y STAGES=6.1:divergence CHECK_PREREQ=0 \
	VERDICT_CACHE="$work/no-verdicts-yet" OUT="$work/line-y" bash "$TOP/ci/check.sh"
expect check-line-y-target 0 '^target=make LINE=6\.1 check$' -- cat "$work/line-y/check/run.env"
# RESUME=1 goes on with a run that stopped before its end: the stages
# that passed are kept, a finished run or another series is refused.
rrun() { env "$@" STAGES=6.1:divergence CHECK_PREREQ=0 VERDICT_CACHE="$work/no-verdicts-yet" \
	OUT="$work/resume" TIER=full bash "$TOP/ci/check.sh"; }
expect resume-nothing 1 'holds no run to go on with' -- rrun RESUME=1
expect resume-first 0 ' 0 failed' -- rrun
expect resume-finished 1 'finished .*start a new one' -- rrun RESUME=1
rm "$work/resume/check-full/final"
expect resume-keeps 0 '6\.1:divergence passed in the resumed run: kept' -- rrun RESUME=1
expect resume-noted 0 '^resumed=' -- cat "$work/resume/check-full/run.env"
# (its kind is its first part's: a run that began cold stays cold when
# the caches it filled make the resumption look warm)
krun() { env FAKE_FILES="$1" PATH="$work/fake-ccache:$PATH" "${@:2}" STAGES=6.1:divergence CHECK_PREREQ=0 \
	VERDICT_CACHE="$work/no-verdicts-yet" OUT="$work/resume-kind" TIER=full bash "$TOP/ci/check.sh"; }
expect resume-kind-first 0 'this run: cold: ccache held 0 files at the start' -- krun 0
rm -f "$work/resume-kind/check-full/final"
expect resume-kind-kept 0 'this run: cold: ccache held 0 files at the start' -- krun 5000 RESUME=1
expect resume-kind-once 0 '^1$' -- grep -c '^kind=' "$work/resume-kind/check-full/run.env"
expect resume-results 0 '^1 passed, 0 failed' -- cat "$work/resume/check-full/final"
rm "$work/resume/check-full/final"
sed -i 's/^tips=6\.1:[0-9a-f]*/tips=6.1:0123456789abcdef/' "$work/resume/check-full/run.env"
expect resume-other-series 1 'the series changed since the run' -- rrun RESUME=1
mkdir -p "$work/full" "$work/cover"
printf 'target=make check-full\ndate=2026-01-02T03:04:05Z\nproject=%040d\ndirty=no\npartial=no\ncores=2\nseconds=42\nccache_hit_pct=97\nstages=lint selftest\n' 1 > "$work/full/run.env"
echo '7 passed, 0 failed, 1 skipped' > "$work/full/final"
printf 'Testing.\n\n--- last full run (generated by make check-full; do not edit) ---\nold\n--- end of last full run ---\n\nmore\n' > "$work/cover/cover-letter.txt"
expect cover-testing 0 '' -- env PATCHES="$work/cover" bash "$TOP/ci/cover-testing.sh" "$work/full"
expect cover-testing-quotes-run 0 '^  7 passed, 0 failed, 1 skipped$' -- cat "$work/cover/cover-letter.txt"
printf 'resumed=2026-01-03T04:05:06Z abcdef012345%028d\n' 2 >> "$work/full/run.env"
expect cover-testing-resumed 0 '' -- env PATCHES="$work/cover" bash "$TOP/ci/cover-testing.sh" "$work/full"
expect cover-testing-quotes-resume 0 '^resumed on 2026-01-03T04:05:06Z at project commit abcdef012345:$' -- \
	cat "$work/cover/cover-letter.txt"
sed -i '/^resumed=/d' "$work/full/run.env"
ct() { env PATCHES="$work/cover" bash "$TOP/ci/cover-testing.sh" "$work/full"; }
sed -i 's/^target=.*/target=make check/' "$work/full/run.env"
expect cover-testing-only-full 1 "from 'make check', not a complete make check-full" -- ct
# A run of every stage of this line counts (the block names it); a run of
# another line, of some stages, or a partial one does not.
sed -i 's/^target=.*/target=make LINE=6.1 check-full/; s/^partial=.*/partial=yes/' "$work/full/run.env"
expect cover-testing-line 0 '' -- ct
expect cover-testing-quotes-line 0 '^make LINE=6\.1 check-full on 2026-01-02' -- cat "$work/cover/cover-letter.txt"
sed -i 's/^target=.*/target=make LINE=6.12 check-full/' "$work/full/run.env"
expect cover-testing-other-line 1 "from 'make LINE=6.12 check-full'" -- ct
sed -i 's/^target=.*/target=make check-full/' "$work/full/run.env"
expect cover-testing-partial 1 'from a partial run' -- ct
printf 'stages_given=6.1:lint\n' >> "$work/full/run.env"
expect cover-testing-some-stages 1 'from a run of some stages' -- ct
sed -i '/^stages_given=/d' "$work/full/run.env"
echo '6 passed, 1 failed, 1 skipped' > "$work/full/final"
expect cover-testing-red 1 'is not a green run' -- ct

# --- the benchmark lines of a KUnit log ---------------------------------------------
expect bench-lines-clean 0 '2 cases passed, 0 problem' -- \
	python3 "$TOP/ci/bench_report.py" --lines="$data/ktap/bench.log"
grep -v 'bench name=kvec_to ' "$data/ktap/bench.log" > "$work/bench-no-line.log"
expect bench-lines-missing 1 'bench_kvec_to passed without a well-formed line' -- \
	python3 "$TOP/ci/bench_report.py" --lines="$work/bench-no-line.log"

# --- codegen.py: a new indirect call and a changed copy primitive are caught ------
mkdir -p "$work/cg/base" "$work/cg/tip"
cg_cc=(gcc -O2 -mtune=generic -mindirect-branch=thunk-extern -mindirect-branch-register
	-fno-asynchronous-unwind-tables -c)
printf '%s\n' 'void *memcpy(void *d, const void *s, unsigned long n);' \
	'int walk(int (*step)(int), int x) { return x + 1; }' \
	'void cp(char *d, const char *s, unsigned long n) { memcpy(d, s, n); }' > "$work/cg/base.c"
printf '%s\n' 'int walk(int (*step)(int), int x) { return step(x) + 1; }' \
	'struct b { long v[512]; };' \
	'void cp(char *d, const char *s, unsigned long n) { *(struct b *)d = *(const struct b *)s; }' > "$work/cg/tip.c"
"${cg_cc[@]}" -o "$work/cg/base/t.o" "$work/cg/base.c"
"${cg_cc[@]}" -o "$work/cg/tip/t.o" "$work/cg/tip.c"
printf '# none\n' > "$work/cg/allow-none"
printf 't.o\twalk\tindirect\ttest\nt.o\tcp\tcopy\ttest\n' > "$work/cg/allow-both"
cg() { python3 "$TOP/ci/codegen.py" --base="$work/cg/base" --tip="$work/cg/tip" --out="$work/cg/out" "$@" t.o; }
expect codegen-new-indirect 1 't.o: walk: indirect' -- cg --allow="$work/cg/allow-none"
expect codegen-copy-changed 1 't.o: cp: copy: memcpy x1 -> inline rep movsq' -- cg --allow="$work/cg/allow-none"
expect codegen-allowed 0 'allowed by .*/allow-both: t.o: walk: indirect' -- cg --allow="$work/cg/allow-both"

# --- make plan's validator: what TuxSuite, TuxMake or TuxLava would refuse ------
vpy=$TOP/build/venv/bin/python3
mkdir -p "$work/plan"
printf '/dev/null\nCONFIG_KUNIT=y\n' > "$work/plan/k"
printf 'j1\tb1\t%040d\tx86_64\tgcc-12\t%s\tqemu-x86_64\ta=1\nj2\tb2\t%040d\tum\tgcc-12\t%s\t-\t-\nj2\tb3\t%040d\tum\tgcc-12\t%s\t-\t-\n' \
	1 "$work/plan/k" 2 "$work/plan/k" 3 "$work/plan/k" > "$work/plan/rows"
pv() { "$vpy" "$TOP/ci/tuxplan.py" validate "$1"; }
expect plan-write 0 '3 builds' -- "$vpy" "$TOP/ci/tuxplan.py" write "$work/plan/rows" "$work/plan/ok.yaml"
expect plan-valid 0 'valid .*3 builds, 1 tests' -- pv "$work/plan/ok.yaml"
sed 's/device: qemu-x86_64/device: qemu-x86_65/' "$work/plan/ok.yaml" > "$work/plan/dev.yaml"
expect plan-unknown-device 1 'Unknown device qemu-x86_65' -- pv "$work/plan/dev.yaml"
sed 's/- CONFIG_KUNIT=y/- KUNIT=y/' "$work/plan/ok.yaml" > "$work/plan/kconfig.yaml"
expect plan-bad-kconfig 1 "kconfig item 'KUNIT=y' is not a CONFIG_ line" -- pv "$work/plan/kconfig.yaml"
sed '0,/^  build:$/s//  bulid:/' "$work/plan/ok.yaml" > "$work/plan/schema.yaml"
expect plan-schema 1 'tuxsuite rejects the plan: extra keys not allowed' -- pv "$work/plan/schema.yaml"
sed '0,/target_arch: um/s//target_arch: um64/' "$work/plan/ok.yaml" > "$work/plan/arch.yaml"
expect plan-unknown-arch 1 'Unsupported architecture: um64' -- pv "$work/plan/arch.yaml"
# The plan follows ci/stages.tsv: one more KUnit stage is one more job.
# Needs the 6.12.y work tree (make tree LINE=6.12): without it these fail,
# they are not skipped.
expect 6.12-tree-present-plan 0 '' -- test -d "$(line_dir 6.12 build)/linux/.git"
{ cat "$TOP/ci/stages.tsv"; printf '6.1:kunit-arm64-kasan\tfull\t1\t1\n'; } > "$work/plan/stages.tsv"
# The counts of the plan of ci/stages.tsv as it is, plus one of each.
counts=$(env PLAN_DIR="$work/plan/now" bash "$TOP/ci/plan.sh" 2>&1 |
	sed -n 's/.*plan\.yaml: \([0-9]*\) jobs, \([0-9]*\) builds.*/\1 \2/p' | tail -n1)
read -r pj pb <<< "${counts:-0 0}"
expect plan-follows-stages 0 "plan.yaml: $((pj + 1)) jobs, $((pb + 1)) builds" -- \
	env PLAN_DIR="$work/plan/gen" STAGE_LIST="$work/plan/stages.tsv" bash "$TOP/ci/plan.sh"
expect plan-new-row 0 'CONFIG_KASAN=y' -- grep -A40 'name: 6.1.y kunit-arm64-kasan' "$work/plan/gen/plan.yaml"

# --- make kcidb: a run's results as valid KCIDB, and what it refuses ----------------
kr=$work/kcidb-run
mkdir -p "$kr"
printf 'date=2026-01-02T03:04:05Z\nproject=%040d\n' 1 > "$kr/run.env"
printf 'kunit-x86_64\t9\tpass\t12\t100\npatchcheck\t20\tpass\t30\t100\nabi\t5\tFAIL\t9\t100\n' > "$kr/summary.tsv"
printf 'kunit-x86_64\tPASS\tx86_64:s.c.p 1\nkunit-x86_64\tPASS\tx86_64:splat-scan\npatchcheck\tPASS\tpatch0001:checkpatch\npatchcheck\tFAIL\tpatch0002:build-arm64\nabi\tFAIL\tabi:patch0002\n' > "$kr/stage-results.tsv"
kc() { "$vpy" "$TOP/ci/kcidb.py" --run "$kr" --origin "${1:-selftest}" --out "$work/kcidb.json" \
	--top "$work" --patch-url "file://$work/" --line 6.1 "$work/patches.1" "$work/linux-git" "$work/nobuild"; }
printf '# The version.\nversion: 3\n' > "$work/patches.1/VERSION"
expect kcidb-valid 0 'valid \(kcidb-io .*: 2 checkouts, 4 builds, 4 tests \(1 FAIL, 3 PASS\)' -- kc
expect kcidb-patch-build 0 '"status": "FAIL"' -- grep -A12 '"architecture": "arm64"' "$work/kcidb.json"
expect kcidb-series-version 0 '"comment": "6.1.y series v3: all 2 patches"' -- cat "$work/kcidb.json"
expect kcidb-case-path 0 '"path": "kunit\.s\.c\.p_1"' -- cat "$work/kcidb.json"
# No tree stage in the run: its checkouts are not claimed valid.
expect kcidb-validity-unknown 1 '' -- grep '"valid"' "$work/kcidb.json"
kcj() { kc selftest && cat "$work/kcidb.json"; }
printf '6.1:tree\t1\tpass\t45\t-\n' >> "$kr/summary.tsv"
expect kcidb-tree-valid 0 '"valid": true' -- kcj
printf '6.1:tree\t1\tFAIL\t45\t-\n' > "$kr/summary.tree-failed"
grep -v ':tree' "$kr/summary.tsv" >> "$kr/summary.tree-failed"
mv "$kr/summary.tree-failed" "$kr/summary.tsv"
expect kcidb-tree-invalid 0 '"valid": false' -- kcj
expect kcidb-bad-origin 1 'KCIDB origins are' -- kc Bad-Origin
printf 'patchcheck\tPASS\tpatch0003:checkpatch\n' >> "$kr/stage-results.tsv"
expect kcidb-patch-past-end 1 'names patch 3 of 2' -- kc

# --- which per-patch suites are full-tier only, under pipefail ------------------

# --- make notes: a patch that would reach only mailing lists -------------------
# On the mainline tip: a posting whose one patch touches a file no entry
# of MAINTAINERS covers fails, unless the posting's own recipients name a
# maintainer or reviewer of MAINTAINERS (one that is not does not count).
rp=$work/reach
mkdir -p "$rp/only"
printf 'only\t1\tPATCH\tbase\n' > "$rp/postings"
printf 'only/0001-unmaintained.patch\n' > "$rp/series"
cat > "$rp/only/0001-unmaintained.patch" <<'P'
From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001
From: Tester <tester@invalid>
Subject: [PATCH 1/1] selftest: touch a file no entry covers

---
 selftest-unmaintained.txt | 1 +
 1 file changed, 1 insertion(+)
 create mode 100644 selftest-unmaintained.txt

diff --git a/selftest-unmaintained.txt b/selftest-unmaintained.txt
new file mode 100644
--- /dev/null
+++ b/selftest-unmaintained.txt
@@ -0,0 +1 @@
+x
P
rn() { env LINE=mainline TREE="$(line_dir mainline build)/linux" PATCHES="$rp" NOTES_OUT="$rp/notes" bash "$TOP/ci/notes.sh"; }
if [ -f "$(line_dir mainline build)/linux/scripts/get_maintainer.pl" ]; then
	expect notes-reach-lists-only 1 'would reach only mailing lists.*only/0001-unmaintained.patch' -- rn
	printf 'only\tTo\tNot Listed <nobody@selftest.invalid>\n' > "$rp/recipients"
	expect notes-reach-stranger 1 'would reach only mailing lists' -- rn
	printf 'only\tTo\tAlexander Viro <viro@zeniv.linux.org.uk>\n' > "$rp/recipients"
	expect notes-reach-maintainer 0 'notes: wrote' -- rn
else
	result FAIL notes-reach "the mainline tree is missing: make tree LINE=mainline"
fi

# --- make sendcheck on three trees -------------------------------------------
# The mainline postings on a sender's tree: a real git repository of the
# 7.3.4 base (build/mainline/linux at its base: it passes, and base-commit
# is that tree's commit), the same tree with a commit that changes the
# context of fix 1 in the FOLIOQ code (it fails, naming that patch and
# hunk), and the 6.12.y base (it fails cleanly, the tree untouched).
# Apply only (SENDCHECK_RUN=none): the builds and runs are make kunit's and
# make kselftest's, proved by their own stages.
mtree=$(line_dir mainline build)/linux
stree=$(line_dir 6.12 build)/linux
if [ -d "$mtree/.git" ] && [ -d "$stree/.git" ]; then
	sco=$work/sendcheck-out
	scr() { env LINE=mainline OUT="$sco" SENDCHECK_RUN=none SENDCHECK_TREE="$1" SENDCHECK_BASE="$2" "${@:3}" bash "$TOP/ci/sendcheck.sh"; }
	mbase=$(git -C "$mtree" rev-parse base)
	# The tests posting is on every posting before it: their patches are
	# its prerequisites (patches/mainline/postings says how many).
	tpre=$(postings_list "$(line_dir mainline patches)" | awk '$1 == "iov_iter-contract-tests" { exit } { n += $2 } END { print n + 0 }')
	tmsgs=$(postings_list "$(line_dir mainline patches)" | awk '$1 == "iov_iter-contract-tests" { print $2 + 1 }')
	fixn=$(postings_list "$(line_dir mainline patches)" | awk '$1 == "iov_iter-fixes" { print $2 }')
	expect sendcheck-7.3.4 0 'all the postings apply to TREE at base' -- scr "$mtree" base
	expect sendcheck-7.3.4-base-commit 0 "^base-commit: $mbase\$" -- cat "$sco/sendcheck/iov_iter-contract-tests.base"
	expect sendcheck-7.3.4-prereqs 0 '' -- \
		test "$(grep -c '^prerequisite-patch-id: ' "$sco/sendcheck/iov_iter-contract-tests.base")" = "$tpre"
	expect sendcheck-7.3.4-base-alone 1 '' -- grep -q '^prerequisite' "$sco/sendcheck/datagram-tests.base"
	# make mbox writes them into the cover letters, and refuses them once
	# the postings change.
	mbm() { env LINE=mainline OUT="$sco" GIT_AUTHOR_NAME='Ann Sender' GIT_AUTHOR_EMAIL=ann@sender.org MBOX_BASE_INFO="$sco/sendcheck" "$@" bash "$TOP/ci/mbox.sh"; }
	expect mbox-base-info 0 "iov_iter-contract-tests-v[0-9]*.mbx: $tmsgs messages" -- mbm
	expect mbox-base-info-cover 0 "^base-commit: $mbase\$" -- \
		awk '/^From [0-9a-f]+ /{ n++ } n == 1' "$(ls "$sco"/mbox/iov_iter-mainline-iov_iter-contract-tests-v*.mbx)"
	expect mbox-base-info-no-roundtrip 1 'MBOX_CHECK=1 proves the postings on this machine' -- mbm MBOX_CHECK=1
	cp -r "$sco/sendcheck" "$work/stale-info"
	sed -i '0,/^# patch-id: /s/^# patch-id: ./# patch-id: 0/' "$work/stale-info/iov_iter-fixes.base"
	expect mbox-base-info-stale 1 'iov_iter-fixes.base: make sendcheck applied other patches than the posting iov_iter-fixes has now' -- \
		mbm MBOX_BASE_INFO="$work/stale-info"
	printf 'iov_iter-fixes\t<fixes-v1-0@sender.org>\n' > "$work/msgids"
	expect sendcheck-message-id 0 '' -- scr "$mtree" base SENDCHECK_MSGIDS="$work/msgids"
	expect sendcheck-message-id-line 0 '^prerequisite-message-id: <fixes-v1-0@sender.org>$' -- cat "$sco/sendcheck/iov_iter-contract-tests.base"
	expect sendcheck-message-id-rest 0 '' -- \
		test "$(grep -c '^prerequisite-patch-id: ' "$sco/sendcheck/iov_iter-contract-tests.base")" = "$((tpre - fixn))"
	printf 'no-such-posting\t<x@y>\n' > "$work/msgids.bad"
	expect sendcheck-message-id-unknown 1 'SENDCHECK_MSGIDS names no-such-posting' -- scr "$mtree" base SENDCHECK_MSGIDS="$work/msgids.bad"
	# A tree whose FOLIOQ code differs right under fix 1's second hunk, as
	# a tree without ITER_FOLIOQ would (a commit made without a checkout).
	fq=$work/folioq-tree
	git clone -q --shared --no-checkout "$mtree" "$fq"
	(
		export GIT_INDEX_FILE=$fq/.git/selftest-index
		git -C "$fq" read-tree base
		git -C "$fq" show base:lib/iov_iter.c | python3 -c '
import sys
s = sys.stdin.read()
old = "\n/*\n * Extract a list of contiguous pages from an ITER_FOLIOQ iterator."
assert s.count(old) == 1, "the FOLIOQ extract comment moved"
sys.stdout.write(s.replace(old, "/*\n * Extract a list of contiguous pages from an ITER_XARRAY iterator."))' > "$work/iov_iter.c"
		git -C "$fq" update-index --cacheinfo "100644,$(git -C "$fq" hash-object -w "$work/iov_iter.c"),lib/iov_iter.c"
		c=$(GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@selftest.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@selftest.invalid \
			git -C "$fq" commit-tree "$(git -C "$fq" write-tree)" -p base -m 'iov_iter: no ITER_FOLIOQ extraction (selftest)')
		git -C "$fq" update-ref refs/heads/no-folioq "$c"
	)
	# (The fix itself, 1/2, has no FOLIOQ context since its export change
	# moved to the test patch, 2/2: that is the one that fails.)
	expect sendcheck-folioq-context 1 'FAIL: the posting iov_iter-fixes: 0002-iov_iter-kunit-Test-the-restore-of-an-ITER_KVEC-iter.patch does not apply' -- \
		scr "$fq" no-folioq
	expect sendcheck-folioq-hunk 0 '^  hunk 1 of lib/iov_iter.c: @@ -1495,7 \+1495,7 @@ void iov_iter_restore' -- cat "$work/out.sendcheck-folioq-context"
	expect sendcheck-folioq-says-how 0 "reproduce with: make LINE=mainline sendcheck TREE=$fq BASE=no-folioq" -- cat "$work/out.sendcheck-folioq-context"
	shead=$(git -C "$stree" rev-parse HEAD)
	expect sendcheck-6.12-base 1 'error: the posting iov_iter-fixes does not apply to TREE at base' -- scr "$stree" base
	expect sendcheck-6.12-untouched 0 '' -- test "$(git -C "$stree" rev-parse HEAD)" = "$shead" -a -z "$(git -C "$stree" status --porcelain)"
	expect sendcheck-no-tree 1 'give TREE=<your kernel git tree>' -- scr '' ''
	expect sendcheck-not-git 1 "is not a git tree with commits" -- scr "$work" ''
	expect sendcheck-bad-base 1 'BASE=no-such-ref is not a commit of' -- scr "$mtree" no-such-ref
	expect sendcheck-one-series 1 'is one series' -- env LINE=6.1 SENDCHECK_TREE="$mtree" bash "$TOP/ci/sendcheck.sh"
else
	result FAIL sendcheck "the mainline or 6.12.y tree is missing: make tree LINE=mainline; make tree LINE=6.12"
fi

# --- make deps refuses a disk without room --------------------------------------
expect deps-disk-full 1 'GiB free on the file system' -- env DISK_MIN_GIB=1000000 bash "$TOP/ci/deps.sh"

# --- every base at the version BASE records, whatever the machine has -----------
# A local archive (a flat apt repository of fake linux-source-6.1 packages,
# each a tarball that says its version), read the way ci/fetch-src.sh
# reads Debian's: the cache holds 6.1.192-3, as a machine that installed
# the newest would, and BASE records 6.1.192-2.
arc=$work/archive
fakesrc() { # fakesrc REPO VERSION: a linux-source-6.1 package of VERSION in REPO
	local d=$work/fakedeb
	rm -rf "$d"
	mkdir -p "$d/DEBIAN" "$d/usr/src/linux-source-6.1" "$1"
	printf 'Package: linux-source-6.1\nVersion: %s\nArchitecture: all\nMaintainer: selftest <selftest@invalid>\nDescription: fake\n' "$2" > "$d/DEBIAN/control"
	echo "$2" > "$d/usr/src/linux-source-6.1/version"
	tar -C "$d/usr/src" -cJf "$d/usr/src/linux-source-6.1.tar.xz" linux-source-6.1
	rm -r "$d/usr/src/linux-source-6.1"
	dpkg-deb -Zxz --build "$d" "$1/linux-source-6.1_$2_all.deb" > /dev/null
	(cd "$1" && dpkg-scanpackages -m . /dev/null > Packages 2> /dev/null)
}
for v in 6.1.192-1 6.1.192-2 6.1.192-3; do fakesrc "$arc/all" "$v"; done
for v in 6.1.192-1 6.1.192-3; do fakesrc "$arc/moved-on" "$v"; done
printf 'deb [trusted=yes] file:%s ./\n' "$arc/all" > "$arc/all.list"
printf 'deb [trusted=yes] file:%s ./\n' "$arc/moved-on" > "$arc/moved-on.list"
sc=$work/srccache
mkdir -p "$sc"
fakesrc "$work/newest" 6.1.192-3
dpkg-deb --fsys-tarfile "$work/newest/linux-source-6.1_6.1.192-3_all.deb" | tar -xOf - ./usr/src/linux-source-6.1.tar.xz > "$sc/linux-source-6.1.tar.xz"
echo 6.1.192-3 > "$sc/linux-source-6.1.version"
mkdir -p "$work/bpatches"
printf 'source: debian linux-source-6.1 6.1.192-2\nsublevel: 6.1.192\nbase-commit: 5cccad46aed8810b49ff2378e5bf1c8ea048a064\n' > "$work/bpatches/BASE"
fb() { env SRC_CACHE="$sc" FETCH_SRC_SOURCES="$1" PATCHES="$work/bpatches" "${@:2}" bash "$TOP/ci/fetch-bases.sh" 6.1; }
# shellcheck disable=SC2016
bversion() { env SRC_CACHE="$sc" bash -c '. "$1/ci/lib.sh"; echo "debian $SRC_PKG $(src_version) $(src_tarball)"; tar -xOJf "$(src_tarball)" linux-source-6.1/version' _ "$TOP"; }
expect bases-newer-installed 0 'downloading linux-source-6.1 6.1.192-2' -- fb "$arc/all.list"
expect bases-newer-installed-recorded 0 "^debian linux-source-6.1 6.1.192-2 $sc/linux-source-6.1.tar.xz"$'\n''6.1.192-2$' -- bversion
fb_quiet() { fb "$arc/all.list" 2>&1; }
expect bases-recorded-kept 0 '' -- empty fb_quiet
expect bases-version-gone 1 'no longer serves linux-source-6.1 6.1.192-2, the version patches/6.1.y/BASE records; it serves 6.1.192-1, 6.1.192-3 \(newest 6.1.192-3\)' -- \
	env SRC_CACHE="$work/srccache2" FETCH_SRC_SOURCES="$arc/moved-on.list" PATCHES="$work/bpatches" bash "$TOP/ci/fetch-bases.sh" 6.1
expect bases-version-gone-says-how 1 '^  SRC_VERSION=6.1.192-3 make deps tree LINE=6.1 ' -- \
	env SRC_CACHE="$work/srccache2" FETCH_SRC_SOURCES="$arc/moved-on.list" PATCHES="$work/bpatches" bash "$TOP/ci/fetch-bases.sh" 6.1
expect bases-rebase-on-purpose 0 'downloading linux-source-6.1 6.1.192-3' -- \
	env SRC_CACHE="$work/srccache2" FETCH_SRC_SOURCES="$arc/moved-on.list" PATCHES="$work/bpatches" SRC_VERSION=6.1.192-3 LINE=6.1 bash "$TOP/ci/fetch-bases.sh" 6.1
expect bases-src-version-needs-line 1 'give LINE= too' -- \
	env -u LINE SRC_CACHE="$work/srccache2" PATCHES="$work/bpatches" SRC_VERSION=6.1.192-3 bash "$TOP/ci/fetch-bases.sh" 6.1

# --- the verdict cache: a changed key part reruns, a hit replays -------------------
# vc TREE CONFIG TOOL SCRIPT [STATUS]: one run of a toy check through
# ci/verdict.sh, keyed by the four parts; the check itself prints "ran" and
# writes STATUS (PASS) and a log.  TOOL is the version a fake compiler on
# PATH reports, SCRIPT the content of the toy check's script.
vcd=$work/verdict
mkdir -p "$vcd/bin"
vc() {
	printf '#!/bin/sh\necho "fakecc %s"\n' "$3" > "$vcd/bin/fakecc"
	chmod +x "$vcd/bin/fakecc"
	printf '%s\n' "$4" > "$vcd/check.sh"
	# shellcheck disable=SC2016 # the inner shell expands them
	env PATH="$vcd/bin:$PATH" VERDICT_CACHE="$vcd/cache" VERDICT_LOG="$vcd/log" bash -c '
		set -euo pipefail
		. "$TOP/ci/lib.sh"; . "$TOP/ci/verdict.sh"
		key=$(verdict_key toy "$1" "$2" "$(toolchain_id fakecc)" "$(hash_files "$4")")
		rm -rf "$3/run"; mkdir -p "$3/run"; : > "$3/run/results.tsv"
		verdict_replay "$key" toy "$3/run/results.tsv" "$3/run" && exit 0
		echo ran | tee "$3/run/out"
		echo "the log" > "$3/run/toy.log"
		printf "%s\ttoy:check\n" "$5" > "$3/run/results.tsv"
		verdict_store "$key" toy 7 "$3/run/results.tsv" "$3/run/out" "$3/run/toy.log"
	' _ "$1" "$2" "$vcd" "$vcd/check.sh" "${5:-PASS}"
}
expect verdict-first-runs 0 '^ran$' -- vc t1 c1 v1 s1
expect verdict-same-replays 0 'passed before with these inputs.*7 s saved' -- vc t1 c1 v1 s1
expect verdict-replays-log 0 '^the log$' -- cat "$vcd/run/toy.log"
expect verdict-replays-results 0 '^PASS	toy:check$' -- cat "$vcd/run/results.tsv"
expect verdict-tree-reruns 0 '^ran$' -- vc t2 c1 v1 s1
expect verdict-config-reruns 0 '^ran$' -- vc t1 c2 v1 s1
expect verdict-toolchain-reruns 0 '^ran$' -- vc t1 c1 v2 s1
expect verdict-scripts-rerun 0 '^ran$' -- vc t1 c1 v1 s2
expect verdict-nocache-reruns 0 '^ran$' -- env NOCACHE=1 bash -c "$(declare -f vc); vcd=$vcd TOP=$TOP; vc t1 c1 v1 s1"
expect verdict-check-full-reruns 0 '^ran$' -- env TIER=full bash -c "$(declare -f vc); vcd=$vcd TOP=$TOP; vc t1 c1 v1 s1"
expect verdict-fail-not-stored 0 '^ran$' -- vc t3 c1 v1 s1 FAIL
expect verdict-fail-reruns 0 '^ran$' -- vc t3 c1 v1 s1 FAIL
expect verdict-log-counts 0 '^hit	7	toy$' -- cat "$vcd/log"

# --- make mutants: only a failing case catches a mutation --------------------------
mv_=$work/mutant
mkdir -p "$mv_"
printf 'PASS\tx86_64:iov_iter.a\nFAIL\tx86_64:iov_iter.b\n' > "$mv_/case"
printf 'FAIL\tx86_64:ktap\nFAIL\tx86_64:manifest:expected-tests\n' > "$mv_/crash"
printf 'PASS\tx86_64:iov_iter.a\nFAIL\tx86_64:splat-scan\n' > "$mv_/splat"
printf 'PASS\tx86_64:iov_iter.a\nFAIL\tx86_64:kunit.py\n' > "$mv_/exit"
# The kselftests' results (ci/kselftest.sh): a failed case, or a case the
# plan promised that never ran, catches; a bare exit status does not.
printf 'PASS\tkselftest:net/udp_csum_fault:udp_fault.a.send\nFAIL\tkselftest:net/udp_csum_fault:udp_fault.a.recv\n' > "$mv_/ks-case"
printf 'FAIL\tkselftest:iov_iter/iov_fault:case 3 of the plan: no result\n' > "$mv_/ks-crash"
printf 'PASS\tkselftest:net/udp_csum_fault:udp_fault.a.send\nFAIL\tkselftest:net/udp_csum_fault: did not exit 0\nFAIL\tkselftest: the guest did not finish\n' > "$mv_/ks-exit"
: > "$mv_/empty"
# shellcheck disable=SC2016 # the inner shell expands them
mvc() { bash -c 'set -euo pipefail; . "$1/ci/lib.sh"; mutant_verdict "$2"' _ "$TOP" "$1"; }
expect mutant-case-caught 0 '^caught$' -- mvc "$mv_/case"
expect mutant-crash-caught 0 '^caught$' -- mvc "$mv_/crash"
expect mutant-splat-caught 0 '^caught$' -- mvc "$mv_/splat"
expect mutant-exit-unproven 0 '^other$' -- mvc "$mv_/exit"
expect mutant-kselftest-case-caught 0 '^caught$' -- mvc "$mv_/ks-case"
expect mutant-kselftest-crash-caught 0 '^caught$' -- mvc "$mv_/ks-crash"
expect mutant-kselftest-exit-unproven 0 '^other$' -- mvc "$mv_/ks-exit"
expect mutant-nobuild 0 '^nobuild$' -- mvc "$mv_/empty"
expect mutant-missing-nobuild 0 '^nobuild$' -- mvc "$mv_/none"

# --- checkpatch exceptions name patches by subject; an unknown one fails ------------
printf 'no such patch\tSPACING\ttest\n' > "$work/cpx-bad"
expect checkpatch-exception-unknown 1 'names a patch the series does not have: no such patch' -- \
	env CP_EXCEPTIONS="$work/cpx-bad" PATCHCHECK_FROM=HEAD OUT="$work/pc" bash "$TOP/ci/patchcheck.sh"
expect checkpatch-exceptions-known 0 ' 0 of [0-9]+ patches checked' -- \
	env PATCHCHECK_FROM=HEAD OUT="$work/pc" bash "$TOP/ci/patchcheck.sh"

# --- make docs: a documented command that names nothing fails ---------------------
# shellcheck disable=SC2016 # a Markdown fence, not a command substitution
F='```sh' E='```'
printf '%s\n%s\n%s\n' "$F" 'STAGES="6.1:nosuch" make check' "$E" > "$work/doc-stage.md"
printf '%s\n%s\n%s\n' "$F" 'make lint LINE=9.9' "$E" > "$work/doc-line.md"
printf '%s\n%s\n%s\n' "$F" 'make lint && make nosuchtarget' "$E" > "$work/doc-target.md"
printf '%s\n%s\n%s\n%s\n' "$F" 'STAGES="6.1:lint" make check   # a comment' 'make lint LINE=6.12 && make notes' "$E" > "$work/doc-ok.md"
dk() { env DOCS_FILES="$1" OUT="$work/docs" bash "$TOP/ci/docs.sh"; }
expect docs-unknown-stage 1 'no such stage in ci/stages.tsv: 6.1:nosuch' -- dk "$work/doc-stage.md"
expect docs-unknown-line 1 'no such line: 9.9' -- dk "$work/doc-line.md"
expect docs-unknown-target 1 'FAIL docs:.*make nosuchtarget' -- dk "$work/doc-target.md"
expect docs-commands-ok 0 'docs: [0-9]+ passed, 0 failed' -- dk "$work/doc-ok.md"

# --- contracts.py: the contract table against a small fake tree -----------------
ct=$work/contracts
mkdir -p "$ct/lib" "$ct/include/linux" "$ct/t"
printf 'size_t f_one(void) { return 0; }\nEXPORT_SYMBOL(f_one);\n/* EXPORT_SYMBOL(f_commented); */\nEXPORT_SYMBOL_GPL(f_two);\nEXPORT_SYMBOL_FOR_MODULES(f_mod, "m");\n' > "$ct/lib/iov_iter.c"
printf 'static inline\nbool f_inline(const struct iov_iter *i)\n{\n\treturn 1;\n}\nstatic inline __printf(2, 3) void f_fmt(int a, const char *f, ...)\n{\n}\n' > "$ct/include/linux/uio.h"
cat > "$ct/t/t.c" <<'EOC'
#define X_CASE_PARAMS(name, init) KUNIT_CASE(name)
static struct kunit_case c[] = {
	KUNIT_CASE(t_one),
	X_CASE_PARAMS(t_two, init),
	// KUNIT_CASE(t_commented),
	{}
};
static struct kunit_case b[] = {
	KUNIT_CASE(t_bench),
	{}
};
#if 0
static struct kunit_case d[] = { KUNIT_CASE(t_dead), {} };
#endif
static struct kunit_suite s_tests = { .name = "tests", .test_cases = c, };
static struct kunit_suite s_bench = { .name = "bench", .test_cases = b, };
kunit_test_suites(&s_tests, &s_bench);
TEST_F(fault, t_user)
EOC
# shellcheck disable=SC2016 # the backticks are markdown, not commands
ctab() { printf '# t\n\n| function | promise | types | test |\n|---|---|---|---|\n'; printf '%s\n' "$@"; printf '\nafter the table\n'; }
# shellcheck disable=SC2016 # the backticks are markdown
ctab '| `f_one()` | returns 0 | any | `t_one` |' '| `f_two()` | does two | KVEC BVEC | `t_two`, `t:t_user` |' \
	'| `f_inline()` | says yes | any | gap |' '| `f_fmt()` | formats | - | `t_one` |' \
	'| `f_mod()` | for modules | UBUF | `t_two` |' '| `f_gone()` | not here | - | absent |' > "$ct/ok.md"
cc() { python3 "$TOP/ci/contracts.py" --tree "$ct" --doc "$1" --tests t/t.c --max-gaps "${2:-1}" --skip-suites bench "${@:3}"; }
expect contracts-ok 0 '^contracts: 5 functions, 5 with rows, 6 rows, 1 gap rows' -- cc "$ct/ok.md"
# The mutation column: each tested row names a mutation of the list (or
# none, counted against a ratchet), gap and absent rows say -, no mutation
# names two rows; after make mutants, a row's mutation must have failed
# one of the row's own tests.
printf 'm_one\tlib/iov_iter.c\tx\ty\nm_two\tlib/iov_iter.c\tx\ty\n# a comment\n' > "$ct/mutations"
# shellcheck disable=SC2016 # the backticks are markdown
mtab() { printf '# t\n\n| function | promise | types | test | mutation |\n|---|---|---|---|---|\n'; printf '%s\n' "$@"; }
# shellcheck disable=SC2016
mrows() { printf '%s\n' '| `f_one()` | returns 0 | any | `t_one` | `m_one` |' \
	"| \`f_two()\` | does two | KVEC | \`t_two\`, \`t:t_user\` | $1 |" \
	"| \`f_inline()\` | says yes | any | gap | ${2:--} |" '| `f_fmt()` | formats | - | `t_one` | none |' \
	'| `f_mod()` | for modules | UBUF | `t_two` | none |' '| `f_gone()` | not here | - | absent | - |'; }
# shellcheck disable=SC2016 # the backticks are markdown
mtab "$(mrows '`m_two`')" > "$ct/mut-ok.md"
mc() { cc "$1" 1 --mutations "$ct/mutations" --max-unmutated "${2:-2}" "${@:3}"; }
expect contracts-mutations-ok 0 '^contracts: 2 rows with a mutation, 2 tested rows without one \(allowed: 2\)' -- mc "$ct/mut-ok.md"
# shellcheck disable=SC2016 # the backticks are markdown
{
	mtab "$(mrows '`m_three`')" > "$ct/mut-unknown.md"
	mtab "$(mrows '`m_one`')" > "$ct/mut-twice.md"
	mtab "$(mrows '`m_two`' '`m_two`')" > "$ct/mut-gap.md"
}
mtab "$(mrows ' ')" > "$ct/mut-empty.md"
expect contracts-mutation-unknown 1 'f_two\(\): no mutation m_three in' -- mc "$ct/mut-unknown.md"
expect contracts-mutation-twice 1 'mutation m_one is already the row of' -- mc "$ct/mut-twice.md"
expect contracts-mutation-on-gap 1 "f_inline\\(\\): a gap row's mutation cell must be -" -- mc "$ct/mut-gap.md"
expect contracts-mutation-empty 1 'f_two\(\): the mutation cell must be' -- mc "$ct/mut-empty.md"
expect contracts-unmutated-over 1 '2 tested rows without a mutation, over the 1 allowed' -- mc "$ct/mut-ok.md" 1
expect contracts-unmutated-under 1 'lower CONTRACT_MAX_UNMUTATED to 2' -- mc "$ct/mut-ok.md" 3
expect contracts-mutations-need-column 1 'needs a table headed' -- mc "$ct/ok.md"
mkdir -p "$ct/out/kunit/mutant-m_one" "$ct/out/kselftest-mutant-m_two"
printf 'PASS\tx86_64:tests.t_two\nFAIL\tx86_64:tests.t_one.param-1\n' > "$ct/out/kunit/mutant-m_one/results.tsv"
printf 'FAIL\tkselftest:iov_iter/t:fault.variant.t_user\n' > "$ct/out/kselftest-mutant-m_two/results.tsv"
expect contracts-mutants-caught 0 "2 rows' mutations judged from .*, 0 not caught" -- mc "$ct/mut-ok.md" 2 --mutant-results "$ct/out"
printf 'FAIL\tx86_64:tests.t_two\nPASS\tx86_64:tests.t_one\n' > "$ct/out/kunit/mutant-m_one/results.tsv"
expect contracts-mutant-caught-elsewhere 1 "f_one\\(\\): mutation m_one made none of the row's tests fail \\(t_one\\); it failed: t_two" -- mc "$ct/mut-ok.md" 2 --mutant-results "$ct/out"
rm -r "$ct/out/kselftest-mutant-m_two"
expect contracts-mutant-not-run 1 'mutation m_two has no results in' -- mc "$ct/mut-ok.md" 2 --mutant-results "$ct/out"
grep -v f_inline "$ct/ok.md" > "$ct/norow.md"
expect contracts-function-without-row 1 'FAIL f_inline\(\) \(include/linux/uio.h\) has no row' -- cc "$ct/norow.md" 0
grep -v f_fmt "$ct/ok.md" > "$ct/annotated.md"
expect contracts-annotated-inline 1 'FAIL f_fmt\(\) \(include/linux/uio.h\) has no row' -- cc "$ct/annotated.md"
sed 's/t_one/t_nosuch/' "$ct/ok.md" > "$ct/notest.md"
expect contracts-unknown-test 1 'f_one\(\): no test case t_nosuch' -- cc "$ct/notest.md"
for fake in t_bench name t_commented t_dead; do
	sed "s/t_one/$fake/" "$ct/ok.md" > "$ct/fake-$fake.md"
	expect "contracts-not-a-test-$fake" 1 "no test case $fake" -- cc "$ct/fake-$fake.md"
done
sed 's/| .t_one. |/| |/' "$ct/ok.md" > "$ct/empty.md"
expect contracts-row-without-test 1 'f_one\(\): the test cell must be' -- cc "$ct/empty.md"
sed 's/| .t_one. |/| gap, see t_one |/' "$ct/ok.md" > "$ct/gapsee.md"
expect contracts-gap-with-words 1 'f_one\(\): the test cell must be' -- cc "$ct/gapsee.md"
sed 's/| .f_inline(). | says yes/| f_inline() | says yes/' "$ct/ok.md" > "$ct/hidden.md"
expect contracts-hidden-gap 1 'not a row of' -- cc "$ct/hidden.md" 0
sed 's/| KVEC BVEC |/| KVEC user |/' "$ct/ok.md" > "$ct/types.md"
expect contracts-bad-type 1 'types must be words of .*: not user' -- cc "$ct/types.md"
expect contracts-gaps-over 1 '1 gap rows, over the 0 allowed' -- cc "$ct/ok.md" 0
expect contracts-gaps-under 1 'lower CONTRACT_MAX_GAPS to 1' -- cc "$ct/ok.md" 2
sed 's/f_gone/f_one/' "$ct/ok.md" > "$ct/absent.md"
expect contracts-absent-but-present 1 'f_one\(\) says absent, but the tree has it' -- cc "$ct/absent.md"
mapfile -t ctrows < <(grep '^| .f_' "$ct/ok.md")
ctab "${ctrows[@]}" "$(sed -n 's/^\(| .\)f_one/\1f_stale/p' "$ct/ok.md")" > "$ct/stale.md"
expect contracts-stale-row 1 'f_stale\(\) is not an export' -- cc "$ct/stale.md"
# shellcheck disable=SC2016 # the backticks are markdown
{ cat "$ct/ok.md"; printf '\n## Why the gap rows have no test\n\n- `f_inline()`: needs a fake.\n'; } > "$ct/reasons.md"
expect contracts-gap-reasons-ok 0 '1 gap rows' -- cc "$ct/reasons.md" 1 --gap-reasons
expect contracts-gap-reasons-no-section 1 'must have one section "## Why the gap rows have no test"' -- cc "$ct/ok.md" 1 --gap-reasons
grep -v '^- .f_inline()' "$ct/reasons.md" > "$ct/reason-missing.md"
expect contracts-gap-without-reason 1 'f_inline\(\) has a gap row but no reason' -- cc "$ct/reason-missing.md" 1 --gap-reasons
# shellcheck disable=SC2016 # the backticks are markdown
sed 's/- .f_inline()./- `f_one()`/' "$ct/reasons.md" > "$ct/reason-stale.md"
expect contracts-reason-without-gap 1 'f_one\(\) has a reason .* but no gap row' -- cc "$ct/reason-stale.md" 1 --gap-reasons

# --- make divergence fails above the line's limit ---------------------------------
expect divergence-over-limit 1 'is above DIVERGENCE_MAX=1' -- env DIVERGENCE_MAX=1 bash "$TOP/ci/divergence.sh"
expect divergence-within-limit 0 'differs from mainline' -- bash "$TOP/ci/divergence.sh"

# --- every script runs in the same locale, whatever the user's ------------------
expect locale-pinned 0 '^C\.UTF-8 unset$' -- env LC_ALL=de_DE.UTF-8 LANG=de_DE.UTF-8 LANGUAGE=de \
	bash -c ". '$TOP/ci/lib.sh'; locale > /dev/null 2> '$work/locale.err'; [ ! -s '$work/locale.err' ] && echo \"\$LC_ALL \${LANGUAGE-unset}\""

# --- qemu-tcg.sh: every accelerator but TCG dropped ----------------------------
mkdir -p "$work/qemu-real" "$work/qemu-wrap"
printf '#!/bin/sh\necho "args: $*"\n' > "$work/qemu-real/qemu-system-x86_64"
chmod +x "$work/qemu-real/qemu-system-x86_64"
ln -s "$TOP/ci/qemu-tcg.sh" "$work/qemu-wrap/qemu-system-x86_64"
expect qemu-tcg-drops-kvm 0 '^args: -nodefaults -accel tcg -m 64 -accel tcg,thread=single$' -- \
	env PATH="$work/qemu-wrap:$work/qemu-real:$PATH" qemu-system-x86_64 -nodefaults -accel kvm -accel hvf -accel tcg -m 64 -accel tcg,thread=single

# --- the native harness's data checks, with a fake glue -------------------------
# bench/native/runtime.c linked with ci/testdata/native/fake_glue.c (no
# kernel objects): the fake passes every check, and each fault it makes on
# purpose (the walk's return, iov_offset, nr_segs after the run; on either
# side) stops the harness with its own message.  ci/native-bench.sh's smoke
# run injects the same faults into the real glue.
if [ "$(uname -m)" = x86_64 ]; then
	nbw=$work/native
	mkdir -p "$nbw"
	nbcc() { gcc -O2 -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers \
		-I"$TOP/bench/native" "$@"; }
	expect native-fake-builds 0 '' -- bash -c "set -e
		$(declare -f nbcc); TOP=$TOP
		nbcc -DNB_TREE=base -c $TOP/ci/testdata/native/fake_glue.c -o $nbw/base.o
		nbcc -DNB_TREE=series -c $TOP/ci/testdata/native/fake_glue.c -o $nbw/series.o
		nbcc -o $nbw/nb $TOP/bench/native/runtime.c $nbw/base.o $nbw/series.o -no-pie -lm"
	# The data checks with mitigations given: they do not depend on the host.
	nb() { "$nbw/nb" --smoke --checks-only --retpoline=off --rethunk=none "$@"; }
	expect native-fake-clean 0 '^# random shapes: 300 iterators' -- nb
	for side in base series; do
		expect "native-wrong-walk-ret-$side" 1 "error: kvec_walk_64, $side kernel.*walk returned 32769 of 32768" -- \
			nb --inject=walk-ret --inject-side=$side
		expect "native-wrong-iov-offset-$side" 1 "error: .*$side kernel.*iov_offset [0-9]+ after the run, not" -- \
			nb --inject=iov-offset --inject-side=$side
		expect "native-wrong-nr-segs-$side" 1 "error: .*$side kernel.*nr_segs [0-9]+ after the run, not" -- \
			nb --inject=nr-segs --inject-side=$side
	done

	# The mitigations chosen for each CPU the choice branches on, with a
	# CPU identity and a sysfs directory of the test's own
	# (bench/native/runtime.c, choose_mitigations()).
	# sysfs NAME FILE LINE...: $nbw/sysfs/NAME with those files.
	sysfs() {
		local d=$nbw/sysfs/$1
		shift
		mkdir -p "$d/vulnerabilities" "$d/smt"
		while [ $# -gt 0 ]; do
			printf '%s\n' "$2" > "$d/$1"
			shift 2
		done
	}
	sysfs none
	sysfs smt-on smt/active 1
	sysfs zen2-smt-off smt/active 0 vulnerabilities/spec_rstack_overflow 'Mitigation: Safe RET'
	sysfs zen2-smt-off-bare smt/active 0
	sysfs zen2-smt-off-61 smt/active 0 vulnerabilities/spec_rstack_overflow 'Mitigation: safe RET, no microcode'
	sysfs intel-retbleed-ibpb vulnerabilities/spectre_v2 'Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected' \
		vulnerabilities/retbleed 'Vulnerable: untrained return thunk / IBPB on non-AMD based uarch'
	sysfs intel-retpolines vulnerabilities/spectre_v2 'Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected' \
		vulnerabilities/retbleed Vulnerable \
		vulnerabilities/indirect_target_selection 'Mitigation: Aligned branch/return thunks' \
		vulnerabilities/spec_rstack_overflow 'Not affected'
	sysfs intel-eibrs-its vulnerabilities/spectre_v2 'Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; RSB filling; PBRSB-eIBRS: SW sequence; BHI: BHI_DIS_S' \
		vulnerabilities/retbleed 'Not affected' \
		vulnerabilities/indirect_target_selection 'Mitigation: Aligned branch/return thunks'
	sysfs intel-eibrs vulnerabilities/spectre_v2 'Mitigation: Enhanced / Automatic IBRS; IBPB: conditional; RSB filling; PBRSB-eIBRS: Not affected; BHI: BHI_DIS_S' \
		vulnerabilities/retbleed 'Not affected' \
		vulnerabilities/indirect_target_selection 'Not affected'
	sysfs intel-ibrs vulnerabilities/spectre_v2 'Mitigation: IBRS; IBPB: conditional; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected' \
		vulnerabilities/retbleed 'Mitigation: IBRS'
	sysfs intel-stuffing vulnerabilities/spectre_v2 'Mitigation: Retpolines; STIBP: disabled; RSB filling; PBRSB-eIBRS: Not affected; BHI: Not affected' \
		vulnerabilities/retbleed 'Mitigation: Stuffing'
	mit() { # mit CPUID SYSFS [ARGS...]
		"$nbw/nb" --mitigations-only --cpuid="$1" --sysfs="$nbw/sysfs/$2" "${@:3}"; }
	model="6\\.1\\.y's choice for" host="the host kernel's choice \\(sysfs"
	expect native-mit-amd-0x15 0 "return thunk retbleed \\($model AuthenticAMD family 0x15\\); indirect branches: generic retpoline \\($model AuthenticAMD family 0x15: neither" -- \
		mit AuthenticAMD:0x15 none
	expect native-mit-amd-0x17 0 "return thunk srso \\($model AuthenticAMD family 0x17\\); indirect branches: generic retpoline" -- \
		mit AuthenticAMD:0x17:0x31 smt-on
	expect native-mit-amd-0x17-smt-off 0 "return thunk srso \\($host SRSO: Mitigation: Safe RET\\), 6\\.1\\.y's tables not modelled\\); indirect branches: generic retpoline \\($model" -- \
		mit AuthenticAMD:0x17:0x31 zen2-smt-off
	expect native-mit-amd-0x17-smt-off-no-sysfs 1 "return thunk for AuthenticAMD family 0x17 model 0x31 is not modelled here, and .*vulnerabilities/retbleed does not exist: give .*NATIVE_ARGS=" -- \
		mit AuthenticAMD:0x17:0x31 zen2-smt-off-bare
	expect native-mit-amd-0x17-smt-off-61-words 0 "return thunk srso \\($host SRSO: Mitigation: safe RET, no microcode\\)" -- \
		mit AuthenticAMD:0x17:0x31 zen2-smt-off-61
	expect native-mit-hygon-0x18-smt-off 0 "return thunk srso \\($host SRSO: Mitigation: Safe RET\\)" -- \
		mit HygonGenuine:0x18 zen2-smt-off
	expect native-mit-intel-retbleed-ibpb 1 "retbleed says 'Vulnerable: untrained return thunk / IBPB on non-AMD based uarch', which is not modelled: give" -- \
		mit GenuineIntel:6:0x55 intel-retbleed-ibpb
	expect native-mit-amd-0x19 0 "return thunk srso_alias \\($model AuthenticAMD family 0x19\\); indirect branches: generic retpoline" -- \
		mit AuthenticAMD:0x19:0x1 none
	expect native-mit-amd-0x19-autoibrs 0 "return thunk srso_alias .*indirect branches: indirect calls \\($model AuthenticAMD family 0x19: Automatic IBRS\\)" -- \
		mit AuthenticAMD:0x19:0x11:autoibrs none
	expect native-mit-amd-0x1a 0 "return thunk none \\($model AuthenticAMD family 0x1a\\); indirect branches: generic retpoline" -- \
		mit AuthenticAMD:0x1a:0x2 none
	expect native-mit-hygon-0x18 0 "return thunk srso \\($model HygonGenuine family 0x18\\)" -- \
		mit HygonGenuine:0x18 none
	expect native-mit-intel-retpolines 0 "return thunk its \\(${host} retbleed: Vulnerable; ITS: Mitigation: Aligned branch/return thunks; SRSO: Not affected\\), 6\\.1\\.y's tables not modelled\\); indirect branches: generic retpoline \\($host spectre_v2: Mitigation: Retpolines\\)" -- \
		mit GenuineIntel:6:0xa7 intel-retpolines
	expect native-mit-intel-eibrs-its 0 "return thunk its \\($host.*indirect branches: indirect calls, ITS thunks in a line's lower half \\($host spectre_v2: Mitigation: Enhanced / Automatic IBRS\\)" -- \
		mit GenuineIntel:6:0x8f:eibrs intel-eibrs-its
	expect native-mit-intel-eibrs 0 "return thunk none \\($host.*indirect branches: indirect calls \\($host spectre_v2: Mitigation: Enhanced / Automatic IBRS\\)" -- \
		mit GenuineIntel:6:0xaf:eibrs intel-eibrs
	expect native-mit-intel-ibrs 0 "return thunk none \\($host retbleed: Mitigation: IBRS\\).*indirect branches: indirect calls \\($host spectre_v2: Mitigation: IBRS\\)" -- \
		mit GenuineIntel:6:0x55 intel-ibrs
	expect native-mit-intel-no-sysfs 1 "indirect-branch mitigation for GenuineIntel family 0x6 model 0xa7 is not modelled here, and .*vulnerabilities/spectre_v2 does not exist: give --retpoline=on\\|off and --rethunk=.*NATIVE_ARGS=" -- \
		mit GenuineIntel:6:0xa7 none
	expect native-mit-intel-unmodelled 1 "retbleed says 'Mitigation: Stuffing', which is not modelled: give" -- \
		mit GenuineIntel:6:0x55 intel-stuffing
	expect native-mit-intel-given 0 "return thunk its \\(chosen with --rethunk\\); indirect branches: indirect calls, ITS thunks in a line's lower half \\(chosen with --retpoline\\)" -- \
		mit GenuineIntel:6:0xa7 none --retpoline=off --rethunk=its
else
	result FAIL native-fake "the native harness needs an x86_64 host"
fi

# --- the simulator report (ci/native_sim.py) on counts written here --------------
# A binary with one function, a cachegrind file of each side (N calls'
# worth) and a callgrind file with compressed positions and a call line,
# whose cost (inclusive, the callee's) must not be counted as the caller's.
ns=$work/native-sim
mkdir -p "$ns/raw" "$ns/bin"
printf 'int nb_f(int x) { return x * 3 + 1; }\nint main(int c, char **v) { return nb_f(c); }\n' > "$ns/f.c"
gcc -O1 -o "$ns/bin/native-bench.s1" "$ns/f.c"
faddr=$(nm "$ns/bin/native-bench.s1" | awk '$3 == "nb_f" { print $1 }')
for side in a b; do
	ir=$([ $side = a ] && echo 2000 || echo 2600)
	printf 'events: Ir Bc Bcm\nfl=???\nfn=nb_f\n0 %s 100 %s\n' "$ir" "$([ $side = a ] && echo 10 || echo 30)" > "$ns/raw/s1.$side.cgd"
	# (a function first named on a cfn= line, then costed in another
	# object, libc, at an address that is an offset there)
	printf 'positions: instr line\nevents: Ir Bc Bcm\nob=(1) %s\nfl=(1) ???\nfn=(1) nb_f\n0x%s 0 %s 0 0\n+3 * %s 100 %s\ncob=(2) /lib/libc.so.6\ncfn=(2) lib_helper\ncalls=%s 0x10 0\n+1 * 99999 0 0\nob=(2)\nfn=(2)\n0x%s 0 700 0 0\n' \
		"$ns/bin/native-bench.s1" "$faddr" "$((ir / 2))" "$((ir / 2))" "$([ $side = a ] && echo 10 || echo 30)" 100 "$faddr" > "$ns/raw/s1.$side.clg"
done
expect_ns_lib() { grep -qF $'libc.so.6:lib_helper\t0x0\t7.0000' "$ns/instructions.tsv"; }
nsim() { python3 "$TOP/ci/native_sim.py" --case=fake --calls=100 --layouts=1 --bin-dir="$ns/bin" "$ns"; }
expect native-sim-totals 0 '^\| Ir \| 20\.00 \| 26\.00 \| 6\.00 \| 1\.300 \| 6\.00 \|$' -- nsim
expect native-sim-mispredicts 0 '^\| nb_f\+0x3 \| 0\.30 \| 0\.00 \| 13\.00 \|' -- cat "$ns/report.md"
# the call line's 99999 is the callee's: counted, it would make 0x4 the hottest
expect native-sim-call-cost-skipped 1 '' -- grep -qF $'nb_f\t0x4\t' "$ns/instructions.tsv"
expect native-sim-other-object 0 '' -- expect_ns_lib
expect native-sim-counts-instructions 0 '' -- grep -qF $'b\tnb_f\t0x3\t13.0000\t1.0000\t0.3000' "$ns/instructions.tsv"
printf 'events: Ir\nfl=???\nfn=nb_f\n0 0\n' | tee "$ns/raw/s1.a.cgd" > "$ns/raw/s1.b.cgd"
expect native-sim-no-calls-counted 1 'a run of 2N calls counted no more than its run of N' -- nsim

# --- syscall_share.py: the plugin's windows into the iterator's share ------------
# Three calls of one read case and of the floor; the read's median call has
# 1900 kernel instructions, 50 of them lib/iov_iter.o's, and -icount timed
# 1920 for it (a wrapper of 20).
sd=$work/share
mkdir -p "$sd"
for k in base series; do
	printf '%s\n' 'syscall-bench: case dax_pread_4096 windows 0 3' \
		'syscall name=dax_pread_4096 unit=insns n=3 median=1920 min=1920 max=1990' \
		'syscall-bench: case memcpy_4096 windows 3 3' 'syscall-bench: done, 6 windows' > "$sd/boot-plugin-$k.log"
	{
		for n in 0 1; do
			echo "window $n dax=400 ext4=430 copy=500 entry=140 pagecache=0 iov_iter=50 vfs=130 kernel-other=250 user=900 kernel-rep=512"
		done
		echo 'window 2 dax=400 ext4=430 copy=500 entry=140 pagecache=0 iov_iter=50 vfs=130 kernel-other=320 user=900 kernel-rep=512'
		for n in 3 4 5; do
			echo "window $n dax=0 ext4=0 copy=0 entry=0 pagecache=0 iov_iter=0 vfs=0 kernel-other=0 user=400 kernel-rep=0"
		done
		echo 'end windows=6 begins=6'
	} > "$sd/plugin-$k.tsv"
done
expect share-table 0 '^\| dax_pread_4096 \| 1900 / 1900 \| 512 / 512 \| 50 / 50 \| 2\.6% / 2\.6% \(3\.6% / 3\.6%\) \| 500 / 500 \| 130 / 130 \| 830 / 830 \|$' -- \
	python3 "$TOP/ci/syscall_share.py" table "$sd" base0 tip0 3
share() { python3 "$TOP/ci/syscall_share.py" table "$sd" base0 tip0 3; }
# share_broken NAME FILE SED-SCRIPT PATTERN: FILE of the series side
# changed by SED-SCRIPT must fail with PATTERN; FILE is restored after
share_broken() {
	cp "$sd/$2" "$sd/$2.orig"
	sed -i "$3" "$sd/$2"
	expect "$1" 1 "$4" -- share
	mv "$sd/$2.orig" "$sd/$2"
}
share_broken share-window-open plugin-series.tsv '/^window 1 /d' \
	'opened 6 windows, the plugin closed 5 and counted 6: a mark was missed'
share_broken share-plugin-cut plugin-series.tsv '/^end /d' 'did not reach its end'
share_broken share-plugin-line-cut plugin-series.tsv 's/^window 2 dax=400 ext4=430 copy=500.*/window 2 dax=400 ext4=43/' \
	'plugin-series.tsv:3: not a line of the plugin'
share_broken share-guest-unfinished boot-plugin-series.log '/done, 6 windows/d' 'the series guest did not finish'
# the plugin's count of the call and -icount's disagree by more than a wrapper
share_broken share-icount-disagrees boot-plugin-series.log 's/median=1920 /median=1990 /' \
	'the plugin counts 1900 kernel instructions in the median call, -icount 1990'
# a mark the plugin missed: the floor's median call, no system call in it, counts kernel work
share_broken share-floor-kernel plugin-series.tsv 's/^window 4 dax=0 /window 4 dax=40 /; s/^window 5 dax=0 /window 5 dax=40 /' \
	'memcpy_4096 window counts kernel work'
# ranges of vmlinux made disjoint: nested of one group joined, of another cut
expect share-ranges-disjoint 0 '^\[\(16, 48, .a.\), \(48, 64, .b.\)\] 1$' -- \
	python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import syscall_share as s; m, c = s.disjoint([(16, 32, "a"), (20, 24, "a"), (24, 48, "a"), (40, 64, "b")]); print(m, c)' "$TOP/ci"

# --- make help runs (make -n, which the documents check uses, runs no shell) --------
expect make-help 0 '^make check +what CI runs' -- make -C "$TOP" --no-print-directory help

# --- shellcheck ------------------------------------------------------------------
expect shellcheck 0 '' -- shellcheck -x -P "$TOP/ci" "$TOP"/ci/*.sh "$TOP/.ci/run"

echo "selftest: $(grep -c '^PASS' "$res") passed, $nfail failed"
[ "$nfail" = 0 ]
