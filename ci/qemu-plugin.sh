#!/usr/bin/env bash
# qemu-plugin.sh OUT.so: build bench/syscall/insn_groups.c, the QEMU TCG
# plugin of the per-syscall benchmark, against the plugin API of the QEMU
# this machine runs.  Debian packages QEMU with plugins enabled but not the
# API's header, include/qemu/qemu-plugin.h, so it comes from the source
# package of the installed qemu-system-x86's version: fetched with apt
# (a private deb-src list of the machine's own archive, private lists and
# cache: apt's state and the installed packages do not change; apt checks
# the files against the signed Sources index), and cached under
# $SRC_CACHE/qemu-plugin/<version>/.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] || die "usage: qemu-plugin.sh OUT.so"
so=$1
repro="bash ci/qemu-plugin.sh $so"
src=$TOP/bench/syscall/insn_groups.c
qemu=$(command -v qemu-system-x86_64) || die "qemu-system-x86_64 is not installed" "make deps"
# the header must be that of the QEMU that will load the plugin
owner=$(dpkg -S "$(readlink -f "$qemu")" 2>/dev/null | cut -d: -f1) || owner=
[ "$owner" = qemu-system-x86 ] ||
	die "$qemu is not Debian's qemu-system-x86 (dpkg -S: ${owner:-no package}): its plugin API cannot be told" \
		"dpkg -S $(readlink -f "$qemu")"
ver=$(dpkg-query -W -f='${source:Version}' qemu-system-x86 2>/dev/null) ||
	die "qemu-system-x86 is not a Debian package here: its plugin header cannot be fetched" "dpkg-query -W qemu-system-x86"
[ -n "$ver" ] || die "no source version for qemu-system-x86" "dpkg-query -W -f='\${source:Version}' qemu-system-x86"
hdir=$SRC_CACHE/qemu-plugin/${ver//:/_}
if [ ! -s "$hdir/qemu-plugin.h" ]; then
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || die "cannot tell this machine's Debian release (/etc/os-release)"
	# every archive and suite the machine installs from: a point release's
	# QEMU may come from -updates or -security
	apt_dir=$SRC_CACHE/qemu-plugin/apt
	rm -rf "$apt_dir"
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/download"
	apt-cache policy 2>/dev/null |
		awk -v c="$codename" '$2 ~ /^https?:/ && $3 ~ "^" c "(-[a-z]+)?/main$" { split($3, s, "/"); print $2, s[1] }' |
		sort -u | while read -r uri suite; do
			printf 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' "$uri" "$suite"
		done > "$apt_dir/sources.list"
	[ -s "$apt_dir/sources.list" ] || die "no apt source of this machine serves $codename/main" "apt-cache policy"
	log "fetching the source of qemu $ver for its plugin header (private lists in ${apt_dir/#$HOME/\~})"
	private_apt "$apt_dir" apt-get -qq update > "$apt_dir/update.log" 2>&1 ||
		{ cat "$apt_dir/update.log" >&2; die "apt-get update of the deb-src lists failed" "$repro"; }
	# (the archive keeps only the newest version of a suite: an older
	# installed qemu is not there any more)
	(cd "$apt_dir/download" && private_apt "$apt_dir" apt-get -qq source --download-only "qemu=$ver") \
		> "$apt_dir/download.log" 2>&1 || {
		cat "$apt_dir/download.log" >&2
		die "apt-get source --download-only qemu=$ver failed (an installed qemu older than the archive's: apt-get install --only-upgrade qemu-system-x86)" "$repro"
	}
	orig=$(find "$apt_dir/download" -maxdepth 1 -name 'qemu_*.orig.tar.[gx]z' | head -n1)
	debtar=$(find "$apt_dir/download" -maxdepth 1 -name 'qemu_*.debian.tar.xz' | head -n1)
	{ [ -n "$orig" ] && [ -n "$debtar" ]; } || die "qemu $ver's source is not an orig tarball and a debian tarball" "ls $apt_dir/download"
	# Debian's patches must leave the header as upstream wrote it, or
	# this copy is not the API the binary was built with
	mkdir -p "$apt_dir/debian"
	tar -xf "$debtar" -C "$apt_dir/debian" || die "unpacking $debtar failed" "$repro"
	pdir=$apt_dir/debian/debian/patches
	[ -f "$pdir/series" ] || die "$debtar has no debian/patches/series" "$repro"
	patched=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$pdir/series" | awk '{ print $1 }' | while read -r pt; do
		[ -f "$pdir/$pt" ] || { echo "missing:$pt"; continue; }
		if grep -q '^+++ [^[:space:]]*include/qemu/qemu-plugin\.h' "$pdir/$pt"; then echo "$pt"; fi
	done)
	[ -z "$patched" ] ||
		die "Debian's patches of qemu $ver change include/qemu/qemu-plugin.h or are missing ($patched): this script takes the header from the upstream tarball only" "$repro"
	mkdir -p "$hdir"
	tar -xOf "$orig" --wildcards '*/include/qemu/qemu-plugin.h' > "$hdir/qemu-plugin.h.tmp" ||
		die "$orig has no include/qemu/qemu-plugin.h" "$repro"
	grep -q '^#define QEMU_PLUGIN_VERSION' "$hdir/qemu-plugin.h.tmp" ||
		die "the qemu-plugin.h of $orig does not define QEMU_PLUGIN_VERSION" "$repro"
	mv "$hdir/qemu-plugin.h.tmp" "$hdir/qemu-plugin.h"
	rm -rf "$apt_dir"
fi
mkdir -p "$(dirname "$so")"
gcc -shared -fPIC -O2 -Wall -Wextra -Wno-unused-parameter -Werror -I"$hdir" -o "$so" "$src" ||
	die "compiling $src against qemu $ver's plugin API failed" "$repro"
log "$so: built against qemu $ver's qemu-plugin.h"
