// SPDX-License-Identifier: GPL-2.0
/*
 * syscall_count: which system calls a process makes, and how many
 * (raw_syscalls:sys_enter, one event per system call).
 *
 *   kview attach --pid N build/userspace/examples/syscall_count.bpf.o
 *
 * In a kernel view only N's tasks take the syscall tracepoint's path at
 * all: the others have no syscall-work flag and run the tracepoint's NOP.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct syscall_key {
	u32 pid;
	u32 nr;		/* x86-64 system call number */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct syscall_key);
	__type(value, u64);
} syscalls SEC(".maps");

SEC("tracepoint/raw_syscalls/sys_enter")
int on_sys_enter(struct trace_event_raw_sys_enter *ctx)
{
	struct syscall_key key = {
		.pid = bpf_get_current_pid_tgid() >> 32,
		.nr = ctx->id,
	};
	u64 one = 1, *n;

	n = bpf_map_lookup_elem(&syscalls, &key);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(&syscalls, &key, &one, BPF_NOEXIST);
	return 0;
}
