// SPDX-License-Identifier: GPL-2.0
/*
 * Per-process counts on tracepoints for the view tests.  filter_tgid != 0
 * is the in-eBPF baseline (pid == N first thing in the program);
 * mark_size != 0 counts only read(fd, buf, mark_size) calls.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_tgid;
const volatile __u64 mark_size;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, u32);
	__type(value, u64);
} counts SEC(".maps");

static __always_inline int count(bool marked)
{
	u32 tgid = bpf_get_current_pid_tgid() >> 32;
	u64 one = 1, *n;

	if (filter_tgid && tgid != filter_tgid)
		return 0;
	if (!marked)
		return 0;
	n = bpf_map_lookup_elem(&counts, &tgid);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(&counts, &tgid, &one, BPF_NOEXIST);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_read")
int tp_read(struct syscall_trace_enter *ctx)
{
	return count(!mark_size || ctx->args[2] == mark_size);
}

/* The in-eBPF baseline of tp_read on a hook that does not share its key. */
SEC("kprobe/ksys_read")
int BPF_KPROBE(kp_read, unsigned int fd, char *buf, size_t size)
{
	return count(!mark_size || size == mark_size);
}

SEC("tracepoint/raw_syscalls/sys_enter")
int tp_raw_enter(struct trace_event_raw_sys_enter *ctx)
{
	return count(true);
}

SEC("tracepoint/sched/sched_process_fork")
int tp_fork(struct trace_event_raw_sched_process_fork *ctx)
{
	return count(true);
}

SEC("raw_tp/sys_enter")
int rawtp_enter(void *ctx)
{
	return count(true);
}

SEC("tp_btf/sys_enter")
int btf_enter(u64 *ctx)
{
	return count(true);
}

/* A tracepoint defined in a module (samples/trace_events). */
SEC("tracepoint/sample-trace/foo_bar")
int tp_module(void *ctx)
{
	return count(true);
}

SEC("raw_tp/foo_bar")
int rawtp_module(void *ctx)
{
	return count(true);
}
