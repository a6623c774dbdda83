// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe_multi programs for kview-multi: events per process and function,
 * the function taken from bpf_get_func_ip() and checked against the
 * attach cookie the test gave it; and the in-eBPF reference on the read
 * and write syscall tracepoints (pid == filter_tgid).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

/* The process the in-eBPF reference counts. */
const volatile __u32 filter_tgid;

struct hit_key {
	u32 tgid;
	u32 ret;	/* 1: a return (kretprobe.multi) */
	u64 ip;		/* bpf_get_func_ip() */
};

struct hit {
	u64 count;
	u64 cookie;	/* bpf_get_attach_cookie() of the last event */
	u64 bad_cookie;	/* events whose cookie was not the first one's */
	u64 ret_one;	/* returns of 1 (the test's reads and writes of 1 byte) */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, struct hit_key);
	__type(value, struct hit);
} hits SEC(".maps");

/* The reference: [0] read entries, [1] write entries, [2] reads returning
 * 1, [3] writes returning 1, of filter_tgid. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, u32);
	__type(value, u64);
} ref SEC(".maps");

static __always_inline void hit(void *ctx, u32 ret, long rc)
{
	struct hit_key k = {
		.tgid = bpf_get_current_pid_tgid() >> 32,
		.ret = ret,
		.ip = bpf_get_func_ip(ctx),
	};
	u64 cookie = bpf_get_attach_cookie(ctx);
	struct hit *h, zero = { .cookie = cookie };

	h = bpf_map_lookup_elem(&hits, &k);
	if (!h) {
		bpf_map_update_elem(&hits, &k, &zero, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&hits, &k);
		if (!h)
			return;
	}
	__sync_fetch_and_add(&h->count, 1);
	if (h->cookie != cookie)
		__sync_fetch_and_add(&h->bad_cookie, 1);
	if (ret && rc == 1)
		__sync_fetch_and_add(&h->ret_one, 1);
}

/* Attached by hand (bpf_program__attach_kprobe_multi_opts()). */
SEC("kprobe.multi")
int km_entry(struct pt_regs *ctx)
{
	hit(ctx, 0, 0);
	return 0;
}

SEC("kretprobe.multi")
int km_return(struct pt_regs *ctx)
{
	hit(ctx, 1, PT_REGS_RC(ctx));
	return 0;
}

static __always_inline void ref_add(u32 idx)
{
	u64 *v;

	if ((bpf_get_current_pid_tgid() >> 32) != filter_tgid)
		return;
	v = bpf_map_lookup_elem(&ref, &idx);
	if (v)
		__sync_fetch_and_add(v, 1);
}

SEC("tracepoint/syscalls/sys_enter_read")
int ref_enter_read(void *ctx)
{
	ref_add(0);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_write")
int ref_enter_write(void *ctx)
{
	ref_add(1);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_read")
int ref_exit_read(struct syscall_trace_exit *ctx)
{
	if (ctx->ret == 1)
		ref_add(2);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_write")
int ref_exit_write(struct syscall_trace_exit *ctx)
{
	if (ctx->ret == 1)
		ref_add(3);
	return 0;
}
