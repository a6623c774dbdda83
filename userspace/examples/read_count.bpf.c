// SPDX-License-Identifier: GPL-2.0
/*
 * read_count: how a process reads.  Counts ksys_read() calls per process
 * (kprobe) and the sizes the reads return, as a log2 histogram (kretprobe).
 *
 *   kview attach --pid N build/userspace/examples/read_count.bpf.o
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

struct proc_key {
	u32 pid;
	char comm[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct proc_key);
	__type(value, u64);
} reads SEC(".maps");

/* bytes_log2[i]: reads that returned [2^i, 2^(i+1)) bytes; [0]: 0 or 1. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 32);
	__type(key, u32);
	__type(value, u64);
} bytes_log2 SEC(".maps");

SEC("kprobe/ksys_read")
int BPF_KPROBE(on_read, unsigned int fd)
{
	struct proc_key key = { .pid = bpf_get_current_pid_tgid() >> 32 };
	u64 one = 1, *n;

	bpf_get_current_comm(key.comm, sizeof(key.comm));
	n = bpf_map_lookup_elem(&reads, &key);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(&reads, &key, &one, BPF_NOEXIST);
	return 0;
}

SEC("kretprobe/ksys_read")
int BPF_KRETPROBE(on_read_ret, long ret)
{
	u32 bucket = 0;
	u64 *n;

	if (ret <= 0)
		return 0;
	while (bucket < 31 && (ret >> (bucket + 1)))
		bucket++;
	n = bpf_map_lookup_elem(&bytes_log2, &bucket);
	if (n)
		__sync_fetch_and_add(n, 1);
	return 0;
}
