#!/usr/bin/env bash
# make mbox: each posting of the line as one mbox, the way it would be
# posted, from patches/<line>/ (the source of truth):
# out/<line>/mbox/iov_iter-<line>[-<posting>]-vN.mbx.  A line that is one
# posting gets the subject prefix its line.conf's MBOX_PREFIX names
# ("PATCH vendor-6.1": a vendor port, which must not read as stable's
# "PATCH 6.1.y"), or "PATCH <line>";
# a stable posting of patches/<line>/stable/postings gets its own prefix
# ("PATCH 6.1.y") and is a first version;
# a line with patches/<line>/postings gets each posting's own prefix
# ("PATCH", "RFC PATCH", "PATCH 6.12.y"; a part marked "local" is never
# posted and gets none).  "vN" is added from the second version on, and
# Message-Id/In-Reply-To headers thread every patch under its cover
# letter, derived from the base and the version so the bytes are stable
# (MBOX_CHECK=1 only: git send-email keeps a Message-Id it finds, so the
# mbox to send has none, and git send-email or b4 thread it).
#   MBOX_CHECK=1  also prove the round trip of every posting: b4 am on the
#                 mbox, applied to the posting's base, must give the change
#                 of the posting's commits in build/<line>/linux (the same
#                 patch id, and the same tree where the posting's base is
#                 the commit before it there).
# The mboxes are signed by the person who sends them: git's identity
# (user.name and user.email, or GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL) becomes
# the From: and the Signed-off-by: of every message where patches/ has
# the project's identity (the cover letter's From:).  A port (a patch
# with stable's "commit <full id> upstream." line) is stored From: its
# upstream author, with the upstream sign-off chain, our bracketed note
# ("[ 6.1: ... ]") and the project's sign-off last: only that last line
# becomes the sender's, and the port stays its author's.  The project's
# placeholder identity is refused, and an address at a reserved domain
# gets a warning.
#   UPSTREAM_TREE=<git clone of mainline>  each port's message (its text
#                 and tags) is taken from that commit in the sender's
#                 tree, and our note and the sender's sign-off follow it;
#                 without it mbox says which ports still carry our words
#   MBOX_STABLE_FORM=request|patch  a stable posting of a port: a request
#                 to apply the mainline commit (the default), or, with
#                 UPSTREAM_TREE, the commit itself in stable's form
#   MBOX_OWN_WORDS=1  write the ports with our description even without
#                 UPSTREAM_TREE (a dry run, not to be sent; make check's round
#                 trip); without either, mbox refuses
#   MBOX_TRAILERS=<file>  trailers the sender's process asks for, one per
#                 line: "<which><TAB><trailer>", which is "*" (every
#                 patch), "ports", "own" (patches of ours) or a comma list
#                 of patch numbers; each goes before the sender's
#                 sign-off (ACK's Bug: and Change-Id:)
#   MBOX_ASSISTED_BY="LLM <tools>"  every patch gets an Assisted-by: trailer
#                 (coding-assistants.rst: the series was written with an AI
#                 coding assistant, and only the sender signs it); the
#                 default is the line.conf's ASSISTED_BY, and it cannot be
#                 turned off
#   MBOX_BASE_INFO=out/<line>/sendcheck  what make sendcheck wrote on the
#                 sender's tree: each posting's cover letter ends with its
#                 base-commit: and prerequisite lines from there, in place
#                 of this machine's prerequisite-patch-ids (refused if the
#                 patches sendcheck applied are not the ones sent); a
#                 posting it did not check (SENDCHECK_POSTINGS) gets no mbox
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# --- Who sends it --------------------------------------------------------
# The identity the stored patches carry (the project's: no person).
# A cover letter is always ours (a port is its author's).
first=$(find "$PATCHES" -name '0000-cover-letter.patch' -print -quit)
[ -n "$first" ] || die "${PATCHES#"$TOP"/} has no cover letter" "make$LINEOPT export"
project_ident=$(python3 -c 'import email, sys; print(" ".join(email.message_from_file(open(sys.argv[1], encoding="utf-8"))["From"].split()))' "$first")
[ -n "$project_ident" ] || die "${first#"$TOP"/} has no From: line" "make$LINEOPT export"
sender=$(git -C "$TOP" var GIT_AUTHOR_IDENT 2>/dev/null | sed 's/ [0-9]* [-+][0-9]*$//') || true
sender_email=${sender##*<}
sender_email=${sender_email%>}
how='GIT_AUTHOR_NAME="Your Name" GIT_AUTHOR_EMAIL="you@your.domain" make'"$LINEOPT"' mbox (or set user.name and user.email with git config)'
if [ -z "$sender" ] || [ "$sender" = "$project_ident" ] || [ "$sender_email" = "$BASE_EMAIL" ]; then
	who="the project placeholder $project_ident"
	[ -n "$sender" ] || who="not set"
	die "make mbox signs every message with the sender's identity, and git's identity here is $who: the Signed-off-by: is the sender's certificate of origin (Documentation/process/submitting-patches.rst), so it must name a person" "$how"
fi
case ${sender_email,,} in
*.example|*.invalid|*.test|*.localhost|*@example.com|*@example.net|*@example.org|*@localhost)
	log "warning: $sender_email is at a reserved domain (RFC 2606, RFC 6761): no list delivers or answers mail there" ;;
esac

# --- The ports' upstream messages, from the sender's tree -----------------
updir=$OUT/mbox-upstream
rm -rf "$updir"
mkdir -p "$updir"
mapfile -t port_ids < <(grep -rhoE '^commit [0-9a-f]{40} upstream\.$' --include='*.patch' "$PATCHES" | cut -d' ' -f2 | sort -u)
if [ -n "${UPSTREAM_TREE:-}" ]; then
	git -C "$UPSTREAM_TREE" rev-parse -q --verify HEAD >/dev/null 2>&1 ||
		die "UPSTREAM_TREE=$UPSTREAM_TREE is not a git tree with commits" "git -C $UPSTREAM_TREE log -1"
	for id in ${port_ids[@]+"${port_ids[@]}"}; do
		if ! git -C "$UPSTREAM_TREE" cat-file -e "$id^{commit}" 2>/dev/null; then
			f=$(grep -rlE "^commit $id upstream\.$" --include='*.patch' "$PATCHES" | head -n1)
			die "UPSTREAM_TREE=$UPSTREAM_TREE has no commit $id, which ${f#"$TOP"/} ports: fetch mainline into it" \
				"git -C $UPSTREAM_TREE cat-file -t $id"
		fi
		git -C "$UPSTREAM_TREE" log -1 --format='%an <%ae>' "$id" > "$updir/$id.author"
		git -C "$UPSTREAM_TREE" log -1 --format='%s' "$id" > "$updir/$id.subject"
		# The message without its subject line: its text and its tags.
		git -C "$UPSTREAM_TREE" log -1 --format='%B' "$id" | sed '1,/^$/d' > "$updir/$id.body"
	done
fi
if [ -n "${MBOX_BASE_INFO:-}" ]; then
	[ -d "$MBOX_BASE_INFO" ] || die "MBOX_BASE_INFO=$MBOX_BASE_INFO is not a directory (make sendcheck writes it)" "make$LINEOPT sendcheck TREE=<your tree>"
	[ -f "$PATCHES/postings" ] || die "MBOX_BASE_INFO is for a line of several postings (LINE=mainline)"
	[ "${MBOX_CHECK:-0}" != 1 ] ||
		die "MBOX_CHECK=1 proves the postings on this machine's base; with MBOX_BASE_INFO they name the sender's tree, where make sendcheck proved them" "make$LINEOPT mbox MBOX_BASE_INFO=$MBOX_BASE_INFO"
fi
assisted=${MBOX_ASSISTED_BY:-$ASSISTED_BY}
[[ $assisted =~ ^LLM( [A-Za-z0-9._-]+)*$ ]] ||
	die "MBOX_ASSISTED_BY='$assisted': want \"LLM [tool ...]\" (Documentation/process/coding-assistants.rst); the series was written with an AI coding assistant, and the trailer says so" "make$LINEOPT mbox MBOX_ASSISTED_BY='LLM sparse'"
case ${MBOX_STABLE_FORM:-request} in
request) ;;
patch) [ -n "${UPSTREAM_TREE:-}" ] || die "MBOX_STABLE_FORM=patch takes the commit from UPSTREAM_TREE=<a git clone of mainline>" "make$LINEOPT mbox UPSTREAM_TREE=<clone> MBOX_STABLE_FORM=patch" ;;
*) die "MBOX_STABLE_FORM=${MBOX_STABLE_FORM}: request (the default) or patch" "make$LINEOPT mbox" ;;
esac
if [ -n "${MBOX_TRAILERS:-}" ]; then
	[ -f "$MBOX_TRAILERS" ] || die "MBOX_TRAILERS=$MBOX_TRAILERS is not a file" "ls -l $MBOX_TRAILERS"
fi

version=$(sed -n 's/^version: *//p' "$PATCHES/VERSION")
[[ $version =~ ^[1-9][0-9]*$ ]] || die "${PATCHES#"$TOP"/}/VERSION has no 'version: N' line"
dest=$OUT/mbox
mkdir -p "$dest"
rm -f "$dest"/*.mbx

# write_mbox DIR NAME PREFIX BASE VERSION [TO [CC]]: DIR's cover letter and
# patches (in the order of series; a stable posting, which series does not
# list, in the order of its file names) as out/<line>/mbox/NAME-vVERSION.mbx,
# addressed To: TO and Cc: CC (comma-separated) where given; BASEINFO, a
# file make sendcheck wrote, gives the cover letter's base lines.
write_mbox() {
	local dir=$1 name=$2 prefix=$3 base=$4 version=$5 to=${6:-} cc=${7:-} binfo=${8:-} rel
	rel=${dir#"$PATCHES"}
	rel=${rel#/}
	mapfile -t files < <(echo 0000-cover-letter.patch
		if [ "${dir#"$PATCHES"}" = "$dir" ]; then
			patch_files "$dir"
		else
			series_list "$PATCHES/series" | { if [ -n "$rel" ]; then sed -n "s|^$rel/||p"; else cat; fi; }
		fi)
	python3 - "$dir" "$dest/$name-v$version.mbx" "$version" "${base:0:12}" "$name" "$prefix" \
		"$project_ident" "$sender" "$to" "$cc" "${UPSTREAM_TREE:+$updir}" "${MBOX_TRAILERS:-}" "$binfo" "$assisted" "${files[@]}" <<'PY'
import os
import re
import sys

pdir, mbx, version, base, name, prefix, project, sender, to, cc, updir, trailers_file, binfo, assisted, *files = sys.argv[1:]
BASE_LINE = re.compile(r'^(base-commit|prerequisite-patch-id|prerequisite-message-id): ')
base_lines = [l.rstrip('\n') for l in open(binfo, encoding='utf-8') if BASE_LINE.match(l)] if binfo else []
TRAILER = re.compile(r'^([A-Za-z][A-Za-z0-9-]*): \S')
extra = []  # (which, trailer) of MBOX_TRAILERS
if trailers_file:
    for n, line in enumerate(open(trailers_file, encoding='utf-8'), 1):
        line = line.rstrip('\n')
        if not line.strip() or line.startswith('#'):
            continue
        which, _, trailer = line.partition('\t')
        if not TRAILER.match(trailer) or not re.fullmatch(r'\*|ports|own|[0-9]+(,[0-9]+)*', which):
            sys.exit(f'mbox: {trailers_file}:{n}: want "<*|ports|own|n,m,...><TAB><Tag>: <value>", got {line!r}')
        extra.append((which, trailer))
if not any(w == '*' and t.lower().startswith('assisted-by:') for w, t in extra):
    extra.insert(0, ('*', 'Assisted-by: ' + assisted))
own_words = []  # ports sent with our description (no UPSTREAM_TREE)
subjects = {}  # a port's upstream subject (UPSTREAM_TREE)
ids = os.environ.get('MBOX_CHECK') == '1'  # the round trip's .invalid Message-Ids
for which, trailer in extra:
    if trailer.lower().startswith('change-id:') and which in ('*', 'ports', 'own') or \
            trailer.lower().startswith('change-id:') and ',' in which:
        sys.exit(f'mbox: {trailers_file}: a Change-Id: names one change: give it for one patch number, not "{which}"')


def port_message(fname, msg, upid, author):
    """A port's message: stored as our words, the upstream chain, our
    "[ ... ]" note and the project's sign-off; with UPSTREAM_TREE, the
    upstream commit's own text and tags instead of our words and the
    stored chain."""
    lines = msg.rstrip('\n').split('\n')
    if lines[-1] != 'Signed-off-by: ' + project:
        sys.exit(f'mbox: {fname}: a port ends with the project\'s sign-off ({project}), after its note')
    # Our own tags (a Fixes: of the regression, Links) may follow the note.
    end = len(lines) - 1
    while end > 0 and TRAILER.match(lines[end - 1]):
        end -= 1
    ours = lines[end:-1]
    if not end or not lines[end - 1].endswith(']'):
        sys.exit(f'mbox: {fname}: a port has its "[ 6.1: ... ]" note after the upstream chain, before our tags and the project\'s sign-off')
    start = end - 1
    while start >= 0 and not lines[start].startswith('['):
        start -= 1
    if start < 0:
        sys.exit(f'mbox: {fname}: the note before the sign-off does not start with "["')
    note = lines[start:end]
    chain_end = start
    chain_start = chain_end
    while chain_start > 0 and TRAILER.match(lines[chain_start - 1]):
        chain_start -= 1
    chain = lines[chain_start:chain_end]
    if not any(c.startswith('Signed-off-by: ') for c in chain):
        sys.exit(f'mbox: {fname}: a port keeps its upstream sign-off chain before its note')
    if not updir:
        own_words.append(f'{fname[:4]} ({upid[:12]})')
        return msg
    up_author = open(f'{updir}/{upid}.author', encoding='utf-8').read().strip()
    if up_author != author:
        sys.exit(f'mbox: {fname} is stored From: {author}, but commit {upid[:12]} of UPSTREAM_TREE is by {up_author}')
    up = open(f'{updir}/{upid}.body', encoding='utf-8').read().rstrip('\n').split('\n')
    missing = [c for c in chain if c not in up]
    if missing:
        sys.exit(f'mbox: {fname}: the stored upstream chain has {missing[0]!r}, which commit {upid[:12]} of UPSTREAM_TREE lacks')
    subjects[fname] = open(f'{updir}/{upid}.subject', encoding='utf-8').read().strip()
    return '\n'.join([f'commit {upid} upstream.', ''] + up + note + ours + [lines[-1]]) + '\n'

prefix += f' v{version}' if version != '1' else ''
domain = f'{name.replace("_", "-")}.invalid'
cover_id = f'<{base}-v{version}-0@{domain}>'
with open(mbx, 'w', encoding='utf-8') as out:
    for n, fname in enumerate(files):
        text = open(f'{pdir}/{fname}', encoding='utf-8').read()
        head, body = text.split('\n\n', 1)
        head = re.sub(r'\n[ \t]+', ' ', head)  # unfold (format-patch folds From:)
        # "[<any prefix> n/m]" becomes "[<the posting's prefix>[ vN] n/m]".
        if not re.search(r'^Subject: \[[^]\n]*PATCH[^]\n]* [0-9]+/[0-9]+\]', head, re.M):
            sys.exit(f'mbox: {fname} has no "Subject: [PATCH n/m]" line')
        head = re.sub(r'^Subject: \[[^]\n]*?([0-9]+/[0-9]+\])', f'Subject: [{prefix} \\1', head,
                      count=1, flags=re.M)
        author = re.search(r'^From: (.*)$', head, re.M)[1]
        msg, sep, rest = body.partition('\n---\n')
        upid = re.search(r'^commit ([0-9a-f]{40}) upstream\.$', msg, re.M) if n else None
        if upid:
            # A port: its author's, never the sender's.
            if author == project:
                sys.exit(f'mbox: {fname} ports commit {upid[1][:12]} but is stored From: the project; store it From: its upstream author')
            msg = port_message(fname, msg, upid[1], author)
            if fname in subjects:
                head = re.sub(r'^(Subject: \[[^]\n]*\] ).*$', lambda m: m[1] + subjects[fname], head,
                              count=1, flags=re.M)
        if n and extra:
            num = int(re.search(r'^Subject: \[[^]\n]*? ([0-9]+)/[0-9]+\]', head, re.M)[1])

            def wanted(w):
                if w in ('*', 'ports', 'own'):
                    return w == '*' or (w == 'ports') == bool(upid)
                return num in [int(x) for x in w.split(',')]
            add = [t for w, t in extra if wanted(w)]
            if add:
                ml = msg.rstrip('\n').split('\n')
                if not ml[-1].startswith('Signed-off-by: ' + project):
                    sys.exit(f'mbox: {fname}: no project sign-off to put the trailers before')
                msg = '\n'.join(ml[:-1] + add + ml[-1:]) + '\n'
        body = msg + sep + rest
        if n == 0 and base_lines:
            # The sender's tree's base and prerequisites (make sendcheck)
            # in place of this machine's.
            kept = [l for l in body.rstrip('\n').split('\n') if not BASE_LINE.match(l)]
            while kept and not kept[-1].strip():
                kept.pop()
            body = '\n'.join(kept) + '\n\n' + '\n'.join(base_lines) + '\n'
        # The sender signs: the project's identity becomes the sender's
        # in From: and in its Signed-off-by: (no one else's changes).
        head = re.sub(r'^From: ' + re.escape(project) + '$', lambda m: 'From: ' + sender,
                      head, flags=re.M)
        body = re.sub(r'^Signed-off-by: ' + re.escape(project) + '$',
                      lambda m: 'Signed-off-by: ' + sender, body, flags=re.M)
        # A cover letter's shortlog names the author: the sender, too.
        pname, sname = project.split(' <')[0], sender.split(' <')[0]
        body = re.sub(r'^' + re.escape(pname) + r' (\(\d+\):)$', lambda m: sname + ' ' + m[1],
                      body, flags=re.M)
        if pname in head or pname in body:
            sys.exit(f'mbox: {fname} names the project identity {project} where no sender can stand')
        if to:
            head += '\nTo: ' + ', '.join(a.strip() for a in to.split(','))
        if cc:
            head += '\nCc: ' + ', '.join(a.strip() for a in cc.split(','))
        # Only the round trip's mbox has Message-Ids (b4 am picks the
        # thread by them): git send-email keeps one it finds, and these
        # would collide on the lists; it threads the mails itself.
        if ids:
            head += f'\nMessage-Id: <{base}-v{version}-{n}@{domain}>'
            if n:
                head += f'\nIn-Reply-To: {cover_id}\nReferences: {cover_id}'
        out.write(head + '\n\n' + body)
        if not body.endswith('\n'):
            out.write('\n')
print(f'mbox: {mbx}: {len(files)} messages, from {sender}')
if own_words:
    what = (f'{len(own_words)} port(s) of {name} carry our description under their upstream authors\' '
            f'sign-offs, not the upstream message: give UPSTREAM_TREE=<a git clone of mainline> '
            f'({", ".join(own_words)})')
    if os.environ.get('MBOX_OWN_WORDS') != '1':
        os.remove(mbx)
        sys.exit(f'mbox: error: {what}; MBOX_OWN_WORDS=1 writes them anyway, for a dry run that is not to be sent')
    print(f'mbox: warning: {what}: MBOX_OWN_WORDS=1, a dry run, not to be sent')
PY
}

# stable_port NAME TEXT UPID PREFIX BASE TO CC: the stable posting of a
# port of mainline commit UPID, as out/<line>/mbox/NAME-v1.mbx.  By
# default a request that carries no patch (stable-kernel-rules.rst's
# second option: the commit applies as it is, and stable picks it from
# mainline itself): the subject names the commit, the body is TEXT (the
# posting's cover-letter.txt: the regression, the Fixes: target and how
# it was tested) without its title line.  With MBOX_STABLE_FORM=patch
# (which needs UPSTREAM_TREE), the commit
# itself in stable's form instead (the third option): the sender's
# tree's format-patch of UPID, its author and every tag of its own kept,
# "commit <id> upstream." first and the sender's sign-off last, TEXT
# below the "---"; the round trip (MBOX_CHECK=1) then proves it applies
# to the base and is the change the series tested.
stable_port() {
	local name=$1 text=$2 upid=$3 prefix=$4 base=$5 to=$6 cc=$7 up=
	[ -f "$text" ] || die "${text#"$TOP"/} is missing (the stable posting's text)" "make$LINEOPT lint"
	if [ "${MBOX_STABLE_FORM:-request}" = patch ]; then
		up=$updir/$upid.patch
		git -C "$UPSTREAM_TREE" format-patch -1 --stdout --no-signature "$upid" > "$up"
	fi
	python3 - "$dest/$name-v1.mbx" "$name" "$text" "$upid" "$prefix" "${base:0:12}" "$sender" "$to" "$cc" "$up" <<'PY'
import re
import sys

import os
mbx, name, text, upid, prefix, base, sender, to, cc, up = sys.argv[1:]
title, _, notes = open(text, encoding='utf-8').read().partition('\n\n')
addr = '\nTo: ' + to + ('\nCc: ' + cc if cc else '')
mid = f'\nMessage-Id: <{base}-v1-0@{name.replace("_", "-")}.invalid>' if os.environ.get('MBOX_CHECK') == '1' else ''
if not up:
    line = re.sub(r'^\S+ ', '', prefix)  # "PATCH 6.1.y" -> "6.1.y"
    subject = re.search(r'\(".*"\)', notes)
    msg = (f'From: {sender}\nSubject: [{line}] please apply commit {upid[:12]}'
           + (f' {subject[0]}' if subject else '') + addr + mid + '\n\n' + notes.rstrip('\n') + '\n')
    how = 'a request that carries no patch'
else:
    raw = open(up, encoding='utf-8').read()
    head, body = raw.split('\n\n', 1)
    head = re.sub(r'^From [0-9a-f]{40} .*\n', '', head)
    head = re.sub(r'\n[ \t]+', ' ', head)
    head = re.sub(r'^Subject: \[PATCH\]', f'Subject: [{prefix}]', head, flags=re.M)
    msg_, sep, diff = body.partition('\n---\n')
    if not sep:
        sys.exit(f'mbox: the format-patch of {upid} has no "---" line')
    msg_ = f'commit {upid} upstream.\n\n' + msg_.rstrip('\n') + f'\nSigned-off-by: {sender}\n'
    msg = head + addr + mid + '\n\n' + msg_ + '---\n' + notes.rstrip('\n') + '\n\n' + diff
    how = f'commit {upid[:12]} from UPSTREAM_TREE, its author and tags kept'
with open(mbx, 'w', encoding='utf-8') as out:
    out.write('From mboxrd@z Thu Jan  1 00:00:00 1970\n' + msg)
print(f'mbox: {mbx}: {how}, from {sender}')
PY
}

# recipients POSTING To|Cc: the addresses patches/<line>/recipients names
# for a posting (lines "<posting><TAB>To|Cc<TAB><address>"), comma-separated:
# the maintainers each posting is for, beside the ones b4 adds per patch
# from get_maintainer.pl.
recipients() {
	[ -f "$PATCHES/recipients" ] || return 0
	awk -F'\t' -v p="$1" -v k="$2" '$0 !~ /^#/ && $1 == p && $2 == k { print $3 }' "$PATCHES/recipients" | paste -sd, - | sed 's/,/, /g'
}
if [ -f "$PATCHES/recipients" ]; then
	bad=$(awk -F'\t' '$0 !~ /^#/ && NF && (NF != 3 || ($2 != "To" && $2 != "Cc"))' "$PATCHES/recipients" | head -n1)
	[ -z "$bad" ] || die "${PATCHES#"$TOP"/}/recipients: want \"<posting><TAB>To|Cc<TAB><address>\", got: $bad" "make$LINEOPT lint"
	while read -r p; do
		postings_list "$PATCHES" | awk -v p="$p" '$1 == p { f = 1 } END { exit !f }' ||
			die "${PATCHES#"$TOP"/}/recipients names $p, which ${PATCHES#"$TOP"/}/postings does not" "make$LINEOPT lint"
	done < <(awk -F'\t' '$0 !~ /^#/ && NF { print $1 }' "$PATCHES/recipients" | sort -u)
fi

# The postings: name, directory, subject prefix, base commit, last commit.
posts=()
if [ -f "$PATCHES/postings" ]; then
	[ -d "$TREE/.git" ] || die "$TREE does not exist" "make$LINEOPT tree"
	mapfile -t commits < <(tgit rev-list --reverse base..HEAD)
	at=0 from=$(tgit rev-parse base)
	while read -r pname count prefix on; do
		d=$PATCHES/$pname
		cl=$d/0000-cover-letter.patch
		if ! [[ $count =~ ^[1-9][0-9]*$ ]] || [ $((at + count)) -gt ${#commits[@]} ]; then
			die "${PATCHES#"$TOP"/}/postings: $pname takes '$count' patches; the tree has ${#commits[@]} in all" "make$LINEOPT lint"
		fi
		b=$(sed -n 's/^base-commit: *//p' "$cl" 2>/dev/null || true)
		if [ "$BASE_COMMIT_PUBLIC" = yes ]; then
			[ -n "$b" ] || die "${cl#"$TOP"/} has no base-commit line" "make$LINEOPT export"
		else
			# No base is named: a posting on the base stands alone;
			# one on the postings before it must name each of their
			# patches, in order, by patch id.
			[ -z "$b" ] || die "${cl#"$TOP"/} names base-commit $b, a commit of this machine's tree that no reviewer can resolve" "make$LINEOPT export"
			b=$(tgit rev-parse base)
			[ "${on:-prev}" = base ] || b=$from
			want=$(for c in $(tgit rev-list --reverse "base..$b"); do
				tgit show "$c" | git patch-id --stable | cut -d' ' -f1; done)
			have=$(sed -n 's/^prerequisite-patch-id: *//p' "$cl")
			[ "$have" = "$want" ] ||
				die "${cl#"$TOP"/}: its prerequisite-patch-id lines are not the patch ids of the $(tgit rev-list --count "base..$b") patches it is based on" "make$LINEOPT export"
		fi
		at=$((at + count))
		binfo=
		if [ -n "${MBOX_BASE_INFO:-}" ]; then
			binfo=$MBOX_BASE_INFO/$pname.base
			if [ ! -f "$binfo" ]; then
				# make sendcheck did not check it on that tree
				# (SENDCHECK_POSTINGS): it is not written.
				log "$pname: no ${binfo#"$TOP"/}: make sendcheck did not check it on that tree, so no mbox"
				from=${commits[$((at - 1))]}
				continue
			fi
			want=$(for c in $(tgit rev-list --reverse "$from..${commits[$((at - 1))]}"); do
				tgit show "$c" | git patch-id --stable | cut -d' ' -f1; done)
			[ "$(sed -n 's/^# patch-id: *//p' "$binfo")" = "$want" ] ||
				die "${binfo}: make sendcheck applied other patches than the posting $pname has now: run it again" "make$LINEOPT sendcheck TREE=<your tree>"
		fi
		# A local part (prefix "local") is never posted: no mbox.
		[ "$prefix" = local ] ||
			posts+=("iov_iter-$LINE_NAME-$pname|$d|${prefix//_/ }|$b|$from|${commits[$((at - 1))]}|$version|$(recipients "$pname" To)|$(recipients "$pname" Cc)|$binfo")
		from=${commits[$((at - 1))]}
	done < <(postings_list "$PATCHES")
else
	b=$(sed -n 's/^base-commit: *//p' "$PATCHES/BASE")
	[ -n "$b" ] || die "${PATCHES#"$TOP"/}/BASE has no base-commit line" "make$LINEOPT export"
	posts+=("iov_iter-$LINE_NAME|$PATCHES|${MBOX_PREFIX:-PATCH $LINE_NAME}|$b|$b|HEAD|$version")
fi
# The stable postings (patches/<line>/stable/postings): one commit of the
# series each, alone on the line's base, a first version.  make export
# writes them here (patches/ keeps only their cover letters' text).
sx=$dest/stable-export
rm -rf "$sx"
if [ -n "$(stable_postings_list "$PATCHES")" ]; then
	EXPORT_DIR=$sx EXPORT_STABLE=1 bash "$TOP/ci/export.sh" > "$dest/stable-export.log" 2>&1 ||
		{ cat "$dest/stable-export.log" >&2; die "make export could not write the stable postings" "make$LINEOPT export"; }
fi
while IFS=$'\t' read -r sname subject prefix to cc; do
	if [ -z "$prefix" ] || [ -z "$to" ]; then
		die "${PATCHES#"$TOP"/}/stable/postings: $sname needs a subject, a prefix and a To: (tab-separated)" "make$LINEOPT lint"
	fi
	case $subject in
	request\ *)
		# A request to apply a mainline commit the series has no port
		# of: its text alone (stable-kernel-rules.rst, option 2).
		rid=${subject#request }
		[[ $rid =~ ^[0-9a-f]{12,40}$ ]] || die "${PATCHES#"$TOP"/}/stable/postings: $sname: \"request <mainline commit id>\", got \"$subject\"" "make$LINEOPT lint"
		MBOX_STABLE_FORM=request stable_port "iov_iter-$LINE_NAME-stable-$sname" "$PATCHES/stable/$sname/cover-letter.txt" \
			"$rid" "${prefix//_/ }" "$(tgit rev-parse base)" "$to" "$cc"
		continue
		;;
	esac
	cl=$sx/stable/$sname/0000-cover-letter.patch
	[ -f "$cl" ] || die "make export wrote no ${cl#"$TOP"/}" "make$LINEOPT mbox"
	[ -d "$TREE/.git" ] || die "$TREE does not exist" "make$LINEOPT tree"
	c=$(tgit log --format='%H %s' base..HEAD | awk -v s="$subject" '{ h = $1; sub(/^[^ ]* /, "") } $0 == s { print h }')
	[ "$(echo "$c" | grep -c .)" = 1 ] || die "${PATCHES#"$TOP"/}/stable/postings: $sname names \"$subject\", which is not exactly one commit of the series" "make$LINEOPT export"
	b=$(sed -n 's/^base-commit: *//p' "$cl")
	[ -n "$b" ] || b=$(tgit rev-parse base)
	upid=$(tgit log -1 --format=%B "$c" | sed -n 's/^commit \([0-9a-f]\{40\}\) upstream\.$/\1/p' | head -n1)
	if [ -n "$upid" ]; then
		# A port of a mainline commit: stable takes the commit itself.
		stable_port "iov_iter-$LINE_NAME-stable-$sname" "$PATCHES/stable/$sname/cover-letter.txt" \
			"$upid" "${prefix//_/ }" "$b" "$to" "$cc"
		[ "${MBOX_STABLE_FORM:-request}" != patch ] ||
			posts+=("iov_iter-$LINE_NAME-stable-$sname|-|${prefix//_/ }|$b|$c^|$c|1|$to|$cc")
		continue
	fi
	posts+=("iov_iter-$LINE_NAME-stable-$sname|$sx/stable/$sname|${prefix//_/ }|$b|$c^|$c|1|$to|$cc")
done < <(stable_postings_list "$PATCHES")
for p in "${posts[@]}"; do
	IFS='|' read -r name dir prefix base _ _ ver to cc binfo <<< "$p"
	[ "$dir" = - ] || write_mbox "$dir" "$name" "$prefix" "$base" "$ver" "$to" "$cc" "$binfo"
done

[ "${MBOX_CHECK:-0}" = 1 ] || exit 0

# The round trip, as a reviewer does it: b4 am, then git am on the base.
b4=$TOP/build/venv/bin/b4
[ -x "$b4" ] || die "b4 is not installed in build/venv" "make$LINEOPT deps"
# One worktree for every posting (a kernel tree's checkout is the slow
# part): each starts from its own base.
wt=$dest/roundtrip-tree
rm -rf "$wt"
tgit worktree prune
# Each posting's base must be a commit of this tree (BASE, or its cover
# letter's base-commit): a tree made from another version of the base
# package has none of them, and git's "reference is not a tree" says why
# to nobody.
for p in "${posts[@]}"; do
	IFS='|' read -r name _ _ base _ _ _ _ <<< "$p"
	need_base_commit "$base" "the posting $name (${PATCHES#"$TOP"/}/BASE or its cover letter)"
done
tgit worktree add -q --detach "$wt" base
trap 'tgit worktree remove --force "$wt" >/dev/null 2>&1 || true' EXIT
cp "$B4CFG" "$wt/.b4-config"
for p in "${posts[@]}"; do
	IFS='|' read -r name dir prefix base from tip version _ <<< "$p"
	mbx=$dest/$name-v$version.mbx
	rt=$dest/roundtrip-$name
	rm -rf "$rt"
	mkdir -p "$rt"
	git -C "$wt" checkout -q -f --detach "$base"
	(cd "$wt" && XDG_CACHE_HOME=$rt/cache XDG_DATA_HOME=$rt/data "$b4" --offline-mode am -m "$mbx" -o "$rt" -n roundtrip \
		"${base:0:12}-v$version-0@${name//_/-}.invalid") > "$rt/b4.log" 2>&1 ||
		{ cat "$rt/b4.log" >&2; die "b4 am could not read $mbx" "MBOX_CHECK=1 make$LINEOPT mbox"; }
	[ -s "$rt/roundtrip.mbx" ] || { cat "$rt/b4.log" >&2; die "b4 am wrote no am-ready mbox for $name" "MBOX_CHECK=1 make$LINEOPT mbox"; }
	# b4 must know the base the cover letter names (it says "base-commit
	# ... not known, ignoring" otherwise), and the series must apply to it:
	# the worktree is at that base, so b4 says "applies clean to current
	# tree".
	if grep -q 'Base: base-commit .* not known' "$rt/b4.log" ||
		! grep -q '^ *Base: applies clean to current tree' "$rt/b4.log"; then
		cat "$rt/b4.log" >&2
		die "b4 am did not find base-commit $base in $mbx, or the series does not apply to it" "MBOX_CHECK=1 make$LINEOPT mbox"
	fi
	git -C "$wt" -c user.name="$BASE_NAME" -c user.email="$BASE_EMAIL" am -q "$rt/roundtrip.mbx" ||
		die "git am of b4's mbox of $name onto its base failed" "MBOX_CHECK=1 make$LINEOPT mbox"
	npatch=$(git -C "$wt" rev-list --count "$base..HEAD")
	# The posting's change must be the work tree's: the same patch id as
	# its commits in build/<line>/linux, and, for a posting on the one
	# before it, the same tree.
	got=$(git -C "$wt" diff "$base" HEAD | git patch-id --stable | cut -d' ' -f1)
	want=$(tgit diff "$from" "$tip" | git patch-id --stable | cut -d' ' -f1)
	if [ "$(tgit rev-parse "$from")" = "$(tgit rev-parse "$base^{commit}" 2>/dev/null || true)" ]; then
		[ "$(git -C "$wt" rev-parse 'HEAD^{tree}')" = "$(tgit rev-parse "$tip^{tree}")" ] || got="$got (another tree)"
	fi
	[ "$got" = "$want" ] ||
		die "$name: b4 am + git am on ${base:0:12} gives the change $got, build/$LINE_NAME/linux has $want" "MBOX_CHECK=1 make$LINEOPT mbox"
	echo "mbox: round trip ok: b4 am + git am of $npatch patches of $name on ${base:0:12} gives the change of make tree (patch id ${want:0:12})"
done
