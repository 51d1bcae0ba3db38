#!/usr/bin/env bash
# cover-section.sh BEGIN END FILE: replace the lines between the marker lines
# BEGIN and END of patches/6.1.y/cover-letter.txt with the content of FILE, so that
# the cover letter's tables are generated, never typed.  Run make export
# afterwards to carry the change into patches/0000-cover-letter.patch.
# COVER_CHECK=1: change nothing, fail if the section differs from FILE.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

begin=$1 end=$2 block=$3
cover=$PATCHES/cover-letter.txt
[ -s "$block" ] || die "$block is empty: nothing to put in the cover letter"
if ! grep -qxF -- "$begin" "$cover" || ! grep -qxF -- "$end" "$cover"; then
	die "$cover has no markers: add the lines '$begin' and '$end'"
fi
python3 - "$cover" "$block" "$begin" "$end" "${COVER_CHECK:-0}" <<'PY'
import sys
cover, block, begin, end, check = sys.argv[1:]
text = open(cover, encoding='utf-8').read()
body = open(block, encoding='utf-8').read().rstrip('\n')
head, rest = text.split(begin + '\n', 1)
_, tail = rest.split(end + '\n', 1)
new = f'{head}{begin}\n{body}\n{end}\n{tail}'
if new != text and check == '1':
    sys.exit(f'cover-section: "{begin}" in {cover} is stale: regenerate it, then make export')
if new != text:
    open(cover, 'w', encoding='utf-8').write(new)
    print(f'cover-section: updated "{begin}" in {cover}; run make export')
PY
