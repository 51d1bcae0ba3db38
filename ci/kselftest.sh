#!/usr/bin/env bash
# make kselftest [LINE=mainline] [REV=<commit>]: the line's user-mode
# kselftests (KSELFTEST_TARGETS in its line.conf: a directory under
# tools/testing/selftests/ for every program its Makefile lists, or
# dir:prog[,prog] for only those, built by name, where the directory's
# other programs need more than this guest has), run in a guest of the
# line's tip (or REV); a target ci/<dir> is the project's own guest tests
# (ci/guest: tls_rollback), built against the tree (KSRC=); an x86_64
# kernel from tinyconfig +
# configs/kselftest.config + configs/kselftest-<dir>.config for each
# directory that has one and a program in the run, built with ccache,
# and an initramfs whose
# /init (ci/guest-init.c) mounts a tmpfs on /tmp, runs every test program
# and reboots (QEMU's -no-reboot ends the run).  The programs are built with kselftest's own Makefiles,
# static.  kunit.py parses their TAP (it reads kselftest's TAP 13 as well
# as KTAP); each case is one PASS or FAIL line of
# out/<line>/kselftest/results.tsv, as KUnit's are, and a test program
# that does not finish, a plan that does not add up, or a kernel splat
# fails the run.  Logs: out/<line>/kselftest/{console.log,parse.json}.
#
#   REV=<commit of build/<line>/linux>  test that commit (a worktree in
#                                       build/<line>/rev/kselftest/linux)
#   KSELFTEST_MUTATION=<name>  with REV: apply that mutation of
#                       ci/<line>/mutations to REV's worktree first (the
#                       same bug at the base as make mutants puts at the tip)
#   KSELFTEST_PROGS="iov_bench"  boot only these programs (default: all)
#   KSELFTEST_ARGS=/iov_bench:-n:20000  arguments for one program
#   KSELFTEST_ICOUNT=1  run QEMU with -icount shift=0,sleep=off, so that a
#                       guest nanosecond is one guest instruction (the
#                       user-space benchmark's figures, make bench)
#   KSELFTEST_RUN=name  results in out/<line>/kselftest-<name>
#   KSELFTEST_DIR=dir   build the kernel and the programs in dir (make
#                       sendcheck's tree is not the line's)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

repro="make$LINEOPT kselftest${REV:+ REV=$REV}${KSELFTEST_MUTATION:+ KSELFTEST_MUTATION=$KSELFTEST_MUTATION}"
[ -n "${KSELFTEST_TARGETS:-}" ] || die "$LINE_NAME has no kselftests (KSELFTEST_TARGETS in ci/$LINE_NAME/line.conf)"
[ -d "$TREE/.git" ] || die "$TREE does not exist" "make$LINEOPT tree"
KD=${KSELFTEST_DIR:-$LB/kselftest}
src=$TREE
if [ -n "${REV:-}" ]; then
	rev=$(tgit rev-parse -q --verify "$REV^{commit}") || die "REV=$REV is not a commit of $TREE" "$repro"
	src=$LB/rev/kselftest/linux
	detached_worktree "$src" "$rev"
	KD=$LB/rev/kselftest
fi
if [ -n "${KSELFTEST_MUTATION:-}" ]; then
	[ -n "${REV:-}" ] || die "KSELFTEST_MUTATION= needs REV= (make mutants mutates the tip)" "$repro"
	m=$(awk -F'\t' -v n="$KSELFTEST_MUTATION" '$1 == n' "$MUTATIONS")
	[ -n "$m" ] || die "${MUTATIONS#"$TOP"/} has no mutation $KSELFTEST_MUTATION" "$repro"
	IFS=$'\t' read -r _ mfile mfind mrepl _ <<< "$m"
	mutate "$src/$mfile" "$mfind" "$mrepl" || die "mutation $KSELFTEST_MUTATION does not apply at $REV" "$repro"
	log "mutation $KSELFTEST_MUTATION applied to $mfile of $REV"
fi
dest=$OUT/kselftest${REV:+-rev}${KSELFTEST_RUN:+-$KSELFTEST_RUN}
rm -rf "$dest"
mkdir -p "$dest" "$KD/obj" "$KD/progs"

# --- The test programs, with kselftest's Makefiles -----------------------------
blog=$dest/build.log
: > "$blog"
progs=()
frags=("$TOP/configs/kselftest.config")
for spec in $KSELFTEST_TARGETS; do
	t=${spec%%:*}
	d=$src/tools/testing/selftests/$t
	mk=()
	# ci/<dir>: the project's own guest tests, built against the tree
	# (ci/guest's BPF object by Debian's clang-16).
	if [[ $t == ci/* ]]; then
		d=$TOP/$t
		mk=(KSRC="$src")
		need_commands clang-16:clang-16
	fi
	[ -f "$d/Makefile" ] || die "there is no ${d#"$TOP"/}/Makefile" "$repro"
	rm -rf "${KD:?}/progs/$t"
	mkdir -p "$KD/progs/$t"
	if [ "$spec" = "$t" ]; then
		make -s -C "$d" OUTPUT="$KD/progs/$t" LDFLAGS=-static "${mk[@]}" >> "$blog" 2>&1 ||
			{ tail -n 20 "$blog" >&2; die "building the $t kselftests failed (log: ${blog#"$TOP"/})" "$repro"; }
		# TEST_GEN_PROGS, as the Makefile lists them.
		# shellcheck disable=SC2016 # make's variables, not the shell's
		names=$(make -s -C "$d" OUTPUT="$KD/progs/$t" "${mk[@]}" -f Makefile -f - <<< 'print-progs: ; @echo $(notdir $(TEST_GEN_PROGS))' print-progs 2>/dev/null)
	else
		names=${spec#*:}
		names=${names//,/ }
		for p in $names; do
			make -s -C "$d" OUTPUT="$KD/progs/$t" LDFLAGS=-static "${mk[@]}" "$KD/progs/$t/$p" >> "$blog" 2>&1 ||
				{ tail -n 20 "$blog" >&2; die "building the $t kselftest $p failed (log: ${blog#"$TOP"/})" "$repro"; }
		done
	fi
	used=0
	for p in $names; do
		[ -x "$KD/progs/$t/$p" ] || die "$t: $p was not built" "$repro"
		if [ -n "${KSELFTEST_PROGS:-}" ] && [[ " $KSELFTEST_PROGS " != *" $p "* ]]; then
			continue
		fi
		progs+=("$t/$p")
		used=1
	done
	# What the directory's programs need of the guest kernel.
	if [ "$used" = 1 ] && [ -f "$TOP/configs/kselftest-${t##*/}.config" ]; then
		frags+=("$TOP/configs/kselftest-${t##*/}.config")
	fi
done
[ ${#progs[@]} -gt 0 ] || die "the kselftests of $KSELFTEST_TARGETS list no TEST_GEN_PROGS${KSELFTEST_PROGS:+ named $KSELFTEST_PROGS}" "$repro"

# --- The kernel ---------------------------------------------------------------
cc=gcc
! command -v ccache >/dev/null || cc="ccache gcc"
log "building the guest kernel of $(git -C "$src" log -1 --format='%h %s') (log: ${blog#"$TOP"/})"
{
	make -s -C "$src" O="$KD/obj" ARCH=x86_64 CC="$cc" tinyconfig &&
	"$src/scripts/kconfig/merge_config.sh" -m -O "$KD/obj" "$KD/obj/.config" "${frags[@]}" &&
	make -s -C "$src" O="$KD/obj" ARCH=x86_64 CC="$cc" olddefconfig &&
	make -s -C "$src" O="$KD/obj" ARCH=x86_64 CC="$cc" -j"$(nproc)" bzImage
} >> "$blog" 2>&1 || { tail -n 30 "$blog" >&2; die "building the guest kernel failed (log: ${blog#"$TOP"/})" "$repro"; }
# merge_config.sh only warns about a symbol the tree does not take.
while read -r sym; do
	grep -qx "$sym=y" "$KD/obj/.config" || die "the guest kernel has no $sym=y" "$repro"
done < <(sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=y$/\1/p' "${frags[@]}")

# --- The initramfs: the kernel's own writer, from the tree -----------------------
gcc -O2 -Wall -static -o "$KD/init" "$TOP/ci/guest-init.c" || die "compiling ci/guest-init.c failed" "$repro"
gcc -O2 -o "$KD/gen_init_cpio" "$src/usr/gen_init_cpio.c" || die "compiling usr/gen_init_cpio.c failed" "$repro"
# The device nodes a minimal system has: the console, and the memory
# devices that tests read from (iov_fault reads /dev/zero).
{
	printf 'dir /dev 0755 0 0\nnod /dev/console 0600 0 0 c 5 1\n'
	printf 'nod /dev/null 0666 0 0 c 1 3\nnod /dev/zero 0666 0 0 c 1 5\n'
	printf 'file /init %s 0755 0 0\n' "$KD/init"
	for p in "${progs[@]}"; do
		printf 'file /%s %s 0755 0 0\n' "${p##*/}" "$KD/progs/$p"
	done
} > "$KD/initramfs.list"
"$KD/gen_init_cpio" "$KD/initramfs.list" > "$KD/initramfs.cpio" || die "gen_init_cpio failed" "$repro"

# --- The run --------------------------------------------------------------------
list=$(printf '/%s,' "${progs[@]##*/}")
console=$dest/console.log
log "booting it: ${progs[*]}"
icount=()
[ "${KSELFTEST_ICOUNT:-0}" != 1 ] || icount=(-icount 'shift=0,sleep=off')
cmdargs=${KSELFTEST_ARGS:+ kselftest_args=$KSELFTEST_ARGS}
[[ ${KSELFTEST_ARGS:-} != *[[:space:]]* ]] || die "KSELFTEST_ARGS must not contain spaces: separate the arguments with ':'" "$repro"
timeout "${KSELFTEST_TIMEOUT:-900}" qemu-system-x86_64 -accel tcg "${icount[@]}" -m 512 -nodefaults -nographic -no-reboot -serial stdio \
	-kernel "$KD/obj/arch/x86/boot/bzImage" -initrd "$KD/initramfs.cpio" \
	-append "console=ttyS0 panic=-1 loglevel=4 kselftest=${list%,}$cmdargs" 2>&1 | tr -d '\r' > "$console" || :

rc=0
results=$dest/results.tsv
: > "$results"
for p in "${progs[@]}"; do
	name=${p##*/}
	# One program's TAP: from its "TAP version" line to its exit line.
	# (the firmware's escape sequences may stand before the first line)
	awk -v p="guest-init: /$name " 'match($0, /TAP version [0-9]+$/) { on = 1; buf = substr($0, RSTART) "\n"; next }
		on { buf = buf $0 "\n" } index($0, p) == 1 { printf "%s", buf; exit }' "$console" > "$dest/$name.tap"
	python3 "$src/tools/testing/kunit/kunit.py" parse --json="$dest/$name.json" "$dest/$name.tap" \
		> "$dest/$name.parse.log" 2>&1 || rc=1
	python3 - "$dest/$name.json" "$dest/$name.tap" "$p" >> "$results" <<'PY' || rc=1
import json, re, sys
js, tap, prog = sys.argv[1:]
try:
    cases = json.load(open(js)).get('test_cases', [])
except (OSError, ValueError):
    cases = []
plan = re.search(r'^1\.\.(\d+)$', open(tap).read(), re.M)
# kunit_json.py writes a skipped case's status as "SKIP".
for n, c in enumerate(cases, 1):
    # A case the program never reached (it crashed) has no name.
    name = c['name'] or f'case {n} of the plan: no result'
    print(f"{'PASS' if c['status'] == 'PASS' else 'SKIP' if c['status'] == 'SKIP' else 'FAIL'}\tkselftest:{prog}:{name}")
if not plan or int(plan[1]) != len(cases) or not cases:
    print(f'FAIL\tkselftest:{prog}: planned {plan[1] if plan else "no"} cases, TAP gave {len(cases)}')
    sys.exit(1)
PY
	# A program whose every case skipped tested nothing (a guest that
	# lacks what it needs): that fails too.
	if ! grep -q "^PASS	kselftest:$p:" "$results"; then
		printf 'FAIL\tkselftest:%s: no case passed (all skipped?)\n' "$p" >> "$results"
		rc=1
	fi
	grep -qx "guest-init: /$name exited 0" "$console" || {
		printf 'FAIL\tkselftest:%s: did not exit 0\n' "$p" >> "$results"
		rc=1
	}
done
grep -qx 'guest-init: done' "$console" || { printf 'FAIL\tkselftest: the guest did not finish\n' >> "$results"; rc=1; }
if grep -E 'WARNING:|BUG:|Oops|Kernel panic|KASAN|UBSAN' "$console" > "$dest/splats.txt"; then
	printf 'FAIL\tkselftest: kernel splat (see splats.txt)\n' >> "$results"
	rc=1
fi
grep '^FAIL' "$results" >&2 || true
p=$(grep -c '^PASS' "$results" || true)
f=$(grep -c '^FAIL' "$results" || true)
log "$p passed, $f failed (console: ${console#"$TOP"/})"
if [ "$rc" != 0 ] || [ "$f" != 0 ]; then
	die "the kselftests failed in the guest (console: ${console#"$TOP"/})" "$repro"
fi
