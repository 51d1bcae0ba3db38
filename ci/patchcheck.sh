#!/usr/bin/env bash
# make patchcheck: per-patch checks of base..HEAD of build/6.1.y/linux, as a
# maintainer's bot would run them.  For each patch:
#   checkpatch  scripts/checkpatch.pl --strict --codespell on the patch
#               (types listed for its subject in ci/<line>/checkpatch-exceptions are accepted);
#   commit-ids  the form of the message's commit references, which a tree
#               without upstream history does not check (checkpatch's
#               GIT_COMMIT_ID, run with no repository);
#   build       the objects of the .c files the patch touches, with W=1 and
#               sparse (C=2), before and after the patch: new diagnostics fail,
#               and so does any error (a file that does not compile);
#   kernel-doc  scripts/kernel-doc -none on the touched .c/.h files: new
#               warnings fail;
#   build-um, build-i386, build-arm64  the touched .c files and the
#               series' own objects (lib/iov_iter.o,
#               net/core/{datagram,skbuff}.o, the KUnit files) built for
#               UML, i386 HIGHMEM and arm64 (cross, Debian's
#               gcc-aarch64-linux-gnu) with their KUnit configurations
#               (plus USB gadget support, driverscfg in ci/lib.sh): a patch
#               must build on each; ci/6.1.y/arch-only lists the files an arch's
#               Kconfig rules out.
# With PATCHCHECK_KUNIT=1 the KUnit suite also runs (x86_64) at every patch
# that changes a compiled file, Kconfig or Makefile; PATCHCHECK_KUNIT=only
# runs nothing else, at every patch but the tip (the kunit-x86_64 stage's),
# with results in out/<line>/patch-kunit/ (the full tier's patch-kunit
# stage: a per-patch suite rebuilds most of the kernel when the patch
# changes <linux/uio.h>, which the cold CI budget cannot pay for every
# patch; Documentation/testing.md).
# With PATCHCHECK_BUILD=0 only checkpatch and kernel-doc run (no builds,
# no KUnit).
# PATCHCHECK_FROM=<rev> checks only the patches after <rev>.
# Each patch's checks are one entry of the verdict cache (ci/verdict.sh,
# patch_key below): a patch whose inputs passed before is replayed, not
# checked again (NOCACHE=1 checks it).
# Results: out/<line>/patchcheck/results.tsv and one log per patch and check.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$TOP/ci/verdict.sh"

KMODE=${PATCHCHECK_KUNIT:-0}
case $KMODE in
0|1) res=$OUT/patchcheck ;;
only) res=$OUT/patch-kunit ;;
*) die "PATCHCHECK_KUNIT=$KMODE: 0, 1 or only" ;;
esac
BMODE=${PATCHCHECK_BUILD:-1}
case $BMODE in
0|1) ;;
arches)
	# The full tier's patch-builds stage: the per-patch builds of the
	# arches make check leaves out (PATCHCHECK_FULL_ARCHES in line.conf),
	# nothing else.
	[ "$KMODE" = 0 ] || die "PATCHCHECK_BUILD=arches runs no KUnit: PATCHCHECK_KUNIT=0"
	[ -n "${PATCHCHECK_FULL_ARCHES:-}" ] || die "ci/$LINE_NAME/line.conf sets no PATCHCHECK_FULL_ARCHES"
	PATCHCHECK_ARCHES=$PATCHCHECK_FULL_ARCHES
	res=$OUT/patch-builds ;;
*) die "PATCHCHECK_BUILD=$BMODE: 1, 0 or arches" ;;
esac
wt=$LB/patchcheck/linux
bdir=$LB/patchcheck/kunit/x86_64
venv=$TOP/build/venv
[ -d "$TREE/.git" ] || die "$TREE does not exist" "make$LINEOPT tree"
rm -rf "$res"
mkdir -p "$res" "$bdir"
: > "$res/results.tsv"
export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1
kmake=(make -s -C "$wt" O="$bdir" ARCH=x86_64 "CC=ccache gcc" -j"$(nproc)")


# result STATUS NAME [DETAIL]: one result of the patch being checked.
result() { printf '%s\t%s\n' "$1" "$2" >> "$res/$tag.results"; printf '%-4s %s%s\n' "$1" "$2" "${3:+: $3}"; }

# diags REV FILES...: W=1 + sparse diagnostics of FILES' objects at REV,
# with line and column numbers dropped so that moved lines compare equal.
# Results are cached per commit and file: a patch's "before" is usually the
# previous patch's "after".
diags() {
	local rev f key
	rev=$(tgit rev-parse "$1")
	shift
	mkdir -p "$res/diag-cache"
	for f in "$@"; do
		key=$res/diag-cache/$rev-${f//\//_}
		if [ ! -f "$key" ]; then
			git -C "$wt" checkout -q -f --detach "$rev"
			benchcfg "$wt" "$bdir"
			driverscfg "$wt" "$bdir"
			"${kmake[@]}" olddefconfig >/dev/null 2>&1
			if [ -f "$wt/$f" ]; then
				local mrc=0
				"${kmake[@]}" W=1 C=2 "${f%.c}.o" > "$key.log" 2>&1 || mrc=$?
				diag_lines "$key.log" "$mrc" "$f" "${wt##*/}" > "$key"
			else
				: > "$key"
			fi
		fi
		cat "$key"
	done | sort
}

# kdoc REV FILES...: kernel-doc warnings of FILES at REV, without line numbers.
kdoc() {
	local rev=$1 f
	shift
	git -C "$wt" checkout -q -f --detach "$rev"
	for f in "$@"; do
		if [ -f "$wt/$f" ]; then
			(cd "$wt" && ./scripts/kernel-doc -none "$f" 2>&1) || true
		fi
	done | sed -E 's#:[0-9]+:#:#' | sort
}

# arch_can_build ARCH FILE: false if ci/6.1.y/arch-only limits FILE to other arches.
arch_can_build() {
	local prefix arches _
	while IFS=$'\t' read -r prefix arches _; do
		case $prefix in ''|'#'*) continue ;; esac
		if [ "${2#"$prefix"}" != "$2" ]; then
			[[ " ${arches//,/ } " == *" $1 "* ]]
			return
		fi
	done < "$LINED/arch-only"
	return 0
}

# in_kunit_kernel < FILES (one per line): true unless every file is a .c file whose object
# the x86_64 KUnit kernel of the previous per-patch run (build/rev) does not
# contain, so that the patch cannot change what the suite runs.  Headers,
# Kconfig and Makefiles always count.
in_kunit_kernel() {
	local f kb=$LB/rev/kunit/x86_64
	[ -f "$kb/vmlinux" ] || return 0
	while read -r f; do
		case $f in
		*.c) [ -f "$kb/${f%.c}.o" ] && return 0 ;;
		*.h|*.S|*Kconfig*|*Makefile|*Kbuild) return 0 ;;
		esac
	done
	return 1
}

# xbuild ARCH: build, at the worktree's commit, the objects that prove a
# patch builds on ARCH (its .c files and the series' own objects), in
# build/patchcheck/kunit/ARCH with ARCH's KUnit configuration.
xbuild() {
	local arch=$1 b=$LB/patchcheck/kunit/$1 f objs=()
	kunit_config "$arch" "$b"
	for f in $cfiles lib/iov_iter.c net/core/datagram.c net/core/skbuff.c \
		"$KUNIT_SRC" "$NET_KUNIT_SRC" ${KUNIT_EXTRA_SRC:+"$KUNIT_EXTRA_SRC"}; do
		[ -f "$wt/$f" ] || continue
		if ! arch_can_build "$arch" "$f"; then
			echo "skipped $f: not buildable on $arch (ci/$LINE_NAME/arch-only)"
			continue
		fi
		objs+=("${f%.c}.o")
	done
	local cross
	cross=$(cross_prefix "$arch")
	local xmake=(make -s -C "$wt" O="$b" ARCH="$arch" ${cross:+CROSS_COMPILE=$cross}
		"CC=ccache ${cross}gcc" -j"$(nproc)")
	mapfile -t objs < <(printf '%s\n' "${objs[@]}" | sort -u)
	driverscfg "$wt" "$b"
	"${xmake[@]}" olddefconfig
	"${xmake[@]}" "${objs[@]}"
}

# start_arch_builds: xbuild of every arch of PATCHCHECK_ARCHES, side by side
# in the background (each in its own build directory), from the worktree,
# which the caller has checked out at $c and keeps there until they are done.
start_arch_builds() {
	local arch
	for arch in $PATCHCHECK_ARCHES; do
		(
			t=$(date +%s) rc=0
			xbuild "$arch" > "$res/$tag.build-$arch" 2>&1 || rc=$?
			echo "$rc $(($(date +%s) - t))" > "$res/$tag.build-$arch.rc"
		) &
	done
}

# arch_results: a result per arch of the builds start_arch_builds started
# (after a wait).
arch_results() {
	local arch rc t
	for arch in $PATCHCHECK_ARCHES; do
		read -r rc t < "$res/$tag.build-$arch.rc" || { rc=1; t='?'; }
		if [ "$rc" = 0 ]; then
			result PASS "patch$tag:build-$arch" "$t s (beside the other checks)"
		else
			result FAIL "patch$tag:build-$arch" "$(grep -m1 -E 'error' "$res/$tag.build-$arch" || echo "see ${res#"$TOP"/}/$tag.build-$arch")"
		fi
	done
}

# arch_builds: the PATCHCHECK_BUILD=arches mode's one check, the builds.
arch_builds() {
	git -C "$wt" checkout -q -f --detach "$c"
	start_arch_builds
	wait
	arch_results
}

# check_patch: every check of patch $c (number $tag, subject $subj), its
# results in $res/$tag.results (the loop below adds them to results.tsv).
check_patch() {
	local files cfiles docfiles ign kd_new new arch t rc
	files=$(tgit diff-tree --no-commit-id --name-only -r "$c")
	# Kernel objects only: a user-space program under tools/ (a
	# kselftest) is built by its own Makefile (make kselftest).
	cfiles=$(grep -E '\.c$' <<<"$files" | grep -vE '^(tools|scripts|usr)/' || true)
	# A header-only change is compiled through the file the series is about.
	if grep -qE '\.h$' <<<"$files" && ! grep -qx lib/iov_iter.c <<<"$cfiles"; then
		cfiles=$(printf '%s\n' "$cfiles" lib/iov_iter.c | grep .)
	fi
	docfiles=$(grep -E '\.[ch]$' <<<"$files" || true)
	[ "$KMODE" != only ] || { kunit_patch; return 0; }

	local build=$BMODE
	# Whatever stops this patch's checks, its background jobs finish
	# before the next patch checks out another commit in the worktree.
	trap wait EXIT
	[ "$build" != arches ] || { arch_builds; return 0; }
	# At the parent: what kernel-doc and W=1 + sparse compare with (the
	# diagnostics are usually the previous patch's "after", cached).  These
	# are the only steps that check out another commit.
	if [ -n "$docfiles" ]; then
		# shellcheck disable=SC2086
		kdoc "$c^" $docfiles > "$res/$tag.kdoc-before"
	fi
	if [ "$build" = 1 ] && [ -n "$cfiles" ]; then
		# shellcheck disable=SC2086
		diags "$c^" $cfiles > "$res/$tag.before"
	fi

	# From here on the checkout stays at the patch.  checkpatch and the
	# other architectures' builds (each in its own build directory) run in
	# the background while kernel-doc and x86_64's W=1 + sparse run here:
	# the serial parts of each (perl, kbuild's start-up and configuration)
	# overlap the compiling of the others.
	git -C "$wt" checkout -q -f --detach "$c"
	ign=$(awk -F'\t' -v s="$subj" '$0 !~ /^#/ && NF >= 3 && ($1 == s || $1 == "*") {print $2}' "$CP_EXCEPTIONS" | paste -sd, -)
	(
		rc=0
		tgit format-patch -1 --stdout "$c" | (cd "$wt" && PATH=$venv/bin:$PATH ./scripts/checkpatch.pl \
			--strict --codespell --no-signoff --show-types ${ign:+--ignore "$ign"} -q -) > "$res/$tag.checkpatch" 2>&1 || rc=$?
		echo "$rc" > "$res/$tag.checkpatch.rc"
		# The form of its commit references.  In a tree without upstream
		# history checkpatch looks no id up (UNKNOWN_COMMIT_ID), and so
		# never says GIT_COMMIT_ID, the error a maintainer's tree gives
		# for a reference not in the form 'commit <id> ("<subject>")'.
		# With no repository at all it takes every id as known and checks
		# the form alone.  Stable's own lines, "commit <full id>
		# upstream." and "[ Upstream commit <full id>", are their form.
		# The message alone (up to the "---" before the diffstat): the
		# references are there, and checkpatch then reads 50 lines, not
		# the whole diff.
		tgit format-patch -1 --stdout "$c" > "$res/$tag.patch"
		sed -i '/^---$/,$d' "$res/$tag.patch"
		rc=0
		(cd "$wt" && GIT_DIR=/nonexistent ./scripts/checkpatch.pl --terse --no-summary --strict \
			--no-signoff --show-types --types GIT_COMMIT_ID -q "$res/$tag.patch") > "$res/$tag.commit-ids.raw" 2>&1 || rc=$?
		# 0: no finding, 1: findings; anything else: checkpatch failed.
		if [ "$rc" -gt 1 ]; then
			echo "checkpatch failed (exit $rc): $(tail -n1 "$res/$tag.commit-ids.raw")" > "$res/$tag.commit-ids"
		else
			grep -o '^[^:]*:[0-9]*: ERROR:GIT_COMMIT_ID' "$res/$tag.commit-ids.raw" | cut -d: -f2 |
			while read -r n; do
				l=$(sed -n "${n}p" "$res/$tag.patch")
				grep -qE '^commit [0-9a-f]{40} upstream\.$|^\[ Upstream commit [0-9a-f]{40}' <<< "$l" ||
					echo "line $n: $l"
			done > "$res/$tag.commit-ids"
		fi
	) &
	[ "$build" != 1 ] || start_arch_builds
	if [ -n "$docfiles" ]; then
		# shellcheck disable=SC2086
		kdoc "$c" $docfiles > "$res/$tag.kdoc-after"
	fi
	if [ "$build" = 1 ] && [ -n "$cfiles" ]; then
		# shellcheck disable=SC2086
		diags "$c" $cfiles > "$res/$tag.after"
	fi
	wait

	# checkpatch
	if [ "$(cat "$res/$tag.checkpatch.rc" 2>/dev/null)" = 0 ]; then
		result PASS "patch$tag:checkpatch" "$subj"
	else
		result FAIL "patch$tag:checkpatch" "$(grep -cE '^(ERROR|WARNING|CHECK)' "$res/$tag.checkpatch") finding(s), see ${res#"$TOP"/}/$tag.checkpatch"
	fi

	# the form of the commit references
	if [ -s "$res/$tag.commit-ids" ]; then
		result FAIL "patch$tag:commit-ids" "not in the form 'commit <id> (\"<subject>\")': $(head -n1 "$res/$tag.commit-ids") (see ${res#"$TOP"/}/$tag.commit-ids)"
	else
		result PASS "patch$tag:commit-ids" "$subj"
	fi

	# kernel-doc: new warnings
	if [ -n "$docfiles" ]; then
		kd_new=$(comm -13 "$res/$tag.kdoc-before" "$res/$tag.kdoc-after" | grep . || true)
		if [ -n "$kd_new" ]; then
			printf '%s\n' "$kd_new" > "$res/$tag.kernel-doc"
			result FAIL "patch$tag:kernel-doc" "$(head -n1 "$res/$tag.kernel-doc")"
		else
			result PASS "patch$tag:kernel-doc" "$(wc -w <<<"$docfiles") file(s)"
		fi
	fi

	[ "$build" = 1 ] || return 0

	# The other architectures: does it build?
	arch_results

	# W=1 + sparse: new diagnostics, or an error
	if [ -n "$cfiles" ]; then
		new=$(comm -13 "$res/$tag.before" "$res/$tag.after")
		if grep -qE ': (fatal )?error:' "$res/$tag.after"; then
			# A file that does not compile at all would show the same
			# error before and after: an error fails on its own.
			result FAIL "patch$tag:w1-sparse" "does not compile: $(grep -m1 -E ': (fatal )?error:' "$res/$tag.after")"
		elif [ -n "$new" ]; then
			printf '%s\n' "$new" | sed 's/^/>> /' > "$res/$tag.new"
			result FAIL "patch$tag:w1-sparse" "$(wc -l < "$res/$tag.new") new diagnostic(s): $(head -n1 "$res/$tag.new")"
		else
			result PASS "patch$tag:w1-sparse" "$(wc -w <<<"$cfiles") file(s), no new W=1/sparse diagnostics"
		fi
	fi

	[ "$KMODE" != 1 ] || kunit_patch
}

# kunit_patch: KUnit (x86_64) at patch $c, where it changes what is
# compiled (a patch of documentation alone cannot change a result).  The
# tip is tested in the tip's own build directory, which kunit-x86_64
# reuses, rather than rebuilt in build/rev.
kunit_patch() {
	local t
	[ "$KMODE" != only ] || [ "$c" != "$(tgit rev-parse HEAD)" ] || return 0
	{
		if ! grep -qE '\.(c|h|S)$|(^|/)(Kconfig[^/]*|Makefile|Kbuild)$' <<<"$files"; then
			printf 'SKIP\tpatch%s:kunit-x86_64\n' "$tag" >> "$res/$tag.results"
			echo "SKIP patch$tag:kunit-x86_64: no compiled file changed"
		elif ! in_kunit_kernel <<<"$files"; then
			# Drivers the KUnit kernel does not contain (sound, hfi1,
			# the USB gadgets): their patch builds above, and cannot
			# change what the suite runs.
			printf 'SKIP\tpatch%s:kunit-x86_64\n' "$tag" >> "$res/$tag.results"
			echo "SKIP patch$tag:kunit-x86_64: none of its files is in the KUnit kernel"
		elif ! tgit cat-file -e "$c:$KUNIT_SRC" 2>/dev/null; then
			# The fixes come before the tests: their tests run from
			# the test patch on, and with the fix undone in ci/6.1.y/mutations.
			printf 'SKIP\tpatch%s:kunit-x86_64\n' "$tag" >> "$res/$tag.results"
			echo "SKIP patch$tag:kunit-x86_64: the KUnit suites come later in the series"
		elif t=$(date +%s) && REV=$([ "$c" = "$(tgit rev-parse HEAD)" ] || echo "$c") \
			ARCH=x86_64 VARIANT='' RUN_NAME=patch$tag KUNIT_PRESENT_SUITES=1 \
			bash "$TOP/ci/kunit.sh" > "$res/$tag.kunit" 2>&1; then
			result PASS "patch$tag:kunit-x86_64" "built and ran in $(($(date +%s) - t)) s"
		else
			result FAIL "patch$tag:kunit-x86_64" "see ${res#"$TOP"/}/$tag.kunit"
		fi
	}
}

# patch_key: the verdict-cache key of patch $c's checks (ci/verdict.sh):
# its tree and its parent's (the "before" of W=1 and kernel-doc), its
# message (checkpatch reads it) and number (the results carry it); the
# fragments and settings every per-patch build merges; the compilers,
# sparse, codespell and QEMU; the scripts and lists the checks read.
patch_key() {
	local trees cfg cfgs tools scripts
	trees="$(tgit rev-parse "$c^{tree}" "$c^^{tree}" | paste -sd' ' -) $tag $(tgit log -1 --format='%an <%ae>%n%B' "$c" | sha256sum | cut -c1-16)"
	mapfile -t cfgs < <(find "$KUNITD" "$TOP/configs" -type f | LC_ALL=C sort)
	cfg=$(hash_files "${cfgs[@]}")
	cfg="$cfg arches=$PATCHCHECK_ARCHES kconfig=$PATCHCHECK_KCONFIG bench=$BENCH_KCONFIG build=$BMODE kunit=$KMODE"
	# What the per-patch KUnit runs depend on (ci/kunit.sh's knobs).
	[ "$KMODE" = 0 ] || cfg="$cfg filter=${KUNIT_FILTER:-} smap=${KUNIT_SMAP:-1} timeout=${KUNIT_TIMEOUT:-300} seed=${KUNIT_SEED:-tree} kargs=${KUNIT_KERNEL_ARGS:-} qargs=${KUNIT_QEMU_ARGS:-} smoke=${BENCH_SMOKE_ARGS-default} $(accel_class)"
	tools=$(toolchain_id gcc as ld aarch64-linux-gnu-gcc aarch64-linux-gnu-as aarch64-linux-gnu-ld \
		sparse perl python3 "$venv/bin/codespell" qemu-system-x86_64)
	scripts=$(hash_files "$TOP/ci/patchcheck.sh" "$TOP/ci/lib.sh" "$TOP/ci/verdict.sh" "$LINED/line.conf" "$TOP/ci/kunit.sh" \
		"$TOP/ci/ktap_check.py" "$TOP/ci/kunit_kconfig.py" "$TOP/ci/kvm-probe.sh" "$TOP/ci/splat-denylist" \
		"$TOP/ci/splat-allowlist" "$CP_EXCEPTIONS" "$LINED/arch-only")
	verdict_key "patchcheck $LINE_NAME" "$trees" "$cfg" "$tools" "$scripts"
}

# Every exception names a patch the series has (or "*"): one keyed by a
# subject that is gone would silently accept nothing, or the wrong patch.
[ -f "$CP_EXCEPTIONS" ] || die "$CP_EXCEPTIONS is missing"
while IFS=$'\t' read -r s _; do
	case $s in ''|'#'*|'*') continue ;; esac
	tgit log --format=%s base..HEAD | grep -xF -- "$s" >/dev/null ||
		die "${CP_EXCEPTIONS#"$TOP"/} names a patch the series does not have: $s" "make$LINEOPT patchcheck"
done < "$CP_EXCEPTIONS"

# PATCHCHECK_FROM=<rev>: check only the patches after <rev> (numbered as in
# the whole series), e.g. new commits on top of it.
n=0 checked=0 replayed=0 prepared=0
from=$(tgit rev-parse "${PATCHCHECK_FROM:-base}")
for c in $(tgit rev-list --reverse base..HEAD); do
	n=$((n + 1))
	tgit merge-base --is-ancestor "$c" "$from" && [ "$c" != "$(tgit rev-parse base)" ] && continue
	checked=$((checked + 1))
	subj=$(tgit log -1 --format=%s "$c")
	tag=$(printf '%04d' "$n")
	printf '\n--- patch %s: %s\n' "$tag" "$subj"
	key=$(patch_key)
	if verdict_replay "$key" "patch$tag" "$res/results.tsv" "$res"; then
		replayed=$((replayed + 1))
		continue
	fi
	t0=$(date +%s)
	if [ "$prepared" = 0 ] && [ "$KMODE" != only ]; then
		# The worktree and the configuration, at the first patch that
		# is not replayed.
		kunit_config x86_64 "$bdir"
		patch_worktree "$wt" "$bdir"
		prepared=1
	fi
	: > "$res/$tag.results"
	# In a subshell with errexit on: called from "if", a function runs
	# with errexit off, and a failed checkout or git command would
	# then compare the wrong tree and still pass.
	set +e
	(set -e; check_patch) > "$res/$tag.out" 2>&1
	rc=$?
	set -e
	if [ "$rc" != 0 ]; then
		echo "patchcheck: the checks of patch $tag stopped early (exit $rc)" >> "$res/$tag.out"
		printf 'FAIL\tpatch%s:patchcheck\n' "$tag" >> "$res/$tag.results"
	fi
	cat "$res/$tag.out"
	cat "$res/$tag.results" >> "$res/results.tsv"
	mapfile -t logs < <(find "$res" -maxdepth 1 -name "$tag.*" ! -name "$tag.results" ! -name "$tag.out")
	verdict_store "$key" "patch$tag" "$(($(date +%s) - t0))" "$res/$tag.results" "$res/$tag.out" "${logs[@]}"
done
[ "$prepared" = 0 ] || git -C "$wt" checkout -q -f --detach base

echo "patchcheck: $checked of $n patches checked ($replayed replayed from the verdict cache), $(grep -c '^PASS' "$res/results.tsv") checks passed, $(grep -c '^FAIL' "$res/results.tsv" || true) failed"
! grep -q '^FAIL' "$res/results.tsv" || die "a per-patch check failed (logs: ${res#"$TOP"/}/)" "make$LINEOPT patchcheck"
