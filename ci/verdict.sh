# shellcheck shell=bash
# The verdict cache: a deterministic check whose inputs have not changed
# since it last passed is not run again; its recorded results and output are
# replayed instead.  Source it after ci/lib.sh.
#
# A check's key is the sha256 of four parts, each named in the key's text:
#   tree       the tree object id(s) it reads (at a patch: the patch's tree
#              and its parent's, so a W=1 "before" is covered)
#   config     the merged configuration: the fragments it merges, the arch,
#              the variant and every setting that changes what it builds
#   toolchain  the versions of the compilers and tools it runs
#   scripts    the contents of its own scripts and data files
# plus the check's name.  Only passing verdicts are stored: a failure, or
# anything the machine may have caused (a full disk, a killed QEMU), is
# always run again.
#
# The cache lives beside ccache, outside the clone, so that a new clone of
# the same commit finds it: $VERDICT_CACHE, default
# ${XDG_CACHE_HOME:-~/.cache}/iov_iter-series/verdicts.  It is never read
# with NOCACHE=1 or by make check-full (TIER=full); both still write it.
# Each lookup is appended to $VERDICT_LOG when set (make check sets it;
# its closing table counts them per stage): "hit|miss TAB seconds TAB
# check", where a hit's seconds are those the recorded run took (a miss's
# are 0).
#
# qemu_bin ARCH: the QEMU binary that runs ARCH's kernels (none for um).
qemu_bin() {
	case $1 in
	x86_64|i386) echo "qemu-system-$1" ;;
	arm64) echo qemu-system-aarch64 ;;
	s390) echo qemu-system-s390x ;;
	esac
}

# accel_class: what decides KVM or TCG, and so the CPU model, on this
# machine: KUNIT_ACCEL, and whether /dev/kvm is there at all (ci/kvm-probe.sh
# then boots each kernel to see whether KVM works).
accel_class() {
	printf 'accel=%s kvm-device=%s' "${KUNIT_ACCEL:-auto}" "$([ -e /dev/kvm ] && echo yes || echo no)"
}

VERDICT_CACHE=${VERDICT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/iov_iter-series/verdicts}

# verdict_reads: true when this run may replay recorded verdicts.
verdict_reads() { [ "${NOCACHE:-0}" != 1 ] && [ "${TIER:-ci}" != full ]; }

# verdict_key CHECK TREE CONFIG TOOLCHAIN SCRIPTS: the key of one run of a
# check (each part a string, usually itself a hash or an object id).
verdict_key() {
	printf 'check %s\ntree %s\nconfig %s\ntoolchain %s\nscripts %s\n' "$@" | sha256sum | cut -c1-40
}

# hash_files FILE...: one hash of the names and contents of FILEs (a
# missing file counts as such, so that adding it changes the hash).
hash_files() {
	local f
	for f in "$@"; do
		printf '%s\n' "${f#"$TOP"/}"
		if [ -f "$f" ]; then sha256sum < "$f"; else echo missing; fi
	done | sha256sum | cut -c1-40
}

# toolchain_id TOOL...: the first non-empty --version line of each TOOL (a
# name on PATH or a path), hashed.
toolchain_id() {
	local t
	for t in "$@"; do
		# By name: a tool in a clone's build/venv is the same tool in
		# every clone.
		printf '%s: ' "${t##*/}"
		if command -v "$t" >/dev/null; then
			# The first line that is not empty (perl's is).
			awk 'NF { print; exit }' <<< "$("$t" --version 2>&1 || true)"
		else
			echo missing
		fi
	done | sha256sum | cut -c1-40
}

verdict_note() {
	[ -z "${VERDICT_LOG:-}" ] || printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$VERDICT_LOG"
}

# verdict_replay KEY CHECK RESULTS DIR: if KEY passed before (and this run
# may read the cache), print its output, append its results to RESULTS,
# restore its logs into DIR, and return 0; otherwise return 1.
verdict_replay() {
	local key=$1 check=$2 results=$3 dir=$4 e=$VERDICT_CACHE/$1 secs
	# A miss is noted here, at the lookup, so that a check that then
	# fails (and stores nothing) still counts as one that ran.
	if ! verdict_reads || [ ! -f "$e/ok" ]; then
		verdict_note miss 0 "$check"
		return 1
	fi
	secs=$(cat "$e/seconds")
	cat "$e/out"
	cat "$e/results.tsv" >> "$results"
	if [ -d "$e/files" ]; then
		mkdir -p "$dir"
		cp -a "$e/files/." "$dir/"
	fi
	printf 'verdict cache: %s passed before with these inputs (key %s, %s s saved); NOCACHE=1 runs it again\n' \
		"$check" "${key:0:12}" "$secs"
	verdict_note hit "$secs" "$check"
}

# verdict_store KEY CHECK SECONDS RESULTS OUT [FILE...]: record a run of
# CHECK (its result lines, its output, its log FILEs) under KEY if every
# result passed or was skipped.
verdict_store() {
	local key=$1 check=$2 secs=$3 results=$4 out=$5 e tmp
	shift 5
	[ -s "$results" ] && ! grep -qv -E '^(PASS|SKIP)	' "$results" || return 0
	e=$VERDICT_CACHE/$key
	mkdir -p "$VERDICT_CACHE"
	tmp=$(mktemp -d "$VERDICT_CACHE/.new.XXXXXX")
	cp "$results" "$tmp/results.tsv"
	cp "$out" "$tmp/out"
	echo "$secs" > "$tmp/seconds"
	printf '%s\n' "$check" > "$tmp/check"
	if [ $# -gt 0 ]; then
		mkdir -p "$tmp/files"
		cp -a "$@" "$tmp/files/"
	fi
	touch "$tmp/ok"
	# Two runs may store the same key at once: the last one wins, and mv
	# -T never moves one entry into the other.
	rm -rf "$e"
	mv -T "$tmp" "$e" 2>/dev/null || rm -rf "$tmp"
}
