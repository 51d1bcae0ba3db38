#!/usr/bin/env bash
# make abi: the module ABI of every patch of base..HEAD of build/6.1.y/linux, with
# libabigail, on arm64 (the arch of Android's GKI and most 6.1 vendors).
#
# At every commit it builds, with DWARF, the objects that export the
# functions the series touches (lib/iov_iter.o, net/core/datagram.o,
# net/core/skbuff.o) and ci/abi-probe.c (the types modules compile in
# through inline helpers), links them with ld -r, and describes the result
# with abidw.  The ABI is the base's exports of those objects plus the
# probe's variables; abidiff compares each patch with its parent and the
# end of the KMI-neutral prefix with the base.  The exports themselves are
# compared too (a symbol can stay global and lose its export), and so are
# their modversions CRCs, the check a GKI kernel makes when it loads a
# module: the build has CONFIG_MODVERSIONS, and the kernel's own modpost
# writes <rev>.symvers (Module.symvers' format) from genksyms' CRCs of the
# three objects, as it does for vmlinux.  Every export must have a CRC.
# A CRC of those exports covers the genksyms expansion of the types in
# its prototype (struct iov_iter and what it holds), the same expansion
# every other export that takes an iov_iter gets.
#
# ci/6.1.y/abi-tail lists the patches allowed to change the ABI, with reasons:
# they must be the last ones of the series.  Any other patch that changes
# it, or a listed one out of place, fails.  Results: out/<line>/abi/table.txt (the
# cover letter's table), out/<line>/abi/<n>.abidiff, out/<line>/abi/results.tsv.
# COVER_CHECK=1 checks the cover letter's table instead of rewriting it; a
# check whose inputs (every commit's tree and subject, the arm64 fragments,
# the cross compiler and libabigail, these scripts, the cover letter)
# passed before is replayed from the verdict cache (ci/verdict.sh).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$TOP/ci/verdict.sh"

arch=arm64
res=$OUT/abi
wt=$LB/abi/linux
bdir=$LB/abi/$arch
objs=(lib/iov_iter.o net/core/datagram.o net/core/skbuff.o)
[ -d "$TREE/.git" ] || die "$TREE does not exist" "make$LINEOPT tree"
command -v abidiff >/dev/null || die "abidiff is missing" "make$LINEOPT deps"
rm -rf "$res"
mkdir -p "$res" "$bdir" "$LB/abi/cache"
export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1
cross=$(cross_prefix "$arch")
kmake=(make -s -C "$wt" O="$bdir" ARCH="$arch" ${cross:+CROSS_COMPILE=$cross}
	"CC=ccache ${cross}gcc" -j"$(nproc)")

# abi_build REV: out/<line>/abi/<rev>.o (the linked objects) and <rev>.exports.
abi_build() {
	local rev=$1 cmd o
	git -C "$wt" checkout -q -f --detach "$rev"
	# MODULES: without it EXPORT_SYMBOL() emits nothing to compare.
	"$wt/scripts/config" --file "$bdir/.config" --enable MODULES --enable MODVERSIONS \
		--disable DEBUG_INFO_NONE \
		--enable DEBUG_INFO --enable DEBUG_INFO_DWARF4 --disable DEBUG_INFO_BTF \
		--disable DEBUG_INFO_REDUCED --disable DEBUG_INFO_SPLIT
	"${kmake[@]}" olddefconfig >/dev/null
	"${kmake[@]}" "${objs[@]}" >"$res/build-$rev.log" 2>&1 ||
		die "the objects do not build at $rev (see $res/build-$rev.log)" \
			"git -C $wt checkout $rev && ${kmake[*]} ${objs[*]}"
	# The probe gets exactly lib/iov_iter.o's command line.
	cmd=$(sed -n 's/^\(saved\)\{0,1\}cmd_lib\/iov_iter\.o := //p' "$bdir/lib/.iov_iter.o.cmd")
	[ -n "$cmd" ] || die "no command line in $bdir/lib/.iov_iter.o.cmd"
	cmd=$(printf '%s\n' "$cmd" | sed -E "s#-Wp,-MMD,[^ ]+##; s#-o lib/iov_iter\.o#-o $res/probe.o#; s#[^ ]*lib/iov_iter\.c *\$#$TOP/ci/abi-probe.c#")
	(cd "$bdir" && eval "${cmd/ccache /}") >"$res/probe-$rev.log" 2>&1 ||
		die "ci/abi-probe.c does not build at $rev (see $res/probe-$rev.log)"
	o=$res/$rev.o
	"${cross}ld" -r -o "$o" "${objs[@]/#/$bdir/}" "$res/probe.o"
	"${cross}nm" "$o" | sed -n 's/^.* __ksymtab_//p' | LC_ALL=C sort -u > "$res/$rev.exports"
	abi_symvers "$rev"
}

# abi_symvers REV: out/<line>/abi/<rev>.symvers, modpost's Module.symvers of
# the three objects, as if they were all of vmlinux: modpost reads the
# objects' list from .vmlinux.objs and each one's CRCs from its .cmd file.
abi_symvers() {
	local rev=$1 d=$LB/abi/modpost f missing
	grep -q '^CONFIG_MODVERSIONS=y' "$bdir/.config" || die "CONFIG_MODVERSIONS is off in $bdir/.config"
	rm -rf "$d"
	mkdir -p "$d"
	for f in "${objs[@]}"; do
		mkdir -p "$d/${f%/*}"
		cp "$bdir/$f" "$d/$f"
		cp "$bdir/${f%/*}/.${f##*/}.cmd" "$d/${f%/*}/"
	done
	printf '%s\n' "${objs[@]}" > "$d/.vmlinux.objs"
	"${cross}ld" -r -o "$d/vmlinux.o" "${objs[@]/#/$d/}"
	(cd "$d" && "$bdir/scripts/mod/modpost" -m -o Module.symvers vmlinux.o </dev/null) \
		>"$res/modpost-$rev.log" 2>&1 ||
		die "modpost failed at $rev (see $res/modpost-$rev.log)" "(cd $d && $bdir/scripts/mod/modpost -m -o Module.symvers vmlinux.o)"
	LC_ALL=C sort -k2,2 "$d/Module.symvers" > "$res/$rev.symvers"
	# Every export of the objects, and no CRC of zero (a missing one).
	missing=$(LC_ALL=C comm -23 <(grep -v '^abi_probe_' "$res/$rev.exports") <(cut -f2 "$res/$rev.symvers" | sort -u) | paste -sd' ' -)
	[ -z "$missing" ] || die "no CRC at $rev for: $missing" "make$LINEOPT abi"
	! awk -F'\t' '$1 ~ /^0x0+$/ { print; bad = 1 } END { exit !bad }' "$res/$rev.symvers" ||
		die "a CRC of zero at $rev in $res/$rev.symvers" "make$LINEOPT abi"
}

# abi_describe REV: out/<line>/abi/<rev>.abi, abidw's description of
# <rev>.o, cached by the object's content.
abi_describe() {
	local o=$res/$1.o key
	key=$LB/abi/cache/$(sha256sum "$o" | cut -c1-32).abi
	if [ ! -f "$key" ]; then
		abidw --no-show-locs --out-file "$key.new.$BASHPID" "$o" || return 1
		mv "$key.new.$BASHPID" "$key"
	fi
	cp "$key" "$res/$1.abi"
}

# abi_all: every commit's objects and description, base first.  abidw is
# single-threaded: each commit's runs beside the next one's build.
abi_all() {
	local rev dpid='' drev=''
	for rev in "$base" "${revs[@]}"; do
		abi_build "$rev"
		if [ -n "$dpid" ] && ! wait "$dpid"; then
			die "abidw failed on the objects of $drev" "abidw --no-show-locs ${res#"$TOP"/}/$drev.o"
		fi
		abi_describe "$rev" &
		dpid=$! drev=$rev
	done
	wait "$dpid" || die "abidw failed on the objects of $drev" "abidw --no-show-locs ${res#"$TOP"/}/$drev.o"
}

mapfile -t revs < <(tgit rev-list --reverse base..HEAD)
[ ${#revs[@]} -gt 0 ] || die "no patches in base..HEAD"
base=$(tgit rev-parse base)
mapfile -t tail_subjects < <(sed -e '/^#/d' -e '/^$/d' -e 's/\t.*//' "$LINED/abi-tail")
ntail=${#tail_subjects[@]}

vkey=
if [ "${COVER_CHECK:-0}" = 1 ]; then
	mapfile -t vfiles < <(config_fragments "$LINE" "$arch"; find "$TOP/configs" -type f | LC_ALL=C sort)
	vkey=$(verdict_key "abi $LINE_NAME" \
		"$(for r in "$base" "${revs[@]}"; do tgit log -1 --format='%T %s' "$r"; done | sha256sum | cut -c1-40)" \
		"$(hash_files "${vfiles[@]}") arch=$arch" \
		"$(toolchain_id "${cross}gcc" "${cross}as" "${cross}ld" "${cross}nm" abidw abidiff)" \
		"$(hash_files "$TOP/ci/abi.sh" "$TOP/ci/lib.sh" "$TOP/ci/verdict.sh" "$LINED/line.conf" "$TOP/ci/kunit.sh" "$TOP/ci/abi-probe.c" \
			"$LINED/abi-tail" "$TOP/ci/cover-section.sh" "$PATCHES/cover-letter.txt")")
	if verdict_replay "$vkey" "abi" "$res/results.tsv" "$res"; then
		exit 0
	fi
fi
vstart=$(date +%s)
kunit_config "$arch" "$bdir"
patch_worktree "$wt" "$bdir"
nprefix=$(( ${#revs[@]} - ntail ))
[ "$nprefix" -ge 0 ] || die "ci/$LINE_NAME/abi-tail lists more patches than the series has"

log "module ABI on $arch: base and ${#revs[@]} patches"
abi_all
grep -q '^abi_probe_iov_iter$' "$res/$base.exports" ||
	die "the probe's exports are missing from $res/$base.exports"
{
	echo '[abi_symbol_list]'
	sed 's/^/  /' "$res/$base.exports"
} > "$res/symbols"
# The probe's types are compared with libabigail's "harmless" changes
# shown too: removing a member that leaves the other offsets alone is
# harmless to an exported function's callers, but not to a module whose
# inline helper reads that member.
printf '[abi_symbol_list]\n  abi_probe_iter_type\n  abi_probe_iov_iter\n  abi_probe_iov_iter_state\n  abi_probe_kvec\n' > "$res/probe-symbols"

# compare A B OUT: "none" or a one-line summary of what changed.
compare() {
	local a=$1 b=$2 out=$3 rc=0 prc=0 gone added
	abidiff --no-show-locs --kmi-whitelist "$res/symbols" "$res/$a.abi" "$res/$b.abi" > "$out" || rc=$?
	[ $((rc & 3)) -eq 0 ] || die "abidiff failed ($rc), see $out" \
		"abidiff --kmi-whitelist $res/symbols $res/$a.abi $res/$b.abi"
	# The symbol list does not restrict functions here: judge the
	# variables (the probe's) only.
	abidiff --no-show-locs --harmless --changed-vars --deleted-vars --added-vars \
		--kmi-whitelist "$res/probe-symbols" "$res/$a.abi" "$res/$b.abi" > "$out.probe" || prc=$?
	[ $((prc & 3)) -eq 0 ] || die "abidiff failed ($prc), see $out.probe" \
		"abidiff --harmless --changed-vars --kmi-whitelist $res/probe-symbols $res/$a.abi $res/$b.abi"
	local probe=''
	# grep without -q: under pipefail a writer killed by SIGPIPE would
	# turn a match into "no match".
	if grep -E '^Variables changes summary:' "$out.probe" |
		grep -vE ': 0 Removed[^,]*, 0 Changed[^,]*, 0 Added' >/dev/null; then
		{ echo; echo "The probe's types, harmless changes included:"; grep -v '^Functions changes summary' "$out.probe"; } >> "$out"
		probe=$(grep -oE "'[a-z_ ]+ abi_probe_[a-z_]+'" "$out.probe" | sed -E "s/'//g; s/ abi_probe_[a-z_]+//" | sort -u | paste -sd, -)
		probe="; probe types changed: ${probe:-?}"
		rc=$((rc | 4))
	fi
	rm -f "$out.probe"
	# The CRCs of the exports both have.
	local crcs ncrc
	crcs=$(LC_ALL=C join -t "$(printf '\t')" -j 2 -o 0,1.1,2.1 "$res/$a.symvers" "$res/$b.symvers" | awk -F'\t' '$2 != $3 { print $1 }')
	ncrc=$(printf '%s' "$crcs" | grep -c . || true)
	[ "$ncrc" -eq 0 ] || { echo; echo "modversions CRCs changed ($ncrc):"; printf '%s\n' "$crcs" | sed 's/^/  /'; } >> "$out"
	gone=$(comm -23 "$res/$a.exports" "$res/$b.exports" | paste -sd' ' -)
	added=$(comm -13 "$res/$a.exports" "$res/$b.exports" | paste -sd' ' -)
	{ [ -z "$gone" ] || echo "exports removed: $gone"; [ -z "$added" ] || echo "exports added: $added"; } >> "$out"
	if [ "$rc" -eq 0 ] && [ -z "$gone" ] && [ "$ncrc" -eq 0 ]; then
		echo "none${added:+ (exports added: $added)}"
	else
		# "Functions changes summary: 1 Removed, 0 Changed (156 filtered
		# out), 1 Added functions" -> "functions -1 ~0 +1"
		local s
		s=$(sed -nE '1,2s/^(Function|Variable)s changes summary: ([0-9]+) Removed[^,]*, ([0-9]+) Changed[^,]*, ([0-9]+) Added.*/\L\1s -\2 ~\3 +\4/p' "$out" | paste -sd' ' -)
		local parts=()
		# A summary of nothing but zeros says nothing: leave it out.
		if [ -n "$s" ] && [ -n "$(printf '%s' "$s" | tr -d ' ~+a-z0-' )" ]; then
			parts+=("$s")
		fi
		[ -z "$probe" ] || parts+=("${probe#; }")
		[ -z "$gone" ] || parts+=("exports removed: $gone")
		[ "$ncrc" -eq 0 ] || parts+=("CRCs changed: $ncrc")
		local IFS=';'
		echo "CHANGED: ${parts[*]}" | sed 's/;/; /g'
	fi
}

fail=0
prev=$base
: > "$res/results.tsv"
{
	printf '  %-3s %-62s %s\n' '#' 'patch' 'module ABI against its parent (arm64)'
	n=0
	for rev in "${revs[@]}"; do
		n=$((n + 1))
		subj=$(tgit log -1 --format=%s "$rev")
		verdict=$(compare "$prev" "$rev" "$res/$n.abidiff")
		intail=0
		[ "$n" -le "$nprefix" ] || intail=1
		if [ "$intail" = 1 ] && [ "$subj" != "${tail_subjects[$((n - nprefix - 1))]}" ]; then
			log "patch $n ($subj) is in the ABI tail's place, but ci/$LINE_NAME/abi-tail lists '${tail_subjects[$((n - nprefix - 1))]}' there"
			fail=1
		fi
		st=PASS
		case $verdict in
		CHANGED*)
			if [ "$intail" = 0 ]; then
				log "patch $n ($subj) changes the module ABI but is not in ci/$LINE_NAME/abi-tail: $res/$n.abidiff"
				st=FAIL
			fi ;;
		*)
			[ "$intail" = 0 ] || log "note: patch $n ($subj) is in ci/$LINE_NAME/abi-tail but changes nothing here" ;;
		esac
		[ "$st" = PASS ] || fail=1
		printf '%s\tabi:patch%04d\n' "$st" "$n" >> "$res/results.tsv"
		short=$subj
		[ ${#short} -le 62 ] || short=${short:0:59}...
		printf '  %-3s %-62s %s\n' "$n" "$short" "$verdict"
		[ "$n" -ne "$nprefix" ] || printf '  --- end of the KMI-neutral prefix (%d patches): base..%d below ---\n' "$nprefix" "$nprefix"
		[ "$n" -ne "$nprefix" ] || echo "PREFIX $rev"
		prev=$rev
	done
} > "$res/table.raw"
grep -v '^PREFIX ' "$res/table.raw" > "$res/table.txt"
pend=$(sed -n 's/^PREFIX //p' "$res/table.raw")
if [ "$nprefix" -eq 0 ]; then pend=$base; fi
verdict=$(compare "$base" "$pend" "$res/prefix.abidiff")
{
	echo "  base..end of prefix: $verdict"
	echo "  (abidiff over the base's $(($(wc -l < "$res/$base.exports") - 4)) exports of those objects and the probe's 4 types,"
	echo "   modpost's modversions CRCs of the $(wc -l < "$res/$base.symvers") exports;"
	echo "   -removed ~changed +added, full reports in ${res#"$TOP"/}/<n>.abidiff)"
} >> "$res/table.txt"
case $verdict in
CHANGED*) log "the prefix is not ABI-neutral: $res/prefix.abidiff"; fail=1
	printf 'FAIL\tabi:prefix\n' >> "$res/results.tsv" ;;
*) printf 'PASS\tabi:prefix\n' >> "$res/results.tsv" ;;
esac
cat "$res/table.txt"
[ "$fail" = 0 ] || die "module ABI check failed" "make$LINEOPT abi"
bash "$TOP/ci/cover-section.sh" '--- module ABI (generated by make abi; do not edit) ---' \
	'--- end of module ABI ---' "$res/table.txt"
log "ok: the first $nprefix patches keep the module ABI; the last $ntail change it as ci/$LINE_NAME/abi-tail says"
if [ -n "$vkey" ]; then
	mapfile -t vlogs < <(find "$res" -maxdepth 1 -type f \( -name '*.abidiff' -o -name 'table.txt' \))
	verdict_store "$vkey" abi "$(($(date +%s) - vstart))" "$res/results.tsv" "$res/table.txt" "${vlogs[@]}"
fi
