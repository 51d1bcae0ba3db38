#!/usr/bin/env bash
# Versions of the posted series of a line.  patches/<line>/VERSION holds N,
# the version that make mbox writes.
#   make range-diff  for N > 1: git range-diff of version N-1 (the
#                    patches/<line>/ of the project's tag <line>/series-v<N-1>,
#                    applied to the base) against the line's work tree, into
#                    patches/<line>/range-diff-v<N-1>-v<N>.txt, which the
#                    cover letter's changelog points to
#   make post        after mailing version N: tag the project commit that
#                    holds it <line>/series-v<N>, then set VERSION to N+1
# Tags before the one-directory-per-line layout are series-v<N> (6.1.y),
# with the patches in patches/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cmd=${1:?usage: version.sh range-diff|post}
version=$(sed -n 's/^version: *//p' "$PATCHES/VERSION")
[[ $version =~ ^[1-9][0-9]*$ ]] || die "${PATCHES#"$TOP"/}/VERSION has no 'version: N' line"
pgit() { git -C "$TOP" "$@"; }

case $cmd in
range-diff)
	[ "$version" -gt 1 ] || { log "version 1 has no previous version: no range-diff"; exit 0; }
	prev=$((version - 1))
	tag=$LINE_NAME/series-v$prev rel=${PATCHES#"$TOP"/}
	if ! pgit rev-parse -q --verify "refs/tags/$tag" >/dev/null && [ "$LINE" = 6.1 ] &&
		pgit rev-parse -q --verify "refs/tags/series-v$prev" >/dev/null; then
		tag=series-v$prev rel=patches
	fi
	pgit rev-parse -q --verify "refs/tags/$tag" >/dev/null ||
		die "no tag $tag in the project: was version $prev posted with make$LINEOPT post?"
	wt=$(mktemp -d)
	trap 'tgit worktree remove --force "$wt" >/dev/null 2>&1 || true; rm -rf "$wt"' EXIT
	tgit worktree add -q --detach "$wt/tree" base
	for p in $(pgit show "$tag:$rel/series" | sed -e 's/#.*//' | grep .); do
		pgit show "$tag:$rel/$p" > "$wt/$p"
		git -C "$wt/tree" -c user.name="$BASE_NAME" -c user.email="$BASE_EMAIL" am -q "$wt/$p" ||
			die "version $prev's $p no longer applies to the base"
	done
	out=$PATCHES/range-diff-v$prev-v$version.txt
	tgit range-diff --no-color "base..$(git -C "$wt/tree" rev-parse HEAD)" base..HEAD > "$out"
	log "wrote ${out#"$TOP"/} ($(wc -l < "$out") lines)"
	;;
post)
	[ -z "$(pgit status --porcelain)" ] || die "the project has uncommitted changes: commit them first"
	bash "$TOP/ci/lint.sh"
	pgit tag -a "$LINE_NAME/series-v$version" -m "iov_iter $LINE_NAME series, version $version as posted"
	printf '# The version of the series that make mbox writes (the vN of the subject).\nversion: %s\n' \
		$((version + 1)) > "$PATCHES/VERSION"
	log "tagged $LINE_NAME/series-v$version; ${PATCHES#"$TOP"/}/VERSION is now $((version + 1)): commit it"
	;;
*) die "unknown command $cmd (range-diff|post)" ;;
esac
