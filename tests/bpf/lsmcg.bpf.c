// SPDX-License-Identifier: GPL-2.0
/*
 * A BPF_LSM_CGROUP program.  Attached to a cgroup, it runs from a shim: a
 * BPF trampoline on the LSM hook that every task passes, which then looks
 * the task's cgroup up.  No view can scope that, so a view's attach scope
 * must refuse it rather than fall back to it (kview-errors, scope).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("lsm_cgroup/file_open")
int BPF_PROG(lsmcg_open, struct file *file)
{
	return 1;	/* allow */
}

/* The same, a second program, for BPF_PROG_ATTACH beside the link. */
SEC("lsm_cgroup/file_open")
int BPF_PROG(lsmcg_attach, struct file *file)
{
	return 1;	/* allow */
}
