// SPDX-License-Identifier: GPL-2.0
// make uaudit: every place that could mistake an ITER_UBUF iterator for an
// array-backed one.  An ITER_UBUF keeps its user address in the union that
// holds iov, kvec and bvec, and (after "iov_iter: set nr_segs = 1 for
// ITER_UBUF") counts one segment, so each of these is reported:
//
//   read   a read of ->iov, ->kvec, ->bvec or ->nr_segs of a struct iov_iter
//          (a pointer, a variable, or a member such as msg->msg_iter) on a
//          path from the start of its function that tests no type of that
//          iterator first;
//   iovec  a call of iov_iter_iovec() on such a path;
//   import a call of import_single_range(), import_iovec() or
//          __import_iovec(): what the caller does with the iterator decides;
//   dup    a call of dup_iter(), which refuses ITER_UBUF in 6.1;
//   revert a call of iov_iter_revert(): an ITER_UBUF reverted past its
//          start is a BUG() where a one-segment ITER_IOVEC walked back
//          without a word, and from "iov_iter: convert
//          import_single_range() to ITER_UBUF" send(2), recv(2) and one-vector
//          sendmsg(2) and recvmsg(2) hand protocols an ITER_UBUF.
//
// The type tests that count are the iterator-type helpers of <linux/uio.h>
// and reads of ->iter_type, applied to the same iterator.  Types come from
// the headers (--recursive-includes), so a member like msg->msg_iter is an
// iov_iter wherever it is read.  Output: one line per hit,
// "kind<TAB>file<TAB>line<TAB>function<TAB>expression".

@initialize:python@
@@
import sys

# Flushed at once: with -j, a worker's buffered output is lost when it exits.
def report(kind, p, fn, what):
	sys.stdout.write("%s\t%s\t%s\t%s\t%s\n" % (kind, p[0].file, p[0].line, fn, what))
	sys.stdout.flush()

// Stores into the union are not reads: the iterator's owner sets them up.
@store@
identifier F = {iov, kvec, bvec, nr_segs};
struct iov_iter *P;
struct iov_iter I;
expression E;
position p;
@@
(
P->F@p = E
|
I.F@p = E
)

@read_ptr exists@
identifier fn;
identifier F = {iov, kvec, bvec, nr_segs};
identifier T = {iter_is_iovec, iter_is_ubuf, user_backed_iter, iov_iter_type,
	iov_iter_is_kvec, iov_iter_is_bvec, iov_iter_is_pipe, iov_iter_is_discard,
	iov_iter_is_xarray, iov_iter_is_aligned};
struct iov_iter *P;
position p != store.p;
@@
fn(...) {
... when != T(P)
    when != P->iter_type
P->F@p
... when any
}

@script:python@
p << read_ptr.p;
fn << read_ptr.fn;
P << read_ptr.P;
F << read_ptr.F;
@@
report("read", p, fn, "%s->%s" % (P, F))

@read_var exists@
identifier fn;
identifier F = {iov, kvec, bvec, nr_segs};
identifier T = {iter_is_iovec, iter_is_ubuf, user_backed_iter, iov_iter_type,
	iov_iter_is_kvec, iov_iter_is_bvec, iov_iter_is_pipe, iov_iter_is_discard,
	iov_iter_is_xarray, iov_iter_is_aligned};
struct iov_iter I;
position p != store.p;
@@
fn(...) {
... when != T(&I)
    when != I.iter_type
I.F@p
... when any
}

@script:python@
p << read_var.p;
fn << read_var.fn;
I << read_var.I;
F << read_var.F;
@@
report("read", p, fn, "%s.%s" % (I, F))

@iovec exists@
identifier fn;
identifier T = {iter_is_iovec, iter_is_ubuf, user_backed_iter, iov_iter_type,
	iov_iter_is_kvec, iov_iter_is_bvec, iov_iter_is_pipe, iov_iter_is_discard,
	iov_iter_is_xarray, iov_iter_is_aligned};
expression E;
position p;
@@
fn(...) {
... when != T(E)
iov_iter_iovec@p(E)
... when any
}

@script:python@
p << iovec.p;
fn << iovec.fn;
E << iovec.E;
@@
report("iovec", p, fn, "iov_iter_iovec(%s)" % E)

@call@
identifier fn;
identifier C = {import_single_range, import_iovec, __import_iovec, dup_iter};
position p;
@@
fn(...) {
<+...
C@p(...)
...+>
}

@script:python@
p << call.p;
fn << call.fn;
C << call.C;
@@
report("dup" if C == "dup_iter" else "import", p, fn, "%s()" % C)

@revert@
identifier fn;
expression E, N;
position p;
@@
fn(...) {
<+...
iov_iter_revert@p(E, N)
...+>
}

@script:python@
p << revert.p;
fn << revert.fn;
E << revert.E;
N << revert.N;
@@
report("revert", p, fn, "iov_iter_revert(%s, %s)" % (E, N))
