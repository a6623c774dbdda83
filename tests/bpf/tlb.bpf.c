// SPDX-License-Identifier: GPL-2.0
/*
 * Programs for kview-tlb: one kprobe program the test attaches to many
 * functions, and a syscall tracepoint program.  They count their hits, so
 * that the test can tell a program ran where it was attached.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

__u64 kprobe_hits;
__u64 tp_hits;

SEC("kprobe")
int kp_any(struct pt_regs *ctx)
{
	__sync_fetch_and_add(&kprobe_hits, 1);
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_enter")
int tp_sys_enter(void *ctx)
{
	__sync_fetch_and_add(&tp_hits, 1);
	return 0;
}
