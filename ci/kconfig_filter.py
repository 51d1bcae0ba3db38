#!/usr/bin/env python3
"""kconfig_filter.py DEFCONFIG TREE REV OUT DROPPED: DEFCONFIG's lines whose
symbol the Kconfig files of TREE at REV define go to OUT, the others to
DROPPED (make gki, make plan: a configuration of another tree, such as
android14-6.1's gki_defconfig, on Debian's 6.1)."""
import re
import subprocess
import sys


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    defconfig, tree, rev, out, dropped = sys.argv[1:]
    grep = subprocess.run(['git', '-C', tree, 'grep', '-h', '-E',
                           r'^[[:space:]]*(menu)?config [A-Z0-9_]+', rev, '--', '*Kconfig*'],
                          capture_output=True, text=True, check=False)
    if grep.returncode not in (0, 1):
        sys.exit(f'kconfig_filter: git grep failed in {tree}: {grep.stderr.strip()}')
    have = {ln.split()[1] for ln in grep.stdout.splitlines() if len(ln.split()) > 1}
    if not have:
        sys.exit(f'kconfig_filter: no Kconfig symbol found in {tree} at {rev}')
    keep, drop = [], []
    with open(defconfig, encoding='utf-8') as f:
        for ln in f:
            m = re.match(r'(?:# )?CONFIG_([A-Z0-9_]+)[= ]', ln)
            (drop if m and m.group(1) not in have else keep).append(ln)
    with open(out, 'w', encoding='utf-8') as f:
        f.writelines(keep)
    with open(dropped, 'w', encoding='utf-8') as f:
        f.writelines(drop)


if __name__ == '__main__':
    main()
