// SPDX-License-Identifier: GPL-2.0
/*
 * The sk_msg verdict program of tls_rollback.c.  The user program sets
 * what each of the first two runs does in the array "plan"; "runs"
 * counts the runs.  A run may push bytes into the message, apply the
 * verdict to fewer bytes than the message has (so that kTLS splits the
 * open record and pushes its first part), and cork the message (so
 * that bpf_exec_tx_verdict() returns -ENOSPC).  Every run passes.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* One run's steps; a zero field is a step not taken. */
struct step {
	__u32 push_len;		/* bpf_msg_push_data(msg, 0, push_len, 0) */
	__u32 apply;		/* bpf_msg_apply_bytes(msg, apply) */
	__u32 cork;		/* bpf_msg_cork_bytes(msg, cork) */
};

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} sock_map SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct step);
} plan SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} runs SEC(".maps");

SEC("sk_msg")
int verdict(struct sk_msg_md *msg)
{
	__u32 zero = 0, n;
	struct step *s;
	__u32 *count;

	count = bpf_map_lookup_elem(&runs, &zero);
	if (!count)
		return SK_PASS;
	/* The socket lock orders the runs of one send. */
	n = *count;
	*count = n + 1;
	s = bpf_map_lookup_elem(&plan, &n);
	if (!s)
		return SK_PASS;
	if (s->push_len && bpf_msg_push_data(msg, 0, s->push_len, 0))
		return SK_DROP;
	if (s->apply)
		bpf_msg_apply_bytes(msg, s->apply);
	if (s->cork)
		bpf_msg_cork_bytes(msg, s->cork);
	return SK_PASS;
}

char _license[] SEC("license") = "GPL";
