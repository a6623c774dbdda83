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

#include "pidcount.h"

SEC("tracepoint/syscalls/sys_enter_read")
int tp_read(struct syscall_trace_enter *ctx)
{
	return count_event(!mark_size || ctx->args[2] == mark_size);
}

/* The in-eBPF baseline of tp_read on a hook that does not share its key. */
SEC("kprobe/ksys_read")
int BPF_KPROBE(kp_read, unsigned int fd, char *buf, size_t size)
{
	return count_event(!mark_size || size == mark_size);
}

SEC("tracepoint/raw_syscalls/sys_enter")
int tp_raw_enter(struct trace_event_raw_sys_enter *ctx)
{
	return count_event(true);
}

SEC("tracepoint/sched/sched_process_fork")
int tp_fork(struct trace_event_raw_sched_process_fork *ctx)
{
	return count_event(true);
}

SEC("raw_tp/sys_enter")
int rawtp_enter(void *ctx)
{
	return count_event(true);
}

SEC("tp_btf/sys_enter")
int btf_enter(u64 *ctx)
{
	return count_event(true);
}

/* A tracepoint defined in a module (samples/trace_events). */
SEC("tracepoint/sample-trace/foo_bar")
int tp_module(void *ctx)
{
	return count_event(true);
}

SEC("raw_tp/foo_bar")
int rawtp_module(void *ctx)
{
	return count_event(true);
}
