#!/usr/bin/env bash
# The line's user-space benchmark (KSELFTEST_BENCH in its line.conf, a
# program of its kselftests) in the kselftest guest of the tip, under
# QEMU's -icount shift=0,sleep=off: the program's nanoseconds are guest
# instructions, so its figures are instructions per call, the same on
# every run.  make bench runs it; make check's kselftest stage runs the
# program at its default size, as a test.
# Result: out/<line>/bench/selftest.md (and the guest's console in
# out/<line>/kselftest-bench/).
#   BENCH_SELFTEST_ITERS=5000  calls per round (3 rounds)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

repro="LINE=$LINE_NAME bash ci/kselftest-bench.sh"
[ -n "${KSELFTEST_BENCH:-}" ] || die "$LINE_NAME has no user-space benchmark (KSELFTEST_BENCH in ci/$LINE_NAME/line.conf)"
dest=$OUT/bench
mkdir -p "$dest"
log "$KSELFTEST_BENCH in the kselftest guest of the tip, icount (log: ${dest#"$TOP"/}/selftest.log)"
KSELFTEST_PROGS=$KSELFTEST_BENCH KSELFTEST_ARGS="/$KSELFTEST_BENCH:-n:${BENCH_SELFTEST_ITERS:-5000}:-r:3" \
	KSELFTEST_ICOUNT=1 KSELFTEST_RUN=bench bash "$TOP/ci/kselftest.sh" > "$dest/selftest.log" 2>&1 || {
	tail -n 30 "$dest/selftest.log" >&2
	die "the user-space benchmark failed (log: ${dest#"$TOP"/}/selftest.log)" "$repro"
}
{
	printf '| %s case (guest, -icount shift=0) | instructions per call |\n|---|---:|\n' "$KSELFTEST_BENCH"
	sed -n 's/^# \([a-z0-9_]*\): min \([0-9]*\) ns, median .*/| \1 | \2 |/p' "$OUT/kselftest-bench/console.log"
} > "$dest/selftest.md"
[ "$(grep -c '^| [a-z]' "$dest/selftest.md")" -gt 1 ] ||
	die "the user-space benchmark printed no figures (console: ${OUT#"$TOP"/}/kselftest-bench/console.log)" "$repro"
cat "$dest/selftest.md"
