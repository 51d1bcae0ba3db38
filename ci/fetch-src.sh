#!/usr/bin/env bash
# fetch-src.sh PKG SUITE [VERSION]: fetch the kernel source package PKG
# (VERSION of it, or the suite's newest) from the
# Debian suite SUITE (trixie-backports) without touching the machine's
# package set: a private apt sources list for that suite alone, with the
# archive URI taken from the machine's own apt sources, and private lists
# and cache, so that neither apt's state nor its installed packages change.
# The package is downloaded, never installed: its /usr/src/PKG.tar.xz goes
# to $SRC_CACHE/PKG.tar.xz and its version to $SRC_CACHE/PKG.version
# (make tree records it in BASE).  make deps calls this for a line whose
# line.conf sets SRC_SUITE.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 2 ] || [ $# = 3 ] || die "usage: fetch-src.sh PKG SUITE [VERSION]"
pkg=$1 suite=$2 want=${3:-}
repro="bash ci/fetch-src.sh $pkg $suite${want:+ $want}"
apt_dir=$SRC_CACHE/apt-$suite
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/download"

# The machine's Debian archive: the URI apt uses for its own release's
# main component (apt's own parse of sources.list and deb822 files).
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || die "cannot tell this machine's Debian release (/etc/os-release has no VERSION_CODENAME)"
uri=$(apt-cache policy 2>/dev/null | awk -v s="$codename/main" '$3 == s && $2 ~ /^https?:/ { print $2; exit }')
[ -n "$uri" ] || die "no apt source of this machine serves $codename/main, so the archive of $suite is unknown" "apt-cache policy"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || die "$keyring is missing (package debian-archive-keyring)" "apt-get install debian-archive-keyring"
printf 'deb [signed-by=%s] %s %s main\n' "$keyring" "$uri" "$suite" > "$apt_dir/sources.list"

log "fetching the package lists of $suite from $uri (private lists in ${apt_dir/#$HOME/\~})"
private_apt "$apt_dir" apt-get -qq update >"$apt_dir/update.log" 2>&1 ||
	{ cat "$apt_dir/update.log" >&2; die "apt-get update of $suite failed" "$repro"; }
have=$(private_apt "$apt_dir" apt-cache show "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | sort -V)
[ -n "$have" ] || die "$suite has no package $pkg" "$repro"
if [ -n "$want" ]; then
	# The version the line's BASE records: the series was made and tested
	# on it.  Backports move on; a newer one is a new base, made on purpose.
	grep -qxF "$want" <<< "$have" ||
		die "$suite no longer has $pkg $want, the version patches/<line>/BASE records (it has: ${have//$'\n'/ }); rebase the line on a version it has and record it with make tree and make export" "$repro"
	ver=$want
else
	ver=$(tail -n1 <<< "$have")
fi
log "downloading $pkg $ver"
rm -f "$apt_dir/download"/*.deb
(cd "$apt_dir/download" && private_apt "$apt_dir" apt-get -qq download "$pkg=$ver") >"$apt_dir/download.log" 2>&1 ||
	{ cat "$apt_dir/download.log" >&2; die "apt-get download $pkg=$ver failed" "$repro"; }
deb=$(ls "$apt_dir/download"/*.deb)
[ "$(dpkg-deb -f "$deb" Version)" = "$ver" ] || die "$deb is not version $ver" "$repro"

# Only the tarball is kept; the .deb goes.
tmp=$SRC_CACHE/$pkg.tar.xz.tmp
dpkg-deb --fsys-tarfile "$deb" | tar -xOf - "./usr/src/$pkg.tar.xz" > "$tmp" ||
	die "$deb has no usr/src/$pkg.tar.xz" "dpkg-deb -c $deb"
xz -t "$tmp" || die "the tarball of $deb is damaged" "$repro"
mv -f "$tmp" "$SRC_CACHE/$pkg.tar.xz"
echo "$ver" > "$SRC_CACHE/$pkg.version"
rm -f "$deb"
log "$SRC_CACHE/$pkg.tar.xz: $pkg $ver"
