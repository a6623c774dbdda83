// SPDX-License-Identifier: GPL-2.0
/*
 * For kview-cli.sh: read_events.bpf.c's records (one per read() of the
 * traced process) through a perf event array instead of a ring buffer,
 * decoded by kview attach as struct events_event.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct events_event {
	u32 pid;
	u32 fd;
	u64 count;
	char comm[16];
};

/* Keeps struct events_event in the object's BTF. */
const volatile struct events_event event_type = {};

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u32));
} events SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_read")
int on_read(struct syscall_trace_enter *ctx)
{
	struct events_event e = {};

	e.pid = bpf_get_current_pid_tgid() >> 32;
	e.fd = ctx->args[0];
	e.count = ctx->args[2];
	bpf_get_current_comm(e.comm, sizeof(e.comm));
	bpf_perf_event_output(ctx, &events, BPF_F_CURRENT_CPU, &e, sizeof(e));
	return 0;
}
