#!/usr/bin/env bash
# make mainline-check [LINE=6.12]: what a rebase of the 6.12.y series onto
# mainline will meet.  ../shared/mainline/ holds the newest mainline
# versions of the files the series touches (SOURCES.md names each one's
# commit).  In a scratch repository the base's versions of every touched
# file are committed, then replaced by mainline's where there is a copy,
# and the series is applied on top with git apply --3way, patch by patch.
# Every conflict is reported, with the file and the patch; a file without
# a mainline copy is reported as not checked.
#
# ci/6.12.y/mainline-expected lists the conflicts the documentation explains
# (patch subject, tab, file).  A conflict that is not listed, or a listed
# one that is gone, fails the stage: the report and the docs stay true.
# Output: out/6.12.y/mainline/{report.txt,results.tsv}.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ML=${MAINLINE_DIR:-$TOP/../shared/mainline}
EXPECTED=${MAINLINE_EXPECTED:-$LINED/mainline-expected}
res=$OUT/mainline
repro="make$LINEOPT mainline-check"
[ "$LINE" = 6.12 ] || die "the mainline check is for the 6.12.y line" "make LINE=6.12 mainline-check"
[ -d "$TREE/.git" ] || die "$TREE does not exist" "make$LINEOPT tree"
[ -f "$ML/SOURCES.md" ] || die "no mainline files in $ML (SOURCES.md missing)" "ls $ML"
rm -rf "$res"
mkdir -p "$res"
: > "$res/results.tsv"
scratch=$res/repo

# Mainline moved some files: the series' path -> mainline's path.
ml_path() {
	case $1 in
	lib/kunit_iov_iter.c) echo lib/tests/kunit_iov_iter.c ;;
	*) echo "$1" ;;
	esac
}

mapfile -t files < <(tgit diff --name-only base HEAD | sort)
git init -q -b main "$scratch"
sgit() { git -C "$scratch" -c user.name="$BASE_NAME" -c user.email="$BASE_EMAIL" "$@"; }
for f in "${files[@]}"; do
	if tgit cat-file -e "base:$f" 2>/dev/null; then
		mkdir -p "$scratch/$(dirname "$f")"
		tgit show "base:$f" > "$scratch/$f"
	fi
done
sgit add -A
sgit commit -q --allow-empty -m "the 6.12.y base's versions of the touched files"
{
	echo "Mainline check: the $(tgit rev-list --count base..HEAD) patches of the $LINE_NAME series on the newest"
	echo "mainline versions of the files they touch (../shared/mainline, SOURCES.md)."
	echo
	echo "Files:"
} > "$res/report.txt"
for f in "${files[@]}"; do
	m=$(ml_path "$f")
	if [ -f "$ML/$m" ]; then
		mkdir -p "$scratch/$(dirname "$f")"
		cp "$ML/$m" "$scratch/$f"
		blob=$(git hash-object "$ML/$m")
		printf '  %-34s mainline %s (blob %s)%s\n' "$f" "$m" "${blob:0:12}" \
			"$([ "$m" = "$f" ] || echo ', moved there')" >> "$res/report.txt"
	elif tgit cat-file -e "base:$f" 2>/dev/null; then
		printf '  %-34s not checked: no mainline copy, the base version stands in\n' "$f" >> "$res/report.txt"
	else
		printf '  %-34s new file\n' "$f" >> "$res/report.txt"
	fi
done
sgit add -A
sgit commit -q --allow-empty -m "mainline's versions"
echo >> "$res/report.txt"
echo "Patches:" >> "$res/report.txt"

found=$res/conflicts
: > "$found"
n=0
for c in $(tgit rev-list --reverse base..HEAD); do
	n=$((n + 1))
	subj=$(tgit log -1 --format=%s "$c")
	tgit format-patch -1 --stdout "$c" > "$res/$n.patch"
	if sgit apply --3way --index "$res/$n.patch" > "$res/$n.log" 2>&1; then
		printf '  %2d clean     %s\n' "$n" "$subj" >> "$res/report.txt"
		sgit commit -q --allow-empty -m "$subj"
		continue
	fi
	mapfile -t bad < <(sgit diff --name-only --diff-filter=U)
	if [ ${#bad[@]} -eq 0 ]; then
		# Nothing merged at all (a hunk without a 3-way base): report the
		# files git apply named.
		mapfile -t bad < <(sed -n 's/^error: patch failed: \([^:]*\):.*/\1/p; s/^error: \([^:]*\): does not exist in index$/\1/p' "$res/$n.log" | sort -u)
	fi
	[ ${#bad[@]} -gt 0 ] || bad=('?')
	for f in "${bad[@]}"; do
		printf '  %2d CONFLICT  %s\n              in %s\n' "$n" "$subj" "$f" >> "$res/report.txt"
		printf '%s\t%s\n' "$subj" "$f" >> "$found"
		if [ -f "$scratch/$f" ] && grep -q '^<<<<<<<' "$scratch/$f"; then
			awk '/^<<<<<<</{p=1} p && n < 40 {print "                | " $0; n++} /^>>>>>>>/{p=0}' \
				"$scratch/$f" >> "$res/report.txt"
		fi
	done
	# Keep mainline's side of a conflicted file (what a rebase would
	# start from) and the rest of the patch, then go on.
	sgit checkout -q --ours -- "${bad[@]}" 2>/dev/null || true
	sgit reset -q
	sgit add -A
	sgit commit -q --allow-empty -m "$subj (partly)"
done

# Judge against the documented conflicts.
fail=0
want=$res/expected
sed -e '/^#/d' -e '/^$/d' "$EXPECTED" | sort > "$want"
sort -o "$found" "$found"
while IFS=$'\t' read -r subj f; do
	if grep -qxF -- "$subj"$'\t'"$f" "$want"; then
		printf 'PASS\t%s:mainline:expected-conflict:%s\n' "$LINE" "$f" >> "$res/results.tsv"
	else
		printf 'FAIL\t%s:mainline:new-conflict:%s\n' "$LINE" "$f" >> "$res/results.tsv"
		log "a conflict ci/6.12.y/mainline-expected does not list: $subj, in $f"
		fail=1
	fi
done < "$found"
while IFS=$'\t' read -r subj f; do
	if ! grep -qxF -- "$subj"$'\t'"$f" "$found"; then
		printf 'FAIL\t%s:mainline:conflict-gone:%s\n' "$LINE" "$f" >> "$res/results.tsv"
		log "ci/6.12.y/mainline-expected lists a conflict that did not happen: $subj, in $f"
		fail=1
	fi
done < "$want"
clean=$(grep -c ' clean ' "$res/report.txt" || true)
printf 'PASS\t%s:mainline:clean-patches:%s\n' "$LINE" "$clean" >> "$res/results.tsv"
rm -rf "$scratch"
cat "$res/report.txt"
[ "$fail" = 0 ] || die "the mainline conflicts differ from ci/6.12.y/mainline-expected (report: ${res#"$TOP"/}/report.txt)" "$repro"
