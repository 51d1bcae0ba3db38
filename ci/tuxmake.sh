#!/usr/bin/env bash
# make tuxmake [TUXMAKE_ROW=6.1.y-kunit-x86_64]: one row of make plan's
# matrix built locally by tuxmake (host toolchain, runtime null: no
# container, no network), then compared with what make kunit builds and
# runs for the same row:
#   config   tuxmake's .config against make kunit's (kunit.py config) for
#            the row: the same options, or the differences fail;
#   kunit    tuxmake's kernel booted by ci/kunit.sh (kunit.py exec under
#            QEMU, judged by ci/ktap_check.py with the same manifests and
#            splat lists): it must pass, with the same results, case by
#            case, as the row's last make kunit run.
# The build takes its parameters from the plan itself (ci/tuxplan.py
# tuxmake-args), so what is compared is what the plan asks TuxSuite for.
# Results: out/tuxmake/<row>/ (results.tsv, tuxmake's build.log and
# metadata.json, config.diff, compare.txt).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

ROW=${TUXMAKE_ROW:-6.1.y-kunit-x86_64}
venv=$TOP/build/venv
repro="make tuxmake TUXMAKE_ROW=$ROW"
case $ROW in
*.y-kunit-*) ;;
*) die "TUXMAKE_ROW=$ROW: not a KUnit row of the plan (<line>.y-kunit-<arch>[-<variant>])" ;;
esac
line=${ROW%%.y-kunit-*}
name=${ROW#*.y-kunit-}
arch=${name%%-*}
variant=${name#"$arch"}
variant=${variant#-}
lineopt=
[ "$line" = 6.1 ] || lineopt=" LINE=$line"
lo=$(line_dir "$line" out) || die "TUXMAKE_ROW=$ROW: unknown line $line"
lb=$(line_dir "$line" build)
tree=$lb/linux
res=$OUT_ALL/tuxmake/$ROW
bdir=$lb/tuxmake/$name
rm -rf "$res"
mkdir -p "$res"
: > "$res/results.tsv"
result() { printf '%s\t%s\n' "$1" "tuxmake:$ROW:$2" >> "$res/results.tsv"; }

# What tuxmake's run is compared with, before anything is built: make
# kunit's results of this row, of the tree tuxmake builds (not whatever make
# kunit ran last).
ref=$lo/kunit/$name/results.tsv
[ -d "$tree/.git" ] || die "$tree does not exist" "make$lineopt tree"
[ -s "$ref" ] || die "no make kunit results of $name to compare with ($ref)" "make$lineopt kunit ARCH=$arch${variant:+ VARIANT=$variant}"
[ "$(cat "$lo/kunit/$name/tree" 2>/dev/null)" = "$(git -C "$tree" rev-parse "HEAD^{tree}")" ] ||
	die "the make kunit results of $name ($ref) are not of the work tree's tip" "make$lineopt kunit ARCH=$arch${variant:+ VARIANT=$variant}"

# The plan (cheap to make) names the commit and holds the row's parameters.
bash "$TOP/ci/plan.sh" > "$res/plan.log" 2>&1 || { cat "$res/plan.log" >&2; die "make plan failed" "make plan"; }
plan=$OUT_ALL/plan/plan.yaml
mapfile -t args < <("$venv/bin/python3" "$TOP/ci/tuxplan.py" tuxmake-args "$plan" "$ROW") ||
	die "the plan has no build $ROW" "$venv/bin/python3 ci/tuxplan.py tuxmake-args ${plan#"$TOP"/} $ROW"
[ ${#args[@]} -gt 0 ] || die "the plan has no build $ROW" "make plan"

# --- tuxmake ---------------------------------------------------------------------
# tuxmake's ccache wrapper sets CCACHE_DIR=~/.ccache and zeroes its
# statistics.  With the real HOME that would create ~/.ccache, which ccache
# then prefers to the cache every other build uses (~/.cache/ccache), and
# would zero the counts make check measures its hit rate by.  So tuxmake
# gets a HOME of its own, and its own cache there, kept across clones.
thome=${XDG_CACHE_HOME:-$HOME/.cache}/iov_iter-tuxmake
mkdir -p "$thome"
had_dot_ccache=$([ ! -e "$HOME/.ccache" ] || echo yes)
export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1
rm -rf "$bdir"
mkdir -p "$bdir"
start=$(date +%s)
log "tuxmake: $ROW in ${bdir#"$TOP"/}"
if ! HOME=$thome "$venv/bin/tuxmake" --directory="$tree" --runtime=null --wrapper=ccache \
	--build-dir="$bdir" --output-dir="$res/artifacts" "${args[@]}" > "$res/tuxmake.log" 2>&1; then
	tail -n 30 "$res/tuxmake.log" >&2
	result FAIL build
	die "tuxmake failed to build $ROW (log: ${res#"$TOP"/}/tuxmake.log)" "$repro"
fi
tux_s=$(($(date +%s) - start))
[ ! -e "$HOME/.ccache" ] || [ -n "$had_dot_ccache" ] ||
	die "tuxmake created $HOME/.ccache, which every later ccache would use instead of the shared cache: remove it" "rm -rf $HOME/.ccache"
result PASS build
log "tuxmake built $ROW in $tux_s s"

# --- The same configuration? --------------------------------------------------------
# make kunit's configuration of the row (kunit.py config only).
RUN_NAME=tuxmake-ref-$name OUT="$lo" LINE=$line ARCH=$arch VARIANT=$variant REV='' KUNIT_CONFIG_ONLY=1 \
	bash "$TOP/ci/kunit.sh" > "$res/kunit-config.log" 2>&1 ||
	{ cat "$res/kunit-config.log" >&2; die "kunit.py config of $name failed" "make$lineopt kunit ARCH=$arch${variant:+ VARIANT=$variant}"; }
# The compiler's name differs (tuxmake calls the same gcc by its target
# triplet, x86_64-linux-gnu-gcc): compare its version string without it.
norm() { sed -E 's/^(CONFIG_CC_VERSION_TEXT=")[^ ]+ /\1<gcc> /' "$1" | grep -v '^#' | grep . | sort; }
if diff <(norm "$lo/kunit/tuxmake-ref-$name/config") <(norm "$bdir/.config") > "$res/config.diff"; then
	result PASS config
	config_note="the same $(norm "$bdir/.config" | wc -l) options (the compiler's name in CONFIG_CC_VERSION_TEXT aside)"
else
	result FAIL config
	config_note="$(grep -c '^[<>]' "$res/config.diff") lines differ (config.diff)"
fi

# --- The same result? ---------------------------------------------------------------
krc=0
RUN_NAME=tuxmake-$name OUT="$lo" LINE=$line ARCH=$arch VARIANT=$variant REV='' KUNIT_NO_BUILD=1 \
	KUNIT_BUILD_DIR=$bdir bash "$TOP/ci/kunit.sh" > "$res/kunit.log" 2>&1 || krc=$?
cp "$lo/kunit/tuxmake-$name/results.tsv" "$res/kunit-results.tsv" 2>/dev/null || : > "$res/kunit-results.tsv"
if [ "$krc" = 0 ] && diff <(sort "$ref") <(sort "$res/kunit-results.tsv") > "$res/kunit.diff"; then
	result PASS kunit
	kunit_note="passed, the same $(wc -l < "$ref") results as make kunit"
else
	result FAIL kunit
	kunit_note="differs from make kunit (kunit.diff, kunit.log)"
fi
{
	echo "row: $ROW at $(git -C "$tree" rev-parse --short=12 HEAD)"
	echo "tuxmake $("$venv/bin/tuxmake" --version | awk '{print $2}'): built in $tux_s s ($(sed -n 's/.*"toolchain": "\([^"]*\)".*/\1/p' "$res/artifacts/metadata.json" 2>/dev/null | head -n1))"
	echo "config: $config_note"
	echo "kunit: $kunit_note"
} | tee "$res/compare.txt"
grep -q '^FAIL' "$res/results.tsv" && die "tuxmake's $ROW is not make kunit's (${res#"$TOP"/})" "$repro"
log "tuxmake's $ROW is make kunit's"
