// SPDX-License-Identifier: GPL-2.0
/*
 * read_events: one event per read() of the traced process, streamed
 * through a BPF ring buffer: `kview attach --pid N read_events.bpf.o`
 * prints each as it arrives, decoded with the object's BTF as struct
 * event.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct event {
	u32 pid;
	u32 fd;
	u64 count;
	char comm[16];
};

/*
 * kview attach decodes a ring buffer's records as the struct named
 * <map>_event, or "event" when the object has one such map; a
 * constant of that type keeps it in the object's BTF.
 */
const volatile struct event event_type = {};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_read")
int on_read(struct syscall_trace_enter *ctx)
{
	struct event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e)
		return 0;
	e->pid = bpf_get_current_pid_tgid() >> 32;
	e->fd = ctx->args[0];
	e->count = ctx->args[2];
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, 0);
	return 0;
}
