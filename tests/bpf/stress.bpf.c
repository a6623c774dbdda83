// SPDX-License-Identifier: GPL-2.0
/*
 * Per-process event counts for kview-stress (tests/guest/kview-stress.c):
 * one program per hook kind.  The stress loads one instance of this object
 * per attachment with only the program of that hook (only_program()), so
 * that each attachment has its own `counts` map, and reuses instances.
 *
 * Read hooks count only the "marked" reads, read(fd, buf, STRESS_MARK):
 * the stress's workers do exactly R of them per thread in a check phase.
 * Other hooks count every event (the scope invariant only).
 *
 * `filter_on` (set by the stress at run time) makes an instance the in-eBPF
 * reference: it counts only the tgids in `filter`, the bpftrace-style
 * "pid == N" test first thing in the program, attached globally.
 *
 * Tracepoint programs return 1: in mainline that lets the perf samples of
 * the same tracepoint through, so a global perf counting event on it must
 * see every event whatever programs are attached (the stress checks it).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

#define STRESS_MARK 7
#define NR_READ 0		/* __NR_read on x86-64 */

/* Set by user space before an attach: count only the tgids in filter. */
__u32 filter_on;

/* Set by user space before the load: the kernel's pid_max. */
const volatile __u32 nr_pids = 1;

/*
 * Events per tgid, indexed by tgid (slot 0 takes a tgid past nr_pids,
 * which no process of the stress has).  An array and not a hash map, so
 * that counting takes no lock: a kprobe at an offset runs its program
 * from int3, i.e. in NMI context, while the same instance runs outside NMI
 * at function entry (through ftrace, or a view's call), on a tracepoint,
 * or when user space clears it for reuse.  A hash map's bucket lock taken
 * in NMI after a use outside it is a lockdep report, view or not
 * (docs/design.md, "Execution context").  Sized to pid_max and mapped by
 * user space.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u64);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, u32);
	__type(value, u32);
} filter SEC(".maps");

static __always_inline void count_event(bool marked)
{
	u32 tgid = bpf_get_current_pid_tgid() >> 32;
	u64 *n;

	if (filter_on && !bpf_map_lookup_elem(&filter, &tgid))
		return;
	if (!marked)
		return;
	if (tgid >= nr_pids)
		tgid = 0;
	n = bpf_map_lookup_elem(&counts, &tgid);
	if (n)
		__sync_fetch_and_add(n, 1);
}

/* ---- read hooks: one marked read is one event on each ---- */

/* ksys_read's ftrace site (function entry). */
SEC("kprobe/ksys_read")
int BPF_KPROBE(kp_read, unsigned int fd, char *buf, size_t size)
{
	count_event(size == STRESS_MARK);
	return 0;
}

/*
 * Past the ftrace site: an ordinary int3 (and single-step or emulation).
 * Attached at ksys_read's first instruction after its ftrace site
 * (attach_past_site()), whose offset depends on the kernel (IBT).
 */
SEC("kprobe")
int kp_read_off(struct pt_regs *ctx)
{
	count_event(PT_REGS_PARM3(ctx) == STRESS_MARK);
	return 0;
}

/*
 * vfs_read through BPF trampolines (one marked read is one vfs_read):
 * another function than the kprobes', whose ftrace site a view's kprobe
 * and its trampoline could not share.
 */
SEC("fentry/vfs_read")
int BPF_PROG(fe_read, struct file *file, char *buf, size_t size)
{
	count_event(size == STRESS_MARK);
	return 0;
}

SEC("fexit/vfs_read")
int BPF_PROG(fx_read, struct file *file, char *buf, size_t size, loff_t *pos,
	     long ret)
{
	count_event(ret == STRESS_MARK);
	return 0;
}

/* /dev/zero returns what was asked: a marked read returns STRESS_MARK. */
SEC("kretprobe/ksys_read")
int BPF_KRETPROBE(krp_read, long ret)
{
	count_event(ret == STRESS_MARK);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_read")
int tp_read(struct syscall_trace_enter *ctx)
{
	count_event(ctx->args[2] == STRESS_MARK);
	return 1;
}

SEC("tracepoint/syscalls/sys_exit_read")
int tp_read_exit(struct syscall_trace_exit *ctx)
{
	count_event(ctx->ret == STRESS_MARK);
	return 1;
}

SEC("tracepoint/raw_syscalls/sys_enter")
int tp_raw_enter(struct trace_event_raw_sys_enter *ctx)
{
	count_event(ctx->id == NR_READ && ctx->args[2] == STRESS_MARK);
	return 1;
}

/* raw_tp/sys_enter: (struct pt_regs *regs, long id). */
SEC("raw_tp/sys_enter")
int rawtp_enter(u64 *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx[0];

	count_event(ctx[1] == NR_READ &&
		    BPF_CORE_READ(regs, dx) == STRESS_MARK);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(btf_enter, struct pt_regs *regs, long id)
{
	count_event(id == NR_READ && regs->dx == STRESS_MARK);
	return 0;
}

/* ---- other hooks: every event, for the scope invariant ---- */

SEC("tracepoint/sched/sched_process_exit")
int tp_exit(void *ctx)
{
	count_event(true);
	return 1;
}

SEC("tracepoint/sched/sched_process_fork")
int tp_fork(void *ctx)
{
	count_event(true);
	return 1;
}

/* The workers call getppid() between their batches of reads. */
SEC("kprobe/__x64_sys_getppid")
int kp_getppid(struct pt_regs *ctx)
{
	count_event(true);
	return 0;
}

SEC("kretprobe/__x64_sys_getppid")
int krp_getppid(struct pt_regs *ctx)
{
	count_event(true);
	return 0;
}
