// SPDX-License-Identifier: GPL-2.0
/*
 * The per-event cost suite: the scripts of Benchmark 1 in seed 001 (after
 * Brendan Gregg's "BPF Performance Tools"), as C programs.  Each program
 * is what the bpftrace one-liner of the same number does, written by hand:
 *
 *   01 control           (nothing attached)
 *   02 kprobe            k:vfs_read { 1 }
 *   03 kretprobe         kr:vfs_read { 1 }
 *   04 tracepoint entry  t:syscalls:sys_enter_read { 1 }
 *   05 tracepoint return t:syscalls:sys_exit_read { 1 }
 *   06 uprobe            u:libc:read { 1 }          (attached by the driver)
 *   07 uretprobe         ur:libc:read { 1 }         (attached by the driver)
 *   08 filter            k:vfs_read /arg2 > 0/ { 1 }
 *   09 map               k:vfs_read { @ = count() }
 *   10 single key        k:vfs_read { @[pid] = count() }
 *   11 string key        k:vfs_read { @[comm] = count() }
 *   12 two keys          k:vfs_read { @[pid, comm] = count() }
 *   13 kernel stack      k:vfs_read { @[kstack] = count() }
 *   14 user stack        k:vfs_read { @[ustack] = count() }
 *   15 histogram         k:vfs_read { @ = hist(arg2) }
 *   16 timing            k:vfs_read { @s[tid] = nsecs }
 *                        kr:vfs_read /@s[tid]/ { @ = hist(nsecs - @s[tid]);
 *                                                delete(@s[tid]); }
 *   17 multiple          k:vfs_read { @[kstack, ustack] = hist(arg2) }
 *   18 per event         k:vfs_read { printf("%d bytes\n", arg2) }
 *   19 fentry            f:vfs_read { 1 }           (BPF trampolines: bpftrace's
 *   20 fexit             fr:vfs_read { 1 }           kfunc:/kretfunc:)
 *   21 fentry map        f:vfs_read { @ = count() }
 *   22 fentry histogram  f:vfs_read { @ = hist(args->count) }
 *   23 fexit histogram   fr:vfs_read { @ = hist(retval) }
 *
 * Counting maps are per-CPU, as bpftrace's count() and hist() are.  The
 * driver (eval/guest/per-event.c) loads one script at a time.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "per_event.h"

char LICENSE[] SEC("license") = "GPL";

#define PERCPU_HASH(name, k, n)						\
	struct {							\
		__uint(type, BPF_MAP_TYPE_PERCPU_HASH);			\
		__uint(max_entries, n);					\
		__type(key, k);						\
		__type(value, u64);					\
	} name SEC(".maps")

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u64);
} total SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PE_HIST_SLOTS);
	__type(key, u32);
	__type(value, u64);
} hist SEC(".maps");

struct comm_key {
	char comm[16];
};

struct pid_comm_key {
	u32 pid;
	char comm[16];
};

struct stacks_key {
	s32 kstack;
	s32 ustack;
	u32 slot;
};

PERCPU_HASH(by_pid, u32, 10240);
PERCPU_HASH(by_comm, struct comm_key, 10240);
PERCPU_HASH(by_pid_comm, struct pid_comm_key, 10240);
PERCPU_HASH(by_stack, s32, 10240);
PERCPU_HASH(by_stacks, struct stacks_key, 10240);

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 10240);
	__uint(key_size, sizeof(u32));
	__uint(value_size, 127 * sizeof(u64));
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, u32);
	__type(value, u64);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u32));
} output SEC(".maps");

static __always_inline void count_in(void *map, const void *key)
{
	u64 one = 1, *n = bpf_map_lookup_elem(map, key);

	if (n)
		*n += 1;
	else
		bpf_map_update_elem(map, key, &one, BPF_NOEXIST);
}

static __always_inline void count_at(u32 slot)
{
	u64 *n = bpf_map_lookup_elem(&hist, &slot);

	if (n)
		*n += 1;
}

/* bpftrace's hist(): power-of-two slots (0, 1, 2-3, 4-7, ...). */
static __always_inline u32 log2_slot(u64 v)
{
	u32 slot = 0;
	int i;

	if (!v)
		return 0;
	for (i = 32; i > 0; i >>= 1) {
		if (v >> i) {
			v >>= i;
			slot += i;
		}
	}
	slot += 1;
	return slot < PE_HIST_SLOTS ? slot : PE_HIST_SLOTS - 1;
}

SEC("kprobe/vfs_read")
int s02_kprobe(struct pt_regs *ctx)
{
	return 0;
}

SEC("kretprobe/vfs_read")
int s03_kretprobe(struct pt_regs *ctx)
{
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_read")
int s04_tracepoint_entry(void *ctx)
{
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_read")
int s05_tracepoint_return(void *ctx)
{
	return 0;
}

SEC("uprobe")
int s06_uprobe(struct pt_regs *ctx)
{
	return 0;
}

SEC("uretprobe")
int s07_uretprobe(struct pt_regs *ctx)
{
	return 0;
}

SEC("kprobe/vfs_read")
int s08_filter(struct pt_regs *ctx)
{
	u64 len = PT_REGS_PARM3(ctx);

	/* The test is what the script measures: keep it. */
	barrier_var(len);
	if (len > 0)
		barrier_var(len);
	return 0;
}

SEC("kprobe/vfs_read")
int s09_map(struct pt_regs *ctx)
{
	u32 zero = 0;
	u64 *n = bpf_map_lookup_elem(&total, &zero);

	if (n)
		*n += 1;
	return 0;
}

SEC("kprobe/vfs_read")
int s10_single_key(struct pt_regs *ctx)
{
	u32 pid = bpf_get_current_pid_tgid() >> 32;

	count_in(&by_pid, &pid);
	return 0;
}

SEC("kprobe/vfs_read")
int s11_string_key(struct pt_regs *ctx)
{
	struct comm_key k = {};

	bpf_get_current_comm(k.comm, sizeof(k.comm));
	count_in(&by_comm, &k);
	return 0;
}

SEC("kprobe/vfs_read")
int s12_two_keys(struct pt_regs *ctx)
{
	struct pid_comm_key k = {};

	k.pid = bpf_get_current_pid_tgid() >> 32;
	bpf_get_current_comm(k.comm, sizeof(k.comm));
	count_in(&by_pid_comm, &k);
	return 0;
}

SEC("kprobe/vfs_read")
int s13_kernel_stack(struct pt_regs *ctx)
{
	s32 id = bpf_get_stackid(ctx, &stacks, 0);

	count_in(&by_stack, &id);
	return 0;
}

SEC("kprobe/vfs_read")
int s14_user_stack(struct pt_regs *ctx)
{
	s32 id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);

	count_in(&by_stack, &id);
	return 0;
}

SEC("kprobe/vfs_read")
int s15_histogram(struct pt_regs *ctx)
{
	count_at(log2_slot(PT_REGS_PARM3(ctx)));
	return 0;
}

SEC("kprobe/vfs_read")
int s16_timing_entry(struct pt_regs *ctx)
{
	u32 tid = bpf_get_current_pid_tgid();
	u64 now = bpf_ktime_get_ns();

	bpf_map_update_elem(&start, &tid, &now, BPF_ANY);
	return 0;
}

SEC("kretprobe/vfs_read")
int s16_timing_return(struct pt_regs *ctx)
{
	u32 tid = bpf_get_current_pid_tgid();
	u64 *t0 = bpf_map_lookup_elem(&start, &tid);

	if (!t0 || !*t0)
		return 0;
	count_at(log2_slot(bpf_ktime_get_ns() - *t0));
	bpf_map_delete_elem(&start, &tid);
	return 0;
}

SEC("kprobe/vfs_read")
int s17_multiple(struct pt_regs *ctx)
{
	struct stacks_key k = {};

	k.kstack = bpf_get_stackid(ctx, &stacks, 0);
	k.ustack = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
	k.slot = log2_slot(PT_REGS_PARM3(ctx));
	count_in(&by_stacks, &k);
	return 0;
}

SEC("kprobe/vfs_read")
int s18_per_event(struct pt_regs *ctx)
{
	struct pe_event e = { .len = PT_REGS_PARM3(ctx) };

	bpf_perf_event_output(ctx, &output, BPF_F_CURRENT_CPU, &e, sizeof(e));
	return 0;
}

SEC("fentry/vfs_read")
int BPF_PROG(s19_fentry)
{
	return 0;
}

SEC("fexit/vfs_read")
int BPF_PROG(s20_fexit)
{
	return 0;
}

SEC("fentry/vfs_read")
int BPF_PROG(s21_fentry_map)
{
	u32 zero = 0;
	u64 *n = bpf_map_lookup_elem(&total, &zero);

	if (n)
		*n += 1;
	return 0;
}

SEC("fentry/vfs_read")
int BPF_PROG(s22_fentry_histogram, struct file *file, char *buf, size_t count)
{
	count_at(log2_slot(count));
	return 0;
}

SEC("fexit/vfs_read")
int BPF_PROG(s23_fexit_histogram, struct file *file, char *buf, size_t count,
	     loff_t *pos, ssize_t ret)
{
	count_at(log2_slot(ret));
	return 0;
}
