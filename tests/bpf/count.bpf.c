// SPDX-License-Identifier: GPL-2.0
/*
 * Per-process event counts on kprobes (and their in-eBPF baselines) for
 * the view tests (pidcount.h).  mark_size != 0 counts only
 * ksys_read(fd, buf, mark_size) calls.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#include "pidcount.h"

/* An event of a read of @size bytes: marked if mark_size is 0 or @size. */
static __always_inline int count(u64 size)
{
	return count_event(!mark_size || size == mark_size);
}

/* On the function's ftrace site (entry). */
SEC("kprobe/ksys_read")
int BPF_KPROBE(kp_entry, unsigned int fd, char *buf, size_t size)
{
	return count(size);
}

/*
 * Past the ftrace site: an ordinary int3 and single-step.  Attached by the
 * tests at ksys_read's first instruction after its ftrace site
 * (attach_past_site()), whose offset depends on the kernel (IBT).
 */
SEC("kprobe")
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

/* A sampling event's program: not a kernel hook (passes the scope). */
SEC("perf_event")
int pe_any(struct bpf_perf_event_data *ctx)
{
	return count(0);
}
