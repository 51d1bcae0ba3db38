#!/usr/bin/env bash
# make kunit ARCH=x86_64|um|i386|arm64|s390 [VARIANT=<name>] [REV=<commit>]
#
# Build the tip of build/6.1.y/linux (or REV) with kunit.py from the kunitconfigs
# in kunit/ and the fragments in configs/, run it (QEMU for x86_64/i386,
# KVM only where a probe boot works, else TCG; arm64 and s390 (big-endian)
# cross-built with Debian's gcc-<arch>-linux-gnu and run under TCG with
# kunit.py's own QEMU configuration), keep the raw console log
# and kunit.py's JSON under out/<line>/kunit/<name>/ (or out/<line>/kunit/$RUN_NAME/),
# and judge the run with ci/ktap_check.py (failed or crashed tests, missing
# tests, kernel splats).
#
# Knobs for other scripts:
#   KUNIT_FILTER          the tests to run, as kunit.py's filter glob:
#                         suite or suite.case (iov_iter.iov_kunit_copy_to_kvec)
#   KUNIT_NO_BUILD=1      run the existing build
#   KUNIT_NO_RUN=1        build only
#   KUNIT_CONFIG_ONLY=1   only write the configuration (kunit.py config)
#   KUNIT_PRESENT_SUITES=1  expect only the manifest entries of suites the run
#                         has and of cases the source registers (per-patch
#                         runs, before a suite or a case exists)
#   KUNIT_ACCEL=tcg       never KVM (-icount needs TCG)
#   KUNIT_KERNEL_ARGS, KUNIT_QEMU_ARGS, KUNIT_TIMEOUT (KUNIT_KERNEL_ARGS comes
#                         after the seed and the smoke sizes, and wins)
#   KUNIT_SMAP=0          x86_64 under TCG: QEMU's default CPU, not -cpu max
#   RUN_NAME              output directory name under out/<line>/kunit/
#   BENCH_SMOKE_ARGS      kernel arguments given before KUNIT_KERNEL_ARGS
#                         (default: BENCH_SMOKE_DEFAULT, the benchmarks at
#                         1 MiB x 2 samples)
#   KUNIT_BUILD_DIR       build in this directory (make sendcheck's tree is not
#                         the line's), or with KUNIT_NO_BUILD=1: run the kernel built in this
#                         directory (make tuxmake boots tuxmake's build)
#   KUNIT_SEED            the seed of the randomised tests (default: derived
#                         from the tree id, so a tree always gets the same
#                         seed and a new tree a new one; 0: a random seed)
#
# A run that builds and runs a committed tree with the default arguments is
# an entry of the verdict cache (ci/verdict.sh): the tree id, the config
# fragments, the compiler and QEMU, and these scripts, lists and manifests
# make its key, and a run whose key passed before is replayed from the
# cache (NOCACHE=1 runs it).  make bench's runs, builds of a dirty tree and
# KUNIT_SEED=0 are never cached.
#
# The benchmark suite (iov_iter_bench) is in every kernel: it runs at smoke
# size unless KUNIT_KERNEL_ARGS sets its own sizes (make bench), and every
# case that passes must print a well-formed line.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$TOP/ci/verdict.sh"

ARCH=${ARCH:-x86_64}
VARIANT=${VARIANT:-}
REV=${REV:-}
name=$ARCH${VARIANT:+-$VARIANT}
repro="make$LINEOPT kunit ARCH=$ARCH${VARIANT:+ VARIANT=$VARIANT}${REV:+ REV=$REV}"

cross=$(cross_prefix "$ARCH") || die "unsupported ARCH=$ARCH (x86_64, i386, um, arm64 or s390)"
[ -d "$TREE/.git" ] || die "$TREE does not exist" "make$LINEOPT tree"

# --- The judge's inputs, before anything is built ------------------------------
# The line's manifests must exist (without one the missing-test guard
# would be off): expected-tests, and expected-tests.bench when its
# kunitconfig enables the benchmarks; an arch's or a variant's own is
# optional.
manifests=()
want=("$KUNITD/expected-tests")
if grep -qsx "CONFIG_$BENCH_KCONFIG=y" "$KUNITD"/*.kunitconfig; then want+=("$KUNITD/expected-tests.bench"); fi
for m in "${want[@]}"; do
	[ -f "$m" ] || die "the manifest $m is missing" "git -C $TOP status -- ${KUNITD#"$TOP"/}"
	manifests+=(--manifest="$m")
done
for m in "$KUNITD/expected-tests.$ARCH" ${VARIANT:+"$KUNITD/expected-tests.$VARIANT"}; do
	[ ! -f "$m" ] || manifests+=(--manifest="$m")
done
# The cases that may skip, per run, with their reasons: required, like the
# manifests (an empty list says no case may skip).
skips=$KUNITD/expected-skips
# The warnings a case must print, where the line's KUnit cannot count them
# (6.1.y): optional, and read by ci/ktap_check.py when present.
warnings=$KUNITD/expected-warnings
[ -f "$warnings" ] || warnings=
[ -f "$skips" ] || die "the expected-skips list $skips is missing" "git -C $TOP status -- ${KUNITD#"$TOP"/}"

# --- Source: the work tree's tip, or a persistent worktree at REV -------------
src=$TREE
bdir=${KUNIT_BUILD_DIR:-$LB/kunit/$name}
if [ -n "$REV" ]; then
	rev=$(tgit rev-parse -q --verify "$REV^{commit}") || die "REV=$REV is not a commit of $TREE"
	# build/rev/{linux,kunit/<name>} mirrors build/{linux,kunit/<name>}: the
	# same relative paths, so ccache (CCACHE_BASEDIR) shares the tip's objects.
	src=$LB/rev/linux
	bdir=$LB/rev/kunit/$name
	if ! git -C "$src" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		rm -rf "$src"
		tgit worktree prune
		tgit worktree add -q --detach "$src" "$rev"
	fi
	git -C "$src" checkout -q -f --detach "$rev"
	log "testing $(git -C "$src" log -1 --format='%h %s' "$rev")"
fi

outd=$OUT/kunit/${RUN_NAME:-$name}
rm -rf "$outd"
mkdir -p "$outd" "$bdir"

kargs=(--arch="$ARCH" --build_dir="$bdir" ${cross:+--cross_compile="$cross"})
cfgs=()
frags=$(config_fragments "$LINE" "$ARCH" "${VARIANT:-}") || die "missing config fragments" "$repro"
while read -r f; do
	cfgs+=(--kunitconfig="$f")
done <<< "$frags"
# Every config line must name a symbol that a Kconfig of the line's tip
# defines: kunit.py checks that "=y" lines took, but a misspelt "is not
# set" line would leave its option as it was, and a per-patch run (below)
# would drop a misspelt "=y" line with its suite.
kconfig_symbols() {
	{ git -C "$1" grep -h -E '^[[:space:]]*(menu)?config [A-Z0-9_]+' HEAD -- '*Kconfig*' || true; } |
		awk '{print $2}' | sort -u
}
kconfig_symbols "$TREE" > "$outd/kconfig-symbols.tip"
for c in "${cfgs[@]}"; do
	f=${c#--kunitconfig=}
	unknown=$(sed -n -E 's/^(# )?CONFIG_([A-Z0-9_]*)(=.*| is not set)$/\2/p' "$f" | sort -u | comm -23 - "$outd/kconfig-symbols.tip")
	[ -z "$unknown" ] || die "${f#"$TOP"/} sets ${unknown//$'\n'/ }, which no Kconfig of the line's tip defines" "$repro"
done
if [ -n "${KUNIT_PRESENT_SUITES:-}" ]; then
	# An earlier patch lacks some of the series' Kconfig symbols (the
	# benchmarks come with patch 3): kunit.py would refuse a fragment that
	# asks for them, so drop the lines of symbols this tree does not define.
	defined=$outd/kconfig-symbols
	kconfig_symbols "$src" > "$defined"
	for i in "${!cfgs[@]}"; do
		f=${cfgs[$i]#--kunitconfig=}
		awk -v d="$defined" 'BEGIN { while ((getline s < d) > 0) have[s] = 1 }
			/^CONFIG_[A-Z0-9_]+=/ { s = $0; sub(/^CONFIG_/, "", s); sub(/=.*/, "", s); if (!(s in have)) { print "# dropped: " $0; next } }
			{ print }' "$f" > "$outd/fragment-$i.kunitconfig"
		cfgs[i]=--kunitconfig=$outd/fragment-$i.kunitconfig
	done
fi
[ ${#cfgs[@]} -gt 0 ] || die "no kunitconfig in $KUNITD"

if command -v ccache >/dev/null; then
	# Paths under the checkout are hashed relative to it, so a fresh clone
	# (CI) hits the cache that an earlier clone filled.
	export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1
	cc="ccache ${cross}gcc"
else
	cc=${cross}gcc
fi
kunit=(python3 "$src/tools/testing/kunit/kunit.py")

# --- The seed, and the verdict cache ----------------------------------------------
tree_id=$(git -C "$src" rev-parse "HEAD^{tree}")
KUNIT_SEED=${KUNIT_SEED:-$((16#${tree_id:0:12} + 1))}
# The tree this run tested (make tuxmake compares only results of the same tree).
echo "$tree_id" > "$outd/tree"
vkey=
if [ "${KUNIT_NO_BUILD:-0}${KUNIT_NO_RUN:-0}${KUNIT_CONFIG_ONLY:-0}" = 000 ] && [ "$KUNIT_SEED" != 0 ] &&
	[ -z "${KUNIT_KERNEL_ARGS:-}${KUNIT_QEMU_ARGS:-}${KUNIT_ACCEL:-}${KUNIT_BUILD_DIR:-}" ] &&
	[ -z "${BENCH_SMOKE_ARGS+set}" ] && [ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ]; then
	mapfile -t vfiles < <(printf '%s\n' "${cfgs[@]#--kunitconfig=}"; find "$KUNITD" -type f | LC_ALL=C sort)
	vkey=$(verdict_key "kunit $LINE_NAME $name" "$tree_id" \
		"$(hash_files "${vfiles[@]}") present=${KUNIT_PRESENT_SUITES:-} filter=${KUNIT_FILTER:-} smap=${KUNIT_SMAP:-1} timeout=${KUNIT_TIMEOUT:-300} seed=$KUNIT_SEED smoke=$BENCH_SMOKE_DEFAULT $(accel_class)" \
		"$(toolchain_id "${cross}gcc" "${cross}as" "${cross}ld" python3 "$(qemu_bin "$ARCH")")" \
		"$(hash_files "$TOP/ci/kunit.sh" "$TOP/ci/lib.sh" "$TOP/ci/verdict.sh" "$LINED/line.conf" "$TOP/ci/ktap_check.py" \
			"$TOP/ci/bench_report.py" "$TOP/ci/kvm-probe.sh" "$TOP/ci/qemu-tcg.sh" "$TOP/ci/splat-denylist" "$TOP/ci/splat-allowlist")")
	if verdict_replay "$vkey" "kunit $name${REV:+ at $REV}" "$outd/results.tsv" "$outd"; then
		log "KUnit $name passed (replayed from the verdict cache)"
		exit 0
	fi
fi
vstart=$(date +%s)

# --- Build ---------------------------------------------------------------------
start=$(date +%s)
if [ "${KUNIT_CONFIG_ONLY:-0}" = 1 ]; then
	# Only the configuration (other scripts build a few objects with it).
	if ! (cd "$src" && "${kunit[@]}" config "${kargs[@]}" "${cfgs[@]}" \
		--make_options "CC=$cc") >"$outd/build.log" 2>&1; then
		tail -n 40 "$outd/build.log" >&2
		die "kunit config for $name failed (log: ${outd#"$TOP"/}/build.log)" "$repro"
	fi
	cp "$bdir/.config" "$outd/config"
	exit 0
elif [ "${KUNIT_NO_BUILD:-0}" = 1 ]; then
	[ -f "$bdir/.config" ] || die "KUNIT_NO_BUILD=1 but $bdir has no build" "$repro"
else
	log "building $name in ${bdir#"$TOP"/} (CC='$cc')"
	if ! (cd "$src" && "${kunit[@]}" build "${kargs[@]}" "${cfgs[@]}" \
		--make_options "CC=$cc" --jobs="$(nproc)") >"$outd/build.log" 2>&1; then
		tail -n 40 "$outd/build.log" >&2
		die "kunit build for $name failed (log: ${outd#"$TOP"/}/build.log)" "$repro"
	fi
	log "built $name in $(($(date +%s) - start)) s"
fi
cp "$bdir/.config" "$outd/config"
[ "${KUNIT_NO_RUN:-0}" != 1 ] || exit 0

# --- Run -----------------------------------------------------------------------
xargs_=()
accel=native
if [ "$ARCH" != um ]; then
	accel=tcg
	qemu=qemu-system-$ARCH
	# KUNIT_ACCEL=tcg forces TCG (-icount needs it); otherwise KVM is used
	# when a probe boot works (never for a cross-built kernel).
	if [ "${KUNIT_ACCEL:-auto}" != tcg ] && [ -z "$cross" ] &&
	   "$TOP/ci/kvm-probe.sh" "$qemu" "$bdir/arch/x86/boot/bzImage"; then
		accel=kvm
		xargs_+=(--qemu_args="-accel kvm")
	fi
fi
# Under TCG, kunit.py's QEMU gets no other accelerator (newer kunit.py
# tries KVM first): ci/qemu-tcg.sh stands in for qemu-system-<arch>.
qpath=$PATH
if [ "$accel" = tcg ]; then
	wrap=$LB/qemu-tcg
	mkdir -p "$wrap"
	ln -sfn "$TOP/ci/qemu-tcg.sh" "$wrap/$qemu"
	qpath=$wrap:$PATH
fi
# x86_64 tests run on QEMU's "max" CPU, which has SMAP: a kernel read of a
# user address through a plain pointer then oopses, as on the hardware
# users run, instead of reading user memory unnoticed (net_test_caif_ubuf).
# KUNIT_SMAP=0 keeps QEMU's default CPU (make bench: its instruction counts
# stay comparable with earlier runs).
if [ "$ARCH" = x86_64 ] && [ "$accel" = tcg ] && [ "${KUNIT_SMAP:-1}" = 1 ]; then
	xargs_+=(--qemu_args="-cpu max")
fi
xargs_+=(${KUNIT_QEMU_ARGS:+--qemu_args="$KUNIT_QEMU_ARGS"})
# Later arguments win: KUNIT_KERNEL_ARGS overrides the smoke sizes.
BENCH_SMOKE_ARGS=${BENCH_SMOKE_ARGS-$BENCH_SMOKE_DEFAULT}
for a in $BENCH_SMOKE_ARGS "$KUNIT_MOD.seed=$KUNIT_SEED" ${KUNIT_KERNEL_ARGS:-}; do xargs_+=(--kernel_args="$a"); done
log "running $name ($accel)"
start=$(date +%s)
set +e
(cd "$src" && PATH=$qpath "${kunit[@]}" exec "${kargs[@]}" "${xargs_[@]}" \
	--timeout="${KUNIT_TIMEOUT:-300}" --json="$outd/results.json" ${KUNIT_FILTER:+"$KUNIT_FILTER"}) 2>&1 |
	tee "$outd/kunit.log"
krc=${PIPESTATUS[0]}
set -e
cp "$bdir/test.log" "$outd/raw.log" 2>/dev/null || : > "$outd/raw.log"
log "ran $name in $(($(date +%s) - start)) s (kunit.py exit $krc)"

# --- Judge ---------------------------------------------------------------------
cases=
if [ -n "${KUNIT_PRESENT_SUITES:-}" ]; then
	for f in "$src/$KUNIT_SRC" "$src/$NET_KUNIT_SRC" ${KUNIT_EXTRA_SRC:+"$src/$KUNIT_EXTRA_SRC"}; do
		[ -f "$f" ] && cases=${cases:+$cases,}$f
	done
fi
rc=0
python3 "$TOP/ci/ktap_check.py" "$outd/raw.log" --kunit-dir="$src/tools/testing/kunit" \
	"${manifests[@]}" ${KUNIT_FILTER:+--filter="$KUNIT_FILTER"} \
	${KUNIT_PRESENT_SUITES:+--present-suites} \
	${cases:+--source-cases="$cases"} \
	--denylist="$TOP/ci/splat-denylist" --allowlist="$TOP/ci/splat-allowlist" \
	--expected-skips="$skips" ${warnings:+--expected-warnings="$warnings"} --run="$name" \
	--label="$name:" --results="$outd/results.tsv" || rc=1
if grep -qE '(^|[[:space:]])(not )?ok [0-9]+ bench_' "$outd/raw.log" &&
	! python3 "$TOP/ci/bench_report.py" --lines="$outd/raw.log" --label="$name:" \
		--results="$outd/results.tsv"; then
	rc=1
fi
if [ "$krc" != 0 ] && [ "$rc" = 0 ]; then
	printf 'FAIL\t%s:kunit.py\n' "$name" >> "$outd/results.tsv"
	rc=1
fi
if [ "$rc" != 0 ]; then
	die "KUnit $name failed (raw log: ${outd#"$TOP"/}/raw.log)" "$repro"
fi
log "KUnit $name passed"
if [ -n "$vkey" ]; then
	printf 'KUnit %s passed (seed %s)\n' "$name" "$KUNIT_SEED" > "$outd/verdict.out"
	mapfile -t vlogs < <(find "$outd" -maxdepth 1 -type f ! -name verdict.out)
	verdict_store "$vkey" "kunit $name${REV:+ at $REV}" "$(($(date +%s) - vstart))" "$outd/results.tsv" \
		"$outd/verdict.out" "${vlogs[@]}"
fi
