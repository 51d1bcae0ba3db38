// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for bench/native/glue.c with no kernel behind it, so that
 * make selftest can prove the native harness's data checks on any machine
 * (ci/selftest.sh): built twice, as the base and the series side
 * (-DNB_TREE=base, series), and linked with bench/native/runtime.c.
 *
 * It moves the bytes with memcpy(), and the user-backed types' bytes with
 * process_vm_readv()/process_vm_writev() on the process itself, one page at
 * a time, so that a guard page gives a short copy as the kernel's fixup
 * does.  It keeps an iterator of its own with the kernel's bookkeeping
 * (count, iov_offset, nr_segs), and makes the faults of --inject= as
 * glue.c does: a correct fake passes every check, each fault must fail one.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "nb_abi.h"

#define FAKE_PAGE	4096UL
#define FAKE_XA_PAGES	512

extern unsigned long page_offset_base;

struct fake_seg {
	unsigned long addr, len;
};

struct fake_xa {
	unsigned long pfn[FAKE_XA_PAGES];	/* per page index, +1; 0: none */
};

struct fake_iter {
	int type;
	const struct fake_seg *seg;	/* the next segment */
	unsigned long nr_segs, iov_offset, count;
	unsigned long start;		/* UBUF: its address; XARRAY: xa_start */
	const struct fake_xa *xa;
};

/* One step: @len bytes at @addr, @done bytes into the call.  Returns the
 * bytes it did not process. */
struct fake_op {
	int op;
	int user;
	unsigned char *buf;		/* the linear buffer at the call's start */
	unsigned long sum;		/* checksum of the bytes moved, weighted by */
	unsigned long pos;		/* their position in the whole run */
};

/* A user copy, a page at a time: a page that faults ends it. */
static unsigned long fake_user_copy(unsigned long uaddr, unsigned char *kbuf,
				    unsigned long len, int to_user)
{
	unsigned long done = 0;

	while (done < len) {
		unsigned long n = FAKE_PAGE - (uaddr + done) % FAKE_PAGE;
		struct iovec local, remote;
		ssize_t r;

		if (n > len - done)
			n = len - done;
		local.iov_base = kbuf + done;
		local.iov_len = n;
		remote.iov_base = (void *)(uaddr + done);
		remote.iov_len = n;
		r = to_user ? process_vm_writev(getpid(), &local, 1, &remote, 1, 0) :
			      process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
		if (r != (ssize_t)n)
			break;
		done += n;
	}
	return done;
}

static unsigned long fake_step(struct fake_op *o, unsigned long addr,
			       unsigned long len, unsigned long done)
{
	unsigned char *b = o->buf + done;
	int to = o->op != NB_COPY_FROM && o->op != NB_CSUM_FROM;
	unsigned long moved = len, k;

	if (o->op == NB_WALK)
		return 0;
	if (o->user)
		moved = fake_user_copy(addr, b, len, to);
	else if (to)
		memcpy((void *)addr, b, len);
	else
		memcpy(b, (void *)addr, len);
	for (k = 0; k < moved; k++)
		o->sum += (unsigned long)b[k] << (((o->pos + done + k) & 1) * 8);
	return len - moved;
}

static unsigned long fake_xa_addr(const struct fake_iter *i, unsigned long pos)
{
	unsigned long pfn = i->xa->pfn[pos / FAKE_PAGE];

	return pfn ? page_offset_base + (pfn - 1) * FAKE_PAGE + pos % FAKE_PAGE : 0;
}

/* Step through up to @n bytes, as the kernel's iterate_and_advance() does. */
static unsigned long fake_iterate(struct fake_iter *i, unsigned long n,
				  struct fake_op *o)
{
	unsigned long done = 0, left;

	if (n > i->count)
		n = i->count;
	left = n;
	if (i->type == NB_UBUF || i->type == NB_XARRAY) {
		while (left) {
			unsigned long pos = i->start + i->iov_offset + done;
			unsigned long len = left, rem;

			if (i->type == NB_XARRAY && len > FAKE_PAGE - pos % FAKE_PAGE)
				len = FAKE_PAGE - pos % FAKE_PAGE;
			rem = fake_step(o, i->type == NB_UBUF ? pos : fake_xa_addr(i, pos),
					len, done);
			done += len - rem;
			left -= len - rem;
			if (rem)
				break;
		}
		i->iov_offset += done;
	} else if (left) {
		do {
			unsigned long len = i->seg->len - i->iov_offset, rem;

			if (len > left)
				len = left;
			if (len) {
				rem = fake_step(o, i->seg->addr + i->iov_offset, len, done);
				done += len - rem;
				left -= len - rem;
				i->iov_offset += len - rem;
				if (i->iov_offset < i->seg->len)
					break;
			}
			i->seg++;
			i->nr_segs--;
			i->iov_offset = 0;
		} while (left);
	}
	i->count -= done;
	return done;
}

void NB(info)(struct nb_info *info)
{
	info->page_struct_size = 64;
	info->vec_size = sizeof(struct fake_seg);
	info->xa_size = sizeof(struct fake_xa);
	info->xa_node_size = 64;
	info->has_steps = 0;
	info->ubuf_nr_segs = 1;
	/* feature numbers: any, the same in both sides */
	info->f_always = 1;
	info->f_rep_good = 2;
	info->f_erms = 3;
	info->f_fsrm = 4;
	info->f_retpoline = 5;
	info->f_retpoline_lfence = 6;
	info->f_rethunk = 7;
	info->f_lfence_rdtsc = 8;
}

void NB(prepare)(struct nb_desc *d)
{
	struct fake_seg *v = d->vecs;
	unsigned long k;

	for (k = 0; k < d->nr_segs; k++) {
		v[k].addr = d->segs[k].addr;
		v[k].len = d->segs[k].len;
	}
}

static void fake_init(const struct nb_desc *d, struct fake_iter *i)
{
	memset(i, 0, sizeof(*i));
	i->type = d->type;
	i->count = d->count;
	if (d->type == NB_UBUF) {
		i->start = d->segs[0].addr;
		i->nr_segs = 1;
	} else if (d->type == NB_XARRAY) {
		i->start = d->xa_start;
		i->xa = d->xa;
	} else {
		i->seg = d->vecs;
		i->nr_segs = d->nr_segs;
	}
}

static unsigned long fake_fold(unsigned long sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

unsigned long NB(run)(const struct nb_desc *d, unsigned int reps,
		      struct nb_state *st)
{
	struct nb_desc imp;
	struct fake_op o = { .op = d->op };
	struct fake_iter i;
	unsigned long ret = 0;
	unsigned int r;

	if (d->op == NB_MEMCPY_TO) {
		for (r = 0; r < reps; r++) {
			unsigned long k, p = 0;

			for (k = 0; k < d->nr_segs; p += d->segs[k].len, k++)
				memcpy((void *)d->segs[k].addr, (char *)d->buf + p, d->segs[k].len);
			ret = p;
		}
		memset(&i, 0, sizeof(i));
		goto out;
	}
	imp = *d;
	if (d->op == NB_IMPORT_TO || d->op == NB_IMPORTV_TO) {
		/* one call over the whole buffer: a UBUF, or the user's vectors */
		imp.type = d->op == NB_IMPORT_TO ? NB_UBUF : NB_IOVEC;
		imp.chunk = d->count;
		o.op = NB_COPY_TO;
	}
	o.user = imp.type == NB_UBUF || imp.type == NB_IOVEC;
	for (r = 0; r < reps; r++) {
		unsigned long done = 0;

		fake_init(&imp, &i);
		ret = 0;
		o.sum = 0;
		while (done < d->count) {
			unsigned long n = d->count - done < imp.chunk ?
					  d->count - done : imp.chunk;

			o.buf = (unsigned char *)d->buf + done;
			o.pos = done;
			ret += fake_iterate(&i, n, &o);
			if (d->op == NB_WALK && d->inject == NB_INJECT_WALK_RET)
				ret++;
			done += n;
		}
	}
out:
	if (d->inject == NB_INJECT_IOV_OFFSET)
		i.iov_offset++;
	if (d->inject == NB_INJECT_NR_SEGS)
		i.nr_segs++;
	if (st) {
		st->ret = ret;
		st->count = i.count;
		st->iov_offset = i.iov_offset;
		st->nr_segs = i.nr_segs;
		st->csum = fake_fold(o.sum);
		st->ubuf = i.type == NB_UBUF;
	}
	return ret;
}

void NB(xa_init)(void *xa)
{
	memset(xa, 0, sizeof(struct fake_xa));
}

int NB(xa_add)(void *xa, unsigned long index, unsigned long pfn,
	       unsigned int order)
{
	struct fake_xa *x = xa;
	unsigned long k;

	for (k = 0; k < (1UL << order); k++) {
		if (index + k >= FAKE_XA_PAGES)
			return -1;
		x->pfn[index + k] = pfn + k + 1;
	}
	return 0;
}
