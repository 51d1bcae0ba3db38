#!/usr/bin/env bash
# kvm-probe.sh QEMU-BINARY KERNEL: exit 0 if a KVM boot of KERNEL reaches
# KUnit's KTAP header.  /dev/kvm existing is not enough: on nested setups
# the guest hangs or dies with an emulation failure.  The answer is cached
# per host kernel and QEMU version in build/kvm-probe.  grep reads the whole
# console (no -q): exiting at the match would kill QEMU with SIGPIPE, and
# under pipefail a good boot would read as a failed one.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

qemu=$1 kernel=$2
[ -r /dev/kvm ] && [ -w /dev/kvm ] || exit 1
key="$(uname -r) $("$qemu" --version | head -n1) $qemu"
cache=$TOP/build/kvm-probe
if [ -f "$cache" ] && [ "$(sed -n 1p "$cache")" = "$key" ]; then
	[ "$(sed -n 2p "$cache")" = yes ]
	exit
fi
answer=no
if timeout 30 "$qemu" -accel kvm -nodefaults -nographic -no-reboot -m 512 \
	-serial stdio -kernel "$kernel" \
	-append 'console=ttyS0 kunit.filter_glob=kvm_probe_none kunit_shutdown=reboot' \
	</dev/null 2>/dev/null | grep -a 'KTAP version\|TAP version' >/dev/null; then
	answer=yes
fi
mkdir -p "${cache%/*}"
printf '%s\n%s\n' "$key" "$answer" > "$cache"
log "KVM probe boot with $qemu: $answer"
[ "$answer" = yes ]
