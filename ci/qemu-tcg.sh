#!/usr/bin/env bash
# qemu-tcg.sh: QEMU without KVM, for kunit.py.  ci/kunit.sh links it as
# qemu-system-<arch> into a directory it puts first in PATH when the KVM
# probe (ci/kvm-probe.sh) says no.  Newer kunit.py (7.x) asks QEMU for
# "-accel kvm -accel hvf -accel tcg"; on a nested host where /dev/kvm
# exists but does not work, QEMU then dies or hangs in KVM instead of
# falling back.  This execs the real QEMU of the same name with every
# accelerator but TCG removed from the command line.
set -euo pipefail
name=${0##*/}
self=$(cd "$(dirname "$0")" && pwd)
real=
IFS=: read -r -a dirs <<< "$PATH"
for d in "${dirs[@]}"; do
	if [ -n "$d" ] && [ ! "$d" -ef "$self" ] && [ -x "$d/$name" ]; then
		real=$d/$name
		break
	fi
done
[ -n "$real" ] || { echo "qemu-tcg.sh: no $name in PATH besides this wrapper" >&2; exit 127; }
args=()
while [ $# -gt 0 ]; do
	if [ "$1" = -accel ] && [ $# -ge 2 ] && [ "${2%%,*}" != tcg ]; then
		shift 2
		continue
	fi
	args+=("$1")
	shift
done
exec "$real" "${args[@]}"
