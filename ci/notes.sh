#!/usr/bin/env bash
# make notes [LINE=6.12]: write MAINTAINERS-notes (MAINTAINERS-notes/6.12.y)
# from ci/6.1.y/MAINTAINERS-notes.in (ci/6.12.y/MAINTAINERS-notes.in), filling
# in per patch scripts/get_maintainer.pl's output (run on patches/ against
# the tip of build/6.1.y/linux) and the note from ci/6.1.y/patch-notes, and the
# checkpatch exceptions from ci/6.1.y/checkpatch-exceptions.
#   NOTES_CHECK=1  change nothing; fail if MAINTAINERS-notes is stale
#   NOTES_OUT=<file>  write (or compare with) this file instead
# For a line whose line.conf sets REACH_CHECK=1 (mainline: its postings go
# to maintainers), it also fails when a patch would reach only mailing
# lists: get_maintainer.pl names no person (a maintainer or reviewer of
# the files it touches, by the tip's MAINTAINERS) for it, and its
# posting's own To:/Cc: (patches/<line>/recipients) names no maintainer
# or reviewer of MAINTAINERS either.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -d "$TREE/.git" ] || die "$TREE does not exist" "make$LINEOPT tree"
out=${NOTES_OUT:-$TOP/MAINTAINERS-notes/$LINE_NAME}
# The people of MAINTAINERS (M: and R: lines, at the tip): a posting's
# own recipients (patches/<line>/recipients) count for its patches when
# they are among them.
maint=$(sed -n 's/^[MR]:[[:space:]]*//p' "$TREE/MAINTAINERS" 2>/dev/null | sed -n 's/.*<\([^>]*\)>.*/\1/p' | sort -u)
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.pp" "$tmp.ex" "$tmp.po" "$tmp.lists-only"' EXIT

mapfile -t files < <(series_list "$PATCHES/series")
for f in "${files[@]}"; do
	# "n/m subject", as the mail numbers it (within its posting, named
	# first, for a line of several postings).
	read -r num subj < <(python3 -c 'import email, re, sys
m = email.message_from_file(open(sys.argv[1], encoding="utf-8"))
s = " ".join(m["Subject"].split())
n = re.match(r"^\[[^]]*?([0-9]+)/([0-9]+)\] ", s)
print(f"{int(n.group(1))}/{int(n.group(2))}" if n else "1/1", s[n.end():] if n else s)' "$PATCHES/$f")
	case $f in */*) printf '%s %s %s\n' "${f%%/*}" "$num" "$subj" ;; *) printf '%s %s\n' "$num" "$subj" ;; esac
	# 6.12's get_maintainer.pl orders equally ranked people by Perl's
	# (randomised) hash order: fix the seed so that the file is stable.
	gm=$( (cd "$TREE" && PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 ./scripts/get_maintainer.pl \
		--no-git --no-git-fallback --no-rolestats "$PATCHES/$f") 2>/dev/null) || gm=''
	printf '%s\n' "$gm" | sed '/^$/d; s/^/    /'
	# A person is "Name <address>"; a list is a bare address.
	if [ "${REACH_CHECK:-0}" = 1 ] && ! grep -q '<[^>]*@[^>]*>' <<< "$gm"; then
		reached=
		case $f in */*)
			while read -r a; do
				if grep -qxF "$a" <<< "$maint"; then reached=$a; fi
			done < <(awk -F'\t' -v p="${f%%/*}" '$0 !~ /^#/ && $1 == p { print $3 }' "$PATCHES/recipients" 2>/dev/null |
				sed -n 's/.*<\([^>]*\)>.*/\1/p') ;;
		esac
		[ -n "$reached" ] || echo "$f" >> "$tmp.lists-only"
	fi
	note=$(awk -F'\t' -v s="$subj" '$0 !~ /^#/ && $1 == s {print $2}' "$LINED/patch-notes")
	printf '%s\n\n' "${note:-(no specific note)}" | fold -s -w 72 | sed 's/^/  /; s/[[:space:]]*$//'
done > "$tmp.pp"
awk -F'\t' '$0 !~ /^#/ && NF >= 3 {printf "%s, %s: %s\n", ($1 == "*" ? "every patch" : "\"" $1 "\""), $2, $3}' \
	"$CP_EXCEPTIONS" | fold -s -w 72 | sed 's/[[:space:]]*$//' > "$tmp.ex"
[ -s "$tmp.ex" ] || echo "(none)" > "$tmp.ex"
if [ -s "$tmp.lists-only" ]; then
	die "$(wc -l < "$tmp.lists-only") patch(es) would reach only mailing lists, no maintainer or reviewer of the files they touch (scripts/get_maintainer.pl names no person): $(paste -sd' ' "$tmp.lists-only"); add the files to their MAINTAINERS entry in the series, or address the posting's maintainers" \
		"make$LINEOPT notes"
fi

# @POSTINGS@: the postings as patches/<line>/postings and recipients
# give them (a template that lists them by hand goes stale).
while read -r p count prefix on; do
	to=
	[ ! -f "$PATCHES/recipients" ] ||
		to=$(awk -F'\t' -v p="$p" '$0 !~ /^#/ && $1 == p && $2 == "To" { sub(/ *<.*/, "", $3); print $3 }' "$PATCHES/recipients" | paste -sd, - | sed 's/,/, /g')
	case $prefix in local) how="local, never posted" ;; *) how="[${prefix//_/ }]" ;; esac
	case ${on:-prev} in base) on="on the base alone" ;; *) on="on the postings before it" ;; esac
	printf -- '- %s: %s patch(es), %s, %s%s\n' "$p" "$count" "$how" "$on" "${to:+; To: $to}" | fold -s -w 70 | sed '2,$s/^/  /; s/[[:space:]]*$//'
done < <(postings_list "$PATCHES") > "$tmp.po"

python3 - "$LINED/MAINTAINERS-notes.in" "$tmp.pp" "$tmp.ex" "$tmp.po" > "$tmp" <<'PY'
import sys
tpl, pp, ex, po = (open(p, encoding='utf-8').read() for p in sys.argv[1:])
sys.stdout.write(tpl.replace('@PER_PATCH@\n', pp.rstrip('\n') + '\n')
                 .replace('@CHECKPATCH_EXCEPTIONS@\n', ex)
                 .replace('@POSTINGS@\n', po or '(one series)\n'))
PY
if [ "${NOTES_CHECK:-0}" = 1 ]; then
	diff -u "$out" "$tmp" > /dev/null ||
		die "${out##*/} is stale (patches, ci/$LINE_NAME/patch-notes or the template changed)" "make$LINEOPT notes"
	echo "notes: ${out##*/} is current"
else
	cp "$tmp" "$out"
	echo "notes: wrote ${out##*/}"
fi
