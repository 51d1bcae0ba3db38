#!/usr/bin/env bash
# make export [LINE=...]: regenerate patches/<line>/ (format-patch output,
# cover letters, series, BASE) from base..HEAD of build/<line>/linux, one
# directory per posting when patches/<line>/postings lists them.
# Byte-stable: the same commits always give the same files, on any machine
# (make tree makes the commits with a fixed committer and dates).
#
#   EXPORT_DIR=<dir>  write there instead of patches/ (used by the lint)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

DEST=${EXPORT_DIR:-$PATCHES}
COVER=$PATCHES/cover-letter.txt

if [ ! -d "$TREE/.git" ] || ! tgit rev-parse -q --verify refs/tags/base >/dev/null; then
	die "$TREE has no base: create it first" "make$LINEOPT tree"
fi
[ -z "$(tgit status --porcelain --untracked-files=no)" ] ||
	die "$TREE has uncommitted changes: commit them first" "git -C $TREE status"
[ ! -d "$TREE/.git/rebase-apply" ] || die "$TREE has a git am/rebase in progress"
mapfile -t postings < <(postings_list "$PATCHES")
if [ ${#postings[@]} = 0 ]; then
	[ -f "$COVER" ] || die "$COVER is missing (the cover letter's subject and text)"
fi

tmp=$(mktemp -d)
scratch=$(mktemp -d)
trap 'rm -rf "$tmp" "$scratch"' EXIT

# Only the repository's own config and fixed options decide the bytes:
# no user or system config (format.*, diff.*), fixed abbreviation, no
# version signature, no commit hashes in the From lines, no threading
# (Message-Ids are random; threading is b4's and git send-email's job).
# xgit BRANCH COVER ARGS...: git, with COVER as BRANCH's description
# (format-patch's cover letter text when the range ends at BRANCH).
xgit() {
	local branch=$1 cover=$2
	shift 2
	GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
		git -C "$TREE" -c core.abbrev=12 -c diff.algorithm=myers \
		-c branch."$branch".description="$(cat "$cover")" "$@"
}

# format_range FROM TO OUTDIR COVER [PREFIX]: format-patch FROM..TO with the
# cover letter COVER, based on FROM, with the subject prefix PREFIX
# (default "PATCH").
format_range() {
	local from=$1 to=$2 outdir=$3 cover=$4 prefix=${5:-PATCH} tip_date
	# The cover letter is from the author of the last patch of ours in
	# the range, the project (format-patch uses the committer identity for
	# it; a port, with stable's "commit <id> upstream." line, is its
	# upstream author's), and carries the tip's date.
	tip_date=$(tgit log -1 --format='%aD' "$to")
	local own=$to c
	for c in $(tgit rev-list "$from..$to"); do
		if ! tgit log -1 --format=%B "$c" | grep -qE '^commit [0-9a-f]{40} upstream\.$'; then
			own=$c
			break
		fi
	done
	# The range must end at a branch for format-patch to take its
	# description: a posting that ends before the tip gets a branch of its
	# own for the call.
	local branch=series
	if [ "$(tgit rev-parse "$to")" != "$(tgit rev-parse HEAD)" ]; then
		branch=patchq-posting
		tgit branch -f "$branch" "$to"
	fi
	# A base nobody else has (BASE_COMMIT_PUBLIC=no in line.conf: the
	# tree make tree committed) is not named: git writes the line's base
	# and the patch ids of the postings between it and FROM
	# ("prerequisite-patch-id:", which b4 and a reviewer's git patch-id
	# resolve against those postings), and the base-commit line goes.
	local base=$from
	[ "$BASE_COMMIT_PUBLIC" = yes ] || base=$(tgit rev-parse base)
	GIT_COMMITTER_NAME=$(tgit log -1 --format='%an' "$own") \
	GIT_COMMITTER_EMAIL=$(tgit log -1 --format='%ae' "$own") \
	xgit "$branch" "$cover" format-patch -q -o "$outdir" --zero-commit --no-signature --base="$base" \
		--cover-letter --cover-from-description=subject --subject-prefix="$prefix" \
		"$from..$branch" >/dev/null
	[ "$branch" = series ] || tgit branch -q -D "$branch"
	if [ "$BASE_COMMIT_PUBLIC" != yes ]; then
		sed -i '/^base-commit: [0-9a-f]*$/d' "$outdir/0000-cover-letter.patch"
		# The ids are git patch-id --stable of each earlier patch, as a
		# reviewer (and b4) computes them from the mails: format-patch's
		# own computation can differ (it did for one large patch).
		local ids
		ids=$(for c in $(tgit rev-list --reverse "$base..$from"); do
			tgit show "$c" | git patch-id --stable | cut -d' ' -f1; done)
		python3 - "$outdir/0000-cover-letter.patch" "$ids" <<'PY'
import sys
path, ids = sys.argv[1], sys.argv[2].split()
lines = open(path).read().split('\n')
at = [n for n, l in enumerate(lines) if l.startswith('prerequisite-patch-id: ')]
if len(at) != len(ids):
    sys.exit(f'export: {path} has {len(at)} prerequisite-patch-id lines, the base has {len(ids)} patches before it')
for n, i in zip(at, ids):
    lines[n] = 'prerequisite-patch-id: ' + i
open(path, 'w').write('\n'.join(lines))
PY
	fi
	# format-patch dates the cover letter "now": give it the tip's date.
	sed -i "1,/^\$/s/^Date: .*/Date: $tip_date/" "$outdir/0000-cover-letter.patch"
}

# pick_onto_base FROM TO NAME: FROM..TO picked onto the base, with each
# commit's author, message and author date and the fixed committer (so
# the ids are the same on every machine); prints the last commit.  The
# patches are applied to a scratch index (git apply --cached), without a
# checkout: a kernel tree's checkout would cost half a minute a posting.
pick_onto_base() {
	local c onto tree idx=$scratch/pick-$3.index
	onto=$(tgit rev-parse base)
	GIT_INDEX_FILE=$idx tgit read-tree "$onto"
	for c in $(tgit rev-list --reverse "$1..$2"); do
		if ! tgit diff --binary "$c^" "$c" | GIT_INDEX_FILE=$idx tgit apply --cached 2>/dev/null ||
			! tree=$(GIT_INDEX_FILE=$idx tgit write-tree); then
			die "${PATCHES#"$TOP"/}/postings: $3 is on the base, but $(tgit log -1 --format='%h ("%s")' "$c") does not apply there without the postings before it" \
				"git -C $TREE log --oneline base..HEAD"
		fi
		onto=$(GIT_AUTHOR_NAME=$(tgit log -1 --format=%an "$c") GIT_AUTHOR_EMAIL=$(tgit log -1 --format=%ae "$c") \
			GIT_AUTHOR_DATE=$(tgit log -1 --format=%aD "$c") \
			GIT_COMMITTER_NAME=$BASE_NAME GIT_COMMITTER_EMAIL=$BASE_EMAIL \
			GIT_COMMITTER_DATE=$(tgit log -1 --format=%aD "$c") \
			tgit commit-tree "$tree" -p "$onto" -F <(tgit log -1 --format=%B "$c"))
	done
	echo "$onto"
}

n=$(tgit rev-list --count base..HEAD)
if [ "$n" -gt 0 ]; then
	branch=$(tgit symbolic-ref -q --short HEAD || echo series)
	[ "$branch" = series ] || die "$TREE is on branch $branch; the series lives on branch 'series'" \
		"git -C $TREE checkout series"
fi
if [ ${#postings[@]} -gt 0 ]; then
	# One format-patch per posting, each based on the one before, or on
	# the line's base when its postings line says "base" (a posting that
	# stands alone: its commits are picked onto the base, and must apply
	# there).
	mapfile -t commits < <(tgit rev-list --reverse base..HEAD)
	from=base at=0
	for p in "${postings[@]}"; do
		read -r name count prefix on <<< "$p"
		# The prefix the posting goes out with ("RFC_PATCH" is "RFC
		# PATCH", "PATCH_net-next" is "PATCH net-next": an underscore is
		# a space); a local part, never posted, keeps "PATCH".
		prefix=${prefix//_/ }
		[ "$prefix" != local ] || prefix=PATCH
		[[ $count =~ ^[1-9][0-9]*$ ]] || die "${PATCHES#"$TOP"/}/postings: $name: '$count' is not a number of patches"
		if [ $((at + count)) -gt "$n" ]; then
			die "${PATCHES#"$TOP"/}/postings: $name takes $count patches, but the series has only $((n - at)) left" \
				"git -C $TREE log --oneline base..HEAD"
		fi
		[ -f "$PATCHES/$name/cover-letter.txt" ] ||
			die "${PATCHES#"$TOP"/}/$name/cover-letter.txt is missing (the posting's cover letter)"
		to=${commits[$((at + count - 1))]}
		mkdir -p "$tmp/$name"
		case ${on:-prev} in
		prev) format_range "$from" "$to" "$tmp/$name" "$PATCHES/$name/cover-letter.txt" "$prefix" ;;
		base)
			picked=$(pick_onto_base "$from" "$to" "$name") || exit 1
			format_range base "$picked" "$tmp/$name" "$PATCHES/$name/cover-letter.txt" "$prefix" ;;
		*) die "${PATCHES#"$TOP"/}/postings: $name is on '$on': prev or base" ;;
		esac
		from=$to at=$((at + count))
	done
	[ "$at" = "$n" ] || die "${PATCHES#"$TOP"/}/postings takes $at patches, the series has $n" \
		"git -C $TREE log --oneline base..HEAD"
elif [ "$n" -gt 0 ]; then
	format_range base HEAD "$tmp" "$COVER"
fi
[ ! -f "$PATCHES/postings" ] || cp "$PATCHES/postings" "$tmp/postings"
patch_files "$tmp" > "$tmp/series"
# Stable postings (patches/<line>/stable/postings: name, the subject of
# one commit of the series (or "request <mainline id>": a request to
# apply a commit the series has no port of), subject prefix): that commit also goes out
# alone, picked onto the line's base, to stable, from
# stable/<name>/cover-letter.txt.  The series keeps it (a vendor takes
# the series whether stable has taken the fix or not).  patches/ holds
# only the posting's sources: its patch is the series' commit, so make
# mbox has it written (EXPORT_STABLE=1, into its own EXPORT_DIR) when it
# builds the mbox.
while [ "${EXPORT_STABLE:-0}" = 1 ] && IFS=$'\t' read -r name subject prefix _; do
	# A request to apply a mainline commit (subject "request <id>")
	# carries no patch: make mbox writes it from its text alone.
	case $subject in request\ *) continue ;; esac
	[ -f "$PATCHES/stable/$name/cover-letter.txt" ] ||
		die "${PATCHES#"$TOP"/}/stable/$name/cover-letter.txt is missing (the stable posting's cover letter)"
	c=$(tgit log --format='%H %s' base..HEAD | awk -v s="$subject" '{ h = $1; sub(/^[^ ]* /, "") } $0 == s { print h }')
	[ "$(echo "$c" | grep -c .)" = 1 ] ||
		die "${PATCHES#"$TOP"/}/stable/postings: $name names \"$subject\", which is not exactly one commit of the series" \
			"git -C $TREE log --oneline base..HEAD"
	mkdir -p "$tmp/stable/$name"
	picked=$(pick_onto_base "$c^" "$c" "stable-$name") || exit 1
	format_range base "$picked" "$tmp/stable/$name" "$PATCHES/stable/$name/cover-letter.txt" "${prefix//_/ }"
done < <(stable_postings_list "$PATCHES")
{
	echo "# The base the series applies to; written by make export from the work tree."
	cat "$TREE/.git/patchq-base"
} > "$tmp/BASE"

# Replace only what changed, so unchanged files keep their timestamps.
mkdir -p "$DEST"
changed=0
for f in "$DEST"/*.patch "$DEST"/*/*.patch "$DEST"/stable/*/*.patch; do
	[ -e "$f" ] || continue
	[ -e "$tmp/${f#"$DEST"/}" ] || { rm -f "$f"; changed=1; }
done
while read -r f; do
	mkdir -p "$(dirname "$DEST/$f")"
	cmp -s "$tmp/$f" "$DEST/$f" || { cp "$tmp/$f" "$DEST/$f"; changed=1; }
done < <(cd "$tmp" && find . -type f ! -name postings | sed 's|^\./||' | LC_ALL=C sort)
if [ -z "${EXPORT_DIR:-}" ]; then
	tgit update-ref refs/patchq/synced HEAD
	rm -f "$TREE/.git/patchq-digest"
	if [ "$changed" = 1 ]; then
		log "patches/ updated: $n patches (git -C $TOP status shows what changed)"
	else
		log "patches/ already matches $TREE ($n patches)"
	fi
fi
