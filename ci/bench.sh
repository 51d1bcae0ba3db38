#!/usr/bin/env bash
# make bench: the iov_iter benchmarks, base against series, in one run.
#
# Two kernels: "base" is the tree at the benchmark patch (the base plus the
# tests and benchmarks, before the conversion), "series" is the tip.  Two
# modes:
#   native  the native A/B harness (ci/native-bench.sh, bench/native/): both
#           trees' lib/iov_iter.o in one process on this CPU, retpolines
#           on, the kernel's own copy routines; cycles with 95% CIs;
#   syscall ci/syscall-bench.sh: instructions per system call, a static
#           /init on both kernels under icount;
#   icount  the KUnit kernels of make kunit (the benchmarks are in every KUnit
#           configuration; the tip in build/<line>/kunit/<arch>, the base in
#           build/<line>/rev/kunit/<arch>), booted interleaved, A B A B ...,
#           under QEMU TCG with -icount shift=0,sleep=off: a guest
#           nanosecond is one instruction, so the figures are deterministic.
#           On x86_64 (mode icount) and arm64 (mode icount-arm64), where
#           most 6.1.y kernels run.
# Results: out/<line>/bench/{results.json,table.txt,table.md} (icount),
# out/<line>/bench/native/{results.json,table.md} (native) and a forest plot
# per mode, out/<line>/bench/forest-<mode>.png (icount, icount-arm64, native,
# syscall).
#
#   BENCH_BOOTS=3  BENCH_ICOUNT_MIB=16 BENCH_ICOUNT_SAMPLES=4 (icount)
#   NATIVE_ARGS=   passed to the native harness (ci/native-bench.sh)
#   BENCH_SMOKE=1  every case once at 1 MiB, both kernels, icount only, and
#                  the native harness's smoke run; checks only that each case
#                  printed a well-formed line
#   BENCH_COVER=0  do not refresh the benchmark table of the cover letter
#   BENCH_ARCHES="x86_64 arm64"  the icount arches (the smoke run: x86_64)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SMOKE=${BENCH_SMOKE:-0}
BOOTS=${BENCH_BOOTS:-3}
if [ "$SMOKE" = 1 ]; then
	BOOTS=1
	dest=$OUT/bench-smoke
else
	dest=$OUT/bench
fi
brepro="make$LINEOPT bench"
[ "$SMOKE" != 1 ] || brepro="BENCH_SMOKE=1 make$LINEOPT bench"
t0=$(date +%s)
progress() { printf '[bench %4ss] %s\n' "$(($(date +%s) - t0))" "$*"; }

bash "$TOP/ci/deps.sh"
bash "$TOP/ci/tree.sh" >/dev/null

base_rev=$(bench_base_rev || :)
[ -n "$base_rev" ] || die "no commit in base..HEAD adds CONFIG_$BENCH_KCONFIG: the benchmark patch is missing"
tip=$(tgit rev-parse HEAD)
rm -rf "$dest"
mkdir -p "$dest"

# kernel_rev KERNEL: the REV= for ci/kunit.sh ('' is the tip itself).
kernel_rev() {
	if [ "$1" = series ] || [ "$base_rev" = "$tip" ]; then
		echo ''
	else
		echo "$base_rev"
	fi
}
[ "$base_rev" != "$tip" ] || progress "the benchmark patch is the tip: base and series are the same kernel, every ratio should be about 1"

# kunit ARCH KERNEL RUN_NAME [VAR=value...]: one ci/kunit.sh call, logged.
kunit() {
	local arch=$1 kernel=$2 run=$3
	shift 3
	# The base kernel lacks the cases added after the benchmark patch.
	if ! env ARCH="$arch" VARIANT='' REV="$(kernel_rev "$kernel")" RUN_NAME="$run" \
		KUNIT_PRESENT_SUITES="$([ "$kernel" = base ] && echo 1 || :)" \
		KUNIT_FILTER=iov_iter_bench KUNIT_TIMEOUT="${BENCH_TIMEOUT:-1800}" "$@" \
		bash "$TOP/ci/kunit.sh" > "$dest/$run.log" 2>&1; then
		tail -n 30 "$dest/$run.log" >&2
		die "$run failed (log: ${dest#"$TOP"/}/$run.log)" "make$LINEOPT bench"
	fi
}

# --- Build: the KUnit kernels for icount --------------------------------------------
arches=${BENCH_ARCHES:-x86_64 arm64}
[ "$SMOKE" != 1 ] || arches=${BENCH_ARCHES:-x86_64}
modes=()
declare -A MODE_ARCH
for arch in $arches; do
	case $arch in
	x86_64) mode=icount ;;
	arm64) mode=icount-arm64 ;;
	*) die "BENCH_ARCHES: $arch is not x86_64 or arm64" ;;
	esac
	for k in base series; do
		progress "building $arch $k"
		kunit "$arch" "$k" "build-$arch-$k" KUNIT_NO_RUN=1
	done
	modes+=("$mode")
	MODE_ARCH[$mode]=$arch
done

# Code size of the step-variant walkers of the series kernel (bench_iter_*).
bench_src=${KUNIT_BENCH_SRC:-$KUNIT_SRC}
nm -S "$LB/kunit/x86_64/${bench_src%.c}.o" > "$dest/nm.txt"

# --- Run, interleaved ------------------------------------------------------------------
declare -A MIB SAMPLES
: > "$dest/runs.tsv"
for mode in "${modes[@]}"; do
	arch=${MODE_ARCH[$mode]}
	mib=${BENCH_ICOUNT_MIB:-16} samples=${BENCH_ICOUNT_SAMPLES:-4}
	[ "$SMOKE" != 1 ] || { mib=1; samples=2; }
	extra=(KUNIT_ACCEL=tcg KUNIT_SMAP=0 "KUNIT_QEMU_ARGS=-icount shift=0,sleep=off")
	MIB[$mode]=$mib SAMPLES[$mode]=$samples
	for ((i = 1; i <= BOOTS; i++)); do
		for k in base series; do
			run=$mode-$k-$i
			progress "$mode ($arch): $k kernel, boot $i of $BOOTS, $samples x $mib MiB per case"
			kunit "$arch" "$k" "bench-$run" KUNIT_NO_BUILD=1 \
				"KUNIT_KERNEL_ARGS=$KUNIT_MOD.bench_mib=$mib $KUNIT_MOD.bench_samples=$samples" \
				"${extra[@]}"
			printf '%s\t%s\t%s\t%s\n' "$mode" "$k" "$i" "$OUT/kunit/bench-$run/raw.log" >> "$dest/runs.tsv"
		done
	done
done

# --- Report ------------------------------------------------------------------------------
modespec=()
for mode in "${modes[@]}"; do
	modespec+=("$mode:${MODE_ARCH[$mode]}:${MIB[$mode]}:${SAMPLES[$mode]}")
done
python3 - "$dest/meta.json" "$base_rev" "$tip" "$BOOTS" \
	"$(tgit log -1 --format=%s "$base_rev")" "$(tgit log -1 --format=%s "$tip")" "${modespec[@]}" <<'PY'
import json, sys
(out, base, tip, boots, bsub, tsub), specs = sys.argv[1:7], sys.argv[7:]
modes = {}
for spec in specs:
    mode, arch, mi, si = spec.split(':')
    modes[mode] = {'label': f'{arch}, QEMU TCG -icount shift=0,sleep=off: 1 ns = 1 guest '
                            'instruction (deterministic)',
                   'arch': arch, 'deterministic': True, 'mib': int(mi), 'samples': int(si)}
json.dump({
    'command': 'make bench',
    'base': {'commit': base, 'subject': bsub},
    'series': {'commit': tip, 'subject': tsub},
    'same_kernel': base == tip,
    'boots': int(boots),
    'modes': modes,
}, open(out, 'w'), indent=1)
PY
# The venv's python has matplotlib (ci/requirements.txt).
report=("$TOP/build/venv/bin/python" "$TOP/ci/bench_report.py" "$dest/runs.tsv"
	--meta="$dest/meta.json" --manifest="$KUNITD/expected-tests.bench")
# The native harness and the per-syscall program compare two trees of the
# 6.1.y port and are built for its glue.  The 6.12.y series does not change
# the walkers: its figures are 6.12's own, from one kernel (base and series
# are the same), in icount only (Documentation/benchmarking.md).
ubuf_table=
if [ "$BENCH_NATIVE" = 1 ]; then
	progress "native harness"
	NATIVE_SMOKE=$SMOKE NATIVE_OUT=$dest/native bash "$TOP/ci/native-bench.sh" > "$dest/native.log" 2>&1 || {
		tail -n 30 "$dest/native.log" >&2
		die "the native harness failed (log: ${dest#"$TOP"/}/native.log)" "$brepro"
	}
	progress "per-syscall program"
	SYSCALL_SMOKE=$SMOKE bash "$TOP/ci/syscall-bench.sh" > "$dest/syscall.log" 2>&1 || {
		tail -n 30 "$dest/syscall.log" >&2
		die "the per-syscall benchmark failed (log: ${dest#"$TOP"/}/syscall.log)" "$brepro"
	}
	rm -rf "$dest/syscall"
	cp -r "$OUT/syscall$([ "$SMOKE" = 1 ] && echo -smoke)" "$dest/syscall"
	# The same program before and after the single-buffer ITER_UBUF imports.
	if [ "$SMOKE" != 1 ] && ubuf_rev=$(ubuf_base_rev); then
		progress "per-syscall program, before and after the ITER_UBUF imports"
		SYSCALL_BASE=$ubuf_rev SYSCALL_OUT=$dest/syscall-ubuf bash "$TOP/ci/syscall-bench.sh" \
			> "$dest/syscall-ubuf.log" 2>&1 || {
			tail -n 30 "$dest/syscall-ubuf.log" >&2
			die "the per-syscall benchmark of the ITER_UBUF imports failed (log: ${dest#"$TOP"/}/syscall-ubuf.log)" "$brepro"
		}
		ubuf_table=$dest/syscall-ubuf/table.md
	fi
else
	progress "$LINE_NAME: icount only (the native harness and the per-syscall program are the 6.1.y line's)"
fi
# The line's user-space benchmark, if it has one (ci/kselftest-bench.sh).
# Not at smoke size: make check's kselftest stage runs it as a test.
if [ -n "${KSELFTEST_BENCH:-}" ] && [ "$SMOKE" != 1 ]; then
	progress "user-space benchmark: $KSELFTEST_BENCH in the kselftest guest, icount"
	bash "$TOP/ci/kselftest-bench.sh" || die "the user-space benchmark failed" "$brepro"
fi
if [ "$SMOKE" = 1 ]; then
	: > "$dest/results.tsv"
	"${report[@]}" --smoke --results="$dest/results.tsv" ||
		die "a benchmark case printed no well-formed line" "$brepro"
	exit 0
fi
"${report[@]}" --sizes="$dest/nm.txt" --out="$dest" || die "the report failed" "$brepro"
# Forest plots, one per mode: each case's ratio and its 95% CI around 1,
# with the +-1% goal (ci/forest.py).
forest=("$TOP/build/venv/bin/python" "$TOP/ci/forest.py")
rm -f "$dest"/forest-*.png
for mode in "${modes[@]}"; do
	"${forest[@]}" icount "$dest/results.json" "$mode" "$dest/forest-$mode.png" ||
		die "the $mode chart failed" "build/venv/bin/python ci/forest.py icount ${dest#"$TOP"/}/results.json $mode /tmp/forest.png"
done
if [ "$BENCH_NATIVE" = 1 ]; then
	"${forest[@]}" native "$dest/native/results.json" "$dest/forest-native.png" ||
		die "the native chart failed" "build/venv/bin/python ci/forest.py native ${dest#"$TOP"/}/native/results.json /tmp/forest.png"
	"${forest[@]}" syscall "$dest/syscall/results.tsv" "$dest/forest-syscall.png" ||
		die "the per-syscall chart failed" "build/venv/bin/python ci/forest.py syscall ${dest#"$TOP"/}/syscall/results.tsv /tmp/forest.png"
fi
if [ "$BENCH_NATIVE" = 1 ] && [ "${BENCH_COVER:-1}" = 1 ]; then
	bash "$TOP/ci/cover-bench.sh" "$dest/results.json" "$dest/native/table.md" "$dest/syscall/table.md" \
		"$ubuf_table" "$dest/syscall/dax.md"
fi
if [ "$BENCH_NATIVE" = 1 ]; then
	# seed 000's case, the 4 KiB read from ext4 -o dax (ci/syscall-bench.sh)
	cat "$dest/syscall/dax.md"
fi
progress "done: ${dest#"$TOP"/}/: results.json, table.txt, table.md, forest-*.png$([ "$BENCH_NATIVE" != 1 ] || echo ', native/, syscall/')$([ -z "${KSELFTEST_BENCH:-}" ] || echo ', selftest.md')"
