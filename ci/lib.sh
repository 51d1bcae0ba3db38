# shellcheck shell=bash disable=SC2034
# Common helpers for the ci/ scripts.  Source it; do not run it.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export TOP
# The same locale on every host: the messages the scripts match (gcc's
# "error:", kunit.py's, apt's), sort and comm orders, and the decimal point
# of printf do not follow the user's.  (Python keeps UTF-8: C.UTF-8.)
export LC_ALL=C.UTF-8
unset LANGUAGE

# The product's lines, each a series against its own base.  A line is a
# directory of the same name under each top-level directory:
#   ci/<line>/line.conf  its settings (sourced below) and ci/<line>/ its
#                        data: mutations, checkpatch exceptions, note
#                        templates, the ABI tail, the expected conflicts
#   patches/<line>/      the series, BASE, VERSION, cover letter, .b4-config
#   kunit/<line>/        its kunitconfig and the manifests of its cases
#   configs/<line>/      its own config fragments (optional), merged after
#                        the shared ones in configs/
#   MAINTAINERS-notes/<line>, Documentation/<line>/
#   build/<line>/, out/<line>/   its work tree, builds and results (ignored)
# A line is named on the command line by its directory's name without
# ".y" (LINE=6.1, LINE=6.12); LINES lists them, from ci/*/line.conf.
# line_dir LINE KIND gives a line's directory of a kind, so that a script
# of one line can name another line's files.
LINES=$(for f in "$TOP"/ci/*/line.conf; do f=${f%/line.conf}; f=${f##*/}; echo "${f%.y}"; done | sort -V | paste -sd' ' -)
DEFAULT_LINE=6.1
# LINE_GIVEN: the line the caller named, if any (make check runs every
# line unless one is named), without .y as LINE (6.1.y and 6.1 are one
# line, and one run's target).
LINE_GIVEN=${LINE:-}
LINE_GIVEN=${LINE_GIVEN%.y}
LINE=${LINE:-$DEFAULT_LINE}
LINE=${LINE%.y}
# line_name LINE: the line's directory name (6.1 -> 6.1.y).
line_name() {
	local n
	for n in "$1.y" "$1"; do
		[ -f "$TOP/ci/$n/line.conf" ] && { echo "$n"; return 0; }
	done
	printf '%s: error: unknown LINE=%s (lines: %s; each is a directory ci/<line>/ with a line.conf)\n' \
		"${0##*/}" "$1" "$LINES" >&2
	return 1
}
line_dir() {
	local n
	n=$(line_name "$1") || return 1
	case $2 in
	# Results go under the OUT a run of every line was given (make check
	# and make tuxmake on a scratch directory in the self-tests).
	out) echo "$OUT_ALL/$n" ;;
	kunit) if [ "$n" = "${LINE_NAME:-}" ]; then echo "$KUNITD"; else echo "$TOP/kunit/$n"; fi ;;
	build|patches|configs|ci|Documentation|MAINTAINERS-notes) echo "$TOP/$2/$n" ;;
	*) return 1 ;;
	esac
}
# LINE_NAME: the line's name in subjects, Message-Ids, tags and directory
# names; LB: its build directory; KUNITD: its kunitconfigs and manifests;
# LINED: its data in ci/.
LINE_NAME=$(line_name "$LINE") || exit 1
LB=$TOP/build/$LINE_NAME
# KUNITD may be given (the self-tests point it at a scratch copy).
KUNITD=${KUNITD:-$TOP/kunit/$LINE_NAME}
LINED=$TOP/ci/$LINE_NAME
TREE=${TREE:-$LB/linux}
OUT_GIVEN=${OUT:-}
PATCHES=${PATCHES:-$TOP/patches/$LINE_NAME}
OUT=${OUT:-$TOP/out/$LINE_NAME}
# The results of the runs that cover every line (make check, plan, kcidb).
OUT_ALL=${OUT_GIVEN:-$TOP/out}
BENCH_NATIVE=0 DIVERGENCE_MAX=${DIVERGENCE_MAX:-} SRC_SUITE='' BASE_VERSION=''
BASE_COMMIT_PUBLIC=${BASE_COMMIT_PUBLIC:-yes}
KSELFTEST_TARGETS='' MBOX_PREFIX='' REACH_CHECK=0
# ASSISTED_BY: the Assisted-by: trailer make mbox gives every patch of
# ours (Documentation/process/coding-assistants.rst: "LLM" and the
# analysis tools used); a line.conf names its own tools.
ASSISTED_BY='LLM sparse'
# shellcheck source=6.1.y/line.conf
. "$LINED/line.conf"
# SRC_CACHE: where make deps keeps each line's base, the Debian package its
# line.conf names (SRC_PKG, from SRC_SUITE or the machine's own release) at
# the version its BASE records (ci/fetch-bases.sh): the package's tarball
# <pkg>.tar.xz and its version in <pkg>.version.  /usr/src is never read.
SRC_CACHE=${SRC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/iov_iter-series/src}
# src_tarball: the line's base tarball; src_version: its package version.
src_tarball() { echo "$SRC_CACHE/$SRC_PKG.tar.xz"; }
src_version() { cat "$SRC_CACHE/$SRC_PKG.version" 2>/dev/null || echo unknown; }
# base_recorded: the source line of the line's BASE ("debian <pkg> <version>").
base_recorded() { sed -n 's/^source: //p' "$PATCHES/BASE" 2>/dev/null; }
# need_base_commit COMMIT WHAT: fail with our sentence, never git's, when
# the work tree lacks COMMIT, the base commit WHAT (patches/<line>/BASE, a
# cover letter) names: the tree was made from another base.
need_base_commit() {
	tgit rev-parse -q --verify "$1^{commit}" >/dev/null && return 0
	local have
	have=$(sed -n 's/^source: //p' "$TREE/.git/patchq-base" 2>/dev/null || true)
	die "${2} names the base commit ${1:0:12}, which ${TREE#"$TOP"/} does not have: that tree was made from ${have:-an unknown base}, and ${PATCHES#"$TOP"/}/BASE records $(base_recorded || echo nothing).  make deps fetches the recorded version and make tree rebuilds the tree on it" \
		"make deps tree$LINEOPT FORCE=1"
}
# B4CFG: its b4 settings (b4 reads .b4-config at the top of the tree it
# runs in); LINEOPT: what a reproduce command adds for it.
B4CFG=$PATCHES/.b4-config
LINEOPT=
[ "$LINE" = "$DEFAULT_LINE" ] || LINEOPT=" LINE=$LINE"
# BENCH_SMOKE_DEFAULT: the kernel arguments that run the benchmarks at
# smoke size (1 MiB, 2 samples) in every KUnit run but make bench's.
BENCH_SMOKE_DEFAULT="$KUNIT_MOD.bench_mib=1 $KUNIT_MOD.bench_samples=2"
# NET_KUNIT_SRC: the checksum and hash tests (a line.conf may name its
# own); CP_EXCEPTIONS: the accepted
# checkpatch findings; MUTATIONS: the deliberate bugs of make mutants.
NET_KUNIT_SRC=${NET_KUNIT_SRC:-net/core/iov_iter_net_kunit.c}
KUNIT_EXTRA_SRC=${KUNIT_EXTRA_SRC:-}
CP_EXCEPTIONS=${CP_EXCEPTIONS:-$LINED/checkpatch-exceptions}
MUTATIONS=$LINED/mutations

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

# prefix_end: the last patch of the line's KMI-neutral prefix, the one
# before the first subject of ci/<line>/abi-tail (make gki, make plan).
prefix_end() {
	local first r prev=
	first=$(sed -e '/^#/d' -e '/^$/d' -e 's/\t.*//' "$LINED/abi-tail" 2>/dev/null | head -1)
	[ -n "$first" ] || return 1
	for r in $(tgit rev-list --reverse base..series); do
		if [ "$(tgit log -1 --format=%s "$r")" = "$first" ]; then
			[ -n "$prev" ] && echo "$prev"
			return 0
		fi
		prev=$r
	done
	return 1
}

# Patches listed in a series file, comments and blank lines dropped.
# Patch files of a patches directory, cover letter excluded, in name order.
patch_files() {
	local f name _
	if [ -f "$1/postings" ]; then
		postings_list "$1" | while read -r name _; do
			for f in "$1/$name"/*.patch; do
				[ -e "$f" ] || continue
				f=${f##*/}
				[ "$f" = 0000-cover-letter.patch ] || echo "$name/$f"
			done
		done
		return 0
	fi
	for f in "$1"/*.patch; do
		[ -e "$f" ] || continue
		f=${f##*/}
		[ "$f" = 0000-cover-letter.patch ] || echo "$f"
	done
}

# A line may go out as several postings (patches/<line>/postings: one
# line per posting, in the order they apply: its name, the number of
# patches it takes from the series, its subject prefix, and "prev" or
# "base": based on the posting before it, or alone on the line's base).  Each posting
# is a directory of that name under patches/<line>/ with its own cover
# letter (cover-letter.txt, and the 0000-cover-letter.patch make export
# writes) and patches, numbered within it.  postings_list DIR prints the
# "name count prefix" lines, nothing for a line that is one posting.
postings_list() {
	[ -f "$1/postings" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$1/postings" | grep -v '^$' || true
}
# stable_postings_list DIR: the "name<TAB>subject<TAB>prefix" lines of
# DIR/stable/postings (ci/export.sh), nothing when there is none.
stable_postings_list() {
	[ -f "$1/stable/postings" ] || return 0
	sed -e 's/^#.*//' -e 's/[[:space:]]*$//' "$1/stable/postings" | grep -v '^$' || true
}
series_list() { sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$1" | grep -v '^$' || true; }

# kunit_config ARCH DIR: DIR/.config is ARCH's KUnit configuration, made
# with kunit.py's rules, and made again when the fragments in kunit/ and
# configs/ differ from those it was made from (DIR/.fragments holds their
# checksum), so that a build directory kept across sessions does not
# measure an old configuration.
kunit_config() {
	local arch=$1 dir=$2 sum
	sum=$(find "$KUNITD" "$TOP/configs" -type f \( -name '*.kunitconfig' -o -name '*.config' \) |
		LC_ALL=C sort | xargs cat | sha256sum | cut -c1-16)
	[ -f "$dir/.config" ] && [ "$(cat "$dir/.fragments" 2>/dev/null)" = "$sum" ] && return 0
	# Its own RUN_NAME, so that the results of ARCH's last run stay.
	# Explicit returns: a caller in an "if" runs this without errexit, and
	# an old .config must then not be marked current.
	rm -f "$dir/.fragments"
	RUN_NAME=config-$arch ARCH=$arch VARIANT='' REV='' KUNIT_CONFIG_ONLY=1 bash "$TOP/ci/kunit.sh" >/dev/null || return 1
	mkdir -p "$dir" || return 1
	[ "$dir" -ef "$LB/kunit/$arch" ] || cp "$LB/kunit/$arch/.config" "$dir/.config" || return 1
	echo "$sum" > "$dir/.fragments"
}

# config_fragments LINE ARCH [VARIANT]: the config fragments of a KUnit
# kernel of LINE, one per line, in the order they are merged: the line's
# kunitconfigs, then the arch's fragment and the variant's, each the shared
# one in configs/ followed by the line's own in configs/<line>/.  An arch
# needs no fragment; a variant must have one.
config_fragments() {
	local kd cd f found
	kd=$(line_dir "$1" kunit) && cd=$(line_dir "$1" configs) || return 1
	for f in "$kd"/*.kunitconfig; do
		[ -f "$f" ] || { log "no kunitconfig in $kd"; return 1; }
		echo "$f"
	done
	for f in "$TOP/configs/$2.config" "$cd/$2.config"; do
		[ ! -f "$f" ] || echo "$f"
	done
	[ -n "${3:-}" ] || return 0
	found=0
	for f in "$TOP/configs/$3.config" "$cd/$3.config"; do
		[ ! -f "$f" ] || { echo "$f"; found=1; }
	done
	[ "$found" = 1 ] || { log "no config fragment for VARIANT=$3 (configs/$3.config or ${cd#"$TOP"/}/$3.config)"; return 1; }
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
	"$1/scripts/config" --file "$2/.config" --enable "$BENCH_KCONFIG"
}

# driverscfg WT BDIR: the patchcheck configurations also reach the driver
# directories the series touches, so that their files compile with their
# own Makefile's flags (drivers/usb/gadget/function/ adds the include path
# of its u_f.h): USB gadget support (PATCHCHECK_KCONFIG, which make plan
# gives the per-patch builds too).  Where an arch cannot have it (UML has
# no HAS_IOMEM), ci/<line>/arch-only skips those files.
PATCHCHECK_KCONFIG='USB_SUPPORT USB_GADGET'
# private_apt DIR apt-get|apt-cache ARGS...: apt with DIR's own
# sources.list, lists and cache (DIR/sources.list, DIR/lists/,
# DIR/cache/), so that neither apt's state nor the installed packages
# change (ci/fetch-src.sh, ci/qemu-plugin.sh)
private_apt() {
	local dir=$1 cmd=$2
	shift 2
	"$cmd" -o "Dir::Etc::sourcelist=$dir/sources.list" -o Dir::Etc::sourceparts=/dev/null \
		-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" \
		-o APT::Sandbox::User=root "$@"
}

# The first line of the codegen table (ci/codegen.sh writes it, followed by
# the tip's "%h %s"; ci/lint.sh reads the tip back from it).
CODEGEN_HEAD='x86_64 KUnit configuration (retpolines on); base = the tag base, tip = '
driverscfg() {
	local s args=()
	for s in $PATCHCHECK_KCONFIG; do args+=(--enable "$s"); done
	"$1/scripts/config" --file "$2/.config" "${args[@]}"
}

# mutant_verdict RESULTS: how a mutated kernel's failed KUnit run failed,
# from its results.tsv (ci/kunit.sh, or ci/kselftest.sh, whose cases are
# <dir>/<program>:<case>, <dir> being ci/guest for the project's own):
# "caught" when a test case failed, or
# the guest died with the manifest naming the cases that never ran, or the
# splat scan found the kernel's own check firing (a WARN); "nobuild" when
# there are no results (the mutated tree did not build, so nothing was
# tested); "other" for any other failure (kunit.py's exit status alone, a
# run with no KTAP output and no manifest failure): neither proves that
# the suite sees the bug.
mutant_verdict() {
	if [ ! -s "$1" ]; then
		echo nobuild
	elif awk -F'\t' '$1 == "FAIL" { n = $2; sub(/^[^:]+:/, "", n)
		if (n != "kunit.py" && (n ~ /^[A-Za-z0-9_]+\.[^ ]+$/ || n ~ /^manifest:/ || n == "splat-scan" ||
		    n ~ /^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)+:[^ ]/)) f = 1 }
		END { exit !f }' "$1"; then
		echo caught
	else
		echo other
	fi
}

# bench_base_rev: the base kernel of make bench, the first commit of the
# series that has the benchmarks (CONFIG_IOV_ITER_BENCH_KUNIT_TEST).
bench_base_rev() {
	local rev
	rev=$(tgit log --format=%H -S"config $BENCH_KCONFIG" base..HEAD -- lib/Kconfig.debug | tail -n1)
	[ -n "$rev" ] && echo "$rev"
}

# ubuf_base_rev: the commit before the single-buffer ITER_UBUF imports (the
# parent of "iov_iter: convert import_single_range() to ITER_UBUF"), the
# "before" of their per-syscall comparison; nothing if the series has no
# such patch.
ubuf_base_rev() {
	local rev
	rev=$(tgit log --format=%H --fixed-strings \
		--grep='iov_iter: convert import_single_range() to ITER_UBUF' base..HEAD | tail -n1)
	[ -n "$rev" ] && tgit rev-parse "$rev^"
}

# kbuild_objs SRC OBJ LOG REPRO OBJECTS...: build single x86_64 objects of
# the tree SRC in OBJ with the x86_64 KUnit configuration (retpolines and
# return thunks on).  Single-object targets in one directory race under -j:
# prepare in parallel, then the objects one by one.
kbuild_objs() {
	local src=$1 obj=$2 blog=$3 repro=$4
	shift 4
	kunit_config x86_64 "$obj"
	make -s -C "$src" O="$obj" ARCH=x86_64 olddefconfig >/dev/null
	if ! { make -s -C "$src" O="$obj" ARCH=x86_64 -j"$(nproc)" prepare &&
		make -s -C "$src" O="$obj" ARCH=x86_64 "$@"; } > "$blog" 2>&1; then
		tail -n 30 "$blog" >&2
		die "building $* in ${obj#"$TOP"/} failed (log: ${blog#"$TOP"/})" "$repro"
	fi
}

# need_commands CMD:PACKAGE...: install the Debian package of each
# command that is missing (as root); stop, naming them, when not root.
need_commands() {
	local t pkgs=()
	for t in "$@"; do
		command -v "${t%%:*}" >/dev/null || pkgs+=("${t#*:}")
	done
	[ ${#pkgs[@]} -gt 0 ] || return 0
	[ "$(id -u)" = 0 ] || die "missing Debian packages: ${pkgs[*]} (run as root, or install them)" "apt-get install ${pkgs[*]}"
	log "installing: ${pkgs[*]}"
	apt-get update -qq || die "apt-get update failed" "apt-get update"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null ||
		die "apt-get install failed" "apt-get install ${pkgs[*]}"
}

# mutate PATH FIND REPLACE: replace the one occurrence of FIND in PATH,
# as a line of ci/<line>/mutations gives them (\n and \t stand for a
# newline and a tab); fails, saying why, when FIND is not there once.
mutate() {
	python3 - "$@" <<'PY'
import sys
path, find, repl = sys.argv[1:]
find, repl = (x.replace('\\n', '\n').replace('\\t', '\t') for x in (find, repl))
s = open(path).read()
n = s.count(find)
if n != 1:
    sys.exit(f'{path}: "{find}" occurs {n} times, not once')
open(path, 'w').write(s.replace(find, repl))
PY
}

# detached_worktree DIR REV: DIR is a worktree of $TREE checked out at REV.
detached_worktree() {
	local wt=$1 rev=$2
	if ! git -C "$wt" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		rm -rf "$wt"
		tgit worktree prune
		mkdir -p "$(dirname "$wt")"
		tgit worktree add -q --detach "$wt" "$rev"
	fi
	git -C "$wt" checkout -q -f --detach "$rev"
}

# overlay_tree REV DIR: DIR/include holds REV's version of every header
# under include/ and arch/ that differs between REV and the tip, and
# DIR/src the sources compile_like is given, so that a file of REV can be
# compiled with the tip build's command line (-I DIR/include first).
overlay_tree() {
	local rev=$1 dir=$2 f
	rm -rf "$dir"
	mkdir -p "$dir/include"
	tgit diff --name-only "$rev" HEAD -- include arch | while read -r f; do
		tgit cat-file -e "$rev:$f" 2>/dev/null || continue
		case $f in
		include/*) mkdir -p "$dir/include/$(dirname "${f#include/}")"
			tgit show "$rev:$f" > "$dir/include/${f#include/}" ;;
		arch/x86/include/*) mkdir -p "$dir/include/$(dirname "${f#arch/x86/include/}")"
			tgit show "$rev:$f" > "$dir/include/${f#arch/x86/include/}" ;;
		esac
	done
}

# compile_like OBJDIR OBJECT SOURCE OUTPUT [FLAGS...]: compile SOURCE exactly
# as kbuild compiled OBJECT in OBJDIR (its .cmd file), plus FLAGS, then run
# the same objtool command on OUTPUT.
compile_like() {
	local objdir=$1 object=$2 source=$3 output=$4 cmd cc tool
	shift 4
	cmd=$(sed -n "s#^cmd_${object} := ##p" "$objdir/$(dirname "$object")/.$(basename "$object").cmd")
	[ -n "$cmd" ] || { log "$objdir: no command line for $object"; return 1; }
	cc=${cmd%%;*}
	tool=${cmd#*;}
	cc=$(printf '%s' "$cc" | sed -e 's/-Wp,-MMD,[^ ]*//' -e "s# -c -o ${object} [^ ]*# -c -o $output $source#" \
		-e "s#-nostdinc#-nostdinc $*#")
	tool=$(printf '%s' "$tool" | sed "s# ${object} *\$# $output#")
	(cd "$objdir" && eval "$cc" && eval "$tool")
}

# diag_lines LOG RC FILE TREEDIR: the W=1 + sparse diagnostics of a make
# of FILE's object (its output LOG, its exit status RC), with the path up to
# TREEDIR and the line and column numbers dropped so that moved lines
# compare equal.  A make that failed without a compiler error (sparse
# missing, say) must not read as "no diagnostics": it gives an error line.
diag_lines() {
	{ grep -E 'warning:|error:' "$1" || true; } |
		sed -E "s#^[^:]*/$4/##; s#:[0-9]+:[0-9]+:#:#; s#:[0-9]+:#:#"
	if [ "$2" != 0 ] && ! grep -qE ': (fatal )?error:' "$1"; then
		printf '%s: error: make W=1 C=2 failed (exit %s): %s\n' "$3" "$2" "$(tail -n1 "$1")"
	fi
}
