#!/usr/bin/env bash
# Install what the project needs on Debian 12, only where something is
# missing.  Idempotent and silent when everything is there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# Disk: a fresh clone's make check writes about 9.3 GiB (9.1 GiB of three
# lines' work trees, KUnit, patch-check and ABI build directories and
# 0.2 GiB of results, measured on 2026-11-24), and ccache grows up to its 5 GiB
# default beside it: 16 GiB leaves room for both.  A full disk shows up
# later as a stage failing for no reason of its own (a CI run once lost
# abi and b4 that way).  Stop here instead, with the reason.
DISK_MIN_GIB=${DISK_MIN_GIB:-16}
avail=$(df -P -k "$TOP" | awk 'NR == 2 { print int($4 / 1048576) }')
if [ "${avail:-0}" -lt "$DISK_MIN_GIB" ]; then
	die "only ${avail} GiB free on the file system of $TOP; make check needs about $DISK_MIN_GIB GiB (DISK_MIN_GIB=<n> to override)" \
		"df -h $TOP"
fi

# Debian packages, each with a file or command that proves it is installed.
PKGS=(
	"qemu-system-x86:qemu-system-x86_64"
	"qemu-system-x86:qemu-system-i386"
	"e2fsprogs:mkfs.ext4"
	"valgrind:valgrind"
	"qemu-system-arm:qemu-system-aarch64"
	"qemu-system-misc:qemu-system-s390x"
	"gcc-aarch64-linux-gnu:aarch64-linux-gnu-gcc"
	"gcc-s390x-linux-gnu:s390x-linux-gnu-gcc"
	"abigail-tools:abidiff"
	"sparse:sparse"
	"coccinelle:spatch"
	"ccache:ccache"
	"shellcheck:shellcheck"
	"gcc:gcc"
	"make:make"
	"bc:bc"
	"flex:flex"
	"bison:bison"
	"libelf-dev:/usr/include/libelf.h"
	"libssl-dev:/usr/include/openssl/ssl.h"
	"cpio:cpio"
	"kmod:depmod"
	"perl:perl"
	"xz-utils:xz"
	"git:git"
	"python3:python3"
	"python3-venv:@venv"
	"rsync:rsync"
	"debian-archive-keyring:/usr/share/keyrings/debian-archive-keyring.gpg"
)
have() {
	case "$1" in
	@venv) python3 -c 'import ensurepip, venv' 2>/dev/null ;;
	/*) [ -e "$1" ] ;;
	*) command -v "$1" >/dev/null 2>&1 ;;
	esac
}

missing=()
for p in "${PKGS[@]}"; do
	pkg=${p%%:*} probe=${p#*:}
	have "$probe" && continue
	case " ${missing[*]-} " in *" $pkg "*) ;; *) missing+=("$pkg") ;; esac
done

if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "missing Debian packages: ${missing[*]} (run as root, or install them)" \
		"apt-get install ${missing[*]}"
	log "installing: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq || die "apt-get update failed" "apt-get update"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		die "apt-get install failed" "apt-get install ${missing[*]}"
fi

# Every line's base, at the version its BASE records, fetched into the
# project's cache and never installed (ci/fetch-bases.sh): the machine's
# own linux-source-* packages, of whatever version, play no part.
bash "$TOP/ci/fetch-bases.sh"

# Python tools in a project venv: pinned, and out of the system's way
# (Debian 12 refuses pip installs into the system interpreter).
VENV=$TOP/build/venv
REQ=$TOP/ci/requirements.txt
stamp=$VENV/.requirements
if ! cmp -s "$REQ" "$stamp" 2>/dev/null; then
	log "creating $VENV from ci/requirements.txt"
	python3 -m venv "$VENV" || die "cannot create $VENV" "python3 -m venv $VENV"
	"$VENV/bin/pip" install -q --disable-pip-version-check -r "$REQ" ||
		die "pip install failed" "$VENV/bin/pip install -r $REQ"
	cp "$REQ" "$stamp"
fi
