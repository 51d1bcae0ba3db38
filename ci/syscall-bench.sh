#!/usr/bin/env bash
# What a read() costs: bench/syscall/syscall-bench.c as the /init of an
# initramfs, booted on the base and the series kernel (x86_64 tinyconfig +
# configs/syscall.config) under QEMU TCG with -icount shift=0,sleep=off,
# interleaved (base, series, base, series).  Each case is the median number
# of guest instructions of one system call.  The DAX cases read 4 KiB from
# ext4 mounted -o dax on the pmem region memmap= makes (seed 000's report),
# and the same from tmpfs, next to a 4 KiB memcpy() in user space, the
# floor.  Then one more boot of each kernel under a QEMU TCG plugin
# (bench/syscall/insn_groups.c, built by ci/qemu-plugin.sh) that counts the
# read cases' instructions per group of kernel functions: lib/iov_iter.o's
# share of a DAX read (ci/syscall_share.py; the plugin leaves -icount as
# it is, and the timed boots run without it).  Results:
# out/<line>/syscall/{results.tsv,table.md,dax.md,share.md,boot-*.log}.
#
#   base    the tree at the benchmark patch (as make bench)
#   series  the tip of build/6.1.y/linux
#
#   SYSCALL_BOOTS=2   boots per kernel
#   SYSCALL_ITERS=200 calls per case and boot (the SYSCALL_SMOKE=1 run: 5)
#   SYSCALL_BASE=<commit of build/6.1.y/linux>  compare with that commit instead
#                     of the benchmark patch (for example the tip without its
#                     last patches: SYSCALL_BASE=HEAD~2); SYSCALL_OUT=<dir>
#                     writes the results there instead of out/<line>/syscall
set -euo pipefail
. "$(dirname "$0")/lib.sh"

repro="bash ci/syscall-bench.sh"
SD=$LB/syscall
dest=${SYSCALL_OUT:-$OUT/syscall}
boots=${SYSCALL_BOOTS:-2}
iters=${SYSCALL_ITERS:-200}
if [ "${SYSCALL_SMOKE:-0}" = 1 ]; then
	boots=1 iters=5 dest=$OUT/syscall-smoke
	repro="SYSCALL_SMOKE=1 $repro"
fi
rm -rf "$dest"
mkdir -p "$SD" "$dest"
[ -d "$TREE/.git" ] || die "$TREE does not exist" "make$LINEOPT tree"
if [ -n "${SYSCALL_BASE:-}" ]; then
	base_rev=$(tgit rev-parse --verify -q "$SYSCALL_BASE^{commit}") ||
		die "SYSCALL_BASE=$SYSCALL_BASE is not a commit of build/6.1.y/linux" "$repro"
	repro="SYSCALL_BASE=$SYSCALL_BASE $repro"
else
	base_rev=$(bench_base_rev) || die "no commit in base..HEAD adds CONFIG_IOV_ITER_BENCH_KUNIT_TEST" "$repro"
fi
tip=$(tgit rev-parse HEAD)
detached_worktree "$SD/base/linux" "$base_rev"

# The kernel's fragment: the line's own (configs/<line>/syscall.config:
# mainline's names the mitigations as v6.8 renamed them), or the shared one.
scfg=$(line_dir "$LINE" configs)/syscall.config
[ -f "$scfg" ] || scfg=$TOP/configs/syscall.config

# build KERNEL SRC: x86_64 tinyconfig + that fragment in $SD/KERNEL/obj.
build() {
	local k=$1 src=$2 obj=$SD/$1/obj blog=$SD/$1.build.log
	mkdir -p "$obj"
	{
		make -s -C "$src" O="$obj" ARCH=x86_64 tinyconfig &&
		"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$scfg" &&
		make -s -C "$src" O="$obj" ARCH=x86_64 olddefconfig &&
		make -s -C "$src" O="$obj" ARCH=x86_64 -j"$(nproc)" bzImage
	} > "$blog" 2>&1 || {
		tail -n 30 "$blog" >&2
		die "building the $k kernel failed (log: ${blog#"$TOP"/})" "$repro"
	}
	# objtool's warnings are real bugs (a uaccess region across a call, say);
	# this -O2 build met one the KUnit build does not (GCC cloning)
	if grep -E 'warning: objtool:' "$blog" >&2; then
		die "the $k kernel builds with objtool warnings (log: ${blog#"$TOP"/})" "$repro"
	fi
	# merge_config.sh only warns about a symbol the tree does not accept
	local sym
	while read -r sym; do
		grep -qx "$sym=y" "$obj/.config" || die "the $k kernel has no $sym=y" "$repro"
	done < <(sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=y$/\1/p' "$scfg")
}
build base "$SD/base/linux"
build series "$TREE"

gcc -O2 -static -Wall -o "$SD/init" "$TOP/bench/syscall/syscall-bench.c" ||
	die "compiling bench/syscall/syscall-bench.c failed" "$repro"
# The ext4 file system the DAX cases mount: 4 KiB blocks (DAX needs the
# page size), every table written now (no ext4lazyinit thread in the
# guest, whose work would land in the counts), written by the guest to
# /dev/pmem0, the region that memmap= below makes.
rm -f "$SD/ext4.img"
mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 "$SD/ext4.img" 16M ||
	die "mkfs.ext4 of the DAX image failed" "mkfs.ext4 -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 /tmp/ext4.img 16M"
# the plugin's window marks: two functions of the static /init (non-PIE)
win_open=$(nm "$SD/init" | awk '$3 == "syscall_bench_window_open" { print "0x" $1 }')
win_close=$(nm "$SD/init" | awk '$3 == "syscall_bench_window_close" { print "0x" $1 }')
{ [ -n "$win_open" ] && [ -n "$win_close" ]; } ||
	die "the static /init has no syscall_bench_window_open/close (nm $SD/init)" "$repro"
bash "$TOP/ci/qemu-plugin.sh" "$SD/libinsn_groups.so" || die "building the QEMU plugin failed" "bash ci/qemu-plugin.sh $SD/libinsn_groups.so"
printf 'dir /dev 0755 0 0\nnod /dev/console 0600 0 0 c 5 1\nfile /init %s 0755 0 0\nfile /ext4.img %s 0644 0 0\n' \
	"$SD/init" "$SD/ext4.img" > "$SD/initramfs.list"
# the kernel's own initramfs writer, built from the tip's source
gcc -O2 -o "$SD/gen_init_cpio" "$TREE/usr/gen_init_cpio.c" || die "compiling usr/gen_init_cpio.c failed" "$repro"
"$SD/gen_init_cpio" "$SD/initramfs.list" > "$SD/initramfs.cpio" ||
	die "gen_init_cpio failed" "$repro"

# boot KERNEL LOG WHAT [QEMU-ARGS...]: one boot of the benchmark, checked
boot() {
	local k=$1 log=$2 what=$3
	shift 3
	timeout 600 qemu-system-x86_64 -accel tcg -icount shift=0,sleep=off -m 512 \
		-nodefaults -nographic -no-reboot -serial stdio \
		-kernel "$SD/$k/obj/arch/x86/boot/bzImage" -initrd "$SD/initramfs.cpio" \
		-append "console=ttyS0 panic=-1 memmap=32M!256M bench_iters=$iters" "$@" > "$log" 2>&1 || :
	grep -q '^syscall-bench: done' "$log" || {
		tail -n 20 "$log" >&2
		die "the $k kernel's $what did not finish the benchmark (log: ${log#"$TOP"/})" "$repro"
	}
	! grep -qE '^syscall-bench: FAIL|WARNING:|BUG:|Oops' "$log" || {
		grep -E '^syscall-bench: FAIL|WARNING:|BUG:|Oops' "$log" >&2
		die "the $k kernel's $what failed a call or splatted (log: ${log#"$TOP"/})" "$repro"
	}
	grep -q '^syscall-bench: /dax/read.dat is a DAX file' "$log" ||
		die "the $k kernel's $what read the DAX cases from a file that is not DAX (log: ${log#"$TOP"/})" "$repro"
}
: > "$dest/runs.tsv"
for ((i = 1; i <= boots; i++)); do
	for k in base series; do
		boot "$k" "$dest/boot-$k-$i.log" "boot $i"
		printf '%s\t%s\t%s\n' "$k" "$i" "$dest/boot-$k-$i.log" >> "$dest/runs.tsv"
	done
done
# The plugin's boots: lib/iov_iter.o's share of each read
for k in base series; do
	python3 "$TOP/ci/syscall_share.py" ranges "$SD/$k/obj" "$dest/ranges-$k.txt" ||
		die "the $k kernel's function ranges failed" "python3 ci/syscall_share.py ranges ${SD#"$TOP"/}/$k/obj /tmp/ranges.txt"
	boot "$k" "$dest/boot-plugin-$k.log" "boot under the plugin" \
		-plugin "$SD/libinsn_groups.so,ranges=$dest/ranges-$k.txt,out=$dest/plugin-$k.tsv,begin=$win_open,end=$win_close"
done
python3 - "$dest" "$base_rev" "$tip" <<'PY'
import re, sys
dest, base, tip = sys.argv[1:]
line = re.compile(r'^syscall name=(\w+) unit=insns n=(\d+) median=(\d+) min=(\d+) max=(\d+)')
res = {}
for run in open(f'{dest}/runs.tsv'):
    k, i, log = run.rstrip('\n').split('\t')
    for l in open(log, errors='replace'):
        m = line.match(l.strip())
        if m:
            res.setdefault(m[1], {}).setdefault(k, []).append(int(m[3]))
with open(f'{dest}/results.tsv', 'w') as f:
    f.write('case\tbase\tseries\tratio\tbase_boots\tseries_boots\n')
    rows = ['| call | base insns | series insns | ratio | identical across boots |',
            '|---|---:|---:|---:|---|']
    for case, v in res.items():
        b, s = v.get('base', []), v.get('series', [])
        if not b or not s:
            sys.exit(f'syscall-bench: {case} is missing from a kernel')
        same = len(set(b)) == 1 and len(set(s)) == 1
        r = s[0] / b[0]
        f.write(f'{case}\t{b[0]}\t{s[0]}\t{r:.4f}\t{",".join(map(str, b))}\t{",".join(map(str, s))}\n')
        rows.append(f'| {case} | {b[0]} | {s[0]} | {r:.3f} | {"yes" if same else "no: " + ",".join(map(str, b)) + " / " + ",".join(map(str, s))} |')
text = (f'per system call, median guest instructions (QEMU TCG -icount shift=0; rdtsc '
        f'around each call), base {base[:12]} vs series {tip[:12]}\n\n' + '\n'.join(rows) + '\n')
open(f'{dest}/table.md', 'w').write(text)
print(text)

# The DAX table: the reads of seed 000's report on ext4 -o dax and on
# tmpfs, and the floor every 4 KiB read pays, a 4 KiB memcpy() in user
# space (its median in each kernel's boot).
def med(case, k):
    v = res.get(case, {}).get(k)
    if not v:
        sys.exit(f'syscall-bench: {case} is missing from the {k} kernel (the DAX cases)')
    return sorted(v)[len(v) // 2]
floor = {k: med('memcpy_4096', k) for k in ('base', 'series')}
rows = ['| call (4 KiB) | DAX base | DAX series | ratio | DAX over the floor, base / series | tmpfs base | tmpfs series | ratio |',
        '|---|---:|---:|---:|---:|---:|---:|---:|']
for call in ('pread_4096', 'preadv_1x4096', 'preadv_2x2048', 'preadv_8x512'):
    db, ds = med(f'dax_{call}', 'base'), med(f'dax_{call}', 'series')
    tb, ts = med(f'tmpfs_{call}', 'base'), med(f'tmpfs_{call}', 'series')
    rows.append(f'| {call} | {db} | {ds} | {ds / db:.3f} | {db - floor["base"]} / {ds - floor["series"]} '
                f'| {tb} | {ts} | {ts / tb:.3f} |')
dax = (f'DAX reads, per system call, median guest instructions (QEMU TCG -icount shift=0): '
       f'ext4 -o dax on a memmap= pmem region, and tmpfs; base {base[:12]} vs series {tip[:12]}.  '
       f'The floor, a 4 KiB memcpy() in user space in the guest: {floor["base"]} (base boot) / '
       f'{floor["series"]} (series boot) instructions.\n\n' + '\n'.join(rows) + '\n')
open(f'{dest}/dax.md', 'w').write(dax)
print(dax)
PY
python3 "$TOP/ci/syscall_share.py" table "$dest" "$base_rev" "$tip" "$iters" > /dev/null ||
	die "the plugin's counts did not make a table" "python3 ci/syscall_share.py table ${dest#"$TOP"/} $base_rev $tip $iters"
# make bench's DAX section carries the share table after the DAX table
printf '\n' >> "$dest/dax.md"
cat "$dest/share.md" >> "$dest/dax.md"
cat "$dest/share.md"
