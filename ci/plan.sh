#!/usr/bin/env bash
# make plan: the whole test matrix of both lines as a TuxSuite plan,
# out/plan/plan.yaml, validated offline (ci/tuxplan.py validate).
#
# Generated from the definitions make check runs, nothing else:
#   LINES (ci/lib.sh)              the lines;
#   ci/stages.tsv                  every kunit-<arch>[-<variant>] stage of a
#                                  line, either tier: one build of the tip
#                                  with that arch's and variant's KUnit
#                                  configuration, and (where TuxRun has a
#                                  QEMU device for the arch) its KUnit test;
#   PATCHCHECK_ARCHES, PATCHCHECK_FULL_ARCHES, PATCHCHECK_KCONFIG (ci/lib.sh)
#                                  the per-patch builds: every patch of the
#                                  line, for x86_64 and each of those arches;
#   kunit/<line>/*.kunitconfig, configs/<arch>.config, configs/<variant>.config
#                                  the configuration, merged by the tree's
#                                  own kunit.py code (ci/kunit_kconfig.py)
#                                  and started, as kunit.py starts it, from
#                                  an empty .config (kconfig /dev/null);
#   BENCH_SMOKE_DEFAULT (ci/lib.sh) the test's kernel arguments.
# Builds name commits of the work trees (build/6.1.y/linux, build/6.12.y/linux) by
# git_sha; make tree gives the same hashes on every machine.
#   PLAN_TOOLCHAIN=gcc-12   the TuxMake toolchain (Debian 12's gcc is 12)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

#   PLAN_DIR=<dir>          write there instead of out/plan (the self-tests)
#   STAGE_LIST=<file>       read the stages from there (the self-tests)
PLAN_TOOLCHAIN=${PLAN_TOOLCHAIN:-gcc-12}
STAGE_LIST=${STAGE_LIST:-$TOP/ci/stages.tsv}
dir=${PLAN_DIR:-$OUT_ALL/plan}
venv=$TOP/build/venv
rm -rf "$dir"
mkdir -p "$dir/kconfig"
rows=$dir/rows.tsv
: > "$rows"

# kconfig_list FILE TREE ARCH FRAGMENT...: FILE is the plan's kconfig list
# of a build: the empty start, then kunit.py's merged options.
kconfig_list() {
	local file=$1 tree=$2 arch=$3
	shift 3
	{
		echo /dev/null
		"$venv/bin/python3" "$TOP/ci/kunit_kconfig.py" "$tree" "$arch" "$@"
	} > "$file" || die "kunit.py could not merge the fragments of $arch ($*)" \
		"$venv/bin/python3 ci/kunit_kconfig.py $tree $arch $*"
}

# lvar LINE NAME: the value ci/lib.sh gives NAME for LINE.
lvar() { LINE=$1 bash -c '. "$0"; printf "%s" "${!1}"' "$TOP/ci/lib.sh" "$2"; }

# device ARCH: TuxRun's QEMU device of an arch, or - (TuxRun has none for
# UML; ci/tuxplan.py checks that the device exists).
device() { case $1 in um) echo - ;; *) echo "qemu-$1" ;; esac; }

for l in $LINES; do
	# The line's settings, from ci/lib.sh as every other script gets them.
	tree=$(lvar "$l" TREE) archs="$(lvar "$l" PATCHCHECK_ARCHES) $(lvar "$l" PATCHCHECK_FULL_ARCHES)"
	smoke=$(lvar "$l" BENCH_SMOKE_DEFAULT) lineopt=$(lvar "$l" LINEOPT)
	# The plan names the line's commits: bring the work tree up to date.
	LINE=$l bash "$TOP/ci/tree.sh" || die "the $l.y work tree is not up to date" "make$lineopt tree"
	git -C "$tree" rev-parse -q --verify HEAD >/dev/null || die "no work tree $tree" "make$lineopt tree"
	tip=$(git -C "$tree" rev-parse HEAD)
	stage_re="^$l:kunit-"

	# The KUnit rows: one job per stage.
	awk -F'\t' -v re="$stage_re" '!/^#/ && $1 ~ re { print $1 }' "$STAGE_LIST" |
	while read -r st; do
		rest=${st#*kunit-}
		arch=${rest%%-*}
		variant=${rest#"$arch"}
		variant=${variant#-}
		fl=$(config_fragments "$l" "$arch" "$variant") || die "stage $st: its config fragments are missing"
		mapfile -t frags <<< "$fl"
		k=$dir/kconfig/$l-kunit-$rest
		kconfig_list "$k" "$tree" "$arch" "${frags[@]}"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$l.y kunit-$rest" "$l.y-kunit-$rest" "$tip" \
			"$arch" "$PLAN_TOOLCHAIN" "$k" "$(device "$arch")" "$smoke" >> "$rows"
	done

	# The per-patch builds: one job per arch, a build per patch.
	for arch in x86_64 $archs; do
		fl=$(config_fragments "$l" "$arch") || die "$l: the config fragments of $arch are missing"
		mapfile -t frags <<< "$fl"
		k=$dir/kconfig/$l-patch-$arch
		kconfig_list "$k" "$tree" "$arch" "${frags[@]}"
		for s in $PATCHCHECK_KCONFIG; do echo "CONFIG_$s=y" >> "$k"; done
		n=0
		for c in $(git -C "$tree" rev-list --reverse base..HEAD); do
			n=$((n + 1))
			printf '%s\t%s\t%s\t%s\t%s\t%s\t-\t-\n' "$l.y per-patch $arch" \
				"$l.y-patch$(printf '%04d' "$n")-$arch" "$c" "$arch" "$PLAN_TOOLCHAIN" "$k" >> "$rows"
		done
	done
	# GKI's own builds (make gki builds them only in part): android14-6.1's
	# gki_defconfig, less the symbols the line's base does not define, with
	# clang 16 (TuxMake's clang-16: CC=clang, where make gki sets LLVM=1)
	# at the base and at the end of the KMI-neutral prefix; and
	# allmodconfig for arm64 and x86_64 at the prefix's end.
	gkidef=$TOP/configs/$(lvar "$l" LINE_NAME)/gki/gki_defconfig
	if [ -f "$gkidef" ]; then
		pend=$(LINE=$l bash -c '. "$0"; prefix_end' "$TOP/ci/lib.sh") ||
			die "$l: no KMI-neutral prefix for the GKI builds" "make$lineopt gki"
		k=$dir/kconfig/$l-gki
		python3 "$TOP/ci/kconfig_filter.py" "$gkidef" "$tree" base "$k.lines" "$k.dropped" ||
			die "$l: the GKI configuration cannot be filtered" "make$lineopt gki"
		{ echo /dev/null; grep -v '^$' "$k.lines"; } > "$k"
		for r in base:"$(git -C "$tree" rev-parse base)" prefix:"$pend"; do
			printf '%s\t%s\t%s\t%s\t%s\t%s\t-\t-\n' "$l.y gki" "$l.y-gki-${r%%:*}" "${r#*:}" \
				arm64 clang-16 "$k" >> "$rows"
		done
		echo allmodconfig > "$dir/kconfig/allmodconfig"
		for arch in arm64 x86_64; do
			printf '%s\t%s\t%s\t%s\t%s\t%s\t-\t-\n' "$l.y allmodconfig" "$l.y-allmodconfig-$arch" "$pend" \
				"$arch" clang-16 "$dir/kconfig/allmodconfig" >> "$rows"
		done
	fi
done

"$venv/bin/python3" "$TOP/ci/tuxplan.py" write "$rows" "$dir/plan.yaml" ||
	die "writing the plan failed" "make plan"
"$venv/bin/python3" "$TOP/ci/tuxplan.py" validate "$dir/plan.yaml" ||
	die "the plan does not validate" "$venv/bin/python3 ci/tuxplan.py validate ${dir#"$TOP"/}/plan.yaml"
