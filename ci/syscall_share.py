#!/usr/bin/env python3
"""The iterator's share of a read, from the insn_groups QEMU plugin.

  syscall_share.py ranges OBJ OUT
      the plugin's ranges file for the kernel built in OBJ: each group's
      functions (the text symbols of its objects, GROUPS below) as address
      ranges of OBJ/vmlinux; a name that vmlinux has more than once, or that
      two groups claim, is left to "kernel-other" and counted on stderr

  syscall_share.py table DEST BASE_REV TIP_REV ITERS
      DEST/plugin-{base,series}.tsv (the plugin's windows) and
      DEST/boot-plugin-{base,series}.log (the guest's names of them) into
      DEST/share.md and DEST/share.tsv: per call and kernel, the kernel's
      instructions, those of each group, and lib/iov_iter.o's share
"""
import glob
import os
import re
import subprocess
import sys

# group: the objects of OBJ whose functions are its own (globs)
GROUPS = [
    ('iov_iter', ['lib/iov_iter.o']),
    ('copy', ['arch/x86/lib/copy_mc.o', 'arch/x86/lib/copy_mc_64.o', 'arch/x86/lib/copy_user_64.o',
              'arch/x86/lib/memcpy_64.o', 'arch/x86/lib/memmove_64.o', 'arch/x86/lib/memset_64.o',
              'arch/x86/lib/usercopy.o', 'arch/x86/lib/usercopy_64.o', 'arch/x86/lib/getuser.o',
              'arch/x86/lib/putuser.o', 'lib/usercopy.o']),
    ('vfs', ['fs/read_write.o']),
    ('dax', ['fs/dax.o', 'fs/iomap/*.o', 'drivers/dax/*.o', 'drivers/nvdimm/*.o']),
    ('ext4', ['fs/ext4/*.o', 'fs/jbd2/*.o']),
    ('pagecache', ['mm/filemap.o', 'mm/shmem.o']),
    ('entry', ['arch/x86/entry/*.o', 'arch/x86/entry/*/*.o', 'kernel/entry/*.o',
               'arch/x86/lib/retpoline.o']),
]
# the groups of the system call's own work: a window without a system call
# in it (the floor's) must count none of them
SYSCALL_GROUPS = ['iov_iter', 'vfs', 'dax', 'ext4', 'pagecache']
# what -icount's median of a call may count beyond the plugin's kernel
# instructions: glibc's wrapper and the rdtsc pair (about 20)
WRAPPER_MAX = 40
KERNEL_GROUPS = [g for g, _ in GROUPS] + ['kernel-other']
TEXT = set('tTwW')


def nm(path, sizes=False):
    args = ['nm', '--defined-only'] + (['-S'] if sizes else []) + [path]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if sizes and len(f) == 4 and f[2] in TEXT:
            yield f[3], int(f[0], 16), int(f[1], 16)
        elif sizes and len(f) == 3 and f[1] in TEXT:
            yield f[2], int(f[0], 16), 0
        elif not sizes and len(f) == 3 and f[1] in TEXT:
            yield f[2]


def ranges(obj, out):
    vm = {}
    for name, addr, size in nm(f'{obj}/vmlinux', sizes=True):
        vm.setdefault(name, []).append((addr, size))
    claimed = {}
    for group, pats in GROUPS:
        objs = sorted({p for pat in pats for p in glob.glob(f'{obj}/{pat}')})
        if not objs:
            sys.exit(f'syscall_share: no object of group {group} in {obj} ({" ".join(pats)})')
        for o in objs:
            for name in nm(o):
                claimed.setdefault(name, set()).add(group)
    found, dup, nosize, missing = [], 0, 0, 0
    for name, groups in sorted(claimed.items()):
        where = vm.get(name)
        if not where:
            missing += 1        # inlined everywhere, or discarded
            continue
        if len(groups) > 1 or len(where) > 1:
            dup += 1
            continue
        addr, size = where[0]
        if not size:
            nosize += 1     # a label inside a sized symbol (entry_SYSCALL_64, ...)
            continue
        found.append((addr, addr + size, next(iter(groups))))
    merged, cut = disjoint(found)
    if not any(g == 'iov_iter' for _, _, g in merged):
        sys.exit(f'syscall_share: no function of lib/iov_iter.o found in {obj}/vmlinux')
    with open(out, 'w') as f:
        f.write('# start end group (from ci/syscall_share.py ranges)\n')
        f.write(''.join(f'{a:x} {b:x} {g}\n' for a, b, g in merged))
    print(f'syscall_share: {len(merged)} ranges; left to kernel-other: {dup} names that are '
          f'not unique, {nosize} of size 0 ({missing} names of the objects are not in vmlinux); '
          f'{cut} nested or overlapping symbols of another group cut', file=sys.stderr)


def disjoint(found):
    """the ranges sorted and made disjoint: a range inside or across one of
    its own group joins it; the part of a range of another group that an
    earlier range covers stays the earlier one's (and is counted)"""
    merged, cut = [], 0
    for a, b, g in sorted(found):
        if merged and a < merged[-1][1]:
            pa, pb, pg = merged[-1]
            if pg == g:
                merged[-1] = (pa, max(pb, b), pg)
                continue
            cut += 1
            a = pb
            if a >= b:
                continue
        merged.append((a, b, g))
    return merged, cut


def windows(dest, kernel):
    """{case: [{group: count} per call]} of one kernel's plugin run"""
    cases, done, medians = [], None, {}
    for line in open(f'{dest}/boot-plugin-{kernel}.log', errors='replace'):
        line = line.strip()
        m = re.match(r'syscall name=(\w+) unit=insns n=\d+ median=(\d+) ', line)
        if m:
            medians[m[1]] = int(m[2])
        m = re.match(r'syscall-bench: case (\w+) windows (\d+) (\d+)$', line)
        if m:
            cases.append((m[1], int(m[2]), int(m[3])))
        m = re.match(r'syscall-bench: done, (\d+) windows$', line)
        if m:
            done = int(m[1])
    if done is None:
        sys.exit(f'syscall_share: the {kernel} guest did not finish (no "done, N windows")')
    wins, end = {}, None
    for n, line in enumerate(open(f'{dest}/plugin-{kernel}.tsv'), 1):
        f = line.split()
        try:
            if f and f[0] == 'end':
                end = int(f[1].split('=')[1])
            elif f and f[0] == 'window':
                wins[int(f[1])] = {k: int(v) for k, v in (x.split('=') for x in f[2:])}
                # every window names every group: a line cut short does not
                if not set(KERNEL_GROUPS + ['user', 'kernel-rep']) <= set(wins[int(f[1])]):
                    raise ValueError
            else:
                raise ValueError
        except (ValueError, IndexError):
            sys.exit(f'syscall_share: plugin-{kernel}.tsv:{n}: not a line of the plugin: {line.rstrip()}')
    if end is None:
        sys.exit(f'syscall_share: the plugin of the {kernel} boot did not reach its end (QEMU stopped early?)')
    if not end == done == len(wins):
        sys.exit(f'syscall_share: the {kernel} guest opened {done} windows, the plugin closed '
                 f'{len(wins)} and counted {end}: a mark was missed')
    res = {}
    for name, first, count in cases:
        calls = [wins.get(n) for n in range(first, first + count)]
        if None in calls:
            sys.exit(f'syscall_share: window {first + calls.index(None)} of {name}, which the {kernel} '
                     f'guest named, was never closed')
        res[name] = calls
        # the same boot timed each call with rdtsc (-icount): the plugin's
        # count of the median call is that median less the user-space
        # wrapper and the timing, a few instructions
        c, t = median_call(calls)
        if name != 'memcpy_4096' and not 0 <= medians.get(name, -1000) - t <= WRAPPER_MAX:
            sys.exit(f'syscall_share: {name} in the {kernel} boot: the plugin counts {t} kernel '
                     f'instructions in the median call, -icount {medians.get(name, "nothing")} for the '
                     f'whole call: more apart than the {WRAPPER_MAX} of the user-space wrapper')
    return res


def median_call(calls):
    """the call whose kernel total is the median (its groups, its total)"""
    tot = sorted((sum(c.get(g, 0) for g in KERNEL_GROUPS), i) for i, c in enumerate(calls))
    t, i = tot[len(tot) // 2]
    return calls[i], t


def table(dest, base, tip, iters):
    iters = int(iters)
    w = {k: windows(dest, k) for k in ('base', 'series')}
    for k in w:
        # the floor's calls make no system call: a count of the system
        # call's groups there means the windows are not where the guest put them
        floor = w[k].get('memcpy_4096')
        if not floor:
            sys.exit(f'syscall_share: the {k} kernel has no memcpy_4096 windows')
        c, t = median_call(floor)
        if t or any(c.get(g, 0) for g in SYSCALL_GROUPS):
            sys.exit(f'syscall_share: the {k} kernel\'s memcpy_4096 window counts kernel work: {c}')
    cases = [c for c in w['base'] if c != 'memcpy_4096']
    if sorted(cases) != sorted(c for c in w['series'] if c != 'memcpy_4096'):
        sys.exit('syscall_share: the two kernels ran different cases')
    tsv = ['case\tkernel\tkernel\t' + '\t'.join(KERNEL_GROUPS) + '\tkernel_rep\tiov_iter_share'
           '\tiov_iter_share_without_rep']
    rows = ['| call (4 KiB) | kernel insns, base / series | of them rep iterations | '
            'lib/iov_iter.o, base / series | its share, base / series (without the rep iterations) | '
            'copy routines | vfs (read_write.c) | DAX path (dax, ext4) or page cache |',
            '|---|---:|---:|---:|---:|---:|---:|---:|']
    for case in cases:
        per = {}
        for k in ('base', 'series'):
            c, t = median_call(w[k][case])
            if t <= 0:
                sys.exit(f'syscall_share: {case} ran no kernel instruction in the {k} kernel')
            rep = c.get('kernel-rep', 0)
            per[k] = (c, t, rep)
            tsv.append(f'{case}\t{k}\t{t}\t' + '\t'.join(str(c.get(g, 0)) for g in KERNEL_GROUPS)
                       + f'\t{rep}\t{c["iov_iter"] / t:.4f}\t{c["iov_iter"] / (t - rep):.4f}')
        (cb, tb, rb), (cs, ts, rs) = per['base'], per['series']
        path = ('pagecache',) if case.startswith('tmpfs') else ('dax', 'ext4')
        rows.append(f'| {case} | {tb} / {ts} | {rb} / {rs} | {cb["iov_iter"]} / {cs["iov_iter"]} '
                    f'| {100 * cb["iov_iter"] / tb:.1f}% / {100 * cs["iov_iter"] / ts:.1f}% '
                    f'({100 * cb["iov_iter"] / (tb - rb):.1f}% / {100 * cs["iov_iter"] / (ts - rs):.1f}%) '
                    f'| {cb["copy"]} / {cs["copy"]} | {cb["vfs"]} / {cs["vfs"]} '
                    f'| {sum(cb[g] for g in path)} / {sum(cs[g] for g in path)} |')
    text = (f'The iterator\'s share of a read: the kernel\'s instructions in one call, per group of '
            f'kernel functions, counted by a QEMU TCG plugin (bench/syscall/insn_groups.c) in a window '
            f'around each of {iters} calls per case; the call shown is the one whose kernel total is '
            f'the median; base {base[:12]} vs series {tip[:12]}.  "lib/iov_iter.o" is every function '
            f'of that object, the iteration inlined into them included (iterator code inlined '
            f'elsewhere, as into fs/read_write.c, counts there); "copy routines" the x86 copy '
            f'functions; QEMU counts each iteration of a rep-prefixed string instruction as one '
            f'instruction, as -icount does, and the plugin counts them apart too.\n\n' + '\n'.join(rows) + '\n')
    with open(f'{dest}/share.tsv', 'w') as f:
        f.write('\n'.join(tsv) + '\n')
    with open(f'{dest}/share.md', 'w') as f:
        f.write(text)
    print(text)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == 'ranges':
        ranges(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 6 and sys.argv[1] == 'table':
        table(*sys.argv[2:])
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
