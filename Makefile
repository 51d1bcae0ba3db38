# User-facing targets of the iov_iter series, one series per line (LINE=6.1, LINE=6.12, LINE=mainline).  The work is done by the
# scripts in ci/; each target is one of them.  See README.md.

ARCH ?= x86_64
export LINE TUXMAKE_ROW KCIDB_RUN KCIDB_ORIGIN KCIDB_PATCH_URL KCIDB_GIT_REPO NATIVE_SMOKE NATIVE_ARGS ARCH VARIANT REV KERNEL_SRC FORCE PATCHCHECK_KUNIT PATCHCHECK_FROM MBOX_CHECK COVER_CHECK NOTES_CHECK COSTS_CHECK CHECK_DIRS STAGES TIER NOCACHE

.PHONY: help deps tree export lint kunit kselftest selftest mutants patchcheck sizes abi uaudit divergence backport gki codegen native native-sim mbox sendcheck range-diff post notes docs costs plan tuxmake kcidb check check-full bench

help:
	@echo 'Every target takes LINE=<line> (the lines: the directories ci/*/ with a line.conf, named without .y: 6.1, 6.12, mainline); the default is LINE=6.1.'
	@echo 'A line lives in patches/<dir>/, kunit/<dir>/, ci/<dir>/, configs/<dir>/ (its own fragments, if any), Documentation/<dir>/, MAINTAINERS-notes/<dir>, build/<dir>/, out/<dir>/, <dir> being 6.1.y, 6.12.y or mainline (Documentation/usage.md, Layout).'
	@echo 'make check without LINE runs every line and the project-wide stages; make check LINE=6.12 only that line.'
	@echo 'make check    what CI runs: per line: lint, b4 round trip; 6.1.y and mainline: per-patch checks on x86_64, KUnit at the tip (6.1.y: x86_64, i386 kmap-force; mainline: x86_64); 6.1.y: module ABI (arm64, every patch), the Coccinelle ITER_UBUF audit; then self-tests, docs, the TuxSuite plan and the KCIDB file.  Deterministic checks are replayed from the verdict cache when their inputs passed before (NOCACHE=1: run them all)'
	@echo 'make check-full  every stage, never reading the verdict cache: make check plus the full tier of ci/stages.tsv (KUnit at every patch, the builds at every patch for the other arches (6.1.y: UML, i386, arm64; mainline: i386, arm64), KASAN, arm64, um, i386, s390, the tls_rollback guest test, mutants, bench-smoke, native-smoke, native-sim-smoke, codegen, sizes; mainline: KASAN, arm64, UML (the kunit.py default), i386 kmap-force, the kselftest, mutants; 6.12.y: KASAN, i386, arm64, mutants; the tuxmake row); a green run of every line, or of every stage of LINE=6.1, quotes itself in the 6.1.y cover letter   [RESUME=1: go on with a run that stopped before its end, same series]'
	@echo 'make bench    benchmark base vs series: the native harness (cycles, CIs) and icount (instructions, overheads)'
	@echo 'make native   6.1.y: the native A/B harness alone (bench/native/)   [NATIVE_SMOKE=1] [NATIVE_ARGS=...]'
	@echo 'make native-sim SIM_CASE=<case>  6.1.y: one native case under valgrind (cachegrind, callgrind: per function and per instruction, base vs series)   [SIM_CALLS=2000] [SIM_LAYOUTS=4] [SIM_ARGS=...]'
	@echo 'make codegen  6.1.y: codegen audit of the changed objects, base vs tip, into the cover letter   [COVER_CHECK=1]'
	@echo 'make deps     install what is missing (Debian 12, as root)'
	@echo 'make tree     build/<line>/linux = base + patches/<line>/series   [KERNEL_SRC=dir] [FORCE=1]'
	@echo 'make export   regenerate patches/<line>/ from build/<line>/linux'
	@echo 'make lint     patches/<line>/ consistency (series <-> files <-> build/<line>/linux)'
	@echo 'make kunit    one KUnit run   ARCH=x86_64|um|i386|arm64|s390 [VARIANT=name] [REV=commit]'
	@echo 'make kselftest  user-mode kselftests of a line, in a guest of its tip (mainline: iov_fault, iov_bench, udp_csum_fault; 6.1: tls_rollback of ci/guest)   [REV=commit]'
	@echo 'make selftest self-tests of the ci/ glue'
	@echo 'make mutants  prove the KUnit suite catches deliberate bugs (ci/<line>/mutations)'
	@echo 'make patchcheck  per patch: checkpatch, W=1 + sparse and kernel-doc deltas, the line'"'"'s arch builds [PATCHCHECK_KUNIT=1: and KUnit; =only: KUnit alone]'
	@echo 'make sizes    bloat-o-meter per patch into the cover letter   [COVER_CHECK=1: only check it]'
	@echo 'make abi      6.1.y (the line with a frozen module ABI): module ABI (abidiff and modversions CRCs, arm64) per patch; the prefix must keep it   [COVER_CHECK=1]'
	@echo 'make uaudit   6.1.y: Coccinelle: every read that could mistake ITER_UBUF for an array type and every iov_iter_revert(), at the base and every patch, against ci/<line>/uaudit-explained'
	@echo 'make gki         6.1.y: the prefix under android14-6.1 gki_defconfig with clang-16 (CFI, SCS): per-patch CRCs, the changed headers types, allmodconfig of the series directories [GKI_ALLMOD=0]'
	@echo 'make backport    how later upstream fixes apply at the base and at the tip, built and run where they apply [BACKPORT_PATCHES=<mails> or BACKPORT_COMMITS=<ids> UPSTREAM_TREE=<tree>; BACKPORT_RUN=none]'
	@echo 'make divergence  6.1.y: lines by which include/linux/iov_iter.h differs from mainline'"'"'s (FOLIOQ removed)'
	@echo 'make mbox     out/<line>/mbox/iov_iter-<line>-vN.mbx   [MBOX_CHECK=1: b4 am round trip]'
	@echo 'make sendcheck TREE=<your kernel git tree> [BASE=<ref>]  LINE=mainline, before sending: apply the postings to your tree with git am -3 (each onto its prerequisites; a failure names the posting, patch and hunk), write their base-commit/prerequisite lines for make mbox MBOX_BASE_INFO=out/<line>/sendcheck, and run KUnit (x86_64, UML) and the kselftests there   [SENDCHECK_MSGIDS=file] [SENDCHECK_RUN=none]'
	@echo 'make range-diff  patches/<line>/range-diff-v<N-1>-v<N>.txt against the tag <line>/series-v<N-1>'
	@echo 'make post     after mailing: tag <line>/series-vN, bump patches/<line>/VERSION'
	@echo 'make notes    regenerate MAINTAINERS-notes/<line> (get_maintainer per patch)'
	@echo 'make docs     MAINTAINERS-notes current, documented commands exist'
	@echo 'make costs    the cost table of Documentation/testing.md from ci/stages.tsv and the last runs   [COSTS_CHECK=1: only check it]'
	@echo 'make plan     out/plan/plan.yaml: the whole matrix of both lines as a TuxSuite plan, validated offline'
	@echo 'make tuxmake  one plan row built by tuxmake locally, compared with make kunit   [TUXMAKE_ROW=6.1.y-kunit-x86_64]'
	@echo 'make kcidb    out/kcidb/kcidb.json: the last make check as KCIDB data, validated   [KCIDB_RUN=out/check-full] [KCIDB_ORIGIN=...]'

deps:
	@bash ci/deps.sh

tree: deps
	@bash ci/tree.sh

export:
	@bash ci/export.sh

lint:
	@bash ci/lint.sh

kunit: deps
	@bash ci/kunit.sh

selftest: deps
	@bash ci/selftest.sh

mutants: deps
	@bash ci/mutants.sh

patchcheck: deps
	@bash ci/patchcheck.sh

backport: deps
	@bash ci/backport.sh

gki: deps
	@bash ci/gki.sh

sizes: deps
	@bash ci/sizes.sh

abi: deps
	@bash ci/abi.sh

uaudit: deps
	@bash ci/uaudit.sh

divergence:
	@bash ci/divergence.sh

codegen: deps
	@bash ci/codegen.sh

native: deps
	@bash ci/native-bench.sh

native-sim: deps
	@bash ci/native-sim.sh

mbox: deps
	@bash ci/mbox.sh

# TREE and BASE are the sender's; the scripts' own TREE is the line's work tree.
sendcheck: deps
	@SENDCHECK_TREE="$(TREE)" SENDCHECK_BASE="$(BASE)" TREE= BASE= bash ci/sendcheck.sh

kselftest: deps
	@bash ci/kselftest.sh

range-diff:
	@bash ci/version.sh range-diff

post:
	@bash ci/version.sh post

notes:
	@bash ci/notes.sh

docs:
	@bash ci/docs.sh

costs:
	@bash ci/costs.sh

plan: deps
	@bash ci/plan.sh

tuxmake: deps
	@bash ci/tuxmake.sh

kcidb: deps
	@bash ci/kcidb.sh

check:
	@TIER=ci bash ci/check.sh

check-full:
	@TIER=full bash ci/check.sh

bench:
	@bash ci/bench.sh
