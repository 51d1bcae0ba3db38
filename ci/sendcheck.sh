#!/usr/bin/env bash
# make sendcheck LINE=mainline TREE=<your kernel git tree> [BASE=<ref>]:
# what the sender runs on their own tree before sending a line of several
# postings (patches/<line>/postings).  The postings are built and tested
# here on Debian's tree of the line's base, which no maintainer applies
# to; this applies them to the tree the sender will name in base-commit:
# (a maintainer's tree, linux-next, fs-next), and tests them there.
#
#   1. A scratch clone of TREE (git clone --shared: TREE itself is never
#      written to) is checked out at BASE (default: TREE's HEAD), sparse
#      (only the files the postings touch).
#   2. The postings are applied in their order with git am -3, each onto
#      its prerequisites: a posting on "base" onto BASE alone, a posting on
#      "prev" onto BASE and every posting before it.  A patch that does not
#      apply stops the run, which names the posting, the patch and the hunk
#      (git apply --check's "patch failed: <file>:<line>", as the patch's
#      "@@" header of that hunk).  A patch that applies only with a 3-way
#      merge fails too: the mail carries it as it is.
#   3. The messages' references are looked up in TREE: a Fixes: or
#      'commit <id> ("<subject>")' whose subject differs there fails, an id
#      TREE lacks is named, and for each patch with a Fixes: tag git blame
#      names the commits (and authors) that wrote the lines it changes,
#      and a Fixes: author it does not Cc (references.txt).
#   4. For each posting, out/<line>/sendcheck/<posting>.base gets the lines
#      its cover letter ends with: "base-commit: <BASE in TREE>", then, for
#      a posting on the ones before it, "prerequisite-message-id:" for each
#      of them that SENDCHECK_MSGIDS names and "prerequisite-patch-id:" (as
#      TREE's git patch-id gives it) for each patch of the others.
#      make mbox MBOX_BASE_INFO=out/<line>/sendcheck writes them into the
#      cover letters.
#   5. The whole tree is checked out and the line's suites are built and
#      run there, as make kunit and make kselftest judge them: KUnit on
#      x86_64 and on UML (kunit.py's default), and the line's kselftests.
#
#   SENDCHECK_POSTINGS="a b"  check only these postings (one tree per
#                            destination: the vfs ones on a vfs tree,
#                            datagram-tests on net-next); the postings
#                            they are on are applied first, as their
#                            prerequisites, and the others are left out
#   SENDCHECK_MSGIDS=<file>  "<posting><TAB><message-id of its cover
#                            letter>" for postings already sent
#   SENDCHECK_RUN="kunit-x86_64 kunit-um kselftest"  the runs of step 5
#                            (default all three; "none": apply only, as
#                            the self-tests do)
# Results: out/<line>/sendcheck/{sendcheck.log,references.txt,<posting>.base}, the runs
# under out/<line>/kunit/sendcheck-<arch> and out/<line>/kselftest-sendcheck.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

stree=${SENDCHECK_TREE:-}
sbase=${SENDCHECK_BASE:-}
runs=${SENDCHECK_RUN-kunit-x86_64 kunit-um kselftest}
[ "$runs" != none ] || runs=
repro="make$LINEOPT sendcheck TREE=${stree:-<your tree>}${sbase:+ BASE=$sbase}"
[ -f "$PATCHES/postings" ] ||
	die "make sendcheck applies the postings of a line that has patches/<line>/postings (LINE=mainline); ${PATCHES#"$TOP"/} is one series"
[ -n "$stree" ] || die "give TREE=<your kernel git tree> (and BASE=<ref> if its HEAD is not the base)" "make$LINEOPT sendcheck TREE=\$HOME/linux BASE=origin/master"
stree=$(cd "$stree" 2>/dev/null && pwd) || die "TREE=${SENDCHECK_TREE} is not a directory" "$repro"
git -C "$stree" rev-parse -q --verify 'HEAD^{commit}' >/dev/null 2>&1 ||
	die "TREE=$stree is not a git tree with commits" "git -C $stree log -1"
repro="make$LINEOPT sendcheck TREE=$stree${sbase:+ BASE=$sbase}"
base=$(git -C "$stree" rev-parse -q --verify "${sbase:-HEAD}^{commit}") ||
	die "BASE=$sbase is not a commit of $stree" "git -C $stree rev-parse --verify '$sbase^{commit}'"
for r in $runs; do
	case $r in kunit-x86_64 | kunit-um | kselftest) ;;
	*) die "SENDCHECK_RUN: unknown run '$r' (kunit-x86_64, kunit-um, kselftest or none)" "$repro" ;;
	esac
done

dest=$OUT/sendcheck
wt=$dest/tree
# One run at a time: a second one would delete the first one's tree.
mkdir -p "$OUT"
exec 9> "$OUT/sendcheck.lock"
flock -n 9 || die "another make sendcheck is running on ${OUT#"$TOP"/}/sendcheck" "$repro"
rm -rf "$dest"
mkdir -p "$dest"
slog=$dest/sendcheck.log
: > "$slog"
say() { echo "sendcheck: $*" | tee -a "$slog"; }

declare -A msgid=()
if [ -n "${SENDCHECK_MSGIDS:-}" ]; then
	[ -f "$SENDCHECK_MSGIDS" ] || die "SENDCHECK_MSGIDS=$SENDCHECK_MSGIDS is not a file" "$repro"
	while IFS=$'\t' read -r p id; do
		case $p in '' | '#'*) continue ;; esac
		postings_list "$PATCHES" | awk -v p="$p" '$1 == p { f = 1 } END { exit !f }' ||
			die "SENDCHECK_MSGIDS names $p, which ${PATCHES#"$TOP"/}/postings does not" "$repro"
		id=${id#<}
		id=${id%>}
		[[ $id =~ ^[^[:space:]@]+@[^[:space:]@]+$ ]] || die "SENDCHECK_MSGIDS: '$id' of $p is not a Message-Id" "$repro"
		msgid[$p]=$id
	done < "$SENDCHECK_MSGIDS"
fi

# --- 1. A scratch clone at BASE, with only the files the postings touch -------
say "TREE $stree, BASE ${sbase:-HEAD} = $(git -C "$stree" log -1 --format='%h ("%s")' "$base")"
git clone -q --shared --no-checkout "$stree" "$wt"
g() { git -C "$wt" -c core.hooksPath=/dev/null -c user.name="$BASE_NAME" -c user.email="$BASE_EMAIL" "$@"; }
mapfile -t paths < <(series_list "$PATCHES/series" | while read -r f; do
	sed -n 's|^diff --git a/\([^ ]*\) b/\([^ ]*\)$|/\1\n/\2|p' "$PATCHES/$f"; done | sort -u)
g sparse-checkout set --no-cone "${paths[@]}"
g checkout -q --detach "$base"

# apply POSTING START: the posting's patches, in the order of series, with
# git am -3 onto START; the new HEAD is the result.  A patch that fails is
# named with its hunk, and the scratch clone is left as it was.
apply() {
	local p=$1 start=$2 f out rc
	g checkout -q -f --detach "$start"
	while read -r f; do
		rc=0
		out=$(g am -3 "$PATCHES/$f" 2>&1) || rc=$?
		echo "$out" >> "$slog"
		if [ "$rc" != 0 ]; then
			g am --abort >/dev/null 2>&1 || true
			say "FAIL: the posting $p: ${f#*/} does not apply on ${start:0:12}"
			where "$PATCHES/$f" | tee -a "$slog" >&2
			g checkout -q -f --detach "$start"
			echo "$out" | grep -E '^(error|CONFLICT)' | sed 's/^/  git am -3: /' | tee -a "$slog" >&2
			die "the posting $p does not apply to TREE at ${sbase:-HEAD} (log: ${slog#"$TOP"/})" "$repro"
		fi
		if echo "$out" | grep -q '3-way merge'; then
			# The mail carries the patch as it is: a maintainer's plain
			# git am fails where this needed a merge.
			say "FAIL: the posting $p: ${f#*/} applies only with a 3-way merge: its context differs in TREE"
			g reset -q --hard HEAD^
			where "$PATCHES/$f" | tee -a "$slog" >&2
			g checkout -q -f --detach "$start"
			die "the posting $p does not apply as mailed to TREE at ${sbase:-HEAD}: rebase the line on it (make tree KERNEL_SRC=...) or send it elsewhere" "$repro"
		fi
	done < <(series_list "$PATCHES/series" | grep "^$p/")
}

# where PATCH: the hunk of PATCH that plain git apply fails on, in the
# scratch clone as git am --abort left it (the patches before it applied),
# by its "@@" line.
where() {
	local msg
	msg=$(g apply --check "$1" 2>&1 || true)
	python3 - "$1" "$msg" <<'PY'
import re
import sys

patch, msg = sys.argv[1], sys.argv[2]
m = re.search(r'^error: patch failed: (\S+):(\d+)$', msg, re.M)
if not m:
    gone = re.search(r'^error: (\S+): (does not exist in index|No such file or directory)$', msg, re.M)
    if gone:
        print(f'  the file {gone[1]}, which it changes, is not in TREE')
    else:
        print('  ' + (msg.strip().replace('\n', '\n  ') or 'git apply --check alone applies it: git am -3 failed on the index'))
    sys.exit(0)
path, line = m[1], int(m[2])
cur, n = None, 0
for l in open(patch, encoding='utf-8'):
    d = re.match(r'^diff --git a/(\S+) b/(\S+)$', l)
    if d:
        cur, n = d[2], 0
        continue
    h = re.match(r'^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@.*$', l)
    if h and cur == path:
        n += 1
        if int(h[1]) == line:
            print(f'  hunk {n} of {path}: {l.rstrip()}')
            sys.exit(0)
print(f'  {path}, at its line {line}')
PY
}

# patch_ids FROM TO: git patch-id --stable of each commit of FROM..TO.
patch_ids() {
	local c
	for c in $(g rev-list --reverse "$1..$2"); do
		g show "$c" | git patch-id --stable | cut -d' ' -f1
	done
}

# --- 2. and 4. Each posting onto its prerequisites ----------------------------
# The postings to apply: the chosen ones, and every one before a chosen
# one that is on "prev" (its prerequisites).
mapfile -t all < <(postings_list "$PATCHES")
declare -A want=()
if [ -n "${SENDCHECK_POSTINGS:-}" ]; then
	for q in $SENDCHECK_POSTINGS; do
		printf '%s\n' "${all[@]}" | awk -v p="$q" '$1 == p { f = 1 } END { exit !f }' ||
			die "SENDCHECK_POSTINGS names $q, which ${PATCHES#"$TOP"/}/postings does not" "$repro"
		want[$q]=1
	done
	need=0
	for ((k = ${#all[@]} - 1; k >= 0; k--)); do
		read -r q _ _ qon <<< "${all[$k]}"
		if [ "$need" = 1 ] && [ -z "${want[$q]:-}" ]; then want[$q]=prereq; fi
		if [ -n "${want[$q]:-}" ] && [ "${qon:-prev}" != base ]; then need=1; fi
	done
else
	for q in "${all[@]}"; do want[${q%%[[:space:]]*}]=1; done
fi
chain=$base
prereqs=() # the postings before, in order, each "name from to"
while read -r p count prefix on; do
	[ -n "${want[$p]:-}" ] || { say "skipped: the posting $p (not in SENDCHECK_POSTINGS)"; continue; }
	if [ "${on:-prev}" = base ]; then start=$base; else start=$chain; fi
	apply "$p" "$start"
	tip=$(g rev-parse HEAD)
	n=$(g rev-list --count "$start..$tip")
	[ "$n" = "$count" ] || die "the posting $p applied as $n commits; ${PATCHES#"$TOP"/}/postings says $count" "$repro"
	local_note=
	[ "$prefix" != local ] || local_note=" (a local part: tested, never sent)"
	say "ok: the posting $p: $count patch(es) apply on ${start:0:12}${on:+ ($on)}$local_note"
	g rev-list --reverse "$start..$tip" | sed "s|^|$p |" >> "$dest/applied"
	{
		echo "# make sendcheck: TREE $stree at ${sbase:-HEAD}"
		echo "# the posting's patches (mbox checks they are the ones it sends):"
		patch_ids "$start" "$tip" | sed 's/^/# patch-id: /'
		echo "base-commit: $base"
		if [ "${on:-prev}" != base ]; then
			for q in ${prereqs[@]+"${prereqs[@]}"}; do
				read -r qn qf qt <<< "$q"
				if [ -n "${msgid[$qn]:-}" ]; then
					echo "prerequisite-message-id: <${msgid[$qn]}>"
				else
					patch_ids "$qf" "$qt" | sed 's/^/prerequisite-patch-id: /'
				fi
			done
		fi
	} > "$dest/$p.base"
	# A prerequisite only: applied, not to be sent from this tree.
	[ "${want[$p]}" = 1 ] || { mv "$dest/$p.base" "$dest/$p.base.prereq"; say "(the posting $p is applied as a prerequisite only)"; }
	# A posting on the base alone still goes under the later ones: the
	# chain takes it too.
	if [ "$start" != "$chain" ]; then
		from=$chain
		apply "$p" "$chain"
		chain=$(g rev-parse HEAD)
	else
		from=$start
		chain=$tip
	fi
	prereqs+=("$p $from $chain")
done < <(printf '%s\n' "${all[@]}")
g branch -q -f sendcheck "$chain"

# --- The references, on TREE's history ------------------------------------------
# Each Fixes: tag and 'commit <id> ("<subject>")' reference of the
# messages, looked up in TREE: a subject that differs is an error; an id
# TREE lacks is named (a tree with history has every mainline one).  For
# a patch with Fixes:, git blame of the lines it removes (at the commit
# it was applied on) names the commits that wrote them, with their
# authors, beside the tag, and a Fixes: author the patch does not Cc is
# named: a Fixes: tag names the commit that wrote the lines it changes.
python3 - "$wt" "$dest/applied" "$PATCHES/recipients" <<'PY' | tee "$dest/references.txt" | tee -a "$slog" ||
import re
import subprocess
import sys

wt, applied, recipients = sys.argv[1:]


def git(*args):
    r = subprocess.run(['git', '-C', wt, *args], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


rcpt = {}
try:
    for line in open(recipients, encoding='utf-8'):
        f = line.rstrip('\n').split('\t')
        if len(f) == 3 and not line.startswith('#'):
            rcpt.setdefault(f[0], []).append(f[2].lower())
except FileNotFoundError:
    pass
bad = 0
for line in open(applied, encoding='utf-8'):
    posting, c = line.split()
    msg = git('log', '-1', '--format=%B', c)
    subj = msg.split('\n', 1)[0]
    flat = ' '.join(msg.split())
    refs = re.findall(r'\b(?:commit|Fixes:) ([0-9a-f]{12,40}) \("([^"]+)"', flat)
    fixes = re.findall(r'^Fixes: ([0-9a-f]{12,40})', msg, re.M)
    for rid, rsubj in refs:
        have = git('log', '-1', '--format=%s', rid + '^{commit}')
        if have is None:
            print(f'sendcheck: note: {posting}: "{subj}" names {rid[:12]} ("{rsubj}"), which TREE has not')
        elif have.strip() != rsubj:
            print(f'sendcheck: FAIL: {posting}: "{subj}" names {rid[:12]} as "{rsubj}", but in TREE it is "{have.strip()}"')
            bad += 1
    if not fixes:
        continue
    cc = (msg + ' ' + ' '.join(rcpt.get(posting, []))).lower()
    for fid in fixes:
        author = git('log', '-1', '--format=%an <%ae>', fid + '^{commit}')
        if author and author.split('<')[-1].rstrip('>\n').lower() not in cc:
            print(f'sendcheck: note: {posting}: "{subj}": Fixes: {fid[:12]} is by {author.strip()}, whom neither the patch nor the posting Cc\'s')
    diff = git('show', '--format=', '-U0', c)
    wrote = {}
    path = None
    for l in diff.split('\n'):
        m = re.match(r'^--- a/(\S+)$', l)
        if m:
            path = m[1]
        h = re.match(r'^@@ -(\d+)(?:,(\d+))? ', l)
        if h and path and h[2] != '0':
            a = int(h[1])
            n = int(h[2] or 1)
            out = git('blame', '--porcelain', '-L', f'{a},{a + n - 1}', c + '^', '--', path) or ''
            for b in re.findall(r'^([0-9a-f]{40}) \d+ \d+', out, re.M):
                wrote[b] = wrote.get(b, 0) + 1
    if not wrote:
        print(f'sendcheck: note: {posting}: "{subj}" removes no line: git blame has nothing to name')
        continue
    names = ', '.join(f'{b[:12]} ("{git("log", "-1", "--format=%s", b).strip()}", {git("log", "-1", "--format=%an", b).strip()})'
                      for b in sorted(wrote, key=wrote.get, reverse=True))
    hit = any(b.startswith(f) for b in wrote for f in fixes)
    print(f'sendcheck: {"ok" if hit else "note"}: {posting}: "{subj}": Fixes: {", ".join(f[:12] for f in fixes)}; '
          f'the lines it changes were written by {names}')
sys.exit(1 if bad else 0)
PY
	die "a commit reference names another subject than TREE has (${dest#"$TOP"/}/references.txt)" "$repro"
say "${SENDCHECK_POSTINGS:+the chosen postings ($SENDCHECK_POSTINGS)}${SENDCHECK_POSTINGS:-all the postings} apply to TREE at ${sbase:-HEAD}: the cover letters' base lines are in ${dest#"$TOP"/}/<posting>.base (make$LINEOPT mbox MBOX_BASE_INFO=${dest#"$TOP"/})"

# --- 5. The suites, on that tree ---------------------------------------------
[ -n "$runs" ] || { say "SENDCHECK_RUN=none: nothing built or run"; exit 0; }
say "checking out the whole tree for the builds"
g sparse-checkout disable
for r in $runs; do
	case $r in
	kunit-*)
		a=${r#kunit-}
		say "building and running KUnit on $a (make kunit's judge)"
		env TREE="$wt" ARCH="$a" RUN_NAME="sendcheck-$a" KUNIT_BUILD_DIR="$dest/build-$a" \
			bash "$TOP/ci/kunit.sh" >> "$slog" 2>&1 ||
			{ tail -n 30 "$slog" >&2; die "KUnit on $a fails on TREE with the postings (log: ${slog#"$TOP"/}, results: out/$LINE_NAME/kunit/sendcheck-$a)" "$repro"; }
		say "ok: KUnit on $a: $(grep -c '^PASS' "$OUT/kunit/sendcheck-$a/results.tsv") passed"
		;;
	kselftest)
		say "building and running the kselftests (make kselftest's judge)"
		env TREE="$wt" KSELFTEST_RUN=sendcheck KSELFTEST_DIR="$dest/kselftest" \
			bash "$TOP/ci/kselftest.sh" >> "$slog" 2>&1 ||
			{ tail -n 30 "$slog" >&2; die "the kselftests fail on TREE with the postings (log: ${slog#"$TOP"/})" "$repro"; }
		say "ok: the kselftests: $(grep -c '^PASS' "$OUT/kselftest-sendcheck/results.tsv") passed"
		;;
	esac
done
say "done: the postings apply to TREE at ${sbase:-HEAD} and pass there ($runs)"
