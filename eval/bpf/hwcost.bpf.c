// SPDX-License-Identifier: GPL-2.0
/*
 * Programs of the hardware-cost experiment (eval/guest/hwcost.c): one
 * kprobe program attached to many functions (N links), the same as one
 * kprobe_multi link, and a raw_syscalls:sys_enter tracepoint program.  They
 * count the tasks that reach them, the traced process's and the others',
 * and with filter_tgid != 0 return early for the others (the in-eBPF
 * "pid == N" filter).  The driver sets traced_tgid and filter_tgid between
 * runs (.bss), so the programs are loaded once.
 *
 * on_tlb_flush, attached globally once before anything is measured, counts
 * the x86 tlb:tlb_flush events per CPU and reason; reason 0
 * (TLB_FLUSH_ON_TASK_SWITCH) is a CR3 load by switch_mm_irqs_off(), with
 * pages == TLB_FLUSH_ALL when the load flushed the new ASID.  hw_ipi,
 * attached globally once to the functions that cross-CPU calls run
 * (text_poke's do_sync_core(), RCU Tasks Trace's reader check, the TLB
 * and CPA flushes, kview's), counts per CPU which ran, by attach cookie.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#define HW_CPUS 2
#define HW_REASONS 5
#define HW_IPI_KINDS 8

__u32 traced_tgid;
__u32 filter_tgid;
__u64 hits_traced;
__u64 hits_other;
__u64 tlb_events[HW_CPUS * HW_REASONS];	/* [cpu * HW_REASONS + reason] */
__u64 cr3_full[HW_CPUS];
__u64 ipi_funcs[HW_CPUS * HW_IPI_KINDS];	/* [cpu * HW_IPI_KINDS + cookie] */

static __always_inline int hit(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (tgid != traced_tgid) {
		__sync_fetch_and_add(&hits_other, 1);
		if (filter_tgid)
			return 0;
	} else {
		__sync_fetch_and_add(&hits_traced, 1);
	}
	return 0;
}

SEC("kprobe")
int hw_kprobe(struct pt_regs *ctx)
{
	return hit();
}

SEC("kprobe.multi")
int hw_multi(struct pt_regs *ctx)
{
	return hit();
}

SEC("tracepoint/raw_syscalls/sys_enter")
int hw_sys_enter(void *ctx)
{
	return hit();
}

SEC("tracepoint/tlb/tlb_flush")
int on_tlb_flush(struct trace_event_raw_tlb_flush *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u32 reason = ctx->reason;
	__u32 i;

	if (reason >= HW_REASONS)
		return 0;
	i = cpu * HW_REASONS + reason;
	/* Keep the bound check on the index the access uses. */
	asm volatile("" : "+r"(i));
	if (i >= HW_CPUS * HW_REASONS)
		return 0;
	__sync_fetch_and_add(&tlb_events[i], 1);
	if (reason == 0 && ctx->pages == ~0UL && cpu < HW_CPUS)
		__sync_fetch_and_add(&cr3_full[cpu], 1);
	return 0;
}

SEC("kprobe")
int hw_ipi(struct pt_regs *ctx)
{
	__u32 i = bpf_get_smp_processor_id() * HW_IPI_KINDS +
		  (__u32)bpf_get_attach_cookie(ctx);

	asm volatile("" : "+r"(i));
	if (i < HW_CPUS * HW_IPI_KINDS)
		__sync_fetch_and_add(&ipi_funcs[i], 1);
	return 0;
}
