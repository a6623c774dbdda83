// SPDX-License-Identifier: GPL-2.0
/*
 * The program of the untraced-overhead kprobe benchmark: count ksys_read()
 * calls per process.  filter_tgid != 0 makes it the in-eBPF baseline (the
 * bpftrace-style "pid == N" test first thing in the program).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_tgid;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, u32);
	__type(value, u64);
} counts SEC(".maps");

SEC("kprobe/ksys_read")
int BPF_KPROBE(count_read)
{
	u32 tgid = bpf_get_current_pid_tgid() >> 32;
	u64 one = 1, *n;

	if (filter_tgid && tgid != filter_tgid)
		return 0;
	n = bpf_map_lookup_elem(&counts, &tgid);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(&counts, &tgid, &one, BPF_NOEXIST);
	return 0;
}
