// SPDX-License-Identifier: GPL-2.0
/*
 * Platform smoke test: a CO-RE object compiled against our kernel's
 * vmlinux.h that counts, per process (tgid), calls of ksys_read() through
 * a kprobe and getppid() entries through a syscall tracepoint.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, u32);
	__type(value, u64);
} read_calls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, u32);
	__type(value, u64);
} getppid_calls SEC(".maps");

static __always_inline void count(void *map)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	/* A CO-RE relocated read: the offset of tgid comes from our BTF. */
	u32 tgid = BPF_CORE_READ(task, tgid);
	u64 one = 1, *val;

	val = bpf_map_lookup_elem(map, &tgid);
	if (val)
		__sync_fetch_and_add(val, 1);
	else
		bpf_map_update_elem(map, &tgid, &one, BPF_NOEXIST);
}

SEC("kprobe/ksys_read")
int BPF_KPROBE(smoke_ksys_read, unsigned int fd)
{
	count(&read_calls);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_getppid")
int smoke_getppid(struct syscall_trace_enter *ctx)
{
	/* ctx->nr is a CO-RE relocated field access. */
	if (ctx->nr != 110 /* __NR_getppid on x86-64 */)
		return 0;
	count(&getppid_calls);
	return 0;
}
