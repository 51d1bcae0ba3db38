#!/usr/bin/env bash
# The line's contract table, Documentation/<line>/contracts.md, against its
# tree at the tip (ci/contracts.py says what is checked): every exported
# function of lib/iov_iter.c and every inline of uio.h and iov_iter.h has a
# row, every row names a test case of CONTRACT_TESTS (ci/<line>/contracts.conf) or says
# gap, and the gap rows are exactly CONTRACT_MAX_GAPS, a ratchet that only
# comes down; with CONTRACT_GAP_REASONS, each gap row's function has its
# reason in the table's "Why the gap rows have no test".  Each tested row
# names its mutation of ci/<line>/mutations, or none: the rows with none
# are exactly CONTRACT_MAX_UNMUTATED, a ratchet too.  make docs runs it for
# every line that has a table; make mutants, after a run of the whole list,
# runs it with CONTRACT_MUTANT_RESULTS=<the line's out dir>, and each row's
# mutation must then have failed one of the row's own tests.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

doc=$TOP/Documentation/$LINE_NAME/contracts.md
repro="make docs  # or: LINE=$LINE_NAME bash ci/contracts.sh"
[ -f "$doc" ] || die "$LINE_NAME has no ${doc#"$TOP"/}" "$repro"
conf=$LINED/contracts.conf
[ -f "$conf" ] || die "$LINE_NAME has a contract table but no ci/$LINE_NAME/contracts.conf" "$repro"
# Only contracts.conf decides: a value line.conf still has is not used.
unset CONTRACT_TESTS CONTRACT_MAX_GAPS CONTRACT_SKIP_SUITES CONTRACT_EXCLUDE CONTRACT_GAP_REASONS \
	CONTRACT_MAX_UNMUTATED
# shellcheck source=mainline/contracts.conf
. "$conf"
[ -n "${CONTRACT_TESTS:-}" ] || die "ci/$LINE_NAME/contracts.conf sets no CONTRACT_TESTS" "$repro"
[ -n "${CONTRACT_MAX_GAPS:-}" ] || die "ci/$LINE_NAME/contracts.conf sets no CONTRACT_MAX_GAPS" "$repro"
[ -n "${CONTRACT_MAX_UNMUTATED:-}" ] || die "ci/$LINE_NAME/contracts.conf sets no CONTRACT_MAX_UNMUTATED" "$repro"
[ -f "$MUTATIONS" ] || die "$LINE_NAME has a contract table but no ${MUTATIONS#"$TOP"/}" "$repro"
[ -f "$TREE/lib/iov_iter.c" ] || die "$TREE has no lib/iov_iter.c" "make$LINEOPT tree"
read -r -a tests <<< "$CONTRACT_TESTS"
read -r -a skip <<< "${CONTRACT_SKIP_SUITES:-}"
read -r -a exclude <<< "${CONTRACT_EXCLUDE:-}"
for t in "${tests[@]}"; do
	[ -f "$TREE/$t" ] || die "CONTRACT_TESTS: $TREE has no $t" "$repro"
done
# The table is checked against the tip as committed: a work tree with
# changes to the files it reads (a mutation left behind, say) is refused.
dirty=$(tgit status --porcelain -- lib/iov_iter.c include/linux/uio.h include/linux/iov_iter.h "${tests[@]}")
[ -z "$dirty" ] || die "$TREE has uncommitted changes to the files the table is checked against: $dirty" "make$LINEOPT tree"
python3 "$TOP/ci/contracts.py" --tree "$TREE" --doc "$doc" --tests "${tests[@]}" \
	--max-gaps "$CONTRACT_MAX_GAPS" --skip-suites "${skip[@]}" --exclude "${exclude[@]}" \
	${CONTRACT_GAP_REASONS:+--gap-reasons} \
	--mutations "$MUTATIONS" --max-unmutated "$CONTRACT_MAX_UNMUTATED" \
	${CONTRACT_MUTANT_RESULTS:+--mutant-results "$CONTRACT_MUTANT_RESULTS"} ||
	die "${doc#"$TOP"/} does not match $LINE_NAME's tree" "$repro"
