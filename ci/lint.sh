#!/usr/bin/env bash
# make lint [LINE=6.12]: the line's patches/<line>/ must be consistent with
# itself and with its work tree.
#   1. series and the *.patch files agree (every listed file exists, every
#      file is listed, the cover letter exists iff there are patches);
#   2. build/<line>/linux (if present) exports to exactly what patches/<line>/ holds.
# Each failure prints the command that fixes it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

fail=0
P=${PATCHES#"$TOP"/} T=${TREE#"$TOP"/}
err() { printf 'lint: %s\n' "$1" >&2; [ $# -lt 2 ] || printf 'lint:   fix: %s\n' "$2" >&2; fail=1; }

[ -f "$PATCHES/series" ] || die "$PATCHES/series is missing" "make$LINEOPT export"
# A line that goes out as several postings (patches/<line>/postings) has
# a directory per posting, each with its cover letter; otherwise the
# cover letter is at the top.
mapfile -t postings < <(postings_list "$PATCHES" | awk '{ print $1 }')
covers=("")
[ ${#postings[@]} = 0 ] || covers=("${postings[@]}")
for c in "${covers[@]}"; do
	d=$PATCHES${c:+/$c}
	[ -f "$d/cover-letter.txt" ] || err "${d#"$TOP"/}/cover-letter.txt is missing (the cover letter text)"
done
[ -f "$PATCHES/BASE" ] || err "$P/BASE is missing" "make$LINEOPT tree && make export"

listed=$(series_list "$PATCHES/series")
present=$(patch_files "$PATCHES")
regen="(cd $P && ls *.patch | grep -v '^0000-cover-letter.patch\$' > series)"
for p in $listed; do
	[ -f "$PATCHES/$p" ] || err "series lists $p, which is not in $P/" "$regen   # or: make export"
done
for p in $present; do
	grep -qxF "$p" <<<"$listed" || err "$P/$p is not listed in series" "$regen   # or: make export"
done
if [ -n "$(sort <<<"$listed" | uniq -d)" ]; then
	err "series lists a patch twice: $(sort <<<"$listed" | uniq -d | tr '\n' ' ')" "$regen"
fi
# The order of series is the order of the postings, then format-patch's
# numbering within each.
if [ "$listed" != "$present" ]; then
	err "series is not in the order of the postings and their file names (format-patch numbering)" "make$LINEOPT export"
fi
for c in "${covers[@]}"; do
	d=$PATCHES${c:+/$c}
	if [ -n "$(patch_files "$d")" ] && [ ! -f "$d/0000-cover-letter.patch" ]; then
		err "${d#"$TOP"/}/ has patches but no 0000-cover-letter.patch" "make$LINEOPT export"
	fi
	if [ -z "$(patch_files "$d")" ] && [ -f "$d/0000-cover-letter.patch" ]; then
		err "${d#"$TOP"/}/ has a cover letter but no patches" "make$LINEOPT export"
	fi
done
for f in "$PATCHES"/*; do
	n=${f##*/}
	case $n in
	*.patch|series|BASE|cover-letter.txt|VERSION|range-diff-v*.txt) continue ;;
	postings|recipients) [ ${#postings[@]} -gt 0 ] && continue ;;
	stable)
		# The stable postings (ci/export.sh): their list, and a
		# directory each with its cover-letter.txt.
		mapfile -t sp < <(stable_postings_list "$PATCHES" | cut -f1)
		for g in "$f"/*; do
			case ${g##*/} in
			postings) continue ;;
			esac
			if [ -d "$g" ] && printf '%s\n' "${sp[@]}" | grep -qxF "${g##*/}"; then
				for h in "$g"/*; do
					case ${h##*/} in
					cover-letter.txt) ;;
					*) err "unexpected file in $P/stable/${g##*/}/: ${h##*/} (a stable posting holds its cover-letter.txt alone; make mbox writes its patch)" "rm $h" ;;
					esac
				done
				[ -f "$g/cover-letter.txt" ] || err "$P/stable/${g##*/}/ has no cover-letter.txt" "make$LINEOPT lint"
				continue
			fi
			err "unexpected file in $P/stable/: ${g##*/} (it holds postings and a directory per stable posting it names)" "rm -r $g"
		done
		continue ;;
	esac
	if [ -d "$f" ] && printf '%s\n' "${postings[@]}" | grep -qxF "$n"; then
		for g in "$f"/*; do
			case ${g##*/} in
			*.patch|cover-letter.txt) ;;
			*) err "unexpected file in $P/$n/: ${g##*/} (a posting holds its cover-letter.txt and make export output)" "rm $g" ;;
			esac
		done
		continue
	fi
	err "unexpected file in $P/: $n (it holds make export output, cover-letter.txt, VERSION, .b4-config, range-diffs, and a directory per posting its postings file names)" "rm -r $f"
done

if [ -d "$TREE/.git" ] && tgit rev-parse -q --verify refs/tags/base >/dev/null; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	EXPORT_DIR=$tmp bash "$TOP/ci/export.sh"
	ign=()
	want=$(sed -n 's/^base-commit: //p' "$PATCHES/BASE" 2>/dev/null || true)
	have=$(sed -n 's/^base-commit: //p' "$tmp/BASE")
	if [ -n "$want" ] && [ "$want" != "$have" ]; then
		# Another base: every comparison below, and the cover letter's
		# runs and tables, would be of a tree the line does not record.
		err "$T was made from $(sed -n 's/^source: //p' "$tmp/BASE") (base commit ${have:0:12}), but $P/BASE records $(sed -n 's/^source: //p' "$PATCHES/BASE") (base commit ${want:0:12}): make deps fetches the recorded version, make tree rebuilds $T on it; to move the line to the new base on purpose, SRC_VERSION=<version> make deps tree$LINEOPT, then make$LINEOPT export" \
			"make deps tree$LINEOPT FORCE=1"
		ign=(-I '^base-commit: ' -I '^source: ' -I '^sublevel: ')
	fi
	if ! diff -r -u "${ign[@]}" -x cover-letter.txt -x postings -x recipients -x VERSION -x "range-diff-v*.txt" -x .b4-config -x stable "$PATCHES" "$tmp" > "$tmp.diff"; then
		head -n 60 "$tmp.diff" >&2
		err "$T and $P/ disagree (diff above: $P/ vs an export of $T)" \
			"make$LINEOPT export   # keep $T's commits; or: make$LINEOPT tree FORCE=1 to reset $T to $P/"
	fi
	rm -f "$tmp.diff"
fi

# The cover letter's "last full run" block (make check-full writes it)
# names a run of the series' tip, or the sentence before it says plainly
# that no run of this version exists yet.
cover=$PATCHES/cover-letter.txt
if [ -f "$cover" ] && grep -q '^--- last full run ' "$cover" && [ -d "$TREE/.git" ]; then
	blocktip=$(sed -n '/^--- last full run /,/^--- end of last full run/p' "$cover" | tr '\n' ' ' |
		sed -n 's/.*series tip \([0-9a-f]\{7,40\}\).*/\1/p')
	version=$(sed -n 's/^version: //p' "$PATCHES/VERSION" 2>/dev/null || true)
	intro=$(grep -B3 '^--- last full run ' "$cover" | tr '\n' ' ')
	case $(tgit rev-parse HEAD) in
	"${blocktip:-none}"*) ;;
	*)
		case $intro in
		*"none of version ${version:-?} yet"*) ;;
		*) err "$P/cover-letter.txt: the last full run names series tip ${blocktip:-(none)}, not this tip, and the text before it does not say \"none of version ${version:-?} yet\"" \
			"make$LINEOPT check-full   # or say so before the block" ;;
		esac
		;;
	esac
fi

# The codegen table (make codegen, run only in make check-full) names the
# tip it was made at and its tree: after any change of the series' code it
# is stale, which only the full run would otherwise find.  The tip is read from the table's
# first line, $CODEGEN_HEAD<id> (ci/lib.sh; ci/codegen.sh writes it).
if [ -f "$cover" ] && grep -q '^--- codegen (generated' "$cover" && [ -d "$TREE/.git" ]; then
	cgline=$(sed -n '/^--- codegen (generated/,/^--- end of codegen/p' "$cover" |
		grep -F -m1 -- "$CODEGEN_HEAD" || :)
	cgtip=
	if [ -n "$cgline" ] && [ "${cgline#"$CODEGEN_HEAD"}" != "$cgline" ]; then
		cgtip=${cgline#"$CODEGEN_HEAD"}
		cgtip=${cgtip%% *}
		[[ $cgtip =~ ^[0-9a-f]{7,40}$ ]] || cgtip=
	fi
	if [ -z "$cgtip" ]; then
		err "$P/cover-letter.txt: the codegen table has no line \"$CODEGEN_HEAD<commit id> ...\" (CODEGEN_HEAD in ci/lib.sh), so the tip it was made at is unknown" \
			"make$LINEOPT codegen && make$LINEOPT export"
	else
		# The same code is the same table: "(tree <id>)" after the commit
		# id names the tree it was made of.
		cgtree=$(sed -n 's/^.* (tree \([0-9a-f]\{7,40\}\)) .*$/\1/p' <<< "$cgline")
		here="$(tgit rev-parse HEAD) $(tgit rev-parse 'HEAD^{tree}')"
		case $here in
		"$cgtip"* | *" ${cgtree:-no tree}"*) ;;
		*) err "$P/cover-letter.txt: the codegen table was made at tip $cgtip${cgtree:+ (tree $cgtree)}, not at this tip" \
			"make$LINEOPT codegen && make$LINEOPT export" ;;
		esac
	fi
fi

[ "$fail" = 0 ] || exit 1
echo "lint: $P/ is consistent ($(wc -w <<<"$listed") patches)"
