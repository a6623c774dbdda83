// SPDX-License-Identifier: GPL-2.0
/* A program the verifier rejects (a map value used without a NULL check). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u64);
} values SEC(".maps");

SEC("kprobe/ksys_read")
int unchecked_lookup(struct pt_regs *ctx)
{
	u32 key = 0;
	u64 *v = bpf_map_lookup_elem(&values, &key);

	return *v;
}
