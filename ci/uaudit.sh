#!/usr/bin/env bash
# make uaudit: prove, with Coccinelle, that no code reads an ITER_UBUF
# iterator as if it were array-backed, at the base and at every patch.
#
# ci/uaudit.cocci finds every read of ->iov, ->kvec, ->bvec or ->nr_segs of
# a struct iov_iter that no type test comes before, every iov_iter_iovec()
# call, every import_single_range()/import_iovec() caller and every
# dup_iter() user.  git grep preselects the files that can hold one (their
# text names one of those fields or functions), at the base and in every
# blob the series changes; spatch then reads each distinct file once, with
# types from the tip's headers (--recursive-includes).  ci/uaudit.py
# matches every hit at every commit against ci/6.1.y/uaudit-explained (why each
# is safe, or the patch before which it must be gone) and fails on an
# unexplained hit, on a hit left at or after the patch that makes it
# reachable, and on an explanation that no longer matches anything.
# It also lists every iov_iter_revert() call: an ITER_UBUF reverted past
# its start is a BUG(), and from "iov_iter: convert import_single_range()
# to ITER_UBUF" on send(2), recv(2) and one-vector sendmsg(2) and
# recvmsg(2) hand protocols one; each call is explained as a read is.
# Last, two self-tests put a known unsafe hit back on top of the tip and
# require the audit to fail on it: caif's old msg_iter.iov check, and a
# revert in sock_sendmsg_nosec() of a byte it never consumed.
#
#   UAUDIT_TIP=<commit>   audit base..<commit> instead of base..HEAD
#   UAUDIT_SELFTEST=0     skip the self-tests
#   UAUDIT_WRITE=1        write the table into Documentation/6.1.y/porting.md
#   NOCACHE=1             scan every file again (the cache of per-file hits
#                         is ~/.cache/iov_iter-series/uaudit, UAUDIT_CACHE)
# Output: out/<line>/uaudit/: hits.tsv (every hit of every blob), audit.txt,
# table.md (the table of Documentation/6.1.y/porting.md), results.tsv.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

EXPLAINED=${UAUDIT_EXPLAINED:-$LINED/uaudit-explained}
COCCI=$TOP/ci/uaudit.cocci
res=$OUT/uaudit
repro="make$LINEOPT uaudit"
# The files spatch reads: any that names a field or function the rules look at.
RE='(->|\.)[[:space:]]*(iov|kvec|bvec|nr_segs)\b|iov_iter_iovec|import_single_range|import_iovec|dup_iter|iov_iter_revert'

rm -rf "$res"
mkdir -p "$res"
command -v spatch >/dev/null || die "spatch (Debian's coccinelle) is not installed" "make deps"
[ -f "$EXPLAINED" ] || die "missing $EXPLAINED"
[ -d "$TREE/.git" ] || die "$TREE does not exist" "make$LINEOPT tree"
tip=$(tgit rev-parse -q --verify "${UAUDIT_TIP:-HEAD}^{commit}") || die "UAUDIT_TIP=$UAUDIT_TIP is not a commit of $TREE"

# Each blob's hits, kept across runs and clones beside ccache: they depend
# only on the blob's text, the rules and this script, spatch and the headers
# the types come from, which make the key.  NOCACHE=1 reads nothing from it.
key=$({ spatch --version | head -n1; cat "$COCCI" "$0"; tgit rev-parse "$tip:include"; } | sha256sum | cut -c1-16)
if [ "${NOCACHE:-0}" = 1 ]; then
	cache=$res/cache
else
	cache=${UAUDIT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/iov_iter-series/uaudit}/$key
fi
mkdir -p "$cache"

# files.tsv: commit, path, blob of every preselected file at every commit.
list_files() {
	local tipc=$1 out=$2 prev c st blob path
	: > "$out"
	declare -A have=()
	while read -r path; do
		have[$path]=$(tgit rev-parse "base:$path")
	done < <(tgit grep -l -E "$RE" base -- '*.c' '*.h' | sed 's/^base://')
	for path in "${!have[@]}"; do printf 'base\t%s\t%s\n' "$path" "${have[$path]}"; done >> "$out"
	prev=base
	for c in $(tgit rev-list --reverse "base..$tipc"); do
		while read -r st blob path; do
			case $path in *.c|*.h) ;; *) continue ;; esac
			# grep reads all its input: with -q, cat-file could die of
			# SIGPIPE and, under pipefail, a match would read as none.
			if [ "$st" = D ] || ! tgit cat-file -p "$blob" | grep -E "$RE" >/dev/null; then
				unset "have[$path]"
			else
				have[$path]=$blob
			fi
		done < <(tgit diff-tree -r --no-commit-id "$prev" "$c" | awk '{ print $5, $4, $6 }')
		for path in "${!have[@]}"; do printf '%s\t%s\t%s\n' "$c" "$path" "${have[$path]}"; done >> "$out"
		prev=$c
	done
}

# scan FILES.TSV: spatch over every blob not in the cache yet.
scan() {
	local files=$1 src=$res/src blob path d n=0 incs=()
	rm -rf "$src"
	while IFS=$'\t' read -r blob path; do
		[ -f "$cache/$blob" ] && continue
		# The file's own directory of the tip comes with it, headers only,
		# so that its local includes find their own headers: a search path
		# of every directory would find another directory's internal.h,
		# and spatch would then misparse and skip functions.
		mkdir -p "$src/$blob/$(dirname "$path")"
		find "$TREE/$(dirname "$path")" -maxdepth 1 -name '*.h' -exec cp -t "$src/$blob/$(dirname "$path")" {} +
		tgit cat-file -p "$blob" > "$src/$blob/$path"
		n=$((n + 1))
	done < <(cut -f2,3 "$files" | awk -F'\t' '!seen[$2]++ { print $2 "\t" $1 }')
	log "spatch: $n file(s) to read ($(cut -f3 "$files" | sort -u | wc -l) distinct, the rest cached)"
	[ "$n" -gt 0 ] || return 0
	# Types come from the tip's headers.
	for d in include include/uapi arch/x86/include arch/x86/include/uapi; do incs+=(-I "$TREE/$d"); done
	# The blobs themselves, not the headers that came with them.
	cut -f2,3 "$files" | awk -F'\t' '!seen[$2]++ { print "./" $2 "/" $1 }' |
		while read -r f; do if [ -f "$src/$f" ]; then echo "$f"; fi; done > "$res/spatch.files"
	# One spatch per file, one per core at a time.  A spatch given many
	# files misparses some of them and skips whole functions without a
	# word (fs/read_write.c's do_loop_readv_writev(), after other files had
	# been read), so each file gets a process of its own.
	if ! (cd "$src" && xargs -P "$(nproc)" -n 1 spatch --very-quiet --sp-file "$COCCI" \
		--include-headers-for-types --recursive-includes "${incs[@]}" < "$res/spatch.files") \
		> "$res/spatch.out" 2> "$res/spatch.err"; then
		tail -n 20 "$res/spatch.err" >&2
		die "spatch failed (log: ${res#"$TOP"/}/spatch.err)" "$repro"
	fi
	# Record every scanned blob, with or without hits.
	for d in "$src"/*/; do
		blob=$(basename "$d")
		awk -F'\t' -v b="./$blob/" 'index($2, b) == 1 { sub(b, "", $2); print }' OFS='\t' "$res/spatch.out" \
			> "$cache/$blob.new"
		mv "$cache/$blob.new" "$cache/$blob"
	done
	rm -rf "$src"
}

# hits FILES.TSV OUT: every hit of every blob, with its blob.
hits() {
	local blob
	cut -f3 "$1" | sort -u | while read -r blob; do
		awk -F'\t' -v b="$blob" '{ print b "\t" $0 }' OFS='\t' "$cache/$blob"
	done > "$2"
}

# audit TIP NAME: list, scan, match; results in $res/NAME.*.
audit() {
	local tipc=$1 name=$2
	list_files "$tipc" "$res/$name.files.tsv"
	scan "$res/$name.files.tsv"
	hits "$res/$name.files.tsv" "$res/$name.hits.tsv"
	tgit log --reverse --format='%H%x09%s' "base..$tipc" > "$res/$name.commits.tsv"
	python3 "$TOP/ci/uaudit.py" --files="$res/$name.files.tsv" --hits="$res/$name.hits.tsv" \
		--commits="$res/$name.commits.tsv" --explained="$EXPLAINED" \
		--table="$res/$name.table.md" --results="$res/$name.results.tsv" > "$res/$name.txt"
}

rc=0
audit "$tip" audit || rc=$?
cat "$res/audit.txt"
cp "$res/audit.results.tsv" "$res/results.tsv"
cp "$res/audit.table.md" "$res/table.md"
cp "$res/audit.hits.tsv" "$res/hits.tsv"

# --- The table of Documentation/6.1.y/porting.md: current, or written ----------------
doc=$TOP/Documentation/$LINE_NAME/porting.md
begin='<!-- uaudit table (generated by UAUDIT_WRITE=1 make uaudit; do not edit) -->'
end='<!-- end of uaudit table -->'
if [ "$LINE" = 6.1 ] && [ -z "${UAUDIT_TIP:-}" ]; then
	table_ok=1
	python3 - "$doc" "$res/table.md" "$begin" "$end" "${UAUDIT_WRITE:-0}" <<'PY' || table_ok=0
import sys
doc, table, begin, end, write = sys.argv[1:]
text = open(doc, encoding='utf-8').read()
if text.count(begin) != 1 or text.count(end) != 1:
    sys.exit(f'{doc}: no uaudit table markers')
head, rest = text.split(begin + '\n', 1)
_, tail = rest.split(end, 1)
new = head + begin + '\n' + open(table, encoding='utf-8').read() + end + tail
if new == text:
    sys.exit(0)
if write == '1':
    open(doc, 'w', encoding='utf-8').write(new)
    print(f'uaudit: wrote the table into {doc}')
    sys.exit(0)
sys.exit(f'{doc}: the uaudit table is stale: UAUDIT_WRITE=1 make uaudit')
PY
	if [ "$table_ok" = 1 ]; then
		printf 'PASS\tuaudit:porting.md table current\n' >> "$res/results.tsv"
	else
		printf 'FAIL\tuaudit:porting.md table current\n' >> "$res/results.tsv"
		rc=1
	fi
fi

# --- Self-tests: a known unsafe hit, put back at the tip, must fail the audit --
# selftest NAME FILE FUNCTION WHAT: FILE of the tip, edited by the Python
# on stdin (it gets the file's path), committed on top of the tip; the audit
# of that commit must fail, and on FUNCTION.
selftest() {
	local name=$1 f=$2 fn=$3 what=$4 idx=$res/selftest.index blob tree c
	tgit show "$tip:$f" > "$res/$name.c"
	python3 - "$res/$name.c" || die "uaudit self-test $name: $f has changed; update ci/uaudit.sh" "$repro"
	blob=$(tgit hash-object -w "$res/$name.c")
	GIT_INDEX_FILE=$idx tgit read-tree "$tip"
	GIT_INDEX_FILE=$idx tgit update-index --cacheinfo "100644,$blob,$f"
	tree=$(GIT_INDEX_FILE=$idx tgit write-tree)
	rm -f "$idx"
	c=$(printf 'uaudit self-test: %s\n' "$what" |
		GIT_AUTHOR_NAME=$BASE_NAME GIT_AUTHOR_EMAIL=$BASE_EMAIL GIT_AUTHOR_DATE=$BASE_DATE \
		GIT_COMMITTER_NAME=$BASE_NAME GIT_COMMITTER_EMAIL=$BASE_EMAIL GIT_COMMITTER_DATE=$BASE_DATE \
		tgit commit-tree "$tree" -p "$tip")
	if audit "$c" "selftest-$name"; then
		printf 'FAIL\tuaudit:self-test: %s, put back at the tip, was not found\n' "$what" >> "$res/results.tsv"
		log "self-test FAILED: $what passed the audit (${res#"$TOP"/}/selftest-$name.txt)"
		rc=1
	elif grep -q "$fn" "$res/selftest-$name.txt"; then
		printf 'PASS\tuaudit:self-test: %s, put back at the tip, is found\n' "$what" >> "$res/results.tsv"
	else
		printf 'FAIL\tuaudit:self-test: the audit failed, but not on %s()\n' "$fn" >> "$res/results.tsv"
		log "self-test FAILED: the audit of $what failed elsewhere (${res#"$TOP"/}/selftest-$name.txt)"
		rc=1
	fi
}

if [ "${UAUDIT_SELFTEST:-1}" = 1 ]; then
	# caif's old check, which read msg_iter.iov of what write(2) makes an
	# ITER_UBUF.
	selftest caif net/caif/caif_socket.c caif_seqpkt_sendmsg "caif's msg_iter.iov check" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = "\tnoblock = msg->msg_flags & MSG_DONTWAIT;\n"
new = ("\tret = -EINVAL;\n"
       "\tif (unlikely(msg->msg_iter.nr_segs == 0) ||\n"
       "\t    unlikely(msg->msg_iter.iov->iov_base == NULL))\n"
       "\t\tgoto err;\n") + old
if s.count(old) != 1:
    sys.exit(1)
open(p, "w").write(s.replace(old, new))
PY
	# A revert of a byte the function never consumed, on what send(2) and
	# a one-vector sendmsg(2) hand it as an ITER_UBUF: a BUG() at the
	# start of the buffer.
	selftest revert net/socket.c sock_sendmsg_nosec "a revert in sock_sendmsg_nosec() of a byte it never consumed" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
old = "\tBUG_ON(ret == -EIOCBQUEUED);\n\treturn ret;\n"
new = "\tBUG_ON(ret == -EIOCBQUEUED);\n\tiov_iter_revert(&msg->msg_iter, 1);\n\treturn ret;\n"
if s.count(old) != 1:
    sys.exit(1)
open(p, "w").write(s.replace(old, new))
PY
fi

if [ "$rc" != 0 ]; then
	die "unexplained or reachable iov_iter reads or reverts (${res#"$TOP"/}/audit.txt)" "$repro"
fi
log "every hit at every commit is explained (table: ${res#"$TOP"/}/table.md)"
