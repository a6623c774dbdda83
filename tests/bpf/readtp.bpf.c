// SPDX-License-Identifier: GPL-2.0
/*
 * One program for `kview attach` in kview-perf.sh: counts the marked reads
 * (read(fd, buf, 7), tests/guest/workload.c) per process on the
 * syscalls/sys_enter_read tracepoint and returns 0, as most programs do
 * (which, in mainline, drops the event's perf sample).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#define MARK_SIZE 7

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, u32);
	__type(value, u64);
} marked_reads SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_read")
int on_read(struct syscall_trace_enter *ctx)
{
	u32 pid = bpf_get_current_pid_tgid() >> 32;
	u64 one = 1, *n;

	if (ctx->args[2] != MARK_SIZE)
		return 0;
	n = bpf_map_lookup_elem(&marked_reads, &pid);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(&marked_reads, &pid, &one, BPF_NOEXIST);
	return 0;
}
