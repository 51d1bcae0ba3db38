// SPDX-License-Identifier: GPL-2.0-only
/*
 * ci/abi.sh compiles this file with the flags of lib/iov_iter.o at every
 * commit, so that libabigail sees the types that a module compiles in
 * through the inline helpers of <linux/uio.h> and <linux/skbuff.h>
 * (iter_is_iovec(), iov_iter_type(), user_backed_iter(), ...) without
 * passing them to an exported function: the values of enum iter_type and
 * the layout of struct iov_iter and struct iov_iter_state.  A module built
 * against one commit's headers and loaded into another's kernel depends
 * on them as much as on the exported functions.  The variables are
 * exported because libabigail, seeing a kernel object, takes its exports
 * as the ABI.
 */
#include <linux/export.h>
#include <linux/skbuff.h>
#include <linux/uio.h>

enum iter_type abi_probe_iter_type;
EXPORT_SYMBOL(abi_probe_iter_type);
struct iov_iter abi_probe_iov_iter;
EXPORT_SYMBOL(abi_probe_iov_iter);
struct iov_iter_state abi_probe_iov_iter_state;
EXPORT_SYMBOL(abi_probe_iov_iter_state);
struct kvec abi_probe_kvec;
EXPORT_SYMBOL(abi_probe_kvec);
