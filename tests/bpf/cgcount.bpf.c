// SPDX-License-Identifier: GPL-2.0
/*
 * Per-process counts of getppid() calls for the cgroup view test.  The
 * same program serves the kview attachment (filter_cgroup false: count
 * every task that reaches it) and the in-eBPF reference it is compared
 * with (filter_cgroup true: bpf_current_task_under_cgroup() on the cgroup
 * in cgroups[0], first thing in the program, attached globally), as
 * libbpf-tools' --cgroup and bpftrace's cgroup filter do.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

const volatile bool filter_cgroup;

#include "pidcount.h"

struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u32);
} cgroups SEC(".maps");

SEC("kprobe/__x64_sys_getppid")
int kp_getppid(struct pt_regs *ctx)
{
	if (filter_cgroup && bpf_current_task_under_cgroup(&cgroups, 0) != 1)
		return 0;
	count_in(&counts);
	return 0;
}
