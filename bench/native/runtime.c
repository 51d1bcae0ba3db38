// SPDX-License-Identifier: GPL-2.0
/*
 * The native A/B harness: the lib/iov_iter.o of two kernel trees (base and
 * series), as their kernel builds made them, linked into one process with the
 * kernel's own x86_64 copy routines and retpoline thunks, and timed against
 * each other pair by pair on one pinned CPU.
 *
 * This file is the userspace side: the few kernel symbols the objects need
 * (stubs), the boot-time patching the kernel would do (alternatives, return
 * sites), the exception table (so that a fault in a user copy gives the
 * kernel's short copy), the data checks and the timing.  ci/native-bench.sh
 * builds it; Documentation/benchmarking.md says what it can and cannot see.
 */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <cpuid.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define NB_TREE dummy
#include "nb_abi.h"

#define PAGE_SIZE	4096UL

/* ------------------------------------------------------------------------ */
/* The two trees' glue (glue.c, one copy per tree). */

struct tree {
	const char *name;
	void (*info)(struct nb_info *info);
	void (*prepare)(struct nb_desc *d);
	unsigned long (*run)(const struct nb_desc *d, unsigned int reps,
			     struct nb_state *st);
	void (*xa_init)(void *xa);
	int (*xa_add)(void *xa, unsigned long index, unsigned long pfn,
		      unsigned int order);
	struct nb_info nb;
};

#define NB_DECLARE(t)							\
	void nb_##t##_info(struct nb_info *info);			\
	void nb_##t##_prepare(struct nb_desc *d);			\
	unsigned long nb_##t##_run(const struct nb_desc *d,		\
				   unsigned int reps, struct nb_state *st); \
	void nb_##t##_xa_init(void *xa);				\
	int nb_##t##_xa_add(void *xa, unsigned long index,		\
			    unsigned long pfn, unsigned int order)
NB_DECLARE(base);
NB_DECLARE(series);

#define NB_TREE_INIT(t) { #t, nb_##t##_info, nb_##t##_prepare, nb_##t##_run, \
			  nb_##t##_xa_init, nb_##t##_xa_add }
static struct tree trees[2] = { NB_TREE_INIT(base), NB_TREE_INIT(series) };
#define BASE	(&trees[0])
#define SERIES	(&trees[1])

/* ------------------------------------------------------------------------ */
/* What the kernel objects need from a kernel.  Nothing here is timed except
 * where a walker calls it (rcu_read_lock for XARRAY; should_fail_usercopy()
 * once per user copy in a CONFIG_FAULT_INJECTION_USERCOPY build, the KUnit
 * objects of NATIVE_CONFIG=kunit). */

/*
 * The kernel objects keep the stack 8-byte aligned
 * (-mpreferred-stack-boundary=3): everything they call realigns it before
 * the C library's SSE code can see it.
 */
#define KCALLED __attribute__((force_align_arg_pointer))

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "native-bench: error: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static void unexpected(const char *what)
{
	die("the kernel objects called %s, which the harness does not provide", what);
}

static unsigned char fake_task[16384] __attribute__((aligned(64)));
static unsigned char fake_cpu_data[4096] __attribute__((aligned(64)));
static unsigned char fake_gs[4096] __attribute__((aligned(64)));
void *boot_cpu_data = fake_cpu_data;
#ifdef NB_SMP
/*
 * An SMP kernel reads its per-CPU variables at %gs:offset, the offsets
 * counting from 0 as in the kernel's per-CPU area: ci/native-bench.sh
 * defines these two (--defsym) at the offsets below, within the page %gs
 * points to, which also holds the stack canary at %gs:40.
 */
#define PCPU_CURRENT_TASK	0x100
#define PCPU_PREEMPT_COUNT	0x108
#else
void *current_task = fake_task;
int __preempt_count;
#endif
unsigned long page_offset_base, vmemmap_base;
void *radix_tree_node_cachep;
unsigned long __SCK__preempt_schedule, __SCK__might_resched;
unsigned long default_pipe_buf_ops[8], page_cache_pipe_buf_ops[8];
static int rcu_nesting;
static unsigned long xa_node_size;

KCALLED void __SCT__preempt_schedule(void) { }
KCALLED void __SCT__might_resched(void) { }
KCALLED void __rcu_read_lock(void) { rcu_nesting++; }
KCALLED void __rcu_read_unlock(void) { rcu_nesting--; }
KCALLED _Bool should_fail_usercopy(void) { return 0; }
KCALLED void __local_bh_enable_ip(unsigned long ip, unsigned int cnt) { }
KCALLED void handle_interrupted_saferet(void) { unexpected("handle_interrupted_saferet"); }

KCALLED int _printk(const char *fmt, ...)
{
	fprintf(stderr, "native-bench: kernel printk: %s", fmt);
	return 0;
}

KCALLED void *__kmalloc(size_t size, unsigned int flags) { return calloc(1, size ? size : 1); }
KCALLED void *kvmalloc_node(size_t size, unsigned int flags, int node) { return __kmalloc(size, flags); }
KCALLED void *kmemdup(const void *p, size_t size, unsigned int flags)
{
	void *q = malloc(size);

	if (q)
		memcpy(q, p, size);
	return q;
}
KCALLED void kfree(const void *p) { free((void *)p); }
KCALLED void kvfree(const void *p) { free((void *)p); }
KCALLED void *kmem_cache_alloc_lru(void *cache, void *lru, unsigned int flags)
{
	return calloc(1, xa_node_size);
}
KCALLED void call_rcu(void *head, void (*func)(void *head)) { func(head); }
KCALLED void radix_tree_node_rcu_free(void *head) { unexpected("radix_tree_node_rcu_free"); }

#define UNEXPECTED(sym) KCALLED void sym(void) { unexpected(#sym); }
UNEXPECTED(__alloc_pages)
UNEXPECTED(get_user_pages_fast)
UNEXPECTED(copy_mc_to_kernel)
UNEXPECTED(copy_mc_to_user)
UNEXPECTED(fault_in_readable)
UNEXPECTED(fault_in_safe_writeable)

/* xas_store() clears the marks of the nodes it makes */
KCALLED void __bitmap_clear(unsigned long *map, unsigned int start, int len)
{
	for (; len > 0; len--, start++)
		map[start / 64] &= ~(1UL << (start % 64));
}
UNEXPECTED(__virt_addr_valid)
UNEXPECTED(alloc_pages)

/* What a distribution-like configuration adds: HugeTLB and spinlocks that
 * are calls (xas_lock() while the xarrays are set up, never timed). */
unsigned long hugetlb_optimize_vmemmap_key[2];
KCALLED _Bool PageHuge(void *page) { return 0; }
KCALLED _Bool PageHeadHuge(void *page) { return 0; }
KCALLED void _raw_spin_lock(void *lock) { }
KCALLED void _raw_spin_unlock(void *lock) { }
KCALLED void _raw_spin_lock_bh(void *lock) { }
KCALLED void _raw_spin_unlock_bh(void *lock) { }
KCALLED void _raw_spin_lock_irq(void *lock) { }
KCALLED void _raw_spin_unlock_irq(void *lock) { }
KCALLED unsigned long _raw_spin_lock_irqsave(void *lock) { return 0; }
KCALLED void _raw_spin_unlock_irqrestore(void *lock, unsigned long flags) { }
UNEXPECTED(__sw_hweight64)
UNEXPECTED(sg_init_one)

/* ------------------------------------------------------------------------ */
/* Boot-time patching, as 6.1's arch/x86/kernel/alternative.c does it. */

struct alt_instr {
	int32_t instr_offset, repl_offset;
	uint16_t cpuid;
	uint8_t instrlen, replacementlen;
} __attribute__((packed));

struct extable_entry {
	int32_t insn, fixup, data;
};

/* The linker's bounds of the sections ci/native-bench.sh renamed. */
#define NB_SECTION __attribute__((weak))
extern struct alt_instr __start_nb_altinstructions[] NB_SECTION;
extern struct alt_instr __stop_nb_altinstructions[] NB_SECTION;
extern int32_t __start_nb_return_sites[] NB_SECTION, __stop_nb_return_sites[] NB_SECTION;
extern int32_t __start_nb_retpoline_sites[] NB_SECTION;
extern int32_t __stop_nb_retpoline_sites[] NB_SECTION;
extern struct extable_entry __start___ex_table[] NB_SECTION, __stop___ex_table[] NB_SECTION;
extern char __x86_return_thunk[] NB_SECTION;

#define ALT_FLAG_NOT	(1 << 15)
static unsigned char features[32 * 32 / 8];

static void set_feature(int f) { features[f / 8] |= 1 << (f % 8); }
static int has_feature(int f) { return features[f / 8] >> (f % 8) & 1; }

static const unsigned char nops[9][8] = {
	{ 0 },
	{ 0x90 },
	{ 0x66, 0x90 },
	{ 0x0f, 0x1f, 0x00 },
	{ 0x0f, 0x1f, 0x40, 0x00 },
	{ 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	{ 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
	{ 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 },
	{ 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
};

static void add_nops(unsigned char *p, unsigned int len)
{
	while (len) {
		unsigned int n = len > 8 ? 8 : len;

		memcpy(p, nops[n], n);
		p += n;
		len -= n;
	}
}

/* Long NOPs for every run of one-byte NOPs at the end of a site. */
static void optimize_nops(unsigned char *p, unsigned int len)
{
	unsigned int k = len;

	while (k && p[k - 1] == 0x90)
		k--;
	if (len - k > 1)
		add_nops(p + k, len - k);
}

static void text_writable(void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p & ~(PAGE_SIZE - 1);
	uintptr_t e = ((uintptr_t)p + len + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);

	if (mprotect((void *)a, e - a, PROT_READ | PROT_WRITE | PROT_EXEC))
		die("mprotect of the text: %s", strerror(errno));
}

static int patched_alts, patched_returns;

/* --inject=FAULT: one side's glue (--inject-side=, default series) makes
 * this fault (the self-tests) */
static int inject;
static struct tree *inject_tree;
static const char *const inject_names[NB_NR_INJECT] = {
	"none", "walk-ret", "iov-offset", "nr-segs",
};

static int inject_index(const char *name)
{
	int k;

	for (k = 0; k < NB_NR_INJECT; k++)
		if (!strcmp(inject_names[k], name))
			return k;
	die("--inject=%s: none, walk-ret, iov-offset or nr-segs", name);
	return 0;
}

static void apply_alternatives(void)
{
	struct alt_instr *a;

	for (a = __start_nb_altinstructions; a < __stop_nb_altinstructions; a++) {
		unsigned char *instr = (unsigned char *)&a->instr_offset + a->instr_offset;
		unsigned char *repl = (unsigned char *)&a->repl_offset + a->repl_offset;
		int feat = a->cpuid & ~ALT_FLAG_NOT;
		int want = has_feature(feat) ^ !!(a->cpuid & ALT_FLAG_NOT);
		unsigned char buf[256];

		if (a->replacementlen > a->instrlen)
			die("alternative at %p: lengths %u/%u", instr,
			    a->instrlen, a->replacementlen);
		text_writable(instr, a->instrlen);
		if (!want) {
			optimize_nops(instr, a->instrlen);
			continue;
		}
		memcpy(buf, repl, a->replacementlen);
		if (a->replacementlen == 5 && (buf[0] == 0xe8 || buf[0] == 0xe9)) {
			int32_t disp;

			memcpy(&disp, buf + 1, 4);
			disp += repl - instr;
			memcpy(buf + 1, &disp, 4);
			/* recompute_jump(): a near jump that fits becomes short */
			if (buf[0] == 0xe9 && disp + 3 >= -128 && disp + 3 <= 127) {
				buf[0] = 0xeb;
				buf[1] = (signed char)(disp + 3);
				add_nops(buf + 2, 3);
			}
		}
		memset(buf + a->replacementlen, 0x90, a->instrlen - a->replacementlen);
		optimize_nops(buf, a->instrlen);
		memcpy(instr, buf, a->instrlen);
		patched_alts++;
	}
}

/*
 * Which mitigations the kernel objects run with.  Two sources:
 *
 * - 6.1.y's own choice, where this harness models it: 6.1.y's
 *   arch/x86/kernel/cpu/bugs.c with a default command line (retbleed=auto,
 *   spec_rstack_overflow=safe-ret, spectre_v2=auto) and its
 *   cpu_vuln_blacklist (arch/x86/kernel/cpu/common.c), for AMD and Hygon.
 *   Return thunk: AMD 0x15 and 0x16 have RETBLEED (UNRET:
 *   retbleed_return_thunk); AMD 0x17 and Hygon 0x18 also SRSO, whose safe
 *   RET replaces it (srso_return_thunk); AMD 0x19 SRSO alone
 *   (srso_alias_return_thunk); any other AMD or Hygon family has neither,
 *   and every return site becomes a plain ret, as apply_returns() makes
 *   it.  Indirect branches: Automatic IBRS (or enhanced IBRS) where the CPU
 *   has it, and then every thunk call is turned back into an indirect
 *   call; the generic retpoline otherwise.
 *
 * - The running kernel's choice, read from sysfs
 *   (/sys/devices/system/cpu/vulnerabilities/), where 6.1.y's choice hangs
 *   on what this harness does not model: Intel's per-model tables
 *   (RETBLEED with IBRS, ITS) and microcode, AMD 0x17 with SMT off
 *   (IBPB_BRTYPE in microcode decides SRSO there), and any other vendor.
 *   The host's kernel is not 6.1.y, so the run's header says so.  Only a
 *   sysfs that says nothing usable stops the run.
 *
 * --rethunk= and --retpoline= override either.  The self-tests give a CPU
 * identity (--cpuid=) and a sysfs directory (--sysfs=) of their own, and
 * --mitigations-only prints the choice and stops.
 */
extern char retbleed_return_thunk[] NB_SECTION, srso_return_thunk[] NB_SECTION;
extern char srso_alias_return_thunk[] NB_SECTION, its_return_thunk[] NB_SECTION;
extern char __x86_indirect_thunk_array[] NB_SECTION;
extern char __x86_indirect_its_thunk_array[] NB_SECTION;

static const struct {
	const char *name;
	char *thunk;
} rethunks[] = {
	{ "none", NULL },
	{ "retbleed", retbleed_return_thunk },
	{ "srso", srso_return_thunk },
	{ "srso_alias", srso_alias_return_thunk },
	{ "its", its_return_thunk },
};

static int rethunk = -1;		/* index in rethunks[] */
static int retpoline = -1;		/* 1: generic retpoline; 0: indirect calls */
static int its_indirect;		/* indirect branches in a line's lower half: ITS thunks */
static char rethunk_why[200], retpoline_why[200], mitigation[256];

/* What the choice reads of the machine. */
static struct host {
	char vendor[13];
	unsigned int family, model;
	int eibrs;		/* ibrs_enhanced in /proc/cpuinfo */
	int autoibrs;		/* CPUID 0x80000021 EAX bit 8 */
	const char *sysfs;	/* in place of /sys/devices/system/cpu */
} host = { .sysfs = "/sys/devices/system/cpu" };
static int host_given;		/* --cpuid= */

static int rethunk_index(const char *name)
{
	unsigned int k;

	for (k = 0; k < sizeof(rethunks) / sizeof(rethunks[0]); k++)
		if (!strcmp(rethunks[k].name, name))
			return k;
	die("--rethunk=%s: none, retbleed, srso, srso_alias or its", name);
	return 0;
}

/* --cpuid=VENDOR:FAMILY[:MODEL][:eibrs][:autoibrs] (numbers in C syntax) */
static void parse_host(const char *arg)
{
	char buf[128], *save = NULL, *f;
	int k = 0;

	if (strlen(arg) >= sizeof(buf))
		die("--cpuid=%s: too long", arg);
	strcpy(buf, arg);
	for (f = strtok_r(buf, ":", &save); f; f = strtok_r(NULL, ":", &save), k++) {
		char *end;

		if (k == 0) {
			if (strlen(f) != 12)
				die("--cpuid=%s: the vendor is CPUID's 12 characters (GenuineIntel, "
				    "AuthenticAMD, HygonGenuine, ...)", arg);
			strcpy(host.vendor, f);
		} else if (!strcmp(f, "eibrs")) {
			host.eibrs = 1;
		} else if (!strcmp(f, "autoibrs")) {
			host.autoibrs = 1;
		} else if (k <= 2) {
			unsigned long v = strtoul(f, &end, 0);

			if (*end || end == f || v > 0xff)
				die("--cpuid=%s: '%s' is not a family or model number", arg, f);
			*(k == 1 ? &host.family : &host.model) = v;
		} else {
			die("--cpuid=%s: '%s': VENDOR:FAMILY[:MODEL][:eibrs][:autoibrs]", arg, f);
		}
	}
	if (k < 2)
		die("--cpuid=%s: VENDOR:FAMILY[:MODEL][:eibrs][:autoibrs]", arg);
	host_given = 1;
}

/* This CPU's identity, from CPUID and /proc/cpuinfo. */
static void read_host(void)
{
	unsigned int a = 0, b = 0, c = 0, d = 0;
	char line[4096];
	FILE *f;

	__get_cpuid(0, &a, &b, &c, &d);
	memcpy(host.vendor, &b, 4);
	memcpy(host.vendor + 4, &d, 4);
	memcpy(host.vendor + 8, &c, 4);
	host.vendor[12] = 0;
	__get_cpuid(1, &a, &b, &c, &d);
	host.family = (a >> 8) & 0xf;
	host.model = (a >> 4) & 0xf;
	if (host.family == 0xf)
		host.family += (a >> 20) & 0xff;
	if (host.family >= 6)
		host.model |= ((a >> 16) & 0xf) << 4;
	if (__get_cpuid(0x80000021, &a, &b, &c, &d) && (a & (1u << 8)))
		host.autoibrs = 1;
	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		die("/proc/cpuinfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			host.eibrs = strstr(line, " ibrs_enhanced") != NULL;
			break;
		}
	fclose(f);
}

/* The first line of <sysfs>/<name> into buf, or 0 when there is none. */
static int sysfs_line(const char *name, char *buf, size_t len)
{
	char path[4096];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", host.sysfs, name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = 0;
	return ok && buf[0];
}

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static int is_vendor(const char *v)
{
	return !strcmp(host.vendor, v);
}

/* 6.1.y's choice, where it is modelled: 1 when it is, 0 otherwise. */
static int model_rethunk(void)
{
	if (!is_vendor("AuthenticAMD") && !is_vendor("HygonGenuine"))
		return 0;
	if (host.family < 0x19) {
		char smt[16];

		/* 6.1.y's SRSO_NO for a family below 0x19 with SMT off hangs on
		 * microcode; smt/active: SMT counts as on unless it says 0 */
		if (sysfs_line("smt/active", smt, sizeof(smt)) && !strcmp(smt, "0"))
			return 0;
	}
	if (is_vendor("AuthenticAMD") && (host.family == 0x15 || host.family == 0x16))
		rethunk = rethunk_index("retbleed");
	else if ((is_vendor("AuthenticAMD") && host.family == 0x17) ||
		 (is_vendor("HygonGenuine") && host.family == 0x18))
		rethunk = rethunk_index("srso");
	else if (is_vendor("AuthenticAMD") && host.family == 0x19)
		rethunk = rethunk_index("srso_alias");
	else
		rethunk = rethunk_index("none");
	snprintf(rethunk_why, sizeof(rethunk_why), "6.1.y's choice for %s family %#x",
		 host.vendor, host.family);
	return 1;
}

static int model_retpoline(void)
{
	if (!is_vendor("AuthenticAMD") && !is_vendor("HygonGenuine"))
		return 0;
	retpoline = !(host.autoibrs || host.eibrs);
	snprintf(retpoline_why, sizeof(retpoline_why), "6.1.y's choice for %s family %#x: %s",
		 host.vendor, host.family, host.autoibrs ? "Automatic IBRS" :
		 host.eibrs ? "enhanced IBRS" : "neither enhanced nor Automatic IBRS");
	return 1;
}

static void __attribute__((noreturn)) unusable(const char *what, const char *file,
					       const char *said)
{
	die("6.1.y's %s for %s family %#x model %#x is not modelled here, and %s/%s %s%s%s: "
	    "give --retpoline=on|off and --rethunk=none|retbleed|srso|srso_alias|its "
	    "(make bench or make native: NATIVE_ARGS=\"--retpoline=... --rethunk=...\")",
	    what, host.vendor, host.family, host.model, host.sysfs, file,
	    said ? "says '" : "does not exist", said ? said : "", said ? "', which is not modelled" : "");
}

/* The running kernel's choice, from sysfs. */
static void sysfs_retpoline(void)
{
	char s[256];

	if (!sysfs_line("vulnerabilities/spectre_v2", s, sizeof(s)))
		unusable("indirect-branch mitigation", "vulnerabilities/spectre_v2", NULL);
	if (strstr(s, "LFENCE"))
		unusable("indirect-branch mitigation", "vulnerabilities/spectre_v2", s);
	if (strstr(s, "Retpolines"))
		retpoline = 1;
	else if (starts(s, "Mitigation: Enhanced") || starts(s, "Mitigation: IBRS") ||
		 starts(s, "Vulnerable") || starts(s, "Not affected"))
		retpoline = 0;
	else
		unusable("indirect-branch mitigation", "vulnerabilities/spectre_v2", s);
	snprintf(retpoline_why, sizeof(retpoline_why),
		 "the host kernel's choice (sysfs spectre_v2: %.*s), 6.1.y's tables not modelled",
		 (int)strcspn(s, ";"), s);
}

/*
 * Return thunks: retbleed's untrained return thunk, replaced by SRSO's
 * safe RET (AMD, Hygon) or ITS's thunk (Intel); no CPU has both of the
 * last two.
 */
static void sysfs_rethunk(void)
{
	char r[256] = "", i[256] = "", s[256] = "", why[160] = "";
	int any = 0;

	rethunk = rethunk_index("none");
	if (sysfs_line("vulnerabilities/retbleed", r, sizeof(r))) {
		any = 1;
		/* one string for UNRET and IBPB on a non-AMD CPU: not modelled */
		if (strstr(r, "IBPB on non-AMD"))
			unusable("return thunk", "vulnerabilities/retbleed", r);
		if (strstr(r, "untrained return thunk"))
			rethunk = rethunk_index("retbleed");
		else if (!starts(r, "Not affected") && !starts(r, "Vulnerable") &&
			 !starts(r, "Mitigation: IBRS") && !starts(r, "Mitigation: Enhanced") &&
			 !starts(r, "Mitigation: IBPB"))
			unusable("return thunk", "vulnerabilities/retbleed", r);
	}
	if (sysfs_line("vulnerabilities/indirect_target_selection", i, sizeof(i))) {
		any = 1;
		if (starts(i, "Mitigation: Aligned branch/return thunks")) {
			rethunk = rethunk_index("its");
		} else if (!starts(i, "Not affected") && !starts(i, "Vulnerable") &&
			   !starts(i, "Mitigation: Vulnerable, KVM"))
			unusable("return thunk", "vulnerabilities/indirect_target_selection", i);
	}
	if (sysfs_line("vulnerabilities/spec_rstack_overflow", s, sizeof(s))) {
		any = 1;
		/* "safe RET" in 6.1.y's words, "Safe RET" in newer kernels' */
		if (strcasestr(s, "safe RET"))
			rethunk = rethunk_index(host.family == 0x19 ? "srso_alias" : "srso");
		else if (!starts(s, "Not affected") && !starts(s, "Vulnerable") &&
			 !starts(s, "Mitigation: IBPB") && !starts(s, "Mitigation: SMT disabled"))
			unusable("return thunk", "vulnerabilities/spec_rstack_overflow", s);
	}
	if (!any)
		unusable("return thunk", "vulnerabilities/retbleed", NULL);
	if (r[0])
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "retbleed: %s", r);
	if (i[0])
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "%sITS: %s",
			 why[0] ? "; " : "", i);
	if (s[0])
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "%sSRSO: %s",
			 why[0] ? "; " : "", s);
	snprintf(rethunk_why, sizeof(rethunk_why),
		 "the host kernel's choice (sysfs %s), 6.1.y's tables not modelled", why);
}

static void choose_mitigations(void)
{
	if (!host_given)
		read_host();
	sysfs_line("vulnerabilities/spectre_v2", mitigation, sizeof(mitigation));
	if (retpoline >= 0)
		snprintf(retpoline_why, sizeof(retpoline_why), "chosen with --retpoline");
	else if (!model_retpoline())
		sysfs_retpoline();
	if (rethunk >= 0)
		snprintf(rethunk_why, sizeof(rethunk_why), "chosen with --rethunk");
	else if (!model_rethunk())
		sysfs_rethunk();
	/* 6.1.y's ITS mitigation: its return thunk, and its indirect thunks
	 * for the branches retpolines do not already cover */
	its_indirect = rethunk == rethunk_index("its") && !retpoline;
}

/* The kernel objects must have what was chosen. */
static void check_mitigations(void)
{
	if (rethunks[rethunk].name[0] != 'n' && !rethunks[rethunk].thunk)
		die("the kernel objects have no %s return thunk", rethunks[rethunk].name);
	if (its_indirect && !__x86_indirect_its_thunk_array)
		die("the kernel objects have no ITS indirect thunks");
}

/* apply_returns(): each "jmp __x86_return_thunk" becomes a jump to the
 * chosen thunk, or a plain ret when there is none. */
static void apply_returns(void)
{
	char *thunk = rethunks[rethunk].thunk;
	int32_t *s;

	for (s = __start_nb_return_sites; s < __stop_nb_return_sites; s++) {
		unsigned char *p = (unsigned char *)s + *s;
		int32_t disp;

		if (p[0] != 0xe9)
			continue;	/* a conditional jump to the thunk: left alone, as 6.1 does */
		memcpy(&disp, p + 1, 4);
		if (p + 5 + disp != (unsigned char *)__x86_return_thunk)
			continue;
		text_writable(p, 5);
		/* 6.1.y's cpu_wants_rethunk_at(): with ITS's thunk, a return
		 * in a line's upper half is a plain ret */
		if (thunk && !(thunk == its_return_thunk && ((uintptr_t)p & 0x20))) {
			disp = (int32_t)(thunk - (char *)(p + 5));
			memcpy(p + 1, &disp, 4);
		} else {
			p[0] = 0xc3;
			memset(p + 1, 0xcc, 4);
		}
		patched_returns++;
	}
}

/*
 * apply_retpolines(): without the generic retpoline, each call or jump to a
 * thunk becomes an indirect call or jump, as 6.1.y's patch_retpoline()
 * makes it; with ITS's indirect thunks, one whose branch would sit in the
 * lower half of a cache line becomes a call or jump to the register's ITS
 * thunk instead (6.1.y prefers a thunk it allocates per register in module
 * memory, the same instructions; the static one stands for it here).  A
 * conditional jump to a thunk (which 6.1.y rewrites into an inverted jump
 * over an indirect one) is left to the thunk, whose default body is then a
 * plain indirect jump.
 */
static int patched_retpolines, unpatched_retpolines, its_retpolines;

static void apply_retpolines(void)
{
	int32_t *s;

	if (retpoline)
		return;
	for (s = __start_nb_retpoline_sites; s < __stop_nb_retpoline_sites; s++) {
		unsigned char *p = (unsigned char *)s + *s, buf[5];
		int32_t disp;
		long reg;

		if (p[0] != 0xe8 && p[0] != 0xe9) {
			unpatched_retpolines++;
			continue;
		}
		memcpy(&disp, p + 1, 4);
		reg = (char *)p + 5 + disp - __x86_indirect_thunk_array;
		if (reg < 0 || reg % 32 || reg / 32 > 15 || reg / 32 == 4)
			die("retpoline site at %p does not call a thunk", p);
		reg /= 32;
		text_writable(p, 5);
		if (its_indirect && !(((uintptr_t)p + 1 + reg / 8) & 0x20)) {
			/* the branch's last byte in a line's lower half */
			disp = (int32_t)(__x86_indirect_its_thunk_array + 64 * reg -
					 (char *)(p + 5));
			memcpy(p + 1, &disp, 4);
			its_retpolines++;
			continue;
		}
		/* call/jmp *%reg, REX.B for r8-r15; INT3 after a jmp, NOPs */
		memset(buf, 0x90, sizeof(buf));
		disp = 0;
		if (reg >= 8)
			buf[disp++] = 0x41;
		buf[disp++] = 0xff;
		buf[disp++] = (p[0] == 0xe8 ? 0xd0 : 0xe0) | (reg & 7);
		if (p[0] == 0xe9)
			buf[disp++] = 0xcc;
		optimize_nops(buf, 5);
		memcpy(p, buf, 5);
		patched_retpolines++;
	}
}

static void detect_features(const struct nb_info *nb)
{
	unsigned int a, b, c, d;
	char line[4096];
	FILE *f;

	set_feature(nb->f_always);
	set_feature(nb->f_lfence_rdtsc);
	if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
		if (b & (1u << 9))
			set_feature(nb->f_erms);
		if (d & (1u << 4))
			set_feature(nb->f_fsrm);
	}
	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		die("/proc/cpuinfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			if (strstr(line, " rep_good"))
				set_feature(nb->f_rep_good);
			break;
		}
	fclose(f);
	choose_mitigations();
	if (retpoline)
		set_feature(nb->f_retpoline);
	if (rethunk != rethunk_index("none"))
		set_feature(nb->f_rethunk);
}

/* The "# mitigations:" line of the run's header (native_report.py quotes it). */
static void print_mitigations(int patched)
{
	printf("# mitigations: return thunk %s (%s", rethunks[rethunk].name, rethunk_why);
	if (patched)
		printf("; %d return sites patched", patched_returns);
	printf("); indirect branches: %s (%s", retpoline ? "generic retpoline" :
	       its_indirect ? "indirect calls, ITS thunks in a line's lower half" :
	       "indirect calls", retpoline_why);
	if (patched && its_indirect)
		printf("; %d thunk calls made indirect, %d sent to ITS thunks, %d left",
		       patched_retpolines, its_retpolines, unpatched_retpolines);
	else if (patched)
		printf("; %d thunk calls rewritten, %d left", patched_retpolines,
		       unpatched_retpolines);
	printf(")\n");
}

/* ------------------------------------------------------------------------ */
/* The exception table: a fault in a user copy takes the kernel's fixup. */

enum { EX_DEFAULT = 1, EX_FAULT = 2, EX_UACCESS = 3, EX_COPY = 4,
       EX_IMM_REG = 17, EX_UCOPY_LEN = 19 };
static const int ex_greg[16] = {
	REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
	REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
};
static volatile long faults_fixed;

static void on_segv(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	greg_t *g = uc->uc_mcontext.gregs;
	uintptr_t ip = g[REG_RIP];
	struct extable_entry *e;

	for (e = __start___ex_table; e < __stop___ex_table; e++) {
		int type, reg, imm;

		if ((uintptr_t)&e->insn + e->insn != ip)
			continue;
		type = e->data & 0xff;
		reg = (e->data >> 8) & 0xf;
		imm = e->data >> 16;
		switch (type) {
		case EX_FAULT:
		case EX_COPY:
			g[REG_RAX] = 14;	/* X86_TRAP_PF */
			break;
		case EX_DEFAULT:
		case EX_UACCESS:
			break;
		case EX_IMM_REG:
			g[ex_greg[reg]] = imm;
			break;
		case EX_UCOPY_LEN:
			g[REG_RCX] = g[ex_greg[reg]] + (long)imm * g[REG_RCX];
			break;
		default:
			fprintf(stderr, "native-bench: exception type %d at %#lx\n",
				type, (unsigned long)ip);
			abort();
		}
		if (e->data & 0x1000)
			g[REG_RAX] = 0;
		if (e->data & 0x2000)
			g[REG_RDX] = 0;
		g[REG_RIP] = (uintptr_t)&e->fixup + e->fixup;
		faults_fixed++;
		return;
	}
	fprintf(stderr, "native-bench: %s at %#lx (address %p) with no fixup\n",
		sig == SIGSEGV ? "SIGSEGV" : "SIGBUS", (unsigned long)ip, si->si_addr);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* A kernel WARN or BUG is a ud2: a splat fails the run. */
static void on_sigill(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	fprintf(stderr, "native-bench: kernel WARN/BUG (ud2) at %#lx: the run fails\n",
		(unsigned long)uc->uc_mcontext.gregs[REG_RIP]);
	_exit(3);
}

/* ------------------------------------------------------------------------ */
/* Memory: an arena of pages, with a struct page array for BVEC and XARRAY. */

#define ARENA_PAGES	8192UL		/* 32 MiB */
#define XA_PFN		2048UL		/* the xarray folios start here */
static unsigned char *arena;
static unsigned char *vmemmap;

static void arena_init(const struct nb_info *nb)
{
	size_t len = ARENA_PAGES * PAGE_SIZE + (2UL << 20);
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		die("mmap of the arena: %s", strerror(errno));
	arena = (unsigned char *)(((uintptr_t)p + (2UL << 20) - 1) & ~((2UL << 20) - 1));
	vmemmap = calloc(ARENA_PAGES, nb->page_struct_size);
	if (!vmemmap)
		die("no memory for the struct pages");
	page_offset_base = (uintptr_t)arena;
	vmemmap_base = (uintptr_t)vmemmap;
	xa_node_size = nb->xa_node_size;
}

/* ------------------------------------------------------------------------ */
/* Timing */

static inline uint64_t rdtsc_ordered(void)
{
	uint32_t lo, hi;

	asm volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
	return (uint64_t)hi << 32 | lo;
}

static double tsc_hz;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void calibrate_tsc(void)
{
	double t0 = now_s(), t1;
	uint64_t c0 = rdtsc_ordered(), c1;

	do
		t1 = now_s();
	while (t1 - t0 < 0.2);
	c1 = rdtsc_ordered();
	tsc_hz = (c1 - c0) / (t1 - t0);
}

/* ------------------------------------------------------------------------ */
/* Cases */

struct side {
	struct tree *tree;
	struct nb_desc d;
	void *vecs_alloc;	/* what to free() for d.vecs */
};

struct bcase {
	const char *name;
	const char *group;	/* ab: base vs series; step: series variant vs inline */
	struct side a, b;
	unsigned long chunk_ref;	/* the memcpy reference's chunk, for the report */
	const struct bcase *ref;	/* memcpy_<chunk_ref>, timed in the same pairs */
};

#define MAX_CASES 80
static struct bcase cases[MAX_CASES];
static int nr_cases;

static const char *type_name[] = { "ubuf", "iovec", "kvec", "bvec", "xarray" };

/* The linear buffer and the iterator's memory: same size, same kind. */
#define CASE_BYTES	(32UL << 10)
#define LIN_OFF		(0UL)
#define ITER_OFF	(1UL << 20)

static struct nb_seg *make_segs(unsigned long start, unsigned long count,
				unsigned long frag, unsigned long *nr)
{
	unsigned long k, n = (count + frag - 1) / frag;
	struct nb_seg *s = calloc(n, sizeof(*s));

	for (k = 0; k < n; k++) {
		s[k].addr = start + k * frag;
		s[k].len = count - k * frag < frag ? count - k * frag : frag;
	}
	*nr = n;
	return s;
}

/*
 * --vec-offsets=BASE,SERIES: where each tree's segment arrays start in a
 * page (-1: wherever aligned_alloc(64) puts them), on a cache line still,
 * so that both walk as many lines.  For experiments on placement: a load
 * that shares its low 12 address bits with a store still in flight can
 * wait for it on x86 cores ("4K aliasing").  The step cases run the series
 * on both sides: both take SERIES.
 */
static long vec_offset[2] = { -1, -1 };

static void fill_side(struct side *s, struct tree *t, int type, int op,
		      const struct nb_seg *segs, unsigned long nr,
		      unsigned long count, unsigned long chunk, void *xa,
		      unsigned long xa_start)
{
	s->tree = t;
	s->d.type = type;
	s->d.op = op;
	s->d.segs = segs;
	s->d.nr_segs = nr;
	s->d.count = count;
	s->d.chunk = chunk;
	s->d.buf = arena + LIN_OFF;
	/*
	 * Each side's kvec/iovec/bio_vec array starts on a cache line, so
	 * that both walk the same number of lines: with malloc()'s 16-byte
	 * alignment one side's array of 64 iovecs could span 17 lines and the
	 * other's 16 (make native-sim found it, one more L1 miss per call).
	 */
	{
		size_t bytes = (nr ? nr : 1) * t->nb.vec_size;
		long off = vec_offset[t == SERIES];

		bytes = (bytes + 63) & ~(size_t)63;
		if (off < 0)
			s->vecs_alloc = aligned_alloc(64, bytes);
		else	/* --vec-offsets: OFF bytes past a page boundary */
			s->vecs_alloc = aligned_alloc(PAGE_SIZE,
				(off + bytes + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1));
		if (!s->vecs_alloc)
			die("no memory");
		s->d.vecs = (unsigned char *)s->vecs_alloc + (off < 0 ? 0 : off);
		memset(s->d.vecs, 0, bytes);
	}
	s->d.xa = xa;
	s->d.xa_start = xa_start;
	s->d.inject = t == inject_tree ? inject : NB_INJECT_NONE;
	if (type != NB_UBUF && type != NB_XARRAY)
		t->prepare(&s->d);
}

static struct bcase *new_case(const char *group, const char *fmt, ...)
{
	struct bcase *c;
	va_list ap;
	char *name;

	if (nr_cases == MAX_CASES)
		die("too many cases");
	c = &cases[nr_cases++];
	va_start(ap, fmt);
	if (vasprintf(&name, fmt, ap) < 0)
		die("no memory");
	va_end(ap);
	c->name = name;
	c->group = group;
	return c;
}

/* One case, base against series: the same iterator shape in both. */
static void ab_case(const char *name, int type, int op, unsigned long count,
		    unsigned long frag, unsigned long chunk, void *xa)
{
	struct bcase *c = new_case("ab", "%s", name);
	unsigned long nr = 0;
	struct nb_seg *segs = NULL;

	if (type != NB_XARRAY)
		segs = make_segs((uintptr_t)arena + ITER_OFF, count,
				 type == NB_UBUF ? count : frag, &nr);
	fill_side(&c->a, BASE, type, op, segs, nr, count, chunk, xa, 0);
	fill_side(&c->b, SERIES, type, op, segs, nr, count, chunk, xa, 0);
	c->chunk_ref = frag;
}

static void step_case(const char *name, int type, int op, unsigned long frag)
{
	struct bcase *c = new_case("step", "%s", name);
	unsigned long nr;
	struct nb_seg *segs = make_segs((uintptr_t)arena + ITER_OFF, CASE_BYTES,
					frag, &nr);
	int ref = op == NB_WALK_INDIRECT ? NB_WALK : NB_STEP_INLINE;

	fill_side(&c->a, SERIES, type, ref, segs, nr, CASE_BYTES, CASE_BYTES, NULL, 0);
	fill_side(&c->b, SERIES, type, op, segs, nr, CASE_BYTES, CASE_BYTES, NULL, 0);
	c->chunk_ref = frag;
}

static void *xarrays[10];

static void build_xarrays(void)
{
	static const unsigned int orders[] = { 0, 2, 9 };
	unsigned int k;

	for (k = 0; k < 3; k++) {
		unsigned int order = orders[k];
		unsigned long pfn0 = XA_PFN + k * 512, idx;
		void *xa = calloc(1, SERIES->nb.xa_size);

		SERIES->xa_init(xa);
		for (idx = 0; idx < 512; idx += 1UL << order)
			if (SERIES->xa_add(xa, idx, pfn0 + idx, order))
				die("xa_add of an order-%u folio failed", order);
		xarrays[order] = xa;
	}
}

static void build_cases(void)
{
	static const unsigned long frags[] = { 64, 512, 4096 };
	static const int seg_types[] = { NB_KVEC, NB_IOVEC, NB_BVEC };
	static const unsigned int orders[] = { 0, 2, 9 };
	unsigned int f, t, k;

	/* the reference, in both trees: memcpy() in the same chunks (a null test) */
	for (f = 0; f < 3; f++) {
		char *name;

		asprintf(&name, "memcpy_%lu", frags[f]);
		ab_case(name, NB_KVEC, NB_MEMCPY_TO, CASE_BYTES, frags[f], CASE_BYTES, NULL);
	}

	/* iterators of fragments: one call over all of them */
	for (t = 0; t < 3; t++)
		for (f = 0; f < 3; f++)
			for (k = 0; k < 2; k++) {
				char *name;

				asprintf(&name, "%s_%s_%lu", type_name[seg_types[t]],
					 k ? "from" : "to", frags[f]);
				ab_case(name, seg_types[t], k ? NB_COPY_FROM : NB_COPY_TO,
					CASE_BYTES, frags[f], CASE_BYTES, NULL);
			}
	/* one user buffer, copied in calls of the fragment size */
	for (f = 0; f < 3; f++)
		for (k = 0; k < 2; k++) {
			char *name;

			asprintf(&name, "ubuf_%s_%lu", k ? "from" : "to", frags[f]);
			ab_case(name, NB_UBUF, k ? NB_COPY_FROM : NB_COPY_TO,
				CASE_BYTES, frags[f], frags[f], NULL);
		}
	/* multi-page bio_vecs: 16 KiB segments */
	for (k = 0; k < 2; k++) {
		char *name;

		asprintf(&name, "bvec_%s_16k", k ? "from" : "to");
		ab_case(name, NB_BVEC, k ? NB_COPY_FROM : NB_COPY_TO,
			4 * CASE_BYTES, 16384, 4 * CASE_BYTES, NULL);
	}
	/* large folios */
	for (f = 0; f < 3; f++)
		for (k = 0; k < 2; k++) {
			char *name;

			asprintf(&name, "xarray_%s_order%u", k ? "from" : "to", orders[f]);
			ab_case(name, NB_XARRAY, k ? NB_COPY_FROM : NB_COPY_TO,
				CASE_BYTES, 4096, CASE_BYTES, xarrays[orders[f]]);
		}
	/* the checksum copies (UDP's receive and send paths) */
	for (t = 0; t < 2; t++)
		for (f = 0; f < 2; f++)
			for (k = 0; k < 2; k++) {
				int ty = t ? NB_IOVEC : NB_KVEC;
				char *name;

				asprintf(&name, "csum_%s_%s_%lu", k ? "from" : "to",
					 type_name[ty], frags[f]);
				ab_case(name, ty, k ? NB_CSUM_FROM : NB_CSUM_TO,
					CASE_BYTES, frags[f], CASE_BYTES, NULL);
			}
	/* one user buffer imported, as a range and as one or two vectors, then
	 * copied into in one call: the iterator type is the import's choice */
	for (f = 0; f < 3; f++) {
		char *name;

		asprintf(&name, "import_range_to_%lu", frags[f]);
		ab_case(name, NB_UBUF, NB_IMPORT_TO, frags[f], frags[f], frags[f], NULL);
		asprintf(&name, "import_1vec_to_%lu", frags[f]);
		ab_case(name, NB_IOVEC, NB_IMPORTV_TO, frags[f], frags[f], frags[f], NULL);
		asprintf(&name, "import_2vec_to_%lu", frags[f]);
		ab_case(name, NB_IOVEC, NB_IMPORTV_TO, 2 * frags[f], frags[f],
			2 * frags[f], NULL);
	}
	/* the empty walk */
	for (t = 0; t < 3; t++) {
		char *name;

		asprintf(&name, "%s_walk_64", type_name[seg_types[t]]);
		ab_case(name, seg_types[t], NB_WALK, CASE_BYTES, 64, CASE_BYTES, NULL);
	}
	/* each copy of 32 KiB in calls or segments of a memcpy chunk gets that
	 * memcpy as its reference, timed in the same pairs */
	for (k = 0; k < (unsigned int)nr_cases; k++) {
		struct bcase *c = &cases[k];
		int op = c->a.d.op;

		if (op != NB_COPY_TO && op != NB_COPY_FROM && op != NB_CSUM_TO &&
		    op != NB_CSUM_FROM)
			continue;
		if (c->a.d.count != CASE_BYTES)
			continue;
		for (f = 0; f < 3; f++)
			if (c->chunk_ref == frags[f])
				c->ref = &cases[f];
	}
	/* inline and indirect steps (series only) */
	if (SERIES->nb.has_steps)
		for (t = 0; t < 3; t += 2) {
			int ty = seg_types[t];
			char *name;

			asprintf(&name, "%s_step_indirect_64", type_name[ty]);
			step_case(name, ty, NB_STEP_INDIRECT, 64);
			asprintf(&name, "%s_walk_indirect_64", type_name[ty]);
			step_case(name, ty, NB_WALK_INDIRECT, 64);
		}
}

/* ------------------------------------------------------------------------ */
/* Data checks: every timed sample's last call, every random shape. */

static unsigned char *expect;
static unsigned long rng_state = 88172645463325252UL;

static unsigned long rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void pattern(unsigned char *p, unsigned long len, unsigned long seed)
{
	unsigned long k;

	for (k = 0; k < len; k++)
		p[k] = (unsigned char)((k * 131 + seed * 7 + (k >> 8)) ^ seed);
}

/* The bytes of the iterator's memory, in iterator order. */
static unsigned char *seg_byte(const struct nb_desc *d, unsigned long pos)
{
	unsigned long k;

	for (k = 0; k < d->nr_segs; k++) {
		if (pos < d->segs[k].len)
			return (unsigned char *)d->segs[k].addr + pos;
		pos -= d->segs[k].len;
	}
	return NULL;
}

static unsigned long xa_arena_off(const struct nb_desc *d)
{
	unsigned int k;

	for (k = 0; k < 10; k++)
		if (xarrays[k] == d->xa)
			return (XA_PFN + (k == 0 ? 0 : k == 2 ? 1 : 2) * 512) * PAGE_SIZE;
	return 0;
}

static int op_from(int op)
{
	return op == NB_COPY_FROM || op == NB_CSUM_FROM;
}

/* The Internet checksum of @len bytes, folded and inverted as csum_fold()
 * leaves it: the model the checksum copies are checked against. */
static unsigned long model_csum(const unsigned char *p, unsigned long len)
{
	unsigned long sum = 0, k;

	for (k = 0; k + 1 < len; k += 2)
		sum += p[k] | p[k + 1] << 8;
	if (len & 1)
		sum += p[len - 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

/* Set the memory up for one run of @d, so that the result can be checked. */
static void poison(const struct nb_desc *d, unsigned long seed)
{
	unsigned long k;
	int to = !op_from(d->op);

	if (to) {
		pattern(d->buf, d->count, seed);
		for (k = 0; k < d->count; k++) {
			unsigned char *p = d->type == NB_XARRAY ?
				arena + xa_arena_off(d) + d->xa_start + k : seg_byte(d, k);
			*p = 0x5a;
		}
	} else {
		memset(d->buf, 0x5a, d->count);
		for (k = 0; k < d->count; k++) {
			unsigned char *p = d->type == NB_XARRAY ?
				arena + xa_arena_off(d) + d->xa_start + k : seg_byte(d, k);
			*p = (unsigned char)((k * 131 + seed * 7 + (k >> 8)) ^ seed);
		}
	}
}

/*
 * The iterator after all of @d->count bytes went through it, in both trees:
 * count 0; a UBUF's iov_offset is the bytes consumed and its nr_segs what
 * iov_iter_ubuf() set (6.1: 0; the series: 1, as mainline); an XARRAY's iov_offset is the bytes consumed (nr_segs 0); a
 * segment array stands just past its last non-empty segment (empty ones
 * after it are not stepped over), at offset 0.
 */
static int state_ok(const struct tree *t, const struct nb_desc *d,
		    const struct nb_state *st, char *why, size_t whylen)
{
	unsigned long off = 0, nr = 0, k;

	if (st->ubuf) {
		off = d->count;
		nr = t->nb.ubuf_nr_segs;
	} else if (d->type == NB_XARRAY) {
		off = d->count;
	} else {
		for (k = d->nr_segs; k > 0 && !d->segs[k - 1].len; k--)
			nr++;
	}
	if (st->ubuf != (d->type == NB_UBUF) && d->op != NB_IMPORT_TO &&
	    d->op != NB_IMPORTV_TO) {
		snprintf(why, whylen, "the iterator is %san ITER_UBUF", st->ubuf ? "" : "not ");
		return 0;
	}
	if (st->count != 0)
		snprintf(why, whylen, "iterator count %lu after the run, not 0", st->count);
	else if (st->iov_offset != off)
		snprintf(why, whylen, "iov_offset %lu after the run, not %lu", st->iov_offset, off);
	else if (st->nr_segs != nr)
		snprintf(why, whylen, "nr_segs %lu after the run, not %lu", st->nr_segs, nr);
	else
		return 1;
	return 0;
}

/* Did the run move @d->count bytes the right way? 0 if so. */
static int verify(const struct side *s, unsigned long seed,
		  const struct nb_state *st, char *why, size_t whylen)
{
	const struct nb_desc *d = &s->d;
	const struct tree *t = s->tree;
	unsigned long k, want_ret = d->count;
	int to = !op_from(d->op);

	if (d->op != NB_MEMCPY_TO && !state_ok(t, d, st, why, whylen))
		return 1;
	if (d->op == NB_WALK || d->op == NB_WALK_INDIRECT) {
		if (st->ret != want_ret) {
			snprintf(why, whylen, "walk returned %lu of %lu bytes", st->ret, want_ret);
			return 1;
		}
		return 0;
	}
	if (st->ret != want_ret) {
		snprintf(why, whylen, "returned %lu of %lu bytes", st->ret, want_ret);
		return 1;
	}
	pattern(expect, d->count, seed);
	for (k = 0; k < d->count; k++) {
		unsigned char *p = d->type == NB_XARRAY ?
			arena + xa_arena_off(d) + d->xa_start + k : seg_byte(d, k);
		unsigned char got = to ? *p : ((unsigned char *)d->buf)[k];

		if (got != expect[k]) {
			snprintf(why, whylen, "byte %lu is %#x, not %#x", k, got, expect[k]);
			return 1;
		}
	}
	if ((d->op == NB_CSUM_TO || d->op == NB_CSUM_FROM) &&
	    st->csum != model_csum(expect, d->count)) {
		snprintf(why, whylen, "checksum %#lx, not %#lx", st->csum,
			 model_csum(expect, d->count));
		return 1;
	}
	return 0;
}

static void check_side(const struct bcase *c, const struct side *s, unsigned long seed)
{
	struct nb_state st;
	char why[160];

	poison(&s->d, seed);
	s->tree->run(&s->d, 1, &st);
	if (verify(s, seed, &st, why, sizeof(why)))
		die("%s, %s kernel: %s", c->name, s->tree->name, why);
}

/* Random iterator shapes, both trees, against the flat model of the copy. */
static int random_shapes(unsigned long nr)
{
	unsigned long n;
	int types[] = { NB_UBUF, NB_IOVEC, NB_KVEC, NB_BVEC };

	for (n = 0; n < nr; n++) {
		struct nb_seg segs[16];
		unsigned long nseg = 1 + rnd() % 16, k, pos = (uintptr_t)arena + ITER_OFF;
		unsigned long count = 0;
		int type = types[rnd() % 4], t;

		if (type == NB_UBUF)
			nseg = 1;
		for (k = 0; k < nseg; k++) {
			pos += rnd() % 300;
			segs[k].addr = pos;
			segs[k].len = rnd() % 5 == 0 ? 0 : rnd() % 9000;
			if (type == NB_UBUF && !segs[k].len)
				segs[k].len = 1;
			pos += segs[k].len;
			count += segs[k].len;
		}
		if (!count)
			continue;
		static const int ops[] = { NB_COPY_TO, NB_COPY_FROM, NB_CSUM_TO, NB_CSUM_FROM };
		int op = ops[rnd() % 4];
		unsigned long chunk = 1 + rnd() % (count + 64);

		for (t = 0; t < 2; t++) {
			struct side s;
			struct bcase c = { .name = "random shape" };

			fill_side(&s, &trees[t], type, op, segs, nseg, count,
				  chunk, NULL, 0);
			check_side(&c, &s, n);
			free(s.vecs_alloc);
		}
	}
	return 0;
}

/* A user copy that runs into a guard page: both trees copy the same bytes
 * and report the same short count (the kernel's fixup, taken here). */
static void fault_check(void)
{
	unsigned char *guard = arena + ITER_OFF + 8 * PAGE_SIZE;
	int types[] = { NB_UBUF, NB_IOVEC };
	unsigned long got[2][2][2];
	unsigned int t, k, op;

	if (mprotect(guard, PAGE_SIZE, PROT_NONE))
		die("mprotect of the guard page: %s", strerror(errno));
	for (k = 0; k < 2; k++)
		for (op = 0; op < 2; op++)
			for (t = 0; t < 2; t++) {
				struct nb_seg seg = { (uintptr_t)guard - 100, 8000 };
				struct side s;
				struct nb_state st;

				fill_side(&s, &trees[t], types[k], op ? NB_COPY_FROM : NB_COPY_TO,
					  &seg, 1, seg.len, seg.len, NULL, 0);
				memset(s.d.buf, 0x11, seg.len);
				trees[t].run(&s.d, 1, &st);
				got[k][op][t] = st.ret;
				if (st.ret > 100)
					die("%s %s over a guard page: %lu bytes copied, at most 100 "
					    "were reachable", type_name[types[k]],
					    op ? "copy_from_iter" : "copy_to_iter", st.ret);
				free(s.vecs_alloc);
			}
	if (mprotect(guard, PAGE_SIZE, PROT_READ | PROT_WRITE))
		die("mprotect: %s", strerror(errno));
	for (k = 0; k < 2; k++)
		for (op = 0; op < 2; op++)
			if (got[k][op][0] != got[k][op][1])
				die("%s %s over a guard page: base copied %lu bytes, series %lu",
				    type_name[types[k]], op ? "from" : "to",
				    got[k][op][0], got[k][op][1]);
	printf("# fault check: ubuf/iovec copy_to/from_iter over a guard page: short copies "
	       "of %lu/%lu/%lu/%lu bytes in both kernels (%ld faults fixed up)\n",
	       got[0][0][0], got[0][1][0], got[1][0][0], got[1][1][0], faults_fixed);
}

/* ------------------------------------------------------------------------ */
/* Measuring one case: pairs of batches, order alternating, until the median
 * ratio's 95% CI is narrow enough or the time is up. */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned long n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The distribution-free 95% CI of a median, from the order statistics. */
static void median_ci(double *v, unsigned long n, double *lo, double *hi)
{
	double h = 1.96 * sqrt((double)n) / 2;
	/* ranks n/2 -+ 1.96 sqrt(n)/2, counted from 1: the lower one is
	 * index rank - 1, the upper one index rank (rank + 1 counted from 1) */
	long l = (long)floor(n / 2.0 - h) - 1, u = (long)ceil(n / 2.0 + h);

	qsort(v, n, sizeof(*v), cmp_double);
	if (l < 0)
		l = 0;
	if (u > (long)n - 1)
		u = n - 1;
	*lo = v[l];
	*hi = v[u];
}

static uint64_t time_batch(const struct side *s, unsigned int reps)
{
	uint64_t t0 = rdtsc_ordered();

	s->tree->run(&s->d, reps, NULL);
	return rdtsc_ordered() - t0;
}

struct opts {
	int smoke;
	int checks_only;	/* the start-up checks and one check of every case */
	double target;		/* CI half-width, relative */
	double max_seconds;	/* per case */
	unsigned long min_pairs, max_pairs;
	unsigned long batch_cycles;	/* the length of one batch */
	int cpu;
	const char *only;
	int mitigations_only;	/* print the mitigations chosen and stop */
	unsigned long sim;	/* --sim=N: N calls of one side, untimed */
	int sim_side;		/* --sim-side=a|b: 0 (a, the base) or 1 (b) */
};

/* The median of @n values and its distribution-free 95% CI; sorts @v. */
static void median_and_ci(double *v, unsigned long n, double *m, double *lo, double *hi)
{
	median_ci(v, n, lo, hi);
	*m = n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Check both sides of @c (and of its reference) on the data of pair @n. */
static void check_pair(const struct bcase *c, unsigned long n)
{
	const struct side *sides[4] = { &c->a, &c->b, c->ref ? &c->ref->a : NULL,
					c->ref ? &c->ref->b : NULL };
	struct nb_state st;
	char why[200];
	int k;

	for (k = 0; k < 4 && sides[k]; k++) {
		poison(&sides[k]->d, n + k);
		sides[k]->tree->run(&sides[k]->d, 1, &st);
		if (verify(sides[k], n + k, &st, why, sizeof(why)))
			die("%s%s, %s kernel, pair %lu: %s", c->name,
			    k >= 2 ? "'s memcpy reference" : "",
			    sides[k]->tree->name, n, why);
	}
}

/*
 * A pair is one batch of calls on each side, the order alternating from
 * pair to pair; a case with a memcpy reference also times the reference in
 * both trees within the same pair (ref a, a, b, ref b, then mirrored), so
 * that each pair gives each tree's overhead (case minus reference) from
 * batches run next to each other.  The ratio is the median of the pairs'
 * b/a, with its distribution-free 95% CI; the overhead difference the
 * median of the pairs' (b - ref b) - (a - ref a), with its CI, per call.
 */
static void measure(const struct bcase *c, const struct opts *o, FILE *out)
{
	unsigned long max = o->max_pairs, n = 0, k;
	double *ra = malloc(max * sizeof(double)), *ca = malloc(max * sizeof(double));
	double *cb = malloc(max * sizeof(double)), *tmp = malloc(max * sizeof(double));
	double *oa = malloc(max * sizeof(double)), *ob = malloc(max * sizeof(double));
	double *od = malloc(max * sizeof(double));
	const struct side *xa = c->ref ? &c->ref->a : NULL, *xb = c->ref ? &c->ref->b : NULL;
	unsigned int reps = 1;
	double t0, lo = 0, hi = 0, ratio = 0;
	uint64_t one;

	/* check every side, then warm up and size the batch (40k cycles unless
	 * --batch-cycles= says otherwise) */
	check_pair(c, 1);
	for (k = 0; k < 20; k++) {
		time_batch(&c->a, 1);
		time_batch(&c->b, 1);
	}
	one = time_batch(&c->a, 16) / 16;
	if (one == 0)
		one = 1;
	reps = o->batch_cycles / one;
	if (reps < 1)
		reps = 1;
	if (o->smoke)
		reps = reps > 4 ? 4 : reps;

	t0 = now_s();
	while (n < max) {
		uint64_t a, b, x = 0, y = 0;

		if (n & 1) {
			if (xb)
				y = time_batch(xb, reps);
			b = time_batch(&c->b, reps);
			a = time_batch(&c->a, reps);
			if (xa)
				x = time_batch(xa, reps);
		} else {
			if (xa)
				x = time_batch(xa, reps);
			a = time_batch(&c->a, reps);
			b = time_batch(&c->b, reps);
			if (xb)
				y = time_batch(xb, reps);
		}
		ca[n] = (double)a / reps;
		cb[n] = (double)b / reps;
		ra[n] = (double)b / a;
		oa[n] = ca[n] - (double)x / reps;
		ob[n] = cb[n] - (double)y / reps;
		od[n] = ob[n] - oa[n];
		n++;
		/* every 64th pair: the data of every side again */
		if ((n & 63) == 0)
			check_pair(c, n);
		if (n >= o->min_pairs && (n % 50 == 0 || n == max)) {
			memcpy(tmp, ra, n * sizeof(double));
			median_and_ci(tmp, n, &ratio, &lo, &hi);
			if ((hi - lo) / 2 <= o->target * ratio)
				break;
			if (now_s() - t0 > o->max_seconds)
				break;
		}
	}
	check_pair(c, n);
	memcpy(tmp, ra, n * sizeof(double));
	median_and_ci(tmp, n, &ratio, &lo, &hi);
	{
		double ma = median(ca, n), mb = median(cb, n);
		double moa = 0, mob = 0, mod = 0, dlo = 0, dhi = 0;

		if (c->ref) {
			moa = median(oa, n);
			mob = median(ob, n);
			median_and_ci(od, n, &mod, &dlo, &dhi);
		}
		fprintf(out, "%s\t%s\t%s\t%s\t%s\t%lu\t%lu\t%.1f\t%.1f\t%.1f\t%.1f\t%.4f\t%.4f\t%.4f\t%lu\t%u",
			c->name, c->group, type_name[c->a.d.type], c->a.tree->name,
			c->b.tree->name, c->a.d.count, c->chunk_ref,
			ma, mb, ma * 1e9 / tsc_hz, mb * 1e9 / tsc_hz,
			ratio, lo, hi, n, reps);
		if (c->ref)
			fprintf(out, "\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\n", c->ref->name,
				moa, mob, mod, dlo, dhi);
		else
			fprintf(out, "\t-\t-\t-\t-\t-\t-\n");
		fflush(out);
	}
	free(ra);
	free(ca);
	free(cb);
	free(tmp);
	free(oa);
	free(ob);
	free(od);
}

/*
 * --sim=N --sim-side=a|b --only=CASE: for a simulator (make native-sim runs
 * this under valgrind): the case's data checked, 20 calls to warm up, then
 * N calls of one side inside sim_region(), the function callgrind collects
 * in (--toggle-collect=sim_region), and nothing timed.  A run with 2N calls
 * minus one with N gives cachegrind's counts of N calls.
 */
static __attribute__((noinline)) void sim_region(const struct side *s, unsigned long n)
{
	while (n) {
		unsigned int reps = n > 1000000 ? 1000000 : n;

		s->tree->run(&s->d, reps, NULL);
		n -= reps;
	}
	asm volatile("" : : : "memory");
}

static void simulate(const struct bcase *c, const struct opts *o)
{
	const struct side *s = o->sim_side ? &c->b : &c->a;
	int k;

	check_pair(c, 1);
	for (k = 0; k < 20; k++)
		s->tree->run(&s->d, 1, NULL);
	sim_region(s, o->sim);
	printf("# sim: %s, side %s (the %s tree), %lu calls\n", c->name,
	       o->sim_side ? "b" : "a", s->tree->name, o->sim);
}

/* ------------------------------------------------------------------------ */

static void usage(void)
{
	fprintf(stderr,
		"usage: native-bench [--smoke] [--target=REL] [--max-seconds=S]\n"
		"                    [--max-pairs=N] [--batch-cycles=N] [--cpu=N] [--only=PREFIX]\n"
		"                    [--out=FILE]\n"
		"                    [--rethunk=none|retbleed|srso|srso_alias|its]\n"
		"                    [--retpoline=on|off] [--checks-only] [--mitigations-only]\n"
		"                    [--cpuid=VENDOR:FAMILY[:MODEL][:eibrs][:autoibrs]] [--sysfs=DIR]\n"
		"                    [--inject=walk-ret|iov-offset|nr-segs] [--inject-side=base|series]\n"
		"                    [--sim=N --sim-side=a|b --only=CASE]\n"
		"                    [--vec-offsets=BASE,SERIES]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct opts o = { 0, 0, 0.004, 20, 200, 200000, 40000, -1, NULL };
	const char *outpath = NULL;
	struct sigaction sa;
	cpu_set_t set;
	FILE *out = stdout;
	int k;

	for (k = 1; k < argc; k++) {
		if (!strcmp(argv[k], "--smoke"))
			o.smoke = 1;
		else if (!strcmp(argv[k], "--checks-only"))
			o.checks_only = 1;
		else if (!strncmp(argv[k], "--target=", 9))
			o.target = atof(argv[k] + 9);
		else if (!strncmp(argv[k], "--max-seconds=", 14))
			o.max_seconds = atof(argv[k] + 14);
		else if (!strncmp(argv[k], "--max-pairs=", 12))
			o.max_pairs = strtoul(argv[k] + 12, NULL, 0);
		else if (!strncmp(argv[k], "--batch-cycles=", 15))
			o.batch_cycles = strtoul(argv[k] + 15, NULL, 0);
		else if (!strncmp(argv[k], "--cpu=", 6))
			o.cpu = atoi(argv[k] + 6);
		else if (!strncmp(argv[k], "--only=", 7))
			o.only = argv[k] + 7;
		else if (!strncmp(argv[k], "--out=", 6))
			outpath = argv[k] + 6;
		else if (!strncmp(argv[k], "--rethunk=", 10))
			rethunk = rethunk_index(argv[k] + 10);
		else if (!strcmp(argv[k], "--retpoline=on") || !strcmp(argv[k], "--retpoline=off"))
			retpoline = argv[k][13] == 'n';
		else if (!strncmp(argv[k], "--cpuid=", 8))
			parse_host(argv[k] + 8);
		else if (!strncmp(argv[k], "--sysfs=", 8))
			host.sysfs = argv[k] + 8;
		else if (!strcmp(argv[k], "--mitigations-only"))
			o.mitigations_only = 1;
		else if (!strncmp(argv[k], "--inject=", 9))
			inject = inject_index(argv[k] + 9);
		else if (!strcmp(argv[k], "--inject-side=base"))
			inject_tree = BASE;
		else if (!strcmp(argv[k], "--inject-side=series"))
			inject_tree = SERIES;
		else if (!strncmp(argv[k], "--sim=", 6)) {
			char *end;

			o.sim = strtoul(argv[k] + 6, &end, 10);
			if (!o.sim || *end)
				die("--sim=%s: a number of calls, 1 or more", argv[k] + 6);
		}
		else if (!strncmp(argv[k], "--vec-offsets=", 14)) {
			const char *p = argv[k] + 14;
			char *end;
			int t;

			for (t = 0; t < 2; t++) {
				vec_offset[t] = strtol(p, &end, 0);
				if (end == p || *end != (t ? '\0' : ',') || vec_offset[t] < 0 ||
				    vec_offset[t] >= (long)PAGE_SIZE || vec_offset[t] & 63)
					die("--vec-offsets=%s: BASE,SERIES, each a multiple of 64 below 4096",
					    argv[k] + 14);
				p = end + 1;
			}
		}
		else if (!strcmp(argv[k], "--sim-side=a") || !strcmp(argv[k], "--sim-side=b"))
			o.sim_side = argv[k][11] == 'b';
		else
			usage();
	}
	if (!inject_tree)
		inject_tree = SERIES;
	if (o.smoke) {
		o.min_pairs = 8;
		o.max_pairs = 8;
	}
	if (o.max_pairs < o.min_pairs)
		o.min_pairs = o.max_pairs;

	/* the kernel objects read their stack canary at %gs:40 */
	if (syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)fake_gs))
		die("arch_prctl(ARCH_SET_GS): %s", strerror(errno));
	memset(fake_gs + 40, 0x6b, 8);
#ifdef NB_SMP
	*(void **)(fake_gs + PCPU_CURRENT_TASK) = fake_task;
#endif

	BASE->info(&BASE->nb);
	SERIES->info(&SERIES->nb);
	if (memcmp(&BASE->nb.f_always, &SERIES->nb.f_always, 8 * sizeof(int)) ||
	    BASE->nb.page_struct_size != SERIES->nb.page_struct_size)
		die("the two trees disagree on X86_FEATURE_* numbers or struct page");
	detect_features(&SERIES->nb);
	if (o.mitigations_only) {
		print_mitigations(0);
		return 0;
	}
	check_mitigations();
	apply_retpolines();
	apply_returns();
	apply_alternatives();

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sa.sa_sigaction = on_sigill;
	sigaction(SIGILL, &sa, NULL);

	if (o.cpu < 0)
		o.cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	CPU_ZERO(&set);
	CPU_SET(o.cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity(cpu %d): %s", o.cpu, strerror(errno));

	arena_init(&SERIES->nb);
	expect = malloc(ITER_OFF);
	/* (a busy wait of 0.2 s: under a simulator, a count that varies) */
	if (!o.sim)
		calibrate_tsc();
	build_xarrays();

	printf("# native-bench: cpu %d, TSC %.3f GHz; this kernel's spectre_v2: %s\n", o.cpu,
	       tsc_hz / 1e9, mitigation[0] ? mitigation : "unknown");
	printf("# features: rep_good=%d erms=%d fsrm=%d; %d alternatives patched\n",
	       has_feature(SERIES->nb.f_rep_good), has_feature(SERIES->nb.f_erms),
	       has_feature(SERIES->nb.f_fsrm), patched_alts);
	print_mitigations(1);
	/*
	 * Under a simulator (--sim) the fault checks cannot pass: valgrind
	 * runs a faulting rep movs in steps of its own, so a copy stops a
	 * few bytes off where the CPU stops.  The case's own data is still
	 * checked (simulate()).
	 */
	if (!o.sim) {
		fault_check();
		random_shapes(o.smoke ? 300 : 3000);
		printf("# random shapes: %d iterators, both kernels, byte-exact against the model\n",
		       o.smoke ? 300 : 3000);
	}

	build_cases();
	if (o.sim) {
		for (k = 0; k < nr_cases; k++)
			if (o.only && !strcmp(o.only, cases[k].name))
				break;
		if (k == nr_cases)
			die("--sim needs --only=CASE, the whole name of one case");
		simulate(&cases[k], &o);
		return 0;
	}
	if (outpath) {
		out = fopen(outpath, "w");
		if (!out)
			die("%s: %s", outpath, strerror(errno));
	}
	fprintf(out, "case\tgroup\ttype\ta\tb\tbytes\tfrag\ta_cycles\tb_cycles\ta_ns\tb_ns\t"
		"ratio\tci_lo\tci_hi\tpairs\treps\tref\tov_a\tov_b\tov_diff\tov_diff_lo\t"
		"ov_diff_hi\n");
	if (o.only) {
		for (k = 0; k < nr_cases; k++)
			if (!strncmp(o.only, cases[k].name, strlen(o.only)))
				break;
		if (k == nr_cases)
			die("--only=%s: no case's name starts with it", o.only);
	}
	for (k = 0; k < nr_cases; k++) {
		/* --only=PREFIX: the cases whose names start with it */
		if (o.only && strncmp(o.only, cases[k].name, strlen(o.only)))
			continue;
		if (o.checks_only) {
			check_pair(&cases[k], 1);
			continue;
		}
		if (o.only)
			fprintf(stderr, "native-bench: %s: segment arrays at page offsets %#lx (a), %#lx (b)\n",
				cases[k].name,
				(unsigned long)(uintptr_t)cases[k].a.d.vecs & (PAGE_SIZE - 1),
				(unsigned long)(uintptr_t)cases[k].b.d.vecs & (PAGE_SIZE - 1));
		measure(&cases[k], &o, out);
		if (out != stdout)
			fprintf(stderr, "native-bench: %s done\n", cases[k].name);
	}
	if (out != stdout)
		fclose(out);
	return 0;
}
