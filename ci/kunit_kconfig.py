#!/usr/bin/env python3
"""Print the Kconfig options kunit.py starts a build from.

    kunit_kconfig.py TREE ARCH FRAGMENT...

kunit.py merges the --kunitconfig fragments with its arch's own options
(tools/testing/kunit/qemu_configs/<arch>.py, or configs/arch_uml.config
for UML), writes them to an empty .config and runs olddefconfig.  This
asks the tree's own kunit.py code for that merged list (no make, no build
directory), so that make plan describes exactly the configuration make
kunit builds.  One CONFIG_ line per option, in kunit.py's order.
"""

import os
import sys


def main(argv):
    if len(argv) < 4:
        sys.exit('usage: kunit_kconfig.py TREE ARCH FRAGMENT...')
    tree = os.path.abspath(argv[1])
    arch = argv[2]
    fragments = [os.path.abspath(f) for f in argv[3:]]
    for f in fragments:
        if not os.path.isfile(f):
            sys.exit(f'kunit_kconfig.py: error: no fragment {f}')
    tool = os.path.join(tree, 'tools', 'testing', 'kunit')
    if not os.path.isfile(os.path.join(tool, 'kunit_kernel.py')):
        sys.exit(f'kunit_kconfig.py: error: {tree} has no kunit.py')
    sys.path.insert(0, tool)
    # kunit.py reads its UML fragment by a path relative to the tree.
    os.chdir(tree)
    import kunit_kernel  # pylint: disable=import-outside-toplevel,import-error

    source = kunit_kernel.LinuxSourceTree(os.devnull, kunitconfig_paths=fragments,
                                          arch=arch)
    # pylint: disable=protected-access
    kconfig = source._ops.make_arch_config(source._kconfig)
    for entry in kconfig.as_entries():
        print(entry)


if __name__ == '__main__':
    main(sys.argv)
