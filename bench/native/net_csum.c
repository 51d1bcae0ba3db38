// SPDX-License-Identifier: GPL-2.0
/*
 * The checksum copies of a tree that keeps them in net/core/ (the series),
 * as ci/native-bench.sh cuts them out of datagram.c and skbuff.c
 * (nb_net_csum.h), in a translation unit of their own: compiled with the
 * tree's lib/iov_iter.o command line, called out of line from glue.c.  In
 * the kernel __skb_datagram_iter() calls csum_and_copy_to_iter() through a
 * pointer, in base and series alike; here both trees call theirs directly,
 * so the two sides have the same shape.  csum_and_copy_to_iter(), static in
 * datagram.c, is made global by the cut.
 */
#include <linux/iov_iter.h>
#include <linux/skbuff.h>
#include <linux/uio.h>
#include <net/checksum.h>

size_t csum_and_copy_to_iter(const void *addr, size_t bytes, void *_csstate,
			     struct iov_iter *i);

#include "nb_net_csum.h"
