#!/usr/bin/env bash
# fetch-src.sh PKG SUITE [VERSION]: fetch the kernel source package PKG
# (VERSION of it, or the newest the suites have) without touching the
# machine's package set.  SUITE is a Debian suite the machine does not use
# (trixie-backports), or "-" for the machine's own release: its suites
# (bookworm, bookworm-updates, bookworm-security) as its apt sources name
# them.  apt runs with a private sources list of those suites alone, with
# the archive URIs taken from the machine's own apt sources, and private
# lists and cache, so that neither apt's state nor its installed packages
# change, and a version installed on the machine plays no part.
# The package is downloaded, never installed: its /usr/src/PKG.tar.xz goes
# to $SRC_CACHE/PKG.tar.xz and its version to $SRC_CACHE/PKG.version
# (make tree takes the base from there and records it in BASE).
# ci/fetch-bases.sh (make deps) calls this for every line, with the version
# the line's BASE records.
#   FETCH_SRC_SOURCES=<file>  use these apt source lines instead (the
#                             self-tests point it at a local archive)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 2 ] || [ $# = 3 ] || die "usage: fetch-src.sh PKG SUITE|- [VERSION]"
pkg=$1 suite=$2 want=${3:-}
repro="bash ci/fetch-src.sh $pkg $suite${want:+ $want}"
tag=${suite/#-/own}
apt_dir=$SRC_CACHE/apt-$tag
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/download"

if [ -n "${FETCH_SRC_SOURCES:-}" ]; then
	cp "$FETCH_SRC_SOURCES" "$apt_dir/sources.list"
	from="the sources of $FETCH_SRC_SOURCES"
else
	# The machine's Debian archives: the URIs apt uses for its own
	# release's main component (apt's own parse of sources.list and deb822
	# files), each with the suite it serves.
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || die "cannot tell this machine's Debian release (/etc/os-release has no VERSION_CODENAME)"
	pairs=$(apt-cache policy 2>/dev/null | awk -v c="$codename" '
		$2 ~ /^https?:/ && $3 ~ ("^" c "(-[a-z]+)?/main$") { s = $3; sub(/\/main$/, "", s); print $2, s }' | sort -u)
	[ -n "$pairs" ] || die "no apt source of this machine serves $codename/main, so the Debian archive is unknown" "apt-cache policy"
	if [ "$suite" != - ]; then
		# Another suite: from the archive of the release's own main suite.
		pairs=$(awk -v c="$codename" -v s="$suite" '$2 == c { print $1, s; exit }' <<< "$pairs")
		[ -n "$pairs" ] || die "no apt source of this machine serves $codename/main, so the archive of $suite is unknown" "apt-cache policy"
	fi
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -f "$keyring" ] || die "$keyring is missing (package debian-archive-keyring)" "apt-get install debian-archive-keyring"
	while read -r u s; do
		printf 'deb [signed-by=%s] %s %s main\n' "$keyring" "$u" "$s"
	done <<< "$pairs" > "$apt_dir/sources.list"
	from=$(awk '{ print $4 }' "$apt_dir/sources.list" | paste -sd, -)
fi

log "fetching the package lists of $from (private lists in ${apt_dir/#$HOME/\~})"
private_apt "$apt_dir" apt-get -qq update >"$apt_dir/update.log" 2>&1 ||
	{ cat "$apt_dir/update.log" >&2; die "apt-get update of $from failed" "$repro"; }
have=$(private_apt "$apt_dir" apt-cache show "$pkg" 2>/dev/null | sed -n 's/^Version: //p' | sort -uV)
[ -n "$have" ] || die "$from has no package $pkg" "$repro"
newest=$(tail -n1 <<< "$have")
if [ -n "$want" ]; then
	# The version the line's BASE records: the series was made and tested
	# on it.  The archive moves on; a newer one is a new base, made on
	# purpose, never picked up because it happens to be the newest.
	if ! grep -qxF "$want" <<< "$have"; then
		line=${FETCH_SRC_LINE:-<line>}
		die "the Debian archive ($from) no longer serves $pkg $want, the version patches/$line/BASE records; it serves ${have//$'\n'/, } (newest $newest).
To rebase the line on $newest, check it and record it:
  SRC_VERSION=$newest make deps tree LINE=${line%.y}   # the new base, the series applied to it
  make export LINE=${line%.y}                          # patches/$line/ and its BASE
  make check-full LINE=${line%.y}                      # the cover letter's whole run (and make bench for its tables)" "$repro"
	fi
	ver=$want
else
	ver=$newest
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
