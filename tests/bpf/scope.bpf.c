// SPDX-License-Identifier: GPL-2.0
/*
 * Per-process counts for kview-scope (pidcount.h): events a view's tasks
 * raise on their way out, hooks run in interrupt and softirq context, and
 * a program that lets perf samples through (returns 1).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#include "pidcount.h"

#define SIGCHLD 17

/* The exit path, after exit_mm(): the task has no mm any more. */
SEC("tracepoint/sched/sched_process_exit")
int tp_exit(void *ctx)
{
	return count_event(true);
}

SEC("tracepoint/signal/signal_generate")
int tp_sigchld(struct trace_event_raw_signal_generate *ctx)
{
	return count_event(ctx->sig == SIGCHLD);
}

SEC("kprobe/exit_files")
int kp_exit_files(struct pt_regs *ctx)
{
	return count_event(true);
}

/* Counts the marked reads and lets the perf sample through. */
SEC("tracepoint/syscalls/sys_enter_read")
int tp_read_pass(struct syscall_trace_enter *ctx)
{
	count_event(!mark_size || ctx->args[2] == mark_size);
	return 1;
}

/* Counts the marked reads and drops the perf sample, as most do. */
SEC("tracepoint/syscalls/sys_enter_read")
int tp_read_drop(struct syscall_trace_enter *ctx)
{
	return count_event(!mark_size || ctx->args[2] == mark_size);
}

/* Hooks that run in hard and soft interrupt context and the scheduler. */
SEC("tracepoint/irq/softirq_entry")
int tp_softirq(void *ctx)
{
	return count_event(true);
}

SEC("tracepoint/timer/hrtimer_expire_entry")
int tp_hrtimer(void *ctx)
{
	return count_event(true);
}

SEC("tracepoint/sched/sched_switch")
int tp_switch(void *ctx)
{
	return count_event(true);
}

SEC("tracepoint/net/netif_receive_skb")
int tp_netif(void *ctx)
{
	return count_event(true);
}

SEC("kprobe/tcp_v4_rcv")
int kp_tcp_rcv(struct pt_regs *ctx)
{
	return count_event(true);
}

SEC("kprobe/hrtimer_interrupt")
int kp_hrtimer_irq(struct pt_regs *ctx)
{
	return count_event(true);
}
