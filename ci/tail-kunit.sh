#!/usr/bin/env bash
# The KUnit suites (x86_64) at each patch of the ABI-changing tail but the
# last (the patches ci/6.1.y/abi-tail lists), and at the patches of
# ci/6.1.y/kunit-full-only.  make check's patchcheck runs the suites at every
# other patch that changes what the KUnit kernel contains, and at the tip;
# these commits run in make check-full only (Documentation/testing.md, the
# budget): most of them change <linux/uio.h> and rebuild most of the
# kernel.
# Results: out/tail-kunit/results.tsv; the runs in out/kunit/tail-<n>/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

res=$OUT/tail-kunit
[ -d "$TREE/.git" ] || die "$TREE does not exist" "make$LINEOPT tree"
rm -rf "$res"
mkdir -p "$res"
: > "$res/results.tsv"
tip=$(tgit rev-parse HEAD)
n=0 fail=0 ran=0
for c in $(tgit rev-list --reverse base..HEAD); do
	n=$((n + 1))
	subj=$(tgit log -1 --format=%s "$c")
	[ "$c" != "$tip" ] || continue
	full_only_kunit "$subj" || continue
	tag=$(printf '%04d' "$n")
	ran=$((ran + 1))
	t=$(date +%s)
	if REV=$c ARCH=x86_64 VARIANT='' RUN_NAME=tail-$tag KUNIT_PRESENT_SUITES=1 \
		bash "$TOP/ci/kunit.sh" > "$res/$tag.log" 2>&1; then
		printf 'PASS\tpatch%s:kunit-x86_64\n' "$tag" >> "$res/results.tsv"
		echo "PASS patch$tag:kunit-x86_64: $subj ($(($(date +%s) - t)) s)"
	else
		printf 'FAIL\tpatch%s:kunit-x86_64\n' "$tag" >> "$res/results.tsv"
		echo "FAIL patch$tag:kunit-x86_64: $subj (log: ${res#"$TOP"/}/$tag.log)"
		echo "tail-kunit: reproduce with: make kunit ARCH=x86_64 REV=$c" >&2
		fail=1
	fi
done
echo "tail-kunit: $ran patch(es) tested (ci/$LINE_NAME/abi-tail, ci/$LINE_NAME/kunit-full-only)"
exit "$fail"
