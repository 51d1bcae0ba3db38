// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel side of the native harness: compiled with the compiler command
 * line of one tree's lib/iov_iter.o, against that tree's headers, and linked
 * with that tree's lib/iov_iter.o only.  It builds the iterators of that tree
 * and calls that tree's copy functions, so that the runtime (runtime.c) can
 * time base and series in one process.
 *
 * NB_TREE names the tree (base or series).  NB_HAVE_STEPS is set for a tree
 * with <linux/iov_iter.h> (the inline step functions); a tree without it gets
 * its iteration macros from nb_base_macros.h, which ci/native-bench.sh cuts
 * out of that tree's lib/iov_iter.c.
 */
#include <linux/bvec.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/xarray.h>
#include <asm/cpufeatures.h>
#include <net/checksum.h>
#include "nb_abi.h"

#ifdef NB_HAVE_STEPS
#include <linux/iov_iter.h>
#else
#include "nb_base_macros.h"
#endif

/*
 * A tree whose checksum copies live in net/ (the series): ci/native-bench.sh
 * cuts them out of net/core/datagram.c and skbuff.c and compiles them as a
 * translation unit of their own (net_csum.c), the rest of those objects
 * being out of reach of a userspace process.  This file calls them out of
 * line, as the other tree's glue calls the ones in its lib/iov_iter.o.
 */
#ifdef NB_NET_CSUM
#include <linux/skbuff.h>
#include "nb_net_csum_state.h"
size_t csum_and_copy_to_iter(const void *addr, size_t bytes, void *_csstate,
			     struct iov_iter *i);
#endif

/*
 * Where the empty step leaves its trace, so that the walk is not elided.
 * The walk cases add to it once a segment, a load and a store on one
 * address, so each tree's gets a cache line of its own at the same offset
 * in it: linked side by side, the two shared a line at different offsets.
 */
unsigned long NB(sink) __aligned(64);

union nb_vec {
	struct kvec kvec;
	struct iovec iovec;
	struct bio_vec bvec;
};

void NB(info)(struct nb_info *info)
{
	struct iov_iter ubuf;

	iov_iter_ubuf(&ubuf, READ, (void __user *)PAGE_SIZE, 1);
	info->ubuf_nr_segs = ubuf.nr_segs;
	info->page_struct_size = sizeof(struct page);
	info->vec_size = sizeof(union nb_vec);
	info->xa_size = sizeof(struct xarray);
	info->xa_node_size = sizeof(struct xa_node);
#ifdef NB_HAVE_STEPS
	info->has_steps = 1;
#else
	info->has_steps = 0;
#endif
	info->f_always = X86_FEATURE_ALWAYS;
	info->f_rep_good = X86_FEATURE_REP_GOOD;
	info->f_erms = X86_FEATURE_ERMS;
	info->f_fsrm = X86_FEATURE_FSRM;
	info->f_retpoline = X86_FEATURE_RETPOLINE;
	info->f_retpoline_lfence = X86_FEATURE_RETPOLINE_LFENCE;
	info->f_rethunk = X86_FEATURE_RETHUNK;
	info->f_lfence_rdtsc = X86_FEATURE_LFENCE_RDTSC;
}

static struct page *nb_page(unsigned long addr)
{
	return pfn_to_page((addr - page_offset_base) >> PAGE_SHIFT);
}

/* Fill d->vecs with this tree's segment array for d->segs. */
void NB(prepare)(struct nb_desc *d)
{
	union nb_vec *v = d->vecs;
	unsigned long k;

	for (k = 0; k < d->nr_segs; k++) {
		unsigned long addr = d->segs[k].addr, len = d->segs[k].len;

		switch (d->type) {
		case NB_IOVEC:
			v[k].iovec.iov_base = (void __user *)addr;
			v[k].iovec.iov_len = len;
			break;
		case NB_KVEC:
			v[k].kvec.iov_base = (void *)addr;
			v[k].kvec.iov_len = len;
			break;
		case NB_BVEC:
			v[k].bvec.bv_page = nb_page(addr);
			v[k].bvec.bv_offset = offset_in_page(addr);
			v[k].bvec.bv_len = len;
			break;
		}
	}
}

static void nb_init(const struct nb_desc *d, struct iov_iter *i,
		    unsigned int dir)
{
	switch (d->type) {
	case NB_UBUF:
		iov_iter_ubuf(i, dir, (void __user *)d->segs[0].addr, d->count);
		break;
	case NB_IOVEC:
		iov_iter_init(i, dir, d->vecs, d->nr_segs, d->count);
		break;
	case NB_KVEC:
		iov_iter_kvec(i, dir, d->vecs, d->nr_segs, d->count);
		break;
	case NB_BVEC:
		iov_iter_bvec(i, dir, d->vecs, d->nr_segs, d->count);
		break;
	case NB_XARRAY:
		iov_iter_xarray(i, dir, d->xa, d->xa_start, d->count);
		break;
	}
}

#ifdef NB_HAVE_STEPS
static size_t NB(ustep_none)(void __user *base, size_t progress, size_t len,
			     void *priv, void *priv2)
{
	NB(sink) += (unsigned long)base + len;
	return 0;
}

static size_t NB(step_none)(void *base, size_t progress, size_t len,
			    void *priv, void *priv2)
{
	NB(sink) += (unsigned long)base + len;
	return 0;
}

static size_t nb_ustep_to(void __user *base, size_t progress, size_t len,
			  void *priv, void *priv2)
{
	if (!access_ok(base, len))
		return len;
	return raw_copy_to_user(base, priv + progress, len);
}

static size_t nb_step_to(void *base, size_t progress, size_t len,
			 void *priv, void *priv2)
{
	memcpy(base, priv + progress, len);
	return 0;
}

/* The step pointers come through volatile variables so that no clone of the
 * walker below can know them: every step is a real indirect call. */
static iov_ustep_f volatile nb_ustep_to_ptr = nb_ustep_to;
static iov_step_f volatile nb_step_to_ptr = nb_step_to;
static iov_ustep_f volatile nb_ustep_none_ptr = NB(ustep_none);
static iov_step_f volatile nb_step_none_ptr = NB(step_none);

static noinline size_t nb_iterate_indirect(struct iov_iter *i, size_t n,
					   void *priv, iov_ustep_f ustep,
					   iov_step_f step)
{
	return iterate_and_advance(i, n, priv, ustep, step);
}
#endif

/*
 * The empty walk: lengths and addresses only.  It returns what the walker
 * says it walked: the steps' return value, or for the macros the n that
 * they set to the bytes processed (n = off at their end).  @extra is the
 * walk-return fault of the self-tests.
 */
static noinline size_t nb_walk(struct iov_iter *i, size_t n, size_t extra)
{
#ifdef NB_HAVE_STEPS
	return iterate_and_advance(i, n, NULL,
				   NB(ustep_none), NB(step_none)) + extra;
#else
	iterate_and_advance(i, n, base, len, off,
			    (NB(sink) += (unsigned long)base + len, 0),
			    (NB(sink) += (unsigned long)base + len, 0));
	return n + extra;
#endif
}

/*
 * NB_MEMCPY_TO, the floor: memcpy() of each segment in turn, the same bytes
 * and chunks as the iterator cases, in the leanest loop.  Out of line, so
 * that both trees run the same instructions: inlined into NB(run), its
 * loop took the registers and alignment of each tree's NB(run), and the
 * null rows differed by 2.5% over 32 random layouts.
 */
static noinline size_t nb_memcpy_to(const struct nb_desc *d, void *buf)
{
	const struct nb_seg *s = d->segs, *end = s + d->nr_segs;
	void *p = buf;

	for (; s < end; s++) {
		memcpy((void *)s->addr, p, s->len);
		p += s->len;
	}
	return p - buf;
}

/* The checksum copies, the state reset at the first call of a rep. */
static __always_inline size_t nb_csum_to(void *buf, size_t n, struct iov_iter *i,
					 struct csum_state *cs, bool first)
{
	if (first) {
		cs->csum = 0;
		cs->off = 0;
	}
	return csum_and_copy_to_iter(buf, n, cs, i);
}

/* As ip_generic_getfrag() callers do: each call's checksum starts at 0
 * and is added at its offset in the whole. */
static __always_inline size_t nb_csum_from(void *buf, size_t n,
					   struct iov_iter *i, __wsum *sum,
					   size_t done)
{
	__wsum part = 0;

	if (!done)
		*sum = 0;
	if (!csum_and_copy_from_iter_full(buf, n, &part, i))
		return 0;
	*sum = csum_block_add(*sum, part, done);
	return n;
}

/*
 * Run @reps times: build the iterator, then consume it in calls of
 * d->chunk bytes.  Each op has its own loop so that no op pays for the
 * choice of another.
 */
#define NB_LOOP(call)							\
	for (r = 0; r < reps; r++) {					\
		size_t done = 0;					\
									\
		nb_init(d, &i, dir);					\
		ret = 0;						\
		while (done < d->count) {				\
			size_t n = min(d->chunk, d->count - done);	\
			size_t got = (call);				\
									\
			ret += got;					\
			done += n;					\
		}							\
	}

unsigned long NB(run)(const struct nb_desc *d, unsigned int reps,
		      struct nb_state *st)
{
	unsigned int dir = d->op == NB_COPY_FROM || d->op == NB_CSUM_FROM ? WRITE : READ;
	struct iov_iter i;
	unsigned int r;
	size_t ret = 0;
	void *buf = d->buf;
	unsigned long csum = 0;
	struct csum_state cs;
	__wsum sum;

	switch (d->op) {
	case NB_COPY_TO:
		NB_LOOP(copy_to_iter(buf + done, n, &i));
		break;
	case NB_COPY_FROM:
		NB_LOOP(copy_from_iter(buf + done, n, &i));
		break;
	case NB_WALK:
		NB_LOOP(nb_walk(&i, n, d->inject == NB_INJECT_WALK_RET));
		break;
	case NB_MEMCPY_TO:
		NB_LOOP(nb_memcpy_to(d, buf));
		break;
#ifdef NB_HAVE_STEPS
	case NB_STEP_INLINE:
		NB_LOOP(iterate_and_advance(&i, n, buf + done,
					    nb_ustep_to, nb_step_to));
		break;
	case NB_STEP_INDIRECT:
		NB_LOOP(nb_iterate_indirect(&i, n, buf + done,
					    nb_ustep_to_ptr, nb_step_to_ptr));
		break;
	case NB_WALK_INDIRECT:
		NB_LOOP(nb_iterate_indirect(&i, n, NULL, nb_ustep_none_ptr,
					    nb_step_none_ptr));
		break;
#endif
	case NB_CSUM_TO:
		NB_LOOP(nb_csum_to(buf + done, n, &i, &cs, done == 0));
		csum = csum_fold(cs.csum);
		break;
	case NB_CSUM_FROM:
		NB_LOOP(nb_csum_from(buf + done, n, &i, &sum, done));
		csum = csum_fold(sum);
		break;
	/*
	 * What a read(2)-like call does with one user buffer: import it, then
	 * copy into it.  The import decides the iterator type: a one-segment
	 * ITER_IOVEC or, where the tree has the single-buffer imports,
	 * ITER_UBUF.
	 */
	case NB_IMPORT_TO:
		for (r = 0; r < reps; r++) {
			struct iovec iov;

			if (import_single_range(READ, (void __user *)d->segs[0].addr,
						d->count, &iov, &i))
				return 0;
			ret = copy_to_iter(buf, d->count, &i);
		}
		break;
	case NB_IMPORTV_TO:
		for (r = 0; r < reps; r++) {
			struct iovec fast[UIO_FASTIOV], *iov = fast;

			if (__import_iovec(READ, (const struct iovec __user *)d->vecs,
					   d->nr_segs, UIO_FASTIOV, &iov, &i,
					   false) < 0)
				return 0;
			ret = copy_to_iter(buf, d->count, &i);
		}
		break;
	default:
		return 0;
	}
	if (d->inject == NB_INJECT_IOV_OFFSET)
		i.iov_offset++;
	if (d->inject == NB_INJECT_NR_SEGS)
		i.nr_segs++;
	if (st) {
		st->csum = csum;
		st->ret = ret;
		st->count = iov_iter_count(&i);
		st->iov_offset = i.iov_offset;
		st->nr_segs = i.nr_segs;
		st->ubuf = iter_is_ubuf(&i);
	}
	return ret;
}

/* The xarray of NB_XARRAY: a page-cache-like mapping of folios. */
void NB(xa_init)(void *xa)
{
	xa_init(xa);
}

/* Make the pages at @pfn a folio of @order at @index, and store it. */
int NB(xa_add)(void *xa, unsigned long index, unsigned long pfn,
	       unsigned int order)
{
	struct page *page = pfn_to_page(pfn);
	XA_STATE_ORDER(xas, xa, index, order);
	unsigned long k;

	page->index = index;
	if (order) {
		__SetPageHead(page);
		set_compound_order(page, order);
		for (k = 1; k < (1UL << order); k++)
			set_compound_head(page + k, page);
	}
	xas_lock(&xas);
	xas_store(&xas, page_folio(page));
	xas_unlock(&xas);
	return xas_error(&xas);
}
