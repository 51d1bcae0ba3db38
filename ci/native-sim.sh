#!/usr/bin/env bash
# make native-sim: one case of the native harness (bench/native/) under a
# software PMU, valgrind's cache and branch simulators, for each side and
# several link layouts, so that a row of the native table that differs
# starts from per-function and per-instruction counts instead of a guess.
# The simulators model a CPU (their caches, a simple branch predictor); they
# are not this host's, and they give the same counts on any host: they name
# candidates, which the native harness then confirms or refutes.
#
#   SIM_CASE=iovec_to_512   the case (a name of the native table; required)
#   SIM_CALLS=2000          calls per run (SIM_SMOKE=1: 20, and the report
#                           goes to out/<line>/native-sim-smoke/<case>/)
#   SIM_LAYOUTS=4           link layouts s1..sN (ci/native-bench.sh builds them)
#   SIM_ARGS='--retpoline=on --rethunk=none'   the mitigations the objects run
#                           with (default: the family 0x1a machine's of the
#                           2026-11-24 table); the simulated CPU is valgrind's,
#                           so they are given, never detected
#
# For each layout and side (a, the base; b, the series):
#   cachegrind --cache-sim=yes --branch-sim=yes, with N and 2N calls: cg_diff
#     of the two is N calls' worth, per function, start-up cancelled;
#   callgrind --cache-sim=yes --branch-sim=yes --dump-instr=yes
#     --collect-jumps=yes --toggle-collect=sim_region: the same, per
#     instruction, collected only inside the calls.
# ci/native_sim.py turns them into out/<line>/native-sim/<case>/report.md:
# per call and side, the totals and each function's counts, and the
# instructions whose counts differ most, disassembled.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

case=${SIM_CASE:-}
[ -n "$case" ] || die "SIM_CASE= names the case to simulate (a row of the native table, e.g. iovec_to_512)" \
	"make native-sim SIM_CASE=iovec_to_512"
case $case in *[!a-z0-9_]*) die "SIM_CASE=$case: a case name is lower-case letters, digits and _" ;; esac
calls=${SIM_CALLS:-2000}
[ "${SIM_SMOKE:-0}" = 1 ] && calls=${SIM_CALLS:-20}
nl=${SIM_LAYOUTS:-4}
[ "${SIM_SMOKE:-0}" = 1 ] && nl=${SIM_LAYOUTS:-1}
case $calls$nl in *[!0-9]*) die "SIM_CALLS=$calls and SIM_LAYOUTS=$nl must be numbers" ;; esac
if [ "$calls" -lt 1 ] || [ "$nl" -lt 1 ]; then
	die "SIM_CALLS and SIM_LAYOUTS must be 1 or more"
fi
# shellcheck disable=SC2206 # SIM_ARGS is a list of options
simargs=(${SIM_ARGS:---retpoline=on --rethunk=none})
repro="SIM_CASE=$case SIM_CALLS=$calls SIM_LAYOUTS=$nl SIM_ARGS='${simargs[*]}' make$LINEOPT native-sim"
command -v valgrind >/dev/null || die "valgrind is not installed" "make deps"

# (the smoke run writes elsewhere: make check-full must not overwrite the
# report of a real run)
dest=$OUT/native-sim/$case
[ "${SIM_SMOKE:-0}" = 1 ] && dest=$OUT/native-sim-smoke/$case
rm -rf "$dest"
mkdir -p "$dest/raw"
NATIVE_BUILD_ONLY=1 NATIVE_LAYOUTS=$nl bash "$TOP/ci/native-bench.sh" > "$dest/build.log" 2>&1 || {
	tail -n 20 "$dest/build.log" >&2
	die "building the native harness failed (log: ${dest#"$TOP"/}/build.log)" "NATIVE_BUILD_ONLY=1 NATIVE_LAYOUTS=$nl make$LINEOPT native"
}
WD=$LB/native/prod
cp "$OUT/native/trees.tsv" "$dest/trees.tsv" 2>/dev/null || :

# The simulated caches are given, so that no host's (valgrind reads the
# host's by CPUID otherwise) changes a count: 32 KiB 8-way L1s and a 32 MiB
# 16-way last level, 64-byte lines.
caches=("--I1=32768,8,64" "--D1=32768,8,64" "--LL=33554432,16,64")

# run TOOL OUTFILE LOG LAYOUT SIDE N [valgrind options...]
run() {
	local tool=$1 out=$2 lg=$3 l=$4 side=$5 n=$6
	shift 6
	local cmd=(valgrind -q --tool="$tool" --smc-check=all --cache-sim=yes --branch-sim=yes "${caches[@]}"
		"--$tool-out-file=$out" "$@" "$WD/native-bench.$l" --smoke "${simargs[@]}"
		--sim="$n" --sim-side="$side" --only="$case")
	if ! "${cmd[@]}" > "$lg" 2>&1 || ! grep -q "^# sim: $case, side $side" "$lg"; then
		tail -n 20 "$lg" >&2
		die "$tool on layout $l, side $side failed (log: ${lg#"$TOP"/})" "${cmd[*]#"$TOP"/}"
	fi
}

for ((s = 1; s <= nl; s++)); do
	l=s$s
	for side in a b; do
		r=$dest/raw/$l.$side
		log "layout $l, side $side: cachegrind ($calls and $((2 * calls)) calls), callgrind ($calls)"
		run cachegrind "$r.cg1" "$r.cg1.log" "$l" "$side" "$calls"
		run cachegrind "$r.cg2" "$r.cg2.log" "$l" "$side" "$((2 * calls))"
		cg_diff "$r.cg1" "$r.cg2" > "$r.cgd" || die "cg_diff failed" "cg_diff ${r#"$TOP"/}.cg1 ${r#"$TOP"/}.cg2"
		run callgrind "$r.clg" "$r.clg.log" "$l" "$side" "$calls" \
			--dump-instr=yes --collect-jumps=yes --toggle-collect=sim_region
	done
done
python3 "$TOP/ci/native_sim.py" --case="$case" --calls="$calls" --layouts="$nl" \
	--bin-dir="$WD" --args="${simargs[*]}" "$dest" ||
	die "the simulation report failed (the whole run: $repro)" "python3 ci/native_sim.py --case=$case --calls=$calls --layouts=$nl --bin-dir=${WD#"$TOP"/} ${dest#"$TOP"/}"
log "report: ${dest#"$TOP"/}/report.md"
