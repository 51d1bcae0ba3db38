#!/usr/bin/env bash
# make backport: how later upstream fixes apply to the line's base and to
# its tip, the question a vendor asks of a port ("does a tree shaped like
# mainline's take mainline's fixes more easily?").
#
# Input, one of:
#   BACKPORT_PATCHES="<dir or files>"  git am-readable mails (default: the
#       16 real mainline iov_iter fixes after v6.6 in
#       ../shared/upstream-fixes, test input only)
#   BACKPORT_COMMITS="<id> ..." with UPSTREAM_TREE=<git tree>: those
#       commits of that tree, as git format-patch writes them (a vendor's
#       own list)
# Per patch and per side (base, tip), in a scratch worktree of the line's
# tree: git am; if that fails, git am -3; if that fails too, "conflicts",
# or "n/a" when the code it fixes is not there, or "already in" when it
# applies in reverse or its result is there in another form (the series
# carries it; code_present() below says how that is judged).  git am -3 needs the patch's
# pre-image blobs, which a tree without upstream history (Debian's
# tarball) lacks; in a vendor's git tree it can do more.
# Where a patch applies: at the tip, the line's KUnit suites on x86_64 run
# with it (ci/kunit.sh, REV=); at the base, which has no such suite, the
# objects it changes are built (x86_64 defconfig, W=1 off).
# BACKPORT_RUN=none applies only.
# Output: out/<line>/backport/{table.md,results.tsv,<patch>.<side>.log}.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

res=$OUT/backport
repro="make$LINEOPT backport${BACKPORT_COMMITS:+ BACKPORT_COMMITS=\"$BACKPORT_COMMITS\" UPSTREAM_TREE=${UPSTREAM_TREE:-}}${BACKPORT_PATCHES:+ BACKPORT_PATCHES=\"$BACKPORT_PATCHES\"}"
[ -d "$TREE/.git" ] || die "no work tree at $TREE" "make$LINEOPT tree"
base=$(tgit rev-parse -q --verify "base^{commit}") || die "the work tree has no base tag" "make$LINEOPT tree FORCE=1"
tip=$(tgit rev-parse -q --verify "series^{commit}") || die "the work tree has no series branch" "make$LINEOPT tree FORCE=1"
rm -rf "$res"
mkdir -p "$res/mails"

# --- The mails --------------------------------------------------------------
if [ -n "${BACKPORT_COMMITS:-}" ]; then
	if [ -z "${UPSTREAM_TREE:-}" ] || [ ! -d "$UPSTREAM_TREE/.git" ]; then
		die "BACKPORT_COMMITS needs UPSTREAM_TREE=<a git tree that has them>" "$repro"
	fi
	n=0
	for c in $BACKPORT_COMMITS; do
		n=$((n + 1))
		git -C "$UPSTREAM_TREE" rev-parse -q --verify "$c^{commit}" >/dev/null ||
			die "$c is not a commit of $UPSTREAM_TREE" "$repro"
		git -C "$UPSTREAM_TREE" format-patch -q -1 --stdout "$c" > "$res/mails/$(printf '%04d' "$n")-$c.patch"
	done
else
	src=${BACKPORT_PATCHES:-$TOP/../shared/upstream-fixes}
	files=()
	for s in $src; do
		if [ -d "$s" ]; then
			for f in "$s"/*.patch; do [ -f "$f" ] && files+=("$f"); done
		elif [ -f "$s" ]; then
			files+=("$s")
		else
			die "BACKPORT_PATCHES names $s, which is no file or directory" "$repro"
		fi
	done
	[ ${#files[@]} -gt 0 ] || die "no .patch file in ${src}" "$repro"
	for f in "${files[@]}"; do cp "$f" "$res/mails/"; done
fi

# --- Apply, in a scratch worktree ----------------------------------------------
wt=$res/wt
cleanup() { tgit worktree remove --force "$wt" >/dev/null 2>&1 || true; }
trap cleanup EXIT
tgit worktree prune
tgit worktree add -q --detach "$wt" "$base"
wg() {
	git -C "$wt" -c user.name="$BASE_NAME" -c user.email="$BASE_EMAIL" "$@"
}

# code_present MAIL REV: ci/backport_classify.py's verdict (0 the code is
# there, 2 its result is, 1 neither).
code_present() { python3 "$TOP/ci/backport_classify.py" "$1" "$2" "$wt"; }

: > "$res/results.tsv"
for mail in "$res"/mails/*.patch; do
	name=$(basename "$mail" .patch)
	subj=$(git mailinfo /dev/null /dev/null < "$mail" | sed -n 's/^Subject: //p')
	for side in base tip; do
		rev=$base
		[ "$side" = tip ] && rev=$tip
		log_=$res/$name.$side.log
		wg checkout -q --detach "$rev"
		wg am --abort >/dev/null 2>&1 || true
		if wg apply --check -R "$mail" > "$log_" 2>&1; then
			how=already-in
		elif wg am -q "$mail" >> "$log_" 2>&1; then
			how=applies
		else
			wg am --abort >/dev/null 2>&1 || true
			if wg am -q -3 "$mail" >> "$log_" 2>&1; then
				how=applies-3way
			else
				wg am --abort >/dev/null 2>&1 || true
				cp=0
				code_present "$mail" "$rev" || cp=$?
				case $cp in 0) how=conflicts ;; 2) how=already-in ;; *) how=n/a ;; esac
			fi
		fi
		applied=
		if [ "$how" = applies ] || [ "$how" = applies-3way ]; then
			applied=$(wg rev-parse HEAD)
		fi
		printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$side" "$how" "${applied:--}" "$subj" >> "$res/results.tsv"
		log "$name: $side: $how"
	done
done

# --- Build and run where it applies --------------------------------------------
run=${BACKPORT_RUN:-kunit}
fails=0
if [ "$run" != none ]; then
	while IFS=$'\t' read -r name side how commit _; do
		[ "$commit" != - ] || continue
		if [ "$side" = tip ]; then
			if REV=$commit ARCH=x86_64 VARIANT='' RUN_NAME=backport-$name KUNIT_PRESENT_SUITES=1 \
				bash "$TOP/ci/kunit.sh" > "$res/$name.tip.kunit" 2>&1; then
				verdict="suite passes"
			else
				verdict="suite FAILS (${res#"$TOP"/}/$name.tip.kunit)"
				fails=$((fails + 1))
			fi
		else
			objs=$(git -C "$wt" diff --name-only "$commit^" "$commit" -- '*.c' | sed 's/\.c$/.o/')
			wg checkout -q --detach "$commit"
			b=$LB/backport-base
			mkdir -p "$b"
			[ -f "$b/.config" ] || make -s -C "$wt" O="$b" defconfig > "$res/$name.base.build" 2>&1
			# shellcheck disable=SC2086 # one word per object
			if [ -z "$objs" ] || make -s -C "$wt" O="$b" -j"$(nproc)" $objs >> "$res/$name.base.build" 2>&1; then
				verdict="builds${objs:+ (${objs//$'\n'/, })}"
			else
				verdict="build FAILS (${res#"$TOP"/}/$name.base.build)"
				fails=$((fails + 1))
			fi
		fi
		printf '%s\t%s\t%s\n' "$name" "$side" "$verdict" >> "$res/runs.tsv"
		log "$name: $side: $verdict"
	done < "$res/results.tsv"
fi

# --- The table -----------------------------------------------------------------
python3 - "$res" <<'PY'
import os, sys
res = sys.argv[1]
rows, runs = {}, {}
for ln in open(os.path.join(res, 'results.tsv'), encoding='utf-8'):
    name, side, how, commit, subj = ln.rstrip('\n').split('\t')
    rows.setdefault(name, {'subj': subj})[side] = how
p = os.path.join(res, 'runs.tsv')
if os.path.exists(p):
    for ln in open(p, encoding='utf-8'):
        name, side, verdict = ln.rstrip('\n').split('\t')
        runs[(name, side)] = verdict
label = {'applies': 'applies', 'applies-3way': 'applies with -3',
         'conflicts': 'conflicts', 'n/a': 'N/A', 'already-in': 'already in'}
out = ['| patch | subject | base | tip |', '|---|---|---|---|']
count = {'base': {}, 'tip': {}}
for name in sorted(rows):
    r = rows[name]
    cells = []
    for side in ('base', 'tip'):
        how = r[side]
        count[side][how] = count[side].get(how, 0) + 1
        c = label[how]
        if (name, side) in runs:
            c += ': ' + runs[(name, side)]
        cells.append(c)
    out.append(f'| {name} | {r["subj"]} | {cells[0]} | {cells[1]} |')
def summary(side):
    c = count[side]
    return ', '.join(f'{c[k]} {label[k]}' for k in label if c.get(k))
out.append('')
out.append(f'base: {summary("base")}; tip: {summary("tip")}.')
open(os.path.join(res, 'table.md'), 'w', encoding='utf-8').write('\n'.join(out) + '\n')
print('\n'.join(out))
PY
[ "$fails" = 0 ] || die "$fails applied patch(es) failed to build or pass (see ${res#"$TOP"/}/runs.tsv)" "$repro"
log "done: ${res#"$TOP"/}/table.md"
