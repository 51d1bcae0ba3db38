#!/usr/bin/env bash
# make bench: benchmark the series against its base.
#
# The benchmark cases are not in the series yet, so for now this builds and
# boots the tip on x86_64 under QEMU TCG with -icount shift=0,sleep=off (the
# deterministic mode the benchmarks will use) and runs the KUnit suites of
# kunit/, to prove the machinery.  It says so plainly in its output and in
# out/bench/results.json.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

bash "$TOP/ci/deps.sh"
bash "$TOP/ci/tree.sh"
start=$(date +%s)
icount='-icount shift=0,sleep=off'
RUN_NAME=bench-x86_64 ARCH=x86_64 VARIANT='' REV='' KUNIT_QEMU_ARGS=$icount bash "$TOP/ci/kunit.sh" ||
	die "the boot of the tip failed" "make bench"
d=$OUT/kunit/bench-x86_64
mkdir -p "$OUT/bench"
pass=$(grep -c '^PASS' "$d/results.tsv" || true)
tip=$(tgit log -1 --format='%h %s')
python3 - "$OUT/bench/results.json" "$tip" "$icount" "$pass" <<'PY'
import json, sys
out, tip, icount, passed = sys.argv[1:]
json.dump({'status': 'no-benchmark-cases',
           'note': 'the series has no KUnit benchmark patch yet; the tip was built and '
                   'booted and its KUnit suites run, nothing was measured',
           'tip': tip, 'arch': 'x86_64', 'qemu': f'TCG {icount}',
           'kunit_results_passed': int(passed), 'cases': []},
          open(out, 'w'), indent=2)
PY
echo "bench: no benchmark cases in the series yet: nothing was measured."
echo "bench: built and booted the tip ($tip) on x86_64, QEMU TCG $icount;"
echo "bench: KUnit ran with $pass passing results (log: out/kunit/bench-x86_64/raw.log), $(($(date +%s) - start)) s."
echo "bench: wrote out/bench/results.json"
