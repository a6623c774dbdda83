// SPDX-License-Identifier: GPL-2.0
/*
 * Per-process event counts for the view tests.  The same object serves the
 * kview attachment (filter_tgid == 0: count every task that reaches the
 * program) and the in-eBPF baseline (filter_tgid == N: the bpftrace-style
 * "pid == N" check first thing in the program, attached globally).
 * mark_size != 0 counts only ksys_read(fd, buf, mark_size) calls.
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

static __always_inline int count(u64 size)
{
	u32 tgid = bpf_get_current_pid_tgid() >> 32;
	u64 one = 1, *n;

	if (filter_tgid && tgid != filter_tgid)
		return 0;
	if (mark_size && size != mark_size)
		return 0;
	n = bpf_map_lookup_elem(&counts, &tgid);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(&counts, &tgid, &one, BPF_NOEXIST);
	return 0;
}

/* On the function's ftrace site (entry). */
SEC("kprobe/ksys_read")
int BPF_KPROBE(kp_entry, unsigned int fd, char *buf, size_t size)
{
	return count(size);
}

/* Past the ftrace site: an ordinary int3 and single-step. */
SEC("kprobe/ksys_read+5")
int kp_offset(struct pt_regs *ctx)
{
	return count(PT_REGS_PARM3(ctx));
}

SEC("kretprobe/ksys_read")
int BPF_KRETPROBE(krp_return, long ret)
{
	return count(mark_size ? (u64)ret : 0);
}

/*
 * The in-eBPF baseline for the same events, on hooks a kview kprobe does
 * not share: one read syscall is one ksys_read() call.
 */
SEC("tracepoint/syscalls/sys_enter_read")
int tp_enter(struct syscall_trace_enter *ctx)
{
	return count(ctx->args[2]);
}

SEC("tracepoint/syscalls/sys_exit_read")
int tp_exit(struct syscall_trace_exit *ctx)
{
	return count(mark_size ? (u64)ctx->ret : 0);
}

/* Hooks a view cannot scope (the tests check they are refused). */
SEC("fentry/ksys_read")
int BPF_PROG(fe_read)
{
	return count(0);
}

SEC("uprobe")
int up_any(struct pt_regs *ctx)
{
	return count(0);
}
