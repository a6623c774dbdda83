// SPDX-License-Identifier: GPL-2.0
/*
 * Per-process counts of read() for the explicit form's links
 * (tests/guest/kview-explicit.c): one program per kind of link a kernel
 * view can be named in, each counting the reads of every task that
 * reaches it, and the in-eBPF reference (filter_tgid set) on the read
 * syscall's tracepoint.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#include "pidcount.h"

#define NR_READ 0	/* x86-64 */

/* BPF_LINK_CREATE of BPF_TRACE_KPROBE_MULTI, on ksys_read. */
SEC("kprobe.multi")
int km_read(struct pt_regs *ctx)
{
	return count_event(true);
}

/* BPF_LINK_CREATE of BPF_TRACE_FENTRY. */
SEC("fentry/ksys_read")
int BPF_PROG(fe_read)
{
	return count_event(true);
}

/* BPF_RAW_TRACEPOINT_OPEN, "sys_enter". */
SEC("raw_tp")
int rt_enter(struct bpf_raw_tracepoint_args *ctx)
{
	return count_event(ctx->args[1] == NR_READ);
}

/* BPF_LINK_CREATE of BPF_TRACE_RAW_TP. */
SEC("tp_btf/sys_enter")
int BPF_PROG(btf_enter, struct pt_regs *regs, long id)
{
	return count_event(id == NR_READ);
}

/* For a uprobe_multi link (its attach type set by the test). */
SEC("kprobe")
int um_any(struct pt_regs *ctx)
{
	return 0;
}

/* The in-eBPF reference: filter_tgid set, attached globally. */
SEC("tracepoint/syscalls/sys_enter_read")
int tp_enter(void *ctx)
{
	return count_event(true);
}
