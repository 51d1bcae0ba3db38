#!/usr/bin/env bash
# The native A/B harness (bench/native/): build it from the kernel objects of
# both trees and run it.
#
#   base    the tree at the benchmark patch (as make bench: the first commit
#           that has CONFIG_IOV_ITER_BENCH_KUNIT_TEST)
#   series  the tip of build/6.1.y/linux
#
# The objects are those of the x86_64 KUnit build of the tip
# (build/kunit/x86_64: retpolines and return thunks on).  The base's
# lib/iov_iter.c and both trees' glue.c are compiled with the tip's
# lib/iov_iter.o command line and run through its objtool command; for the
# base, its versions of the headers the series changes come first in the
# include path (ci/lib.sh overlay_tree).  The x86_64 copy routines, the
# thunks, lib/usercopy.o and lib/xarray.o are linked once.  The binaries are
# build/native/native-bench.<layout>.
#
#   NATIVE_SMOKE=1   8 pairs per case (make check's smoke run: build, checks)
#   NATIVE_ARGS=...  more arguments for the binary (--target=, --max-seconds=,
#                    --only=PREFIX for the cases whose names start with it, --cpu=N)
#   NATIVE_OUT=dir   where results.tsv and run.log go (default out/<line>/native)
#   NATIVE_BASE=rev  another commit of build/6.1.y/linux as the "base" side (for
#                    example a variant of the tip, to measure a divergence)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

repro="bash ci/native-bench.sh"
[ "${NATIVE_SMOKE:-0}" = 1 ] && repro="NATIVE_SMOKE=1 $repro"
ND=$LB/native
dest=${NATIVE_OUT:-$OUT/native}
[ "${NATIVE_SMOKE:-0}" = 1 ] && dest=${NATIVE_OUT:-$OUT/native-smoke}
mkdir -p "$ND" "$dest"

[ "$(uname -m)" = x86_64 ] || die "the native harness runs the x86_64 kernel objects: it needs an x86_64 host"
[ -d "$TREE/.git" ] || die "$TREE does not exist" "make$LINEOPT tree"
if [ -n "${NATIVE_BASE:-}" ]; then
	base_rev=$(tgit rev-parse -q --verify "$NATIVE_BASE^{commit}") || die "NATIVE_BASE=$NATIVE_BASE is not a commit of $TREE"
else
	base_rev=$(bench_base_rev) || die "no commit in base..HEAD adds CONFIG_IOV_ITER_BENCH_KUNIT_TEST" "$repro"
fi
tip=$(tgit rev-parse HEAD)

shared_objs=(arch/x86/lib/memcpy_64.o arch/x86/lib/memset_64.o arch/x86/lib/copy_user_64.o
	arch/x86/lib/clear_page_64.o arch/x86/lib/retpoline.o arch/x86/lib/usercopy_64.o
	arch/x86/lib/csum-copy_64.o arch/x86/lib/csum-partial_64.o arch/x86/lib/csum-wrappers_64.o
	lib/usercopy.o lib/xarray.o lib/find_bit.o)

# The series objects come from the x86_64 KUnit build of the tip (make kunit
# builds all of them; here only these are brought up to date).  The base's
# lib/iov_iter.c is compiled with the same command line, with the base's
# versions of the headers the series changes first in the include path.
OBJ=$LB/kunit/x86_64
kbuild_objs "$TREE" "$OBJ" "$ND/series.build.log" "$repro" lib/iov_iter.o "${shared_objs[@]}"
overlay_tree "$base_rev" "$ND/base/overlay"
tgit show "$base_rev:lib/iov_iter.c" > "$ND/base/overlay/iov_iter.c"
mkdir -p "$ND/base/obj"
compile_like "$OBJ" lib/iov_iter.o "$ND/base/overlay/iov_iter.c" "$ND/base/obj/iov_iter.o" \
	"-I$ND/base/overlay/include" > "$ND/base.build.log" 2>&1 || {
	cat "$ND/base.build.log" >&2
	die "compiling the base's lib/iov_iter.c failed" "$repro"
}

# glue TREE INCLUDE-FLAGS...: glue.c, compiled as lib/iov_iter.o was.
glue() {
	local tree=$1 gdir=$ND/$1/glue defs rev
	shift
	mkdir -p "$gdir"
	defs=(-DNB_TREE="$tree")
	rev=$([ "$tree" = base ] && echo "$base_rev" || echo "$tip")
	# (grep without -q: it reads all of git show's output; with -q git dies of SIGPIPE, and pipefail turns a match into "no")
	if tgit show "$rev:net/core/datagram.c" | grep '^static size_t csum_and_copy_to_iter(' >/dev/null; then
		# The checksum copies moved to net/: cut them out of
		# datagram.c (from struct csum_state to csum_and_copy_to_iter())
		# and skbuff.c (from the step before copy_from_user_iter_csum()
		# to csum_and_copy_from_iter_full()).
		{
			tgit show "$rev:net/core/datagram.c" | awk '/^struct csum_state \{/ { on = 1 }
				on { print }
				/^static size_t csum_and_copy_to_iter\(/ { last = 1 }
				last && /^}/ { exit }'
			tgit show "$rev:net/core/skbuff.c" | awk '
				/^size_t copy_from_user_iter_csum\(/ { on = 1; print prev }
				on { print }
				/^bool csum_and_copy_from_iter_full\(/ { last = 1 }
				last && /^}/ { exit }
				{ prev = $0 }'
		} > "$gdir/nb_net_csum.h"
		if ! grep -q '^bool csum_and_copy_from_iter_full(' "$gdir/nb_net_csum.h" ||
			! grep -q '^static size_t csum_and_copy_to_iter(' "$gdir/nb_net_csum.h"; then
			die "$tree: the checksum copies were not found in net/core/" "$repro"
		fi
		defs+=(-DNB_NET_CSUM)
	fi
	if tgit cat-file -e "$rev:include/linux/iov_iter.h" 2>/dev/null; then
		defs+=(-DNB_HAVE_STEPS)
	else
		# The iteration macros of a tree before the conversion, cut out
		# of its lib/iov_iter.c (from iterate_buf to iterate_and_advance).
		awk '/^#define iterate_buf\(/ { on = 1 }
			on { print }
			/^#define iterate_and_advance\(/ { last = 1 }
			last && !/\\$/ { exit }' "$ND/base/overlay/iov_iter.c" > "$gdir/nb_base_macros.h"
		grep -q '^#define iterate_and_advance(' "$gdir/nb_base_macros.h" ||
			die "$tree: no iteration macros in lib/iov_iter.c" "$repro"
	fi
	compile_like "$OBJ" lib/iov_iter.o "$TOP/bench/native/glue.c" "$gdir/glue.o" \
		"$@" "-I$gdir" "-I$TOP/bench/native" "${defs[@]}" > "$gdir/cc.log" 2>&1 || {
		cat "$gdir/cc.log" >&2
		die "compiling glue.c for $tree failed" "$repro"
	}
}

# The kernel's memcpy and memset keep their code under other names, so the
# C library's stay what the runtime calls; the sections the runtime walks get
# names the linker makes __start_/__stop_ symbols for.
renames=(--redefine-sym memcpy=kmemcpy --redefine-sym __memcpy=k__memcpy
	--redefine-sym memset=kmemset --redefine-sym __memset=k__memset
	--redefine-sym memmove=kmemmove
	--rename-section .altinstructions=nb_altinstructions
	--rename-section .return_sites=nb_return_sites
	--rename-section .retpoline_sites=nb_retpoline_sites)

log "base   $(tgit log -1 --format='%h %s' "$base_rev")"
log "series $(tgit log -1 --format='%h %s' "$tip")"
glue base "-I$ND/base/overlay/include"
glue series
ld -r -o "$ND/base/tree.o" "$ND/base/obj/iov_iter.o" "$ND/base/glue/glue.o"
ld -r -o "$ND/series/tree.o" "$OBJ/lib/iov_iter.o" "$ND/series/glue/glue.o"
for t in base series; do
	# One copy per tree: everything but the glue's entry points is local.
	objcopy --wildcard --keep-global-symbol="nb_${t}_*" "${renames[@]}" "$ND/$t/tree.o"
done
rm -f "$ND/shared.o"
ld -r -z noexecstack -o "$ND/shared.o" "${shared_objs[@]/#/$OBJ/}"
objcopy "${renames[@]}" "$ND/shared.o"

# Code placement moves these figures by more than their statistical CI (the
# memcpy null cases show it): the harness is linked in eight layouts, each
# order of the trees with 0/0, 16/8, 32/16 and 48/24 bytes of padding
# before the first and the second tree, and the report's ratio and CI are
# those of the mean over the layouts (ci/native_report.py).
layouts=()
for order in base-series series-base; do
	for pads in 0.0 16.8 32.16 48.24; do
		layouts+=("$order.$pads")
	done
done
[ "${NATIVE_SMOKE:-0}" = 1 ] && layouts=(base-series.0.0)
for l in "${layouts[@]}"; do
	IFS=.- read -r first second pad1 pad2 <<< "$l"
	objs=()
	for part in "pad$pad1" "$first" "pad$pad2" "$second"; do
		case $part in
		pad0) ;;
		pad*) [ -f "$ND/$part.o" ] ||
				printf '.text\n.skip %s, 0x90\n.section .note.GNU-stack,"",@progbits\n' "${part#pad}" |
				as -o "$ND/$part.o"
			objs+=("$ND/$part.o") ;;
		*) objs+=("$ND/$part/tree.o") ;;
		esac
	done
	gcc -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
		-I"$TOP/bench/native" -o "$ND/native-bench.$l" "$TOP/bench/native/runtime.c" \
		"${objs[@]}" "$ND/shared.o" -no-pie -Wl,-z,noexecstack -lm > "$ND/link.log" 2>&1 || {
		cat "$ND/link.log" >&2
		die "linking the harness ($l) failed" "$repro"
	}
done
printf '%s\t%s\n' base "$base_rev" series "$tip" > "$dest/trees.tsv"

args=()
[ "${NATIVE_SMOKE:-0}" = 1 ] && args+=(--smoke)
# shellcheck disable=SC2206 # NATIVE_ARGS is a list of options
args+=(${NATIVE_ARGS:-})
rm -f "$dest"/results.*.tsv
for l in "${layouts[@]}"; do
	log "running build/native/native-bench.$l ${args[*]}"
	if ! "$ND/native-bench.$l" --out="$dest/results.$l.tsv" "${args[@]}" > "$dest/run.$l.log" 2>&1; then
		tail -n 20 "$dest/run.$l.log" >&2
		die "the native harness ($l) failed (log: ${dest#"$TOP"/}/run.$l.log)" \
			"build/native/native-bench.$l ${args[*]}"
	fi
	grep '^#' "$dest/run.$l.log" || :
done
python3 "$TOP/ci/native_report.py" --trees="$dest/trees.tsv" --out="$dest" "$dest"/results.*.tsv ||
	die "the native report failed" "python3 ci/native_report.py --out=${dest#"$TOP"/} ${dest#"$TOP"/}/results.*.tsv"
