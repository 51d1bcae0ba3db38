#!/usr/bin/env python3
"""Write a linker script that places the two trees' functions in a random order.

Each tree's objects are compiled with -ffunction-sections and
-falign-functions=1, so every function (and every .cold part) is a section
of its own that may start at any byte.  For a seed, this shuffles the text
sections of both trees together, puts a random pad of 0-63 bytes in front of
each, and writes a script that ld inserts before the default .text (INSERT
BEFORE .text): one draw of the code placement, named by its seed.
ci/native-bench.sh links the harness once per seed.

With ALIGN=16 in the environment the pads are multiples of 16 bytes, for
objects compiled with the kernel's own 16-byte function alignment: the
placements a kernel build can have.

usage: [ALIGN=16] native_layout.py SEED OBJECT... > layout.ld
"""
import os
import random
import subprocess
import sys


def text_sections(obj):
    out = subprocess.run(['readelf', '-SW', obj], check=True, capture_output=True,
                         text=True).stdout
    names = []
    for line in out.splitlines():
        line = line.replace('[ ', '[')
        parts = line.split()
        if len(parts) > 2 and parts[0].startswith('[') and parts[1].startswith('.text'):
            names.append(parts[1])
    return names


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    seed = int(sys.argv[1])
    step = int(os.environ.get('ALIGN', '1'))
    if step not in (1, 16):
        sys.exit(f'native_layout: ALIGN={step}: 1 or 16')
    rng = random.Random(seed)
    secs = [(obj, name) for obj in sys.argv[2:] for name in text_sections(obj)]
    if not secs:
        sys.exit('native_layout: no .text sections in ' + ' '.join(sys.argv[2:]))
    rng.shuffle(secs)
    print(f'/* ci/native_layout.py: seed {seed}, pads of {step}, {len(secs)} sections */')
    print('SECTIONS')
    print('{')
    print('\t.text.nb : {')
    for obj, name in secs:
        print(f'\t\t. += {rng.randrange(64 // step) * step};')
        print(f'\t\t"{obj}"({name})')
    print('\t}')
    print('}')
    print('INSERT BEFORE .text;')


if __name__ == '__main__':
    main()
