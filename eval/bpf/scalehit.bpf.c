// SPDX-License-Identifier: GPL-2.0
/*
 * Programs of the scale experiment's hit step (eval/guest/scale.c): one
 * hook on a hot path, personality(2), in every view at once, hit by a member
 * of one view.  A kprobe and an fentry program on __x64_sys_personality(), a
 * raw_syscalls:sys_enter tracepoint program and a raw tracepoint program on
 * sys_enter, each counting the tasks that reach it: the process the driver names (traced_tgid) and any
 * other.  A kprobe program may have any number of links; a tracepoint's
 * perf events share one program array, which holds a program once, and a
 * tracing program has one link: the driver loads a clone of those three per
 * view (bpf_program__insns() after load: the map references are resolved),
 * as one tool per view would load its own.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

__u32 traced_tgid;
__u64 hits_traced;
__u64 hits_other;

static __always_inline int hit(void)
{
	if (bpf_get_current_pid_tgid() >> 32 == traced_tgid)
		__sync_fetch_and_add(&hits_traced, 1);
	else
		__sync_fetch_and_add(&hits_other, 1);
	return 0;
}

SEC("kprobe")
int hit_kprobe(struct pt_regs *ctx)
{
	return hit();
}

SEC("tracepoint/raw_syscalls/sys_enter")
int hit_tp(void *ctx)
{
	return hit();
}

SEC("fentry/__x64_sys_personality")
int BPF_PROG(hit_fentry)
{
	return hit();
}

SEC("raw_tp/sys_enter")
int hit_raw_tp(void *ctx)
{
	return hit();
}
