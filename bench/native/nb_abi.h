/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The plain C interface between the native harness's runtime (a glibc
 * program, runtime.c) and its glue (glue.c, compiled once per kernel tree
 * with that tree's lib/iov_iter.o compiler command line).  Only C base types
 * cross it: the iov_iter of each tree is built on the glue side, with that
 * tree's own <linux/uio.h>.
 *
 * Every glue symbol is NB(name): nb_base_name or nb_series_name.
 */
#ifndef NB_ABI_H
#define NB_ABI_H

#define NB_CAT2(a, b, c)	a##b##_##c
#define NB_CAT(a, b, c)		NB_CAT2(a, b, c)
#define NB(name)		NB_CAT(nb_, NB_TREE, name)

enum nb_type { NB_UBUF, NB_IOVEC, NB_KVEC, NB_BVEC, NB_XARRAY, NB_NR_TYPES };

/* What one call does with the iterator.  TO: copy_to_iter(), the iterator
 * is the destination; FROM: copy_from_iter(). */
enum nb_op {
	NB_COPY_TO,		/* copy_to_iter() */
	NB_COPY_FROM,		/* copy_from_iter() */
	NB_WALK,		/* iterate_and_advance() with a step that copies nothing */
	NB_MEMCPY_TO,		/* the reference: memcpy() over the same chunks */
	NB_STEP_INLINE,		/* series only: memcpy step, iterate_and_advance() */
	NB_STEP_INDIRECT,	/* series only: the steps through function pointers */
	NB_WALK_INDIRECT,	/* series only: the empty step through a pointer */
	NB_CSUM_TO,		/* csum_and_copy_to_iter() */
	NB_CSUM_FROM,		/* csum_and_copy_from_iter_full() */
	NB_IMPORT_TO,		/* import_single_range() of the buffer, one copy_to_iter() */
	NB_IMPORTV_TO,		/* __import_iovec() of nr_segs vectors, one copy_to_iter() */
	NB_NR_OPS,
};

/* A fault the glue makes on purpose (the harness's self-tests): its data
 * checks must catch each one. */
enum nb_inject {
	NB_INJECT_NONE,
	NB_INJECT_WALK_RET,	/* the walk returns one byte more than it walked */
	NB_INJECT_IOV_OFFSET,	/* iov_offset one more after the run */
	NB_INJECT_NR_SEGS,	/* nr_segs one more after the run */
	NB_NR_INJECT,
};

/* One segment of the iterator's memory, as an address in the arena. */
struct nb_seg {
	unsigned long addr;
	unsigned long len;
};

struct nb_desc {
	int type;			/* enum nb_type */
	int op;				/* enum nb_op */
	unsigned long nr_segs;
	const struct nb_seg *segs;	/* NB_UBUF: exactly one */
	unsigned long count;		/* bytes in the iterator */
	unsigned long chunk;		/* bytes per call; the calls share one iterator */
	void *buf;			/* the linear buffer, count bytes */
	void *vecs;			/* scratch for the kvec/iovec/bio_vec array */
	void *xa;			/* NB_XARRAY: a struct xarray (NB(xa_size) bytes) */
	unsigned long xa_start;		/* NB_XARRAY: the byte position it starts at */
	int inject;			/* enum nb_inject */
};

/* The iterator after the last call of a run, and what the calls returned. */
struct nb_state {
	unsigned long ret;		/* sum of the return values of the last rep */
	unsigned long count;
	unsigned long iov_offset;
	unsigned long nr_segs;
	unsigned long csum;		/* NB_CSUM_*: csum_fold() of the checksum */
	int ubuf;			/* the iterator is an ITER_UBUF */
};

/* What the runtime learns from the glue of one tree. */
struct nb_info {
	unsigned long page_struct_size;	/* sizeof(struct page) */
	unsigned long vec_size;		/* the largest of kvec, iovec, bio_vec */
	unsigned long xa_size;		/* sizeof(struct xarray) */
	unsigned long xa_node_size;	/* sizeof(struct xa_node) */
	int has_steps;			/* the tree has <linux/iov_iter.h> */
	unsigned long ubuf_nr_segs;	/* nr_segs of a new ITER_UBUF (0 or 1) */
	/* X86_FEATURE_* numbers, for the alternatives */
	int f_always, f_rep_good, f_erms, f_fsrm, f_retpoline,
	    f_retpoline_lfence, f_rethunk, f_lfence_rdtsc;
};

#endif
