#!/usr/bin/env bash
# fetch-bases.sh [LINE...]: the base of every line (or of those named), at
# the version its patches/<line>/BASE records, in $SRC_CACHE (make deps
# runs this).  Each line's ci/<line>/line.conf names the Debian package
# (SRC_PKG) and, for a package of a suite the machine does not use, the
# suite (SRC_SUITE); ci/fetch-src.sh downloads it without installing it.
# What the machine has installed plays no part: a newer linux-source-6.1
# in /usr/src leaves the 6.1.y line on the version BASE records.
#   SRC_VERSION=<version>  with LINE=<line>: that version instead of BASE's
#                          (rebasing the line; make export records it)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

lines=("$@")
[ $# -gt 0 ] || read -r -a lines <<< "$LINES"
if [ -n "${SRC_VERSION:-}" ] && [ -z "$LINE_GIVEN" ]; then
	die "SRC_VERSION=$SRC_VERSION names a version of one line's package: give LINE= too" "SRC_VERSION=$SRC_VERSION make deps LINE=<line>"
fi
for l in "${lines[@]}"; do
	n=$(line_name "$l") || exit 1
	# shellcheck source=6.1.y/line.conf
	read -r pkg suite < <(SRC_PKG=; SRC_SUITE=; . "$TOP/ci/$n/line.conf"; echo "$SRC_PKG ${SRC_SUITE:--}")
	[ -n "$pkg" ] || die "ci/$n/line.conf names no SRC_PKG"
	# The line's BASE (PATCHES, for the line being run: the self-tests
	# point it at a scratch copy).
	if [ "$n" = "$LINE_NAME" ]; then base=$PATCHES/BASE; else base=$(line_dir "$l" patches)/BASE; fi
	ver=
	if [ -f "$base" ]; then
		src=$(sed -n 's/^source: //p' "$base")
		case $src in
		"debian $pkg "*) ver=${src#"debian $pkg "} ;;
		*) die "${base#"$TOP"/} records the base \"$src\", not a version of $pkg (ci/$n/line.conf)" "make tree LINE=$l && make export LINE=$l" ;;
		esac
	fi
	if [ -n "${SRC_VERSION:-}" ] && [ "${l%.y}" = "$LINE_GIVEN" ]; then
		ver=$SRC_VERSION
	fi
	[ -n "$ver" ] || die "${base#"$TOP"/} records no version of $pkg: give one" "SRC_VERSION=<version> make deps LINE=$l"
	if [ -s "$SRC_CACHE/$pkg.tar.xz" ] && [ "$(cat "$SRC_CACHE/$pkg.version" 2>/dev/null)" = "$ver" ]; then
		continue
	fi
	FETCH_SRC_LINE=$n bash "$TOP/ci/fetch-src.sh" "$pkg" "$suite" "$ver"
done
