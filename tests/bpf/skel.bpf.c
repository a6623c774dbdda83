// SPDX-License-Identifier: GPL-2.0
/*
 * A skeleton with every kind of program kview__attach_skeleton() must
 * tell apart (tests/guest/kview-skeleton.c): a kprobe with a target (auto-
 * attached in the view), a bare SEC("kprobe") (skipped, attached by hand
 * in the scope), a tracepoint the test marks not to autoattach, an XDP
 * program (a type libbpf does not attach) and an LSM program (refused in
 * a view unless marked not to autoattach).  Counts per tgid (pidcount.h):
 * reads of mark_size bytes by the kprobes, getppid() by the tracepoint.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#include "pidcount.h"

SEC("kprobe/ksys_read")
int BPF_KPROBE(auto_read, unsigned int fd, char *buf, size_t size)
{
	return count_event(size == mark_size);
}

/* The same, attached by hand: counts into its own map. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, u32);
	__type(value, u64);
} manual_counts SEC(".maps");

SEC("kprobe")
int BPF_KPROBE(manual_read, unsigned int fd, char *buf, size_t size)
{
	if (size == mark_size)
		count_in(&manual_counts);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_getppid")
int not_auto(void *ctx)
{
	return count_event(true);
}

SEC("xdp")
int pass_all(struct xdp_md *ctx)
{
	return XDP_PASS;
}

SEC("lsm/file_open")
int BPF_PROG(lsm_open, struct file *file)
{
	return 0;
}
