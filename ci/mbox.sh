#!/usr/bin/env bash
# make mbox: the series as one mbox, the way it would be posted, from
# patches/<line>/ (the source of truth): out/<line>/mbox/iov_iter-<line>-vN.mbx
# with the subject prefix "PATCH <line>" (plus "vN" from the second version on) and
# Message-Id/In-Reply-To headers that thread every patch under the cover
# letter, derived from the base and the version so the bytes are stable.
#   MBOX_CHECK=1  also prove the round trip: b4 am on the mbox, applied to
#                 the base, must give the tree of build/<line>/linux's tip.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

version=$(sed -n 's/^version: *//p' "$PATCHES/VERSION")
[[ $version =~ ^[1-9][0-9]*$ ]] || die "${PATCHES#"$TOP"/}/VERSION has no 'version: N' line"
name=iov_iter-$LINE_NAME-v$version
dest=$OUT/mbox
mbx=$dest/$name.mbx
mkdir -p "$dest"
rm -f "$mbx"
base=$(sed -n 's/^base-commit: *//p' "$PATCHES/BASE")
[ -n "$base" ] || die "${PATCHES#"$TOP"/}/BASE has no base-commit line" "make$LINEOPT export"

mapfile -t files < <(echo 0000-cover-letter.patch; series_list "$PATCHES/series")
python3 - "$PATCHES" "$mbx" "$version" "${base:0:12}" "$LINE_NAME" "${files[@]}" <<'PY'
import re
import sys

pdir, mbx, version, base, line, *files = sys.argv[1:]
prefix = f'PATCH {line}' + (f' v{version}' if version != '1' else '')
domain = f'iov-iter-{line}.invalid'
cover_id = f'<{base}-v{version}-0@{domain}>'
with open(mbx, 'w', encoding='utf-8') as out:
    for n, name in enumerate(files):
        text = open(f'{pdir}/{name}', encoding='utf-8').read()
        head, body = text.split('\n\n', 1)
        if not re.search(r'^Subject: \[PATCH ', head, re.M):
            sys.exit(f'mbox: {name} has no "Subject: [PATCH " line')
        head = re.sub(r'^Subject: \[PATCH ', f'Subject: [{prefix} ', head, count=1, flags=re.M)
        head += f'\nMessage-Id: <{base}-v{version}-{n}@{domain}>'
        if n:
            head += f'\nIn-Reply-To: {cover_id}\nReferences: {cover_id}'
        out.write(head + '\n\n' + body)
        if not body.endswith('\n'):
            out.write('\n')
print(f'mbox: {mbx}: {len(files)} messages')
PY

[ "${MBOX_CHECK:-0}" = 1 ] || exit 0

# The round trip, as a reviewer does it: b4 am, then git am on the base.
b4=$TOP/build/venv/bin/b4
[ -x "$b4" ] || die "b4 is not installed in build/venv" "make$LINEOPT deps"
rt=$dest/roundtrip
rm -rf "$rt"
mkdir -p "$rt"
export XDG_CACHE_HOME=$rt/cache XDG_DATA_HOME=$rt/data
wt=$rt/tree
tgit worktree prune
tgit worktree add -q --detach "$wt" "$base"
trap 'tgit worktree remove --force "$wt" >/dev/null 2>&1 || true' EXIT
cp "$B4CFG" "$wt/.b4-config"
(cd "$wt" && "$b4" --offline-mode am -m "$mbx" -o "$rt" -n roundtrip \
	"${base:0:12}-v$version-0@iov-iter-$LINE_NAME.invalid") > "$rt/b4.log" 2>&1 ||
	{ cat "$rt/b4.log" >&2; die "b4 am could not read $mbx" "MBOX_CHECK=1 make mbox"; }
[ -s "$rt/roundtrip.mbx" ] || { cat "$rt/b4.log" >&2; die "b4 am wrote no am-ready mbox" "MBOX_CHECK=1 make mbox"; }
grep -Eq "^ *Base: (using specified base-commit $base|applies clean to current tree)" "$rt/b4.log" ||
	{ cat "$rt/b4.log" >&2; die "b4 am did not find base-commit $base in the mbox" "MBOX_CHECK=1 make mbox"; }
git -C "$wt" -c user.name="$BASE_NAME" -c user.email="$BASE_EMAIL" am -q "$rt/roundtrip.mbx" ||
	die "git am of b4's mbox onto the base failed" "MBOX_CHECK=1 make mbox"
got=$(git -C "$wt" rev-parse 'HEAD^{tree}')
want=$(tgit rev-parse 'HEAD^{tree}')
npatch=$(git -C "$wt" rev-list --count "$base..HEAD")
[ "$got" = "$want" ] ||
	die "b4 am + git am on the base gives tree $got, make tree gives $want" "MBOX_CHECK=1 make mbox"
echo "mbox: round trip ok: b4 am + git am of $npatch patches on $base gives the tree of make tree ($want)"
