# shellcheck shell=bash disable=SC2034
# Common helpers for the ci/ scripts.  Source it; do not run it.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export TOP
TREE=${TREE:-$TOP/build/linux}
PATCHES=${PATCHES:-$TOP/patches}
OUT=${OUT:-$TOP/out}

# Fixed identity and date of the reproducible base commit (used by the
# scripts that source this file).
BASE_NAME='patch-series base'
BASE_EMAIL='base@invalid'
BASE_DATE='2000-01-01T00:00:00+0000'

log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }

# die MESSAGE [REPRODUCE-COMMAND]
die() {
	printf '%s: error: %s\n' "${0##*/}" "$1" >&2
	if [ $# -gt 1 ]; then
		printf '%s: reproduce with: %s\n' "${0##*/}" "$2" >&2
	fi
	exit 1
}

# cross_prefix ARCH: the CROSS_COMPILE prefix of Debian's cross compiler
# for a kernel ARCH this host cannot build natively (empty for x86_64,
# i386 and um); fails for an ARCH the project does not build.
cross_prefix() {
	case $1 in
	x86_64|i386|um) echo ;;
	arm64) echo aarch64-linux-gnu- ;;
	s390) echo s390x-linux-gnu- ;;
	*) return 1 ;;
	esac
}

# The git used on the kernel work tree: never let the user's hooks or
# configuration change the bytes of what we generate.
tgit() { git -C "$TREE" -c core.hooksPath=/dev/null -c core.autocrlf=false "$@"; }

# Patches listed in a series file, comments and blank lines dropped.
# Patch files of a patches directory, cover letter excluded, in name order.
patch_files() {
	local f
	for f in "$1"/*.patch; do
		[ -e "$f" ] || continue
		f=${f##*/}
		[ "$f" = 0000-cover-letter.patch ] || echo "$f"
	done
}

series_list() { sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$1" | grep -v '^$' || true; }

# kunit_config ARCH DIR: DIR/.config is ARCH's KUnit configuration, made
# with kunit.py's rules, and made again when the fragments in kunit/ and
# configs/ differ from those it was made from (DIR/.fragments holds their
# checksum), so that a build directory kept across sessions does not
# measure an old configuration.
kunit_config() {
	local arch=$1 dir=$2 sum
	sum=$(cat "$TOP"/kunit/*.kunitconfig "$TOP"/configs/*.config | sha256sum | cut -c1-16)
	[ -f "$dir/.config" ] && [ "$(cat "$dir/.fragments" 2>/dev/null)" = "$sum" ] && return 0
	ARCH=$arch KUNIT_CONFIG_ONLY=1 bash "$TOP/ci/kunit.sh" >/dev/null
	mkdir -p "$dir"
	cp "$TOP/build/kunit/$arch/.config" "$dir/.config"
	echo "$sum" > "$dir/.fragments"
}

# patch_worktree WT BDIR: a detached worktree of $TREE at WT for building
# single commits, and in BDIR the x86_64 KUnit configuration (every file of
# the series is built in it).
patch_worktree() {
	local wt=$1 bdir=$2
	mkdir -p "$bdir"
	if ! git -C "$wt" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		rm -rf "$wt"
		tgit worktree prune
		tgit worktree add -q --detach "$wt" base
	fi
	[ -f "$bdir/.config" ] || kunit_config x86_64 "$bdir"
}

# benchcfg WT BDIR: the patchcheck configuration also builds the benchmark
# code (CONFIG_IOV_ITER_BENCH_KUNIT_TEST, default n), so that W=1 and sparse see
# it.  Re-enabled at every commit: olddefconfig drops the symbol at commits
# that do not have it yet.
benchcfg() {
	"$1/scripts/config" --file "$2/.config" --enable IOV_ITER_BENCH_KUNIT_TEST
}
