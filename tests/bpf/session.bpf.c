// SPDX-License-Identifier: GPL-2.0
/*
 * A kprobe session (BPF_TRACE_KPROBE_SESSION, Linux 6.10 and later) on
 * ksys_read for kview-multi session: one program runs at entry and, when
 * its entry returned 0, at return, with a cookie of its own per call.  It
 * runs the return for reads of one byte only, and checks there that the
 * cookie is what its entry left.  The in-eBPF reference counts the same
 * on the read syscall's tracepoint, for filter_tgid.
 *
 * Loaded with expected_attach_type BPF_TRACE_KPROBE_SESSION set by the
 * test (libbpf 1.1 does not know SEC("kprobe.session")).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

extern bool bpf_session_is_return(void) __ksym;
extern __u64 *bpf_session_cookie(void) __ksym;

const volatile __u32 filter_tgid;

/* Per process: [0] entries, [1] returns with the entry's cookie, [2]
 * returns with another cookie, [3] returns of a read the entry skipped. */
struct counts {
	u64 n[4];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, u32);
	__type(value, struct counts);
} sessions SEC(".maps");

/* The reference: [0] read entries, [1] reads of one byte, of filter_tgid. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, u32);
	__type(value, u64);
} ref SEC(".maps");

#define SESSION_MAGIC 0x6b76696577ULL	/* "kview" */

static __always_inline void add(u32 tgid, int i)
{
	struct counts *c, zero = {};

	c = bpf_map_lookup_elem(&sessions, &tgid);
	if (!c) {
		bpf_map_update_elem(&sessions, &tgid, &zero, BPF_NOEXIST);
		c = bpf_map_lookup_elem(&sessions, &tgid);
		if (!c)
			return;
	}
	if (i >= 0 && i < 4)
		__sync_fetch_and_add(&c->n[i], 1);
}

SEC("kprobe.multi")
int ks_read(struct pt_regs *ctx)
{
	u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u64 *cookie = bpf_session_cookie();
	u64 size;

	if (!bpf_session_is_return()) {
		size = PT_REGS_PARM3(ctx);
		add(tgid, 0);
		*cookie = SESSION_MAGIC ^ tgid ^ (size << 40);
		/* Non-zero: no return for this call. */
		return size != 1;
	}
	if (*cookie == (SESSION_MAGIC ^ tgid ^ (1ULL << 40)))
		add(tgid, 1);
	else if ((*cookie ^ SESSION_MAGIC ^ tgid) & ((1ULL << 40) - 1))
		add(tgid, 2);
	else
		add(tgid, 3);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_read")
int ref_read(struct syscall_trace_enter *ctx)
{
	u32 idx = 0;
	u64 *v;

	if ((bpf_get_current_pid_tgid() >> 32) != filter_tgid)
		return 0;
	v = bpf_map_lookup_elem(&ref, &idx);
	if (v)
		__sync_fetch_and_add(v, 1);
	if (ctx->args[2] == 1) {
		idx = 1;
		v = bpf_map_lookup_elem(&ref, &idx);
		if (v)
			__sync_fetch_and_add(v, 1);
	}
	return 0;
}
