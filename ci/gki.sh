#!/usr/bin/env bash
# make gki LINE=6.1: the KMI-neutral prefix under GKI's own build, beside
# make abi (which builds the KUnit arm64 configuration with GCC).
#
# What it is: Debian's 6.1 with the series, built for arm64 with
# android14-6.1's gki_defconfig (configs/6.1.y/gki/, a public copy: see its
# SOURCE.md), LLVM=1 with Debian's clang-16 (Android builds with a prebuilt
# Clang of its own, a later one), and CFI (kCFI) and the shadow call stack
# as that configuration sets them.  What it is not: the ACK source
# (Android's own patches and vendor hooks are not in Debian's tree), nor
# STG over the KMI symbol lists, nor a whole Module.symvers (the TuxSuite
# plan builds whole GKI kernels); it checks what genksyms and modversions
# decide, with Clang and GKI's configuration.
#
#   1. The configuration: the symbols Debian's 6.1 does not define are
#      dropped (out/<line>/gki/dropped.txt), the rest goes through
#      olddefconfig; CFI_CLANG, SHADOW_CALL_STACK and MODVERSIONS must end
#      up set, and the requested values that did not take are listed
#      (not-taken.txt).
#   2. Per patch of the prefix (base..the patch before the first of
#      ci/<line>/abi-tail), the objects the prefix changes that this
#      configuration builds, with their exports and modversions CRCs (the
#      #SYMVER lines kbuild writes into each object's .cmd file), each
#      patch against its parent.  Any change fails.
#   3. The CRCs that the changed headers could move anywhere else: per
#      changed header, a generated probe that includes it alone exports
#      one function per struct, union, enum and typedef the header defines,
#      taking a pointer to it; genksyms' CRC of each covers the type's
#      expansion in that context, the input of every export CRC that
#      mentions it.  The probes are compiled with lib/iov_iter.o's command
#      line at the base and at the prefix's end; a CRC that differs fails.
#   GKI_END=<rev> ends the prefix at another commit of the work tree.
#   4. GKI_ALLMOD=1 (the full tier's default): allmodconfig for arm64 and
#      x86_64 at the prefix's end with the same compiler, limited to the
#      directories the series touches (whole allmodconfig kernels are in
#      the TuxSuite plan, make plan).
# Output: out/<line>/gki/{results.tsv,crcs.txt,probe-crcs.txt,dropped.txt,
# not-taken.txt,summary.txt}.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

repro="make$LINEOPT gki"
res=$OUT/gki
wt=$LB/gki/linux
bdir=$LB/gki/arm64
defconfig=$TOP/configs/$LINE_NAME/gki/gki_defconfig
[ -f "$defconfig" ] || die "no $defconfig: the line has no GKI configuration" "$repro"
[ -d "$TREE/.git" ] || die "$TREE does not exist" "make$LINEOPT tree"

# --- The compiler: Debian's clang-16, lld-16 and llvm-16 ----------------------
LLVM_SUFFIX=-16
need_commands "clang$LLVM_SUFFIX:clang-16" "ld.lld$LLVM_SUFFIX:lld-16" "llvm-ar$LLVM_SUFFIX:llvm-16"
clangv=$("clang$LLVM_SUFFIX" --version | head -1)
case $clangv in *" version 16."*) ;; *) die "clang$LLVM_SUFFIX is not clang 16: $clangv" "clang$LLVM_SUFFIX --version" ;; esac
export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1
kmake() { # kmake ARCH DIR TARGET...
	local a=$1 d=$2
	shift 2
	make -s -C "$wt" O="$d" ARCH="$a" LLVM="$LLVM_SUFFIX" CC="ccache clang$LLVM_SUFFIX" -j"$(nproc)" "$@"
}

rm -rf "$res"
mkdir -p "$res" "$bdir"
start=$(date +%s)
: > "$res/results.tsv"
result() { printf '%s\t%s\n' "$1" "$2" >> "$res/results.tsv"; log "$1 $2${3:+: $3}"; }

# --- The revisions: the prefix -----------------------------------------------------
base=$(tgit rev-parse base)
# GKI_END=<rev>: end the prefix there instead (a vendor's own patch on top
# of it, or a deliberate change that shows the check failing).
if [ -n "${GKI_END:-}" ]; then
	pend=$(tgit rev-parse -q --verify "$GKI_END^{commit}") || die "GKI_END=$GKI_END is not a commit of $TREE" "$repro"
	repro="$repro GKI_END=$GKI_END"
else
	pend=$(prefix_end) || die "no KMI-neutral prefix: ci/$LINE_NAME/abi-tail names no patch of the series" "$repro"
fi
mapfile -t prefix < <(tgit rev-list --reverse "base..$pend")
nprefix=${#prefix[@]}
[ "$nprefix" -gt 0 ] || die "no patch between the base and $pend" "$repro"
log "GKI build: base and the prefix's $nprefix patches (to $(tgit log -1 --format='%h %s' "$pend"))"

tgit worktree prune
[ -d "$wt/.git" ] || [ -f "$wt/.git" ] || tgit worktree add -q --detach "$wt" "$base"
checkout() { git -C "$wt" checkout -q -f --detach "$1"; }

# --- 1. The configuration ------------------------------------------------------------
checkout "$base"
python3 "$TOP/ci/kconfig_filter.py" "$defconfig" "$wt" "$base" "$res/config.in" "$res/dropped.txt" ||
	die "the configuration cannot be filtered" "$repro"
cp "$res/config.in" "$bdir/.config"
kmake arm64 "$bdir" olddefconfig > "$res/config.log" 2>&1 || die "olddefconfig failed (see ${res#"$TOP"/}/config.log)" "$repro"
python3 - "$res/config.in" "$bdir/.config" > "$res/not-taken.txt" <<'PY'
import re, sys
want, got = {}, {}
for ln in open(sys.argv[1]):
    m = re.match(r'CONFIG_([A-Z0-9_]+)=(.*)', ln)
    if m:
        want[m.group(1)] = m.group(2)
    m = re.match(r'# CONFIG_([A-Z0-9_]+) is not set', ln)
    if m:
        want[m.group(1)] = 'n'
for ln in open(sys.argv[2]):
    m = re.match(r'CONFIG_([A-Z0-9_]+)=(.*)', ln)
    if m:
        got[m.group(1)] = m.group(2)
for k, v in want.items():
    g = got.get(k, 'n')
    if g != v:
        print(f'CONFIG_{k}: {v} requested, {g} in .config')
PY
for s in CFI_CLANG SHADOW_CALL_STACK MODVERSIONS; do
	grep -qx "CONFIG_$s=y" "$bdir/.config" || die "CONFIG_$s did not take (see ${res#"$TOP"/}/not-taken.txt)" "$repro"
done
result PASS gki:config "$(grep -c . "$res/dropped.txt" || true) symbols dropped, $(grep -c . "$res/not-taken.txt" || true) values not taken; CFI_CLANG, SHADOW_CALL_STACK, MODVERSIONS set"

# --- 2. The objects the prefix changes, patch by patch --------------------------------
mapfile -t cfiles < <(git -C "$wt" diff --name-only "$base" "$pend" -- '*.c')
# Built by this configuration: kbuild's Makefile of the file's directory
# lists it (or the composite object it is part of) under obj-y or under a
# symbol the configuration sets.
mapfile -t objs < <(for f in "${cfiles[@]}"; do
	printf '%s\t' "$f"
	git -C "$wt" show "$pend:${f%/*}/Makefile" 2>/dev/null | tr '\n' '\f' || true
	echo
done | python3 -c '
import re, sys
config = {}
for ln in open(sys.argv[1]):
    m = re.match(r"(CONFIG_[A-Z0-9_]+)=(y|m)$", ln.strip())
    if m:
        config[m.group(1)] = True
def on(cond):
    return cond == "y" or config.get(cond, False)
for rec in sys.stdin.read().split("\n"):
    if "\t" not in rec:
        continue
    path, mk = rec.split("\t", 1)
    mk = mk.replace("\\\f", " ").split("\f")
    obj = path.rsplit("/", 1)[-1][:-2] + ".o"
    top, parts = {}, {}
    for ln in mk:
        m = re.match(r"\s*obj-(?:\$\((CONFIG_\w+)\)|(y))\s*[+:]?=\s*(.*)", ln)
        if m:
            cond = m.group(1) or "y"
            for o in m.group(3).split():
                top.setdefault(o, cond)
            continue
        m = re.match(r"\s*([\w-]+?)-(?:objs|y|\$\((CONFIG_\w+)\))\s*[+:]?=\s*(.*)", ln)
        if m:
            for o in m.group(3).split():
                parts.setdefault(o, (m.group(1) + ".o", m.group(2) or "y"))
    if obj in top and on(top[obj]):
        print(path[:-2] + ".o")
    elif obj in parts and on(parts[obj][1]) and parts[obj][0] in top and on(top[parts[obj][0]]):
        print(path[:-2] + ".o")
' "$bdir/.config")
printf '%s\n' "${cfiles[@]}" | sed 's/\.c$/.o/' | LC_ALL=C sort > "$res/changed-objects.txt"
printf '%s\n' "${objs[@]}" | LC_ALL=C sort | LC_ALL=C comm -23 "$res/changed-objects.txt" - > "$res/not-built.txt"
[ ${#objs[@]} -gt 0 ] || die "none of the prefix's objects is built by this configuration" "$repro"
log "objects: ${objs[*]}; not in this configuration: $(paste -sd' ' "$res/not-built.txt")"

crcs() { # crcs REV: out/<line>/gki/<rev>.crcs, "object symbol crc" lines
	local rev=$1 o
	checkout "$rev"
	kmake arm64 "$bdir" "${objs[@]}" > "$res/build-$rev.log" 2>&1 ||
		die "the objects do not build at $rev with clang (see ${res#"$TOP"/}/build-$rev.log)" \
			"git -C $wt checkout $rev && make -C $wt O=$bdir ARCH=arm64 LLVM=$LLVM_SUFFIX ${objs[*]}"
	for o in "${objs[@]}"; do
		sed -n -E "s|^#SYMVER ([^ ]+) (0x[0-9a-f]+)$|$o \\1 \\2|p" "$bdir/${o%/*}/.${o##*/}.cmd"
	done | LC_ALL=C sort > "$res/$rev.crcs"
	[ -s "$res/$rev.crcs" ] || die "no #SYMVER line in the objects' .cmd files at $rev" "$repro"
}
crcs "$base"
prev=$base n=0 changed=0
: > "$res/crcs.txt"
for r in "${prefix[@]}"; do
	n=$((n + 1))
	crcs "$r"
	d=$(diff "$res/$prev.crcs" "$res/$r.crcs" | grep '^[<>]' || true)
	if [ -n "$d" ]; then
		changed=$((changed + 1))
		{ echo "patch $n ($(tgit log -1 --format='%h %s' "$r")):"; printf '%s\n' "$d" | sed 's/^/  /'; } >> "$res/crcs.txt"
	fi
	prev=$r
done
nexp=$(wc -l < "$res/$base.crcs")
if [ "$changed" = 0 ]; then
	result PASS gki:crcs "$nexp exports of ${#objs[@]} objects, the same CRCs at every one of the $nprefix patches"
else
	result FAIL gki:crcs "$changed patch(es) change exports or CRCs (see ${res#"$TOP"/}/crcs.txt)"
fi

# --- 3. The types the changed headers define ----------------------------------------
# One probe per header, so that each type is expanded in the same context
# at both revisions: genksyms expands a struct only where its definition
# is in the translation unit, so a probe that included a header new at
# the prefix's end (and the headers it pulls in) would expand the old
# types further, and differ, with no type changed.
mapfile -t hfiles < <(git -C "$wt" diff --name-only "$base" "$pend" -- 'include/*.h' 'arch/*/include/*.h')
probe_types() { # probe_types REV HEADER: the struct/union/enum/typedef names it defines at REV
	git -C "$wt" show "$1:$2" 2>/dev/null | python3 -c '
import re, sys
t = sys.stdin.read()
t = re.sub(r"/\*.*?\*/", "", t, flags=re.S)
out = set()
for kind, name in re.findall(r"\b(struct|union|enum)\s+(\w+)\s*\{", t):
    out.add(f"{kind} {name}")
for name in re.findall(r"\btypedef\b[^;{]*?\(\s*\*\s*(\w+)\s*\)\s*\(", t):
    out.add(f"typedef {name}")
for name in re.findall(r"\btypedef\b[^;(]*?\b(\w+)\s*;", t):
    out.add(f"typedef {name}")
print("\n".join(sorted(out)))' || true
}
probe_crcs() { # probe_crcs REV: genksyms' CRC of every probed type at REV, "header type crc"
	local rev=$1 cmd h n kind name ty
	checkout "$rev"
	kmake arm64 "$bdir" lib/iov_iter.o > "$res/probe-build-$rev.log" 2>&1 ||
		die "lib/iov_iter.o does not build at $rev" "$repro"
	cmd=$(sed -n 's/^\(saved\)\{0,1\}cmd_lib\/iov_iter\.o := //p' "$bdir/lib/.iov_iter.o.cmd")
	[ -n "$cmd" ] || die "no command line in $bdir/lib/.iov_iter.o.cmd" "$repro"
	: > "$res/probe-$rev.crcs"
	for h in "${hfiles[@]}"; do
		git -C "$wt" cat-file -e "$rev:$h" 2>/dev/null || continue
		probe_types "$rev" "$h" > "$res/probe.types"
		n=0
		{
			echo '/* Generated by ci/gki.sh: one export per type the header defines. */'
			echo '#include <linux/export.h>'
			echo "#include <${h#include/}>"
			while read -r kind name; do
				n=$((n + 1))
				if [ "$kind" = typedef ]; then ty=$name; else ty="$kind $name"; fi
				printf 'void gki_probe_%d(%s *p);\nvoid gki_probe_%d(%s *p) { }\nEXPORT_SYMBOL(gki_probe_%d);\n' "$n" "$ty" "$n" "$ty" "$n"
			done < "$res/probe.types"
		} > "$res/probe.c"
		# The preprocessing genksyms reads, of the probe in lib/iov_iter.c's place.
		(cd "$bdir" && eval "$(printf '%s\n' "${cmd/ccache /}" | sed -E "s#;.*##; s#-Wp,-MMD,[^ ]+##; s#-c -o [^ ]+##; s#[^ ]*lib/iov_iter\\.c *\$#-E -D__GENKSYMS__ $res/probe.c#")") 2>> "$res/probe-$rev.log" |
			"$bdir/scripts/genksyms/genksyms" -r /dev/null 2>> "$res/probe-$rev.log" |
			sed -n -E 's/^(#SYMVER |__crc_)?gki_probe_([0-9]+)( = | )(0x[0-9a-f]+);?$/\2 \4/p' |
			while read -r k crc; do printf '%s\t%s\t%s\n' "$h" "$(sed -n "${k}p" "$res/probe.types")" "$crc"; done >> "$res/probe-$rev.crcs"
		[ "$(grep -c "^$h	" "$res/probe-$rev.crcs" || true)" = "$(grep -c . "$res/probe.types" || true)" ] ||
			die "genksyms gave no CRC for some types of $h at $rev (see ${res#"$TOP"/}/probe-$rev.log)" "$repro"
	done
}
probe_crcs "$base"
probe_crcs "$pend"
python3 - "$res/probe-$base.crcs" "$res/probe-$pend.crcs" > "$res/probe-crcs.txt" <<'PY'
import sys
def rd(p):
    d = {}
    for ln in open(p):
        h, t, c = ln.rstrip('\n').split('\t')
        d[(h, t)] = c
    return d
a, b = rd(sys.argv[1]), rd(sys.argv[2])
for k in sorted(set(a) | set(b)):
    x, y = a.get(k), b.get(k)
    verdict = ('same' if x == y else 'CHANGED') if x and y else ('new' if y else 'REMOVED')
    print(f'{k[0]}\t{k[1]}\t{x or "-"}\t{y or "-"}\t{verdict}')
PY
# What the probes cannot see: a header that gains or loses an #include
# changes which structs every includer expands, and a changed #define can
# change another header's types.  Those lines of the changed headers must
# be the same at both ends (a header new at the end has no includers).
: > "$res/header-lines.txt"
for h in "${hfiles[@]}"; do
	if ! git -C "$wt" cat-file -e "$base:$h" 2>/dev/null || ! git -C "$wt" cat-file -e "$pend:$h" 2>/dev/null; then
		continue
	fi
	diff <(git -C "$wt" show "$base:$h" | grep -E '^[[:space:]]*#[[:space:]]*(include|define)') \
		<(git -C "$wt" show "$pend:$h" | grep -E '^[[:space:]]*#[[:space:]]*(include|define)') |
		grep '^[<>]' | sed "s|^|$h: |" >> "$res/header-lines.txt" || true
done
if [ -s "$res/header-lines.txt" ]; then
	result FAIL gki:header-lines "#include or #define lines of the changed headers differ, which the probes do not prove harmless (see ${res#"$TOP"/}/header-lines.txt)"
else
	result PASS gki:header-lines "the changed headers that exist at both ends have the same #include and #define lines"
fi
ntypes=$(grep -c . "$res/probe-crcs.txt" || true)
if grep -qE '(CHANGED|REMOVED)$' "$res/probe-crcs.txt"; then
	result FAIL gki:types "$(grep -cE '(CHANGED|REMOVED)$' "$res/probe-crcs.txt") of $ntypes types of the changed headers expand differently or are gone (see ${res#"$TOP"/}/probe-crcs.txt)"
else
	result PASS gki:types "the types the changed headers (${hfiles[*]}) define expand the same at the base and the prefix's end ($(grep -c 'same$' "$res/probe-crcs.txt") types; $(grep -c 'new$' "$res/probe-crcs.txt" || true) new)"
fi

# --- 4. allmodconfig, limited to the series' directories --------------------------------
if [ "${GKI_ALLMOD:-1}" = 1 ]; then
	mapfile -t dirs < <(git -C "$wt" diff --name-only "$base" "$(tgit rev-parse series)" -- '*.c' | sed 's|/[^/]*$|/|' | LC_ALL=C sort -u)
	checkout "$pend"
	for a in arm64 x86_64; do
		ad=$LB/gki/allmod-$a
		mkdir -p "$ad"
		t=$(date +%s)
		if kmake "$a" "$ad" allmodconfig > "$res/allmod-$a.log" 2>&1 &&
			kmake "$a" "$ad" "${dirs[@]}" >> "$res/allmod-$a.log" 2>&1; then
			result PASS "gki:allmodconfig-$a" "${dirs[*]} built at the prefix's end in $(($(date +%s) - t)) s"
		else
			result FAIL "gki:allmodconfig-$a" "see ${res#"$TOP"/}/allmod-$a.log"
		fi
	done
fi

{
	echo "GKI build (make gki LINE=$LINE_NAME): $clangv, LLVM=1; android14-6.1 gki_defconfig (configs/$LINE_NAME/gki/SOURCE.md) on Debian's 6.1, $(grep -c . "$res/dropped.txt" || true) of its symbols absent from Debian's 6.1 and dropped; CFI_CLANG, SHADOW_CALL_STACK, MODVERSIONS set."
	cut -f1,2 "$res/results.tsv" | sed 's/^/  /'
	echo "  $(($(date +%s) - start)) s"
} > "$res/summary.txt"
cat "$res/summary.txt"
! grep -q '^FAIL' "$res/results.tsv" || die "the GKI build found a change (see ${res#"$TOP"/}/results.tsv)" "$repro"
