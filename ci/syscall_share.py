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
    ('entry', ['arch/x86/entry/*.o', 'arch/x86/entry/*/*.o', 'arch/x86/lib/retpoline.o']),
]
KERNEL_GROUPS = [g for g, _ in GROUPS] + ['kernel-other']
TEXT = set('tTwW')


def nm(path, sizes=False):
    args = ['nm', '--defined-only'] + (['-S'] if sizes else []) + [path]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if sizes and len(f) == 4 and f[2] in TEXT:
            yield f[3], int(f[0], 16), int(f[1], 16)
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
    lines, dup, nosize, missing = [], 0, 0, 0
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
            nosize += 1
            continue
        lines.append(f'{addr:x} {addr + size:x} {next(iter(groups))}')
    if not any(line.endswith(' iov_iter') for line in lines):
        sys.exit(f'syscall_share: no function of lib/iov_iter.o found in {obj}/vmlinux')
    with open(out, 'w') as f:
        f.write('# start end group (from ci/syscall_share.py ranges)\n')
        f.write('\n'.join(lines) + '\n')
    print(f'syscall_share: {len(lines)} ranges; left to kernel-other: {dup} names that are '
          f'not unique, {nosize} of size 0 ({missing} names of the objects are not in vmlinux)',
          file=sys.stderr)


def windows(dest, kernel):
    """{case: {group: count}} of one kernel's plugin run"""
    names = {}
    for line in open(f'{dest}/boot-plugin-{kernel}.log', errors='replace'):
        m = re.match(r'syscall-bench: window (\d+) (\w+)\s*$', line.strip())
        if m:
            names[int(m[1])] = m[2]
    res, ended = {}, False
    for line in open(f'{dest}/plugin-{kernel}.tsv'):
        f = line.split()
        if f and f[0] == 'end':
            ended = True
        if len(f) < 2 or f[0] != 'window':
            continue
        n = int(f[1])
        if n not in names:
            sys.exit(f'syscall_share: the plugin closed window {n}, which the {kernel} guest never named')
        res[names[n]] = {k: int(v) for k, v in (x.split('=') for x in f[2:])}
    if not ended:
        sys.exit(f'syscall_share: the plugin of the {kernel} boot did not reach its end (QEMU stopped early?)')
    if set(names.values()) != set(res):
        sys.exit(f'syscall_share: the {kernel} guest named windows the plugin did not close: '
                 f'{sorted(set(names.values()) - set(res))}')
    return res


def table(dest, base, tip, iters):
    iters = int(iters)
    w = {k: windows(dest, k) for k in ('base', 'series')}
    floor = {k: w[k].get('memcpy_4096') for k in w}
    for k, v in floor.items():
        # the floor's window runs no system call: a window that counts
        # kernel work there is not where the guest put it
        if v is None or sum(v.get(g, 0) for g in KERNEL_GROUPS) > iters * 50:
            sys.exit(f'syscall_share: the {k} kernel\'s memcpy_4096 window is missing or counts kernel work: {v}')
    cases = [c for c in w['base'] if c != 'memcpy_4096']
    tsv = ['case\tkernel\tkernel_per_call\t' + '\t'.join(f'{g}_per_call' for g in KERNEL_GROUPS)
           + '\tiov_iter_share']
    rows = ['| call (4 KiB) | kernel insns, base / series | lib/iov_iter.o, base / series | '
            'its share, base / series | copy routines | vfs (read_write.c) | '
            'DAX path (dax, ext4) or page cache |',
            '|---|---:|---:|---:|---:|---:|---:|']
    for case in cases:
        per = {}
        for k in ('base', 'series'):
            c = w[k].get(case)
            if c is None:
                sys.exit(f'syscall_share: {case} is missing from the {k} kernel')
            p = {g: c.get(g, 0) / iters for g in KERNEL_GROUPS}
            tot = sum(p.values())
            if tot <= 0:
                sys.exit(f'syscall_share: {case} ran no kernel instruction in the {k} kernel')
            per[k] = (p, tot)
            tsv.append(f'{case}\t{k}\t{tot:.1f}\t' + '\t'.join(f'{p[g]:.1f}' for g in KERNEL_GROUPS)
                       + f'\t{p["iov_iter"] / tot:.4f}')
        (pb, tb), (ps, ts) = per['base'], per['series']
        path = 'dax', 'ext4'
        if case.startswith('tmpfs'):
            path = ('pagecache',)
        rows.append(f'| {case} | {tb:.0f} / {ts:.0f} | {pb["iov_iter"]:.0f} / {ps["iov_iter"]:.0f} '
                    f'| {100 * pb["iov_iter"] / tb:.1f}% / {100 * ps["iov_iter"] / ts:.1f}% '
                    f'| {pb["copy"]:.0f} / {ps["copy"]:.0f} | {pb["vfs"]:.0f} / {ps["vfs"]:.0f} '
                    f'| {sum(pb[g] for g in path):.0f} / {sum(ps[g] for g in path):.0f} |')
    text = (f'The iterator\'s share of a read: guest instructions per call in each group of kernel '
            f'functions, counted by a QEMU TCG plugin (bench/syscall/insn_groups.c) over {iters} calls '
            f'per case; base {base[:12]} vs series {tip[:12]}.  "lib/iov_iter.o" is every function of '
            f'that object, the iteration inlined into them included; "copy routines" the x86 copy '
            f'functions they call.  A mean over the calls, kernel only (the user-space wrapper and '
            f'the timing are not in it).\n\n' + '\n'.join(rows) + '\n')
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
