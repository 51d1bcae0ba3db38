#!/usr/bin/env bash
# make kcidb: the results of the last make check (every KUnit case, every
# per-patch check, every guard and self-test) as KCIDB JSON, the format of
# KernelCI's common results database, validated with kcidb-io's schema:
# out/kcidb/kcidb.json.  ci/kcidb.py has the mapping.
#   KCIDB_RUN=out/check-full   convert that run instead (default out/check)
#   KCIDB_ORIGIN=<name>        the submitter's origin ([a-z0-9_]+), given by
#                              KernelCI with the submission credentials
#                              (default iov_iter_local, for local use)
#   KCIDB_PATCH_URL=<url>      where the patches are published: each patch's
#                              URL is this plus its path in the project
#                              (default: file:// URLs of this checkout)
#   KCIDB_GIT_REPO=<https url> the repository holding the work trees' base
#                              commits, if published (default: none given)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

run=${KCIDB_RUN:-$OUT_ALL/check}
case $run in /*) ;; *) run=$TOP/$run ;; esac
origin=${KCIDB_ORIGIN:-iov_iter_local}
res=$OUT_ALL/kcidb
mkdir -p "$res"
args=()
for l in $LINES; do
	lb=$(line_dir "$l" build)
	[ -d "$lb/linux/.git" ] || die "no $l.y work tree" "make$( [ "$l" = 6.1 ] || echo " LINE=$l") tree"
	args+=(--line "$l" "$(line_dir "$l" patches)" "$lb/linux" "$lb")
done
"$TOP/build/venv/bin/python3" "$TOP/ci/kcidb.py" --run "$run" --origin "$origin" \
	--out "$res/kcidb.json" --top "$TOP" --patch-url "${KCIDB_PATCH_URL:-file://$TOP/}" \
	${KCIDB_GIT_REPO:+--git-repo "$KCIDB_GIT_REPO"} "${args[@]}" ||
	die "make kcidb failed on ${run#"$TOP"/}" "make kcidb${KCIDB_RUN:+ KCIDB_RUN=$KCIDB_RUN}"
