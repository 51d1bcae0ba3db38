#!/usr/bin/env bash
# make tree [LINE=6.12]: create the line's work tree (build/<line>/linux), a
# git repository of the line's base
# with a reproducible base commit (tag "base"), and apply the line's
# series (patches/<line>/series) to it.
#
#   KERNEL_SRC=<dir>  use this tree instead of Debian's linux-source-<line>
#   FORCE=1           discard commits in the work tree that were never exported
#                     (they stay reachable as refs/backup/<date>)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

TARBALL=${TARBALL:-$(src_tarball)}
FORCE=${FORCE:-0}
META=.git/patchq-base		# relative to $TREE

# --- Which base do we want? ------------------------------------------------
if [ -n "${KERNEL_SRC:-}" ]; then
	[ -f "$KERNEL_SRC/Makefile" ] || die "KERNEL_SRC=$KERNEL_SRC is not a kernel tree (no Makefile)"
	src=$(cd "$KERNEL_SRC" && pwd)
	if git -C "$src" rev-parse -q --verify HEAD >/dev/null 2>&1 &&
	   [ "$(git -C "$src" rev-parse --show-toplevel)" = "$src" ]; then
		want="git $src $(git -C "$src" rev-parse HEAD)"
	else
		want="dir $src"
	fi
else
	[ -f "$TARBALL" ] || die "$TARBALL not found" "make$LINEOPT deps"
	ver=$(src_version)
	want="debian $SRC_PKG $ver"
fi

have_base() {
	[ -f "$TREE/$META" ] && tgit rev-parse -q --verify refs/tags/base >/dev/null &&
		[ "$(sed -n 's/^source: //p' "$TREE/$META")" = "$want" ]
}

# Digest of what patches/ asks for, to skip a re-apply when nothing changed.
patches_digest() {
	{
		cat "$PATCHES/series"
		series_list "$PATCHES/series" | while read -r p; do cat "$PATCHES/$p"; done
	} | sha256sum | cut -d' ' -f1
}

[ -f "$PATCHES/series" ] || die "$PATCHES/series is missing" "ls $PATCHES"
for p in $(series_list "$PATCHES/series"); do
	[ -f "$PATCHES/$p" ] || die "$PATCHES/series lists $p, which does not exist" "make$LINEOPT lint"
done

# --- Protect work that is only in the work tree ------------------------------
if [ -d "$TREE/.git" ]; then
	if [ -d "$TREE/.git/rebase-apply" ]; then
		[ "$FORCE" = 1 ] || die "$TREE has a git am in progress: finish it (git am --continue/--abort) or use FORCE=1"
		tgit am --abort >/dev/null 2>&1 || true
	fi
	if [ -n "$(tgit status --porcelain --untracked-files=no)" ]; then
		[ "$FORCE" = 1 ] || die "$TREE has uncommitted changes: commit them and run 'make export', or use FORCE=1 to discard them"
	fi
	synced=$(tgit rev-parse -q --verify refs/patchq/synced || true)
	head=$(tgit rev-parse -q --verify HEAD || true)
	if [ -n "$head" ] && [ "$head" != "$synced" ] && [ "$FORCE" != 1 ]; then
		die "$TREE has commits that are not in patches/ (HEAD moved since the last make tree/export): run 'make export' to keep them, or 'make tree FORCE=1' to discard them"
	fi
	if [ -n "$head" ]; then
		tgit update-ref "refs/backup/$(date -u +%Y%m%dT%H%M%S)" "$head"
	fi
fi

# --- The base ------------------------------------------------------------------
make_base() {
	local tmp=$TREE.new
	rm -rf "$tmp"
	mkdir -p "$tmp"
	case "$want" in
	debian*)
		log "unpacking $TARBALL ($want)"
		tar -xf "$TARBALL" -C "$tmp" --strip-components=1
		;;
	git*)
		log "exporting $src (${want##* })"
		git -C "$src" archive --format=tar HEAD | tar -xf - -C "$tmp"
		;;
	dir*)
		log "copying $src"
		(cd "$src" && tar -cf - --exclude=.git .) | tar -xf - -C "$tmp"
		;;
	esac
	# Debian's .gitignore ends with a rule that ignores everything at the
	# top level; drop that stanza so the work tree behaves like a kernel
	# checkout (new files show up in git status).
	if [ -f "$tmp/.gitignore" ]; then
		sed -i '/^# Debian packaging: ignore everything/,$d' "$tmp/.gitignore"
		sed -i -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$tmp/.gitignore"
		sed -i '${/^#$/d}' "$tmp/.gitignore"
	fi
	local sub
	sub=$(awk '/^VERSION =/{v=$3} /^PATCHLEVEL =/{p=$3} /^SUBLEVEL =/{s=$3} END{print v"."p"."s}' "$tmp/Makefile")
	# The line's base version: its name (6.1), or BASE_VERSION from its
	# line.conf for a line not named after one (mainline).
	case "$sub" in "${BASE_VERSION:-$LINE}".*) ;; *) rm -rf "$tmp"; die "the base is $sub, not a $LINE_NAME kernel" ;; esac

	log "committing the base (reproducible identity and date)"
	git -C "$tmp" init -q -b series
	git -C "$tmp" add -f -A
	GIT_AUTHOR_NAME=$BASE_NAME GIT_AUTHOR_EMAIL=$BASE_EMAIL GIT_AUTHOR_DATE=$BASE_DATE \
	GIT_COMMITTER_NAME=$BASE_NAME GIT_COMMITTER_EMAIL=$BASE_EMAIL GIT_COMMITTER_DATE=$BASE_DATE \
		git -C "$tmp" -c core.hooksPath=/dev/null commit -q --no-verify \
		-m "Linux $sub" -m "Base tree: $want."
	git -C "$tmp" tag base
	{
		printf 'source: %s\n' "$want"
		printf 'sublevel: %s\n' "$sub"
		printf 'base-commit: %s\n' "$(git -C "$tmp" rev-parse base)"
	} > "$tmp/$META"
	rm -rf "$TREE"
	mv "$tmp" "$TREE"
}

if have_base; then
	log "reusing the base in $TREE ($want)"
else
	make_base
fi

# --- The series ------------------------------------------------------------------
digest=$(patches_digest)
if [ "$(tgit rev-parse -q --verify HEAD)" = "$(tgit rev-parse -q --verify refs/patchq/synced || true)" ] &&
   [ "$(cat "$TREE/.git/patchq-digest" 2>/dev/null)" = "$digest" ]; then
	log "$TREE is up to date with ${PATCHES#"$TOP"/}/series ($(tgit rev-list --count base..HEAD) patches)"
	exit 0
fi

# Committer identity and date are fixed as well, so a given patches/ gives
# the same commit hashes on every machine (REV=<hash> means the same thing).
tgit checkout -q -f -B series base
tgit clean -q -f -d -x -e /.kunit >/dev/null
n=0
for p in $(series_list "$PATCHES/series"); do
	if ! GIT_COMMITTER_NAME=$BASE_NAME GIT_COMMITTER_EMAIL=$BASE_EMAIL \
	     tgit am -q --3way --keep-cr --committer-date-is-author-date "$PATCHES/$p" >/dev/null 2>"$TREE/.git/am.err"; then
		cat "$TREE/.git/am.err" >&2
		tgit am --abort >/dev/null 2>&1 || true
		tgit update-ref refs/patchq/synced HEAD
		rm -f "$TREE/.git/patchq-digest"
		die "patch $p does not apply (after $n good patches; $TREE is left at the last one that applied)" \
			"git -C $TREE am --3way $PATCHES/$p"
	fi
	n=$((n + 1))
done
tgit update-ref refs/patchq/synced HEAD
echo "$digest" > "$TREE/.git/patchq-digest"
log "$TREE: base $(tgit rev-parse --short=12 base) + $n patches"
