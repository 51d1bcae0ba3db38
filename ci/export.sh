#!/usr/bin/env bash
# make export: regenerate patches/ (format-patch output, cover letter,
# series, BASE) from base..HEAD of build/6.1.y/linux.  Byte-stable: the same
# commits always give the same files, on any machine.
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
[ -f "$COVER" ] || die "$COVER is missing (the cover letter's subject and text)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Only the repository's own config and fixed options decide the bytes:
# no user or system config (format.*, diff.*), fixed abbreviation, no
# version signature, no commit hashes in the From lines, no threading
# (Message-Ids are random; threading is b4's and git send-email's job).
xgit() {
	GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null \
		git -C "$TREE" -c core.abbrev=12 -c diff.algorithm=myers \
		-c branch.series.description="$(cat "$COVER")" "$@"
}

n=$(tgit rev-list --count base..HEAD)
if [ "$n" -gt 0 ]; then
	branch=$(tgit symbolic-ref -q --short HEAD || echo series)
	[ "$branch" = series ] || die "$TREE is on branch $branch; the series lives on branch 'series'" \
		"git -C $TREE checkout series"
	# The cover letter is from the tip commit's author (format-patch uses
	# the committer identity for it) and carries the tip's date.
	tip_date=$(tgit log -1 --format='%aD' HEAD)
	GIT_COMMITTER_NAME=$(tgit log -1 --format='%an' HEAD) \
	GIT_COMMITTER_EMAIL=$(tgit log -1 --format='%ae' HEAD) \
	xgit format-patch -q -o "$tmp" --zero-commit --no-signature --base=base \
		--cover-letter --cover-from-description=subject \
		base..HEAD >/dev/null
	# format-patch dates the cover letter "now": give it the tip's date.
	sed -i "1,/^\$/s/^Date: .*/Date: $tip_date/" "$tmp/0000-cover-letter.patch"
fi
patch_files "$tmp" > "$tmp/series"
{
	echo "# The base the series applies to; written by make export from the work tree."
	cat "$TREE/.git/patchq-base"
} > "$tmp/BASE"

# Replace only what changed, so unchanged files keep their timestamps.
mkdir -p "$DEST"
changed=0
for f in "$DEST"/*.patch; do
	[ -e "$f" ] || continue
	[ -e "$tmp/${f##*/}" ] || { rm -f "$f"; changed=1; }
done
for f in "$tmp"/*; do
	cmp -s "$f" "$DEST/${f##*/}" || { cp "$f" "$DEST/"; changed=1; }
done
if [ -z "${EXPORT_DIR:-}" ]; then
	tgit update-ref refs/patchq/synced HEAD
	rm -f "$TREE/.git/patchq-digest"
	if [ "$changed" = 1 ]; then
		log "patches/ updated: $n patches (git -C $TOP status shows what changed)"
	else
		log "patches/ already matches $TREE ($n patches)"
	fi
fi
