#!/usr/bin/env bash
# The native A/B harness (bench/native/): build it from the kernel objects of
# both trees and run it.
#
#   base    the tree at the benchmark patch (as make bench: the first commit
#           that has CONFIG_IOV_ITER_BENCH_KUNIT_TEST)
#   series  the tip of build/6.1.y/linux
#
# The objects come from one x86_64 build of the tip, chosen by NATIVE_CONFIG:
#   prod   (the default) build/<line>/native/prod: x86_64 defconfig plus
#          configs/native.config, as a distribution builds a kernel: SMP,
#          retpolines and return thunks compiled in, no fault injection;
#   kunit  build/<line>/kunit/x86_64, the KUnit kernel's objects: NR_CPUS=1
#          and CONFIG_FAULT_INJECTION_USERCOPY (one should_fail_usercopy()
#          call per user copy).
# The base's lib/iov_iter.c and both trees' glue.c are compiled with the
# tip's lib/iov_iter.o command line and run through its objtool command; for
# the base, its versions of the headers the series changes come first in the
# include path (ci/lib.sh overlay_tree).  The series' checksum copies, which
# live in net/core/, are cut out of it and compiled the same way as a
# translation unit of their own (net_csum.c), so that both trees call them
# out of line, as the base calls its lib/iov_iter.o's.  The x86_64 copy
# routines, the thunks, lib/usercopy.o and lib/xarray.o are linked once.
# The binaries are build/<line>/native/native-bench.<config>.<layout>.
#
#   NATIVE_SMOKE=1   8 pairs per case (make check's smoke run: build, checks)
#   NATIVE_ARGS=...  more arguments for the binary (--target=, --max-seconds=,
#                    --only=PREFIX for the cases whose names start with it, --cpu=N,
#                    --retpoline=on|off and --rethunk=NAME: the mitigations,
#                    where neither the harness's model of 6.1.y nor the host's
#                    sysfs decides them, or to override them;
#                    --vec-offsets=BASE,SERIES for an experiment on where the
#                    segment arrays lie in their page)
#   NATIVE_OUT=dir   where results.tsv and run.log go (default out/<line>/native)
#   NATIVE_BASE=rev  another commit of build/6.1.y/linux as the "base" side (for
#                    example a variant of the tip, to measure a divergence)
#   NATIVE_CONFIG=   prod (default) or kunit, above
#   NATIVE_LAYOUTS=N how many link layouts, random function orders (default
#                    32; the smoke run: 1)
#   NATIVE_ALIGN=16  functions 16-byte aligned, as the kernel's (default 1:
#                    any byte offset)
#   NATIVE_BUILD_ONLY=1  build the binaries and stop (ci/native-sim.sh runs
#                    them under valgrind)
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

# The series objects come from an x86_64 build of the tip (NATIVE_CONFIG);
# only these objects are built or brought up to date.
config=${NATIVE_CONFIG:-prod}
smp=0
case $config in
kunit)
	OBJ=$LB/kunit/x86_64
	kbuild_objs "$TREE" "$OBJ" "$ND/series.build.log" "$repro" lib/iov_iter.o "${shared_objs[@]}" ;;
prod)
	OBJ=$ND/prod
	frag=$TOP/configs/native.config
	sum=$({ tgit rev-parse HEAD; cat "$frag"; } | sha256sum | cut -c1-16)
	mkdir -p "$OBJ"
	if [ "$(cat "$OBJ/.fragments" 2>/dev/null)" != "$sum" ]; then
		rm -f "$OBJ/.fragments"
		{ make -s -C "$TREE" O="$OBJ" ARCH=x86_64 defconfig &&
			"$TREE/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" "$frag" &&
			make -s -C "$TREE" O="$OBJ" ARCH=x86_64 olddefconfig; } > "$ND/prod.config.log" 2>&1 || {
			tail -n 20 "$ND/prod.config.log" >&2
			die "configuring ${OBJ#"$TOP"/} (x86_64 defconfig + configs/native.config) failed" "$repro"
		}
		# every line of the fragment must have survived olddefconfig
		while read -r line; do
			case $line in
			CONFIG_*) grep -qxF "$line" "$OBJ/.config" ;;
			"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}
				! grep -q "^$sym=" "$OBJ/.config" ;;
			*) true ;;
			esac || die "configs/native.config: '$line' is not in ${OBJ#"$TOP"/}/.config" "$repro"
		done < "$frag"
		echo "$sum" > "$OBJ/.fragments"
	fi
	# (the objects one make at a time: kbuild races on single targets with -j)
	if ! { make -s -C "$TREE" O="$OBJ" ARCH=x86_64 -j"$(nproc)" prepare &&
		make -s -C "$TREE" O="$OBJ" ARCH=x86_64 lib/iov_iter.o "${shared_objs[@]}"; } \
		> "$ND/series.build.log" 2>&1; then
		tail -n 30 "$ND/series.build.log" >&2
		die "building the harness's objects in ${OBJ#"$TOP"/} failed (log: ${ND#"$TOP"/}/series.build.log)" "$repro"
	fi ;;
*) die "NATIVE_CONFIG=$config: prod or kunit" ;;
esac
grep -q '^CONFIG_SMP=y' "$OBJ/.config" && smp=1
# everything made from these objects
WD=$ND/$config
overlay_tree "$base_rev" "$WD/base/overlay"
tgit show "$base_rev:lib/iov_iter.c" > "$WD/base/overlay/iov_iter.c"
mkdir -p "$WD/base/obj"
# Both trees' lib/iov_iter.c, with the tip's command line plus
# -ffunction-sections and -falign-functions=1, so that each layout can put
# every function on its own at any byte offset (ci/native_layout.py): the
# loops inside a function then move too.  (The kernel's functions are
# 16-byte aligned; the layouts average over every placement.)
#   NATIVE_ALIGN=16 keeps the kernel's 16-byte function alignment and pads in
#   steps of 16: only the placements a kernel build can have.
align=${NATIVE_ALIGN:-1}
case $align in 1|16) ;; *) die "NATIVE_ALIGN=$align: 1 or 16" ;; esac
fsec=(-ffunction-sections)
[ "$align" = 16 ] || fsec+=(-falign-functions=1)
compile_like "$OBJ" lib/iov_iter.o "$WD/base/overlay/iov_iter.c" "$WD/base/obj/iov_iter.o" \
	"-I$WD/base/overlay/include" "${fsec[@]}" > "$WD/base.build.log" 2>&1 || {
	cat "$WD/base.build.log" >&2
	die "compiling the base's lib/iov_iter.c failed" "$repro"
}
mkdir -p "$WD/series/obj"
compile_like "$OBJ" lib/iov_iter.o "$TREE/lib/iov_iter.c" "$WD/series/obj/iov_iter.o" \
	"${fsec[@]}" > "$WD/series.build.log" 2>&1 || {
	cat "$WD/series.build.log" >&2
	die "compiling the series' lib/iov_iter.c failed" "$repro"
}

# glue TREE INCLUDE-FLAGS...: glue.c, compiled as lib/iov_iter.o was.
glue() {
	local tree=$1 gdir=$WD/$1/glue defs rev
	shift
	rm -rf "$gdir"
	mkdir -p "$gdir"
	: > "$gdir/objs"
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
		} | sed 's/^static size_t csum_and_copy_to_iter(/size_t csum_and_copy_to_iter(/' > "$gdir/nb_net_csum.h"
		if ! grep -q '^bool csum_and_copy_from_iter_full(' "$gdir/nb_net_csum.h" ||
			! grep -q '^size_t csum_and_copy_to_iter(' "$gdir/nb_net_csum.h"; then
			die "$tree: the checksum copies were not found in net/core/" "$repro"
		fi
		# glue.c needs only their state
		awk '/^struct csum_state \{/ { on = 1 } on { print } on && /^};/ { exit }' \
			"$gdir/nb_net_csum.h" > "$gdir/nb_net_csum_state.h"
		defs+=(-DNB_NET_CSUM)
		# out of line, in a translation unit of their own, as the base's
		# are in its lib/iov_iter.o
		compile_like "$OBJ" lib/iov_iter.o "$TOP/bench/native/net_csum.c" "$gdir/net_csum.o" \
			"$@" "-I$gdir" "${fsec[@]}" > "$gdir/net_csum.log" 2>&1 || {
			cat "$gdir/net_csum.log" >&2
			die "compiling the checksum copies of $tree (net_csum.c) failed" "$repro"
		}
		echo "$gdir/net_csum.o" >> "$gdir/objs"
	fi
	if tgit cat-file -e "$rev:include/linux/iov_iter.h" 2>/dev/null; then
		defs+=(-DNB_HAVE_STEPS)
	else
		# The iteration macros of a tree before the conversion, cut out
		# of its lib/iov_iter.c (from iterate_buf to iterate_and_advance).
		awk '/^#define iterate_buf\(/ { on = 1 }
			on { print }
			/^#define iterate_and_advance\(/ { last = 1 }
			last && !/\\$/ { exit }' "$WD/base/overlay/iov_iter.c" > "$gdir/nb_base_macros.h"
		grep -q '^#define iterate_and_advance(' "$gdir/nb_base_macros.h" ||
			die "$tree: no iteration macros in lib/iov_iter.c" "$repro"
	fi
	compile_like "$OBJ" lib/iov_iter.o "$TOP/bench/native/glue.c" "$gdir/glue.o" \
		"$@" "-I$gdir" "-I$TOP/bench/native" "${defs[@]}" "${fsec[@]}" > "$gdir/cc.log" 2>&1 || {
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
glue base "-I$WD/base/overlay/include"
glue series
mapfile -t bextra < "$WD/base/glue/objs"
mapfile -t sextra < "$WD/series/glue/objs"
ld -r -o "$WD/base/tree.o" "$WD/base/obj/iov_iter.o" "$WD/base/glue/glue.o" "${bextra[@]}"
ld -r -o "$WD/series/tree.o" "$WD/series/obj/iov_iter.o" "$WD/series/glue/glue.o" "${sextra[@]}"
for t in base series; do
	# One copy per tree: everything but the glue's entry points is local.
	objcopy --wildcard --keep-global-symbol="nb_${t}_*" "${renames[@]}" "$WD/$t/tree.o"
done
rm -f "$WD/shared.o"
ld -r -z noexecstack -o "$WD/shared.o" "${shared_objs[@]/#/$OBJ/}"
objcopy "${renames[@]}" "$WD/shared.o"

# Code placement moves these figures by more than their statistical CI (the
# memcpy null cases show it): the harness is linked in NATIVE_LAYOUTS
# layouts, each a random order of both trees' functions with a random pad
# of 0-63 bytes before each (ci/native_layout.py, seeds 1..N, named
# s<seed>), and the
# report's ratio and CI are those of the mean over the layouts
# (ci/native_report.py).
nlayouts=${NATIVE_LAYOUTS:-32}
[ "${NATIVE_SMOKE:-0}" = 1 ] && nlayouts=${NATIVE_LAYOUTS:-1}
case $nlayouts in ''|*[!0-9]*|0) die "NATIVE_LAYOUTS=$nlayouts: a number of layouts, 1 or more" ;; esac
layouts=()
for ((seed = 1; seed <= nlayouts; seed++)); do
	layouts+=("s$seed")
done
# SMP: the per-CPU variables are %gs-relative, at offsets from 0 as in the
# kernel's per-CPU area; the runtime gives %gs a page that holds them.
smpflags=()
[ "$smp" = 0 ] || smpflags=(-DNB_SMP "-Wl,--defsym=current_task=0x100" "-Wl,--defsym=__preempt_count=0x108")
mkdir -p "$WD/layouts"
text_bytes=$(size -A "$WD/base/tree.o" "$WD/series/tree.o" | awk '$1 ~ /^\.text/ { n += $2 } END { print n + 0 }')
rm -f "$WD"/native-bench.* "$WD"/layouts/*.ld
for l in "${layouts[@]}"; do
	ALIGN=$align python3 "$TOP/ci/native_layout.py" "${l#s}" "$WD/base/tree.o" "$WD/series/tree.o" \
		> "$WD/layouts/$l.ld" || die "no layout for seed ${l#s}" "python3 ci/native_layout.py ${l#s} ${WD#"$TOP"/}/base/tree.o ${WD#"$TOP"/}/series/tree.o"
	gcc -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
		-I"$TOP/bench/native" "${smpflags[@]}" -o "$WD/native-bench.$l" "$TOP/bench/native/runtime.c" \
		"$WD/base/tree.o" "$WD/series/tree.o" "$WD/shared.o" -no-pie -Wl,-z,noexecstack \
		"-Wl,-T,$WD/layouts/$l.ld" -lm > "$WD/link.log" 2>&1 || {
		cat "$WD/link.log" >&2
		die "linking the harness ($l) failed" "$repro"
	}
	# The layout took: every text section of both trees is in .text.nb
	# (a section the script misses would land in .text, unshuffled).
	[ "$(size -A "$WD/native-bench.$l" | awk '$1 == ".text.nb" { print $2 }')" -ge "$text_bytes" ] ||
		die "layout $l: .text.nb of ${WD#"$TOP"/}/native-bench.$l holds less than the trees' $text_bytes bytes of text" \
			"size -A ${WD#"$TOP"/}/native-bench.$l"
done
printf '%s\t%s\n' base "$base_rev" series "$tip" config "$config" > "$dest/trees.tsv"
if [ "${NATIVE_BUILD_ONLY:-0}" = 1 ]; then
	log "built ${WD#"$TOP"/}/native-bench.{$(IFS=,; echo "${layouts[*]}")}"
	exit 0
fi

args=()
[ "${NATIVE_SMOKE:-0}" = 1 ] && args+=(--smoke)
# shellcheck disable=SC2206 # NATIVE_ARGS is a list of options
args+=(${NATIVE_ARGS:-})
rm -f "$dest"/results.*.tsv
for l in "${layouts[@]}"; do
	log "running ${WD#"$TOP"/}/native-bench.$l ${args[*]}"
	if ! "$WD/native-bench.$l" --out="$dest/results.$l.tsv" "${args[@]}" > "$dest/run.$l.log" 2>&1; then
		tail -n 20 "$dest/run.$l.log" >&2
		if grep -q 'is not modelled here' "$dest/run.$l.log"; then
			die "the harness cannot tell which mitigations 6.1.y would run with on this CPU, and this host's sysfs does not say, or says what is not modelled: set NATIVE_ARGS, e.g. NATIVE_ARGS='--retpoline=on --rethunk=none' (Documentation/benchmarking.md, the native harness)" \
				"NATIVE_ARGS='--retpoline=on --rethunk=none' $repro"
		fi
		die "the native harness ($l) failed (log: ${dest#"$TOP"/}/run.$l.log)" \
			"${WD#"$TOP"/}/native-bench.$l ${args[*]}"
	fi
	grep '^#' "$dest/run.$l.log" || :
done
if [ "${NATIVE_SMOKE:-0}" = 1 ]; then
	# The runs below take the mitigations of the main run: those that
	# NATIVE_ARGS gives, else the harness's own choice.
	mit=()
	for a in "${args[@]}"; do
		case $a in --retpoline=*|--rethunk=*|--cpuid=*|--sysfs=*) mit+=("$a") ;; esac
	done
	bin=$WD/native-bench.${layouts[0]}
	# The ITS path (the thunk calls of lower-half branches rewritten to
	# ITS thunks), whatever this CPU chose: the start-up checks and one
	# check of every case, both trees.
	# (grep without -q: with -q, nm dies of SIGPIPE and pipefail makes a match "no")
	if nm "$bin" | grep ' __x86_indirect_its_thunk_array$' >/dev/null; then
		"$bin" --smoke --checks-only --retpoline=off --rethunk=its > "$dest/its.log" 2>&1 ||
			{ tail -n 20 "$dest/its.log" >&2; die "the harness failed with ITS's thunks (log: ${dest#"$TOP"/}/its.log)" \
				"${bin#"$TOP"/} --smoke --checks-only --retpoline=off --rethunk=its"; }
		grep -E '^# mitigations:.*[1-9][0-9]* sent to ITS thunks' "$dest/its.log" ||
			die "no thunk call went to an ITS thunk (log: ${dest#"$TOP"/}/its.log)" \
				"${bin#"$TOP"/} --smoke --checks-only --retpoline=off --rethunk=its"
	else
		log "no ITS thunks in these objects (CONFIG_MITIGATION_ITS off): the ITS path is not checked"
	fi
	# The data checks catch a glue that lies: each fault below, made on
	# purpose by one side's glue.c, must stop the start-up checks.
	for fault in walk-ret:'walk returned [0-9]+ of' iov-offset:'iov_offset [0-9]+ after the run' \
		nr-segs:'nr_segs [0-9]+ after the run'; do
		for side in base series; do
			f=${fault%%:*} rc=0
			"$bin" --smoke --checks-only "${mit[@]}" --inject="$f" --inject-side="$side" \
				> "$dest/inject.$f.$side.log" 2>&1 || rc=$?
			if [ "$rc" != 1 ] || ! grep -qE "error: .*$side kernel.*: ${fault#*:}" "$dest/inject.$f.$side.log"; then
				die "the harness missed a $f fault in the $side kernel's glue (exit $rc; log: ${dest#"$TOP"/}/inject.$f.$side.log)" \
					"${bin#"$TOP"/} --smoke --checks-only ${mit[*]} --inject=$f --inject-side=$side"
			fi
		done
	done
	log "the data checks caught every injected fault (walk-ret, iov-offset, nr-segs; base and series)"
fi
python3 "$TOP/ci/native_report.py" --trees="$dest/trees.tsv" --out="$dest" "$dest"/results.*.tsv ||
	die "the native report failed" "python3 ci/native_report.py --out=${dest#"$TOP"/} ${dest#"$TOP"/}/results.*.tsv"
