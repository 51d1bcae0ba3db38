// SPDX-License-Identifier: GPL-2.0
/*
 * tls_rollback: the rollback of tls_sw_sendmsg()'s zero-copy path.
 *
 * A send on a kTLS (TLS_SW) socket takes the caller's pages into the open
 * record and then runs bpf_exec_tx_verdict().  When that returns -ENOSPC
 * with a record still open and not corked, tls_sw_sendmsg() reverts the
 * iterator by msg_pl->sg.size - orig_size, msg_pl being the record it
 * filled.  Only a sockmap sk_msg verdict program makes that more than the
 * send took: bpf_msg_apply_bytes() splits the record, so that its first
 * part is encrypted, sent and freed, and bpf_msg_cork_bytes() on the rest
 * returns -ENOSPC, and the rollback reads the freed record.  With
 * bpf_msg_push_data() that part would be bigger than the send, and since
 * patch "convert import_single_range() to ITER_UBUF" an over-revert of
 * send(2)'s ITER_UBUF is a BUG(); but the pushed bytes overrun the
 * record's encrypted buffer first (Documentation/6.1.y/porting.md).
 *
 * 6.1.192 refuses the combination (mainline 460e6486617c, "tls: reject
 * the combination of TLS and sockmap", in 6.1.y): the first two cases
 * check both orders.  Without a psock the verdict is tls_push_record()
 * alone and the revert, if reached, is what the send took; the next two
 * cases send on that path.  The last three make the rollback run, and run
 * only on a tree that lets a kTLS socket have a psock; on a tree that does
 * not they are skipped.  A case passes when each call returns what it
 * should; the kernel's side (KASAN, an oops) is the run's splat scan.
 * Cases 3 and 4 check what the send returns and what the peer reads; they
 * do not tell the zero-copy path from the copying one, which the guest's
 * synchronous cipher (no AES-NI) makes the path taken.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/tls.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kselftest.h"

#ifndef SOL_TLS
#define SOL_TLS 282
#endif

/* The verdict program's object, linked in by the Makefile. */
extern const char _binary_tls_rollback_bpf_o_start[];
extern const char _binary_tls_rollback_bpf_o_end[];

struct step {
	__u32 push_len;
	__u32 apply;
	__u32 cork;
};

struct tcase {
	const char *name;
	struct step plan[2];
	int iovecs;		/* 0: send(2); n: sendmsg(2) with n vectors */
};

/* Bytes sent, and the record they make: header, nonce, data, tag. */
#define SEND_LEN	16
#define RECORD_LEN	(5 + 8 + SEND_LEN + 16)

static const struct tcase zc_cases[] = {
	{ "zero-copy send(2) without a psock: one record", { { 0 } }, 0 },
	{ "zero-copy sendmsg(2) of two vectors without a psock: one record",
	  { { 0 } }, 2 },
};

static const struct tcase verdict_cases[] = {
	{ "split then cork, send(2)", { { 0, 4, 0 }, { 0, 0, 4096 } }, 0 },
	{ "push, split then cork, send(2)",
	  { { 64, 48, 0 }, { 0, 0, 4096 } }, 0 },
	{ "push, split then cork, sendmsg(2) of two vectors",
	  { { 64, 48, 0 }, { 0, 0, 4096 } }, 2 },
};

/* Seconds a verdict case's sender may take (it hangs if its exit does). */
#define VERDICT_WAIT	60

#define NCASES(a)	(sizeof(a) / sizeof((a)[0]))

static int map_fd(struct bpf_object *obj, const char *name)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, name);

	return map ? bpf_map__fd(map) : -1;
}

/* The guest's init leaves the loopback device down. */
static int lo_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ret;

	if (fd < 0)
		return -1;
	ret = ioctl(fd, SIOCGIFFLAGS, &ifr);
	if (!ret && !(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		ret = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return ret;
}

/* A connected loopback TCP pair: *cli and *srv. */
static int tcp_pair(int *cli, int *srv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int l;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(l, 1) || getsockname(l, (struct sockaddr *)&a, &alen))
		return -1;
	*cli = socket(AF_INET, SOCK_STREAM, 0);
	if (*cli < 0 || connect(*cli, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	*srv = accept(l, NULL, NULL);
	close(l);
	return *srv < 0 ? -1 : 0;
}

static int tls_tx(int fd)
{
	struct tls12_crypto_info_aes_gcm_128 ci = {
		.info.version = TLS_1_2_VERSION,
		.info.cipher_type = TLS_CIPHER_AES_GCM_128,
	};

	if (setsockopt(fd, IPPROTO_TCP, TCP_ULP, "tls", sizeof("tls")))
		return -1;
	return setsockopt(fd, SOL_TLS, TLS_TX, &ci, sizeof(ci));
}

/* Send SEND_LEN bytes on @fd as @c says: what send(2)/sendmsg(2) returned. */
static ssize_t do_send(int fd, const struct tcase *c)
{
	static char buf[SEND_LEN] = "0123456789abcdef";
	struct iovec iov[2] = {
		{ buf, SEND_LEN / 2 }, { buf + SEND_LEN / 2, SEND_LEN / 2 },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = c->iovecs };

	return c->iovecs ? sendmsg(fd, &mh, 0) : send(fd, buf, SEND_LEN, 0);
}

static void set_plan(struct bpf_object *obj, const struct tcase *c)
{
	int plan = map_fd(obj, "plan");
	__u32 zero = 0, k;

	for (k = 0; k < 2; k++)
		if (bpf_map_update_elem(plan, &k, &c->plan[k], BPF_ANY))
			ksft_exit_fail_msg("%s: setting the plan: %s\n", c->name, strerror(errno));
	if (bpf_map_update_elem(map_fd(obj, "runs"), &zero, &zero, BPF_ANY))
		ksft_exit_fail_msg("%s: resetting the runs: %s\n", c->name, strerror(errno));
}

static int sockmap_insert(struct bpf_object *obj, int fd)
{
	__u32 zero = 0;

	return bpf_map_update_elem(map_fd(obj, "sock_map"), &zero, &fd, BPF_ANY);
}

/*
 * A socket in a sockmap, then kTLS: refused.  Returns whether the tree let
 * the socket have both (then the verdict cases run).
 */
static int psock_then_tls(struct bpf_object *obj)
{
	const char *name = "a socket in a sockmap takes no TLS_TX keys";
	int cli, srv, both;

	if (tcp_pair(&cli, &srv) || sockmap_insert(obj, cli))
		ksft_exit_fail_msg("%s: setup: %s\n", name, strerror(errno));
	both = !tls_tx(cli);
	if (!both && errno == EINVAL)
		ksft_test_result_pass("%s\n", name);
	else
		ksft_test_result_fail("%s: %s\n", name, both ? "TLS_TX taken" : strerror(errno));
	close(cli);
	close(srv);
	return both;
}

/* kTLS, then the sockmap: refused too. */
static void tls_then_psock(struct bpf_object *obj)
{
	const char *name = "a kTLS socket does not enter a sockmap";
	int cli, srv;

	if (tcp_pair(&cli, &srv) || tls_tx(cli))
		ksft_exit_fail_msg("%s: setup: %s\n", name, strerror(errno));
	/* sk_psock_init() refuses a socket with a ULP: -EINVAL. */
	if (!sockmap_insert(obj, cli))
		ksft_test_result_fail("%s: the sockmap took it\n", name);
	else if (errno != EINVAL)
		ksft_test_result_fail("%s: %s, not EINVAL\n", name, strerror(errno));
	else
		ksft_test_result_pass("%s\n", name);
	close(cli);
	close(srv);
}

/* kTLS alone: the send takes every byte, and the peer gets one record. */
static void zc_send(const struct tcase *c)
{
	char rec[RECORD_LEN + 1];
	ssize_t n, got = 0;
	int cli, srv;

	if (tcp_pair(&cli, &srv) || tls_tx(cli))
		ksft_exit_fail_msg("%s: setup: %s\n", c->name, strerror(errno));
	n = do_send(cli, c);
	close(cli);
	while (n == SEND_LEN && got < (ssize_t)sizeof(rec)) {
		ssize_t r = recv(srv, rec + got, sizeof(rec) - got, 0);

		if (r <= 0)
			break;
		got += r;
	}
	if (n == SEND_LEN && got == RECORD_LEN)
		ksft_test_result_pass("%s\n", c->name);
	else
		ksft_test_result_fail("%s: sent %zd of %d, the peer got %zd of %d\n",
				      c->name, n, SEND_LEN, got, RECORD_LEN);
	close(srv);
}

/*
 * A skipped case, named: 6.1's ksft_test_result_skip() writes no name,
 * which KTAP (and kunit.py, which parses the run) requires.
 */
static void skip_case(const char *name, const char *why)
{
	ksft_cnt.ksft_xskip++;
	printf("ok %d %s # SKIP %s\n", ksft_test_num(), name, why);
}

/*
 * kTLS with a psock whose verdict program follows @c's plan, all in a
 * child that owns the sockets: where the kernel oopses in the send, the
 * child dies holding the socket's lock, and its exit, closing the last
 * reference, may wait for that lock forever.  The parent waits a while,
 * and the cases after it still run.  0 if the send took every byte.
 */
static int verdict_send(struct bpf_object *obj, const struct tcase *c)
{
	int status, waited;
	pid_t pid;

	set_plan(obj, c);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("%s: fork: %s\n", c->name, strerror(errno));
	if (!pid) {
		int cli, srv;
		ssize_t n;

		if (tcp_pair(&cli, &srv) || sockmap_insert(obj, cli) || tls_tx(cli)) {
			ksft_print_msg("%s: setup: %s\n", c->name, strerror(errno));
			_exit(2);
		}
		n = do_send(cli, c);
		if (n != SEND_LEN)
			ksft_print_msg("%s: sent %zd of %d (%s)\n", c->name, n, SEND_LEN,
				       n < 0 ? strerror(errno) : "short");
		_exit(n == SEND_LEN ? 0 : 1);
	}
	for (waited = 0; waited < VERDICT_WAIT; waited++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		sleep(1);
	}
	if (waited == VERDICT_WAIT) {
		ksft_print_msg("%s: the sender did not end in %d s\n", c->name, VERDICT_WAIT);
		return -1;
	}
	if (WIFSIGNALED(status))
		ksft_print_msg("%s: the sender was killed (signal %d)\n", c->name,
			       WTERMSIG(status));
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

int main(void)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	unsigned int i;
	int both;

	ksft_print_header();
	ksft_set_plan(2 + NCASES(zc_cases) + NCASES(verdict_cases));
	if (lo_up())
		ksft_exit_fail_msg("bringing lo up: %s\n", strerror(errno));
	obj = bpf_object__open_mem(_binary_tls_rollback_bpf_o_start,
				   _binary_tls_rollback_bpf_o_end -
				   _binary_tls_rollback_bpf_o_start, NULL);
	if (!obj || libbpf_get_error(obj) || bpf_object__load(obj))
		ksft_exit_fail_msg("loading the verdict program failed\n");
	prog = bpf_object__find_program_by_name(obj, "verdict");
	if (!prog || bpf_prog_attach(bpf_program__fd(prog),
				     map_fd(obj, "sock_map"),
				     BPF_SK_MSG_VERDICT, 0))
		ksft_exit_fail_msg("attaching the verdict program: %s\n", strerror(errno));

	both = psock_then_tls(obj);
	tls_then_psock(obj);
	for (i = 0; i < NCASES(zc_cases); i++)
		zc_send(&zc_cases[i]);
	for (i = 0; i < NCASES(verdict_cases); i++) {
		if (both)
			ksft_test_result(!verdict_send(obj, &verdict_cases[i]), "%s\n",
					 verdict_cases[i].name);
		else
			skip_case(verdict_cases[i].name,
				  "the tree refuses kTLS with a psock");
	}
	bpf_object__close(obj);
	ksft_finished();
}
