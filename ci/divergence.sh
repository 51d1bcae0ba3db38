#!/usr/bin/env bash
# make divergence: how far include/linux/iov_iter.h at the series tip is
# from mainline's, as one number: the lines a unified diff adds and removes
# between them, after ITER_FOLIOQ (which 6.1 does not have) is taken out of
# mainline's copy: iterate_folioq() with its comment, and the two dispatch
# lines that call it.  Mainline's header is the one in ../shared/mainline
# (see its SOURCES.md for the commit).  Documentation/6.1.y/porting.md explains
# every remaining difference.
# Output: out/<line>/divergence/iov_iter.h.diff and the number on stdout;
# fail when the number is above DIVERGENCE_MAX (the line's, from its
# line.conf, unless given); DIVERGENCE_REV=<commit>
# measures another commit of build/6.1.y/linux.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mainline=${MAINLINE_DIR:-$TOP/../shared/mainline}/include/linux/iov_iter.h
res=$OUT/divergence
ours=$TREE/include/linux/iov_iter.h
# DIVERGENCE_REV=<commit>: measure that commit of build/6.1.y/linux instead.
if [ -n "${DIVERGENCE_REV:-}" ]; then
	mkdir -p "$res"
	tgit show "$DIVERGENCE_REV:include/linux/iov_iter.h" > "$res/iov_iter.h" ||
		die "no include/linux/iov_iter.h at $DIVERGENCE_REV"
	ours=$res/iov_iter.h
fi
[ -f "$mainline" ] || die "no mainline header at $mainline (../shared/mainline beside the project)"
[ -f "$ours" ] || die "no $ours: the series tip has no <linux/iov_iter.h>" "make$LINEOPT tree"
mkdir -p "$res"

python3 - "$mainline" "$res/mainline-nofolioq.h" <<'PY'
import re, sys
src, dst = sys.argv[1:]
text = open(src, encoding='utf-8').read()
# iterate_folioq() and the comment block just before it.
m = re.search(r'/\*\n \* Handle ITER_FOLIOQ\.\n \*/\nstatic __always_inline\nsize_t iterate_folioq\(.*?\n}\n\n', text, re.S)
if not m:
    sys.exit('divergence: iterate_folioq() not found in mainline\'s header: update ci/divergence.sh')
text = text[:m.start()] + text[m.end():]
# The dispatchers' two lines each.
text, n = re.subn(r'\tif \(iov_iter_is_folioq\(iter\)\)\n\t\treturn iterate_folioq\([^\n]*\n', '', text)
if n != 2:
    sys.exit(f'divergence: expected 2 folioq dispatch branches, found {n}: update ci/divergence.sh')
open(dst, 'w', encoding='utf-8').write(text)
PY
diff -u --label mainline --label series "$res/mainline-nofolioq.h" "$ours" > "$res/iov_iter.h.diff" || true
added=$(grep -c '^+[^+]' "$res/iov_iter.h.diff" || true)
removed=$(grep -c '^-[^-]' "$res/iov_iter.h.diff" || true)
total=$((added + removed))
printf '%s\n' "$total" > "$res/number"
echo "include/linux/iov_iter.h differs from mainline's (FOLIOQ removed) by $total lines: +$added -$removed ($res/iov_iter.h.diff)"
if [ -n "${DIVERGENCE_MAX:-}" ] && [ "$total" -gt "$DIVERGENCE_MAX" ]; then
	die "divergence $total is above DIVERGENCE_MAX=$DIVERGENCE_MAX" "make$LINEOPT divergence"
fi
