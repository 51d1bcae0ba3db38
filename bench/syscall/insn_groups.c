// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin for the per-syscall benchmark (ci/syscall-bench.sh):
 * how many of the instructions a system call executes lie in each group of
 * kernel functions (lib/iov_iter.o, the copy routines, the DAX path, ...).
 *
 * Every executed instruction adds one to its group's counter, an inline
 * op QEMU emits into the translated code: the guest's instruction count
 * (-icount) is not changed by it.  The groups are address ranges of the
 * guest kernel (ranges=FILE: "start end group" per line, hexadecimal,
 * from the vmlinux's symbol table); a kernel address in no range counts as
 * "kernel-other", a user address as "user".  The ranges must not overlap.
 * "kernel-rep" counts, in addition, the executions of the kernel's
 * rep-prefixed string instructions: QEMU runs a rep movs once per
 * iteration, and counts each (so does -icount).  The guest program marks
 * each timed call: when it executes the first instruction of its
 * window-open function (begin=ADDR, from nm of the static /init), the
 * counters are copied; at its window-close function (end=ADDR), the
 * differences are written to out=FILE as one line per window:
 *
 *   window N group=count group=count ...
 *
 * Windows are numbered from 0 in the order they close; the guest prints
 * which case each one is.  At the end, "end windows=N begins=M".  One
 * vCPU: the counters are plain integers.  An instruction that faults is
 * counted again when it runs again (the inline op comes before it), which
 * -icount does not do; the benchmark's buffers are touched before its calls.
 *
 * Build: gcc -shared -fPIC -O2 -I<dir of qemu-plugin.h> (ci/qemu-plugin.sh)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_GROUPS	32
/* x86_64: the kernel's half of the address space */
#define KERNEL_START	0xffff800000000000ULL

struct range {
	uint64_t start, end;	/* [start, end) */
	int group;
};

static struct range *ranges;
static size_t nranges;
static const char *names[MAX_GROUPS];
static int ngroups;
static int g_kother, g_user, g_krep;
static uint64_t counts[MAX_GROUPS], snap[MAX_GROUPS];
static uint64_t begin_addr, end_addr;
static int in_window;
static unsigned int nwindows, nbegins;
static FILE *out;

static int group_index(const char *name)
{
	int i;

	for (i = 0; i < ngroups; i++)
		if (!strcmp(names[i], name))
			return i;
	if (ngroups == MAX_GROUPS) {
		fprintf(stderr, "insn_groups: more than %d groups\n", MAX_GROUPS);
		return -1;
	}
	names[ngroups] = strdup(name);
	if (!names[ngroups]) {
		fprintf(stderr, "insn_groups: out of memory\n");
		return -1;
	}
	return ngroups++;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int read_ranges(const char *path)
{
	char line[512], name[128];
	unsigned long long s, e;
	size_t cap = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "insn_groups: cannot open %s\n", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		int g;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%llx %llx %127s", &s, &e, name) != 3 || e <= s) {
			fprintf(stderr, "insn_groups: %s: bad line: %s", path, line);
			fclose(f);
			return -1;
		}
		g = group_index(name);
		if (g < 0) {
			fclose(f);
			return -1;
		}
		if (nranges == cap) {
			struct range *r;

			cap = cap ? 2 * cap : 1024;
			r = realloc(ranges, cap * sizeof(*ranges));
			if (!r) {
				fclose(f);
				return -1;
			}
			ranges = r;
		}
		ranges[nranges++] = (struct range){ s, e, g };
	}
	fclose(f);
	qsort(ranges, nranges, sizeof(*ranges), cmp_range);
	for (size_t i = 1; i < nranges; i++) {
		if (ranges[i].start < ranges[i - 1].end) {
			fprintf(stderr, "insn_groups: %s: ranges %llx and %llx overlap\n", path,
				(unsigned long long)ranges[i - 1].start,
				(unsigned long long)ranges[i].start);
			return -1;
		}
	}
	return 0;
}

/* a string instruction with a rep/repne prefix (legacy prefixes, REX) */
static int is_rep_string(const unsigned char *p, size_t n)
{
	int rep = 0;
	size_t i = 0;

	for (; i < n; i++) {
		switch (p[i]) {
		case 0xf2: case 0xf3:
			rep = 1;
			continue;
		case 0x66: case 0x67: case 0x2e: case 0x3e: case 0x26:
		case 0x36: case 0x64: case 0x65: case 0xf0:
			continue;
		}
		break;
	}
	if (i < n && (p[i] & 0xf0) == 0x40)	/* REX */
		i++;
	return rep && i < n && p[i] >= 0xa4 && p[i] <= 0xaf &&
	       p[i] != 0xa8 && p[i] != 0xa9;	/* test al/eax, imm */
}

static int group_of(uint64_t addr)
{
	size_t lo = 0, hi = nranges;

	if (addr < KERNEL_START)
		return g_user;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < ranges[mid].start)
			hi = mid;
		else if (addr >= ranges[mid].end)
			lo = mid + 1;
		else
			return ranges[mid].group;
	}
	return g_kother;
}

static void window_begin(unsigned int vcpu, void *udata)
{
	memcpy(snap, counts, sizeof(snap));
	in_window = 1;
	nbegins++;
}

static void window_end(unsigned int vcpu, void *udata)
{
	int i;

	if (!in_window)
		return;
	fprintf(out, "window %u", nwindows++);
	for (i = 0; i < ngroups; i++)
		fprintf(out, " %s=%" PRIu64, names[i], counts[i] - snap[i]);
	fprintf(out, "\n");
	fflush(out);
	in_window = 0;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(insn);

		if (va == begin_addr)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, window_begin,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
		else if (va == end_addr)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, window_end,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
		qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
							   &counts[group_of(va)], 1);
		if (va >= KERNEL_START &&
		    is_rep_string(qemu_plugin_insn_data(insn), qemu_plugin_insn_size(insn)))
			qemu_plugin_register_vcpu_insn_exec_inline(insn,
								   QEMU_PLUGIN_INLINE_ADD_U64,
								   &counts[g_krep], 1);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	fprintf(out, "end windows=%u begins=%u\n", nwindows, nbegins);
	if (ferror(out) | fclose(out))
		fprintf(stderr, "insn_groups: writing the counts failed\n");
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *rpath = NULL, *opath = NULL;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "ranges=", 7))
			rpath = argv[i] + 7;
		else if (!strncmp(argv[i], "out=", 4))
			opath = argv[i] + 4;
		else if (!strncmp(argv[i], "begin=", 6))
			begin_addr = strtoull(argv[i] + 6, NULL, 0);
		else if (!strncmp(argv[i], "end=", 4))
			end_addr = strtoull(argv[i] + 4, NULL, 0);
		else {
			fprintf(stderr, "insn_groups: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	if (!rpath || !opath || !begin_addr || !end_addr || begin_addr == end_addr) {
		fprintf(stderr, "insn_groups: needs ranges=FILE out=FILE begin=ADDR end=ADDR\n");
		return -1;
	}
	if (strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "insn_groups: an x86_64 guest only, not %s\n", info->target_name);
		return -1;
	}
	if (read_ranges(rpath))
		return -1;
	g_kother = group_index("kernel-other");
	g_user = group_index("user");
	g_krep = group_index("kernel-rep");
	if (g_kother < 0 || g_user < 0 || g_krep < 0)
		return -1;
	out = fopen(opath, "w");
	if (!out) {
		fprintf(stderr, "insn_groups: cannot write %s\n", opath);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
