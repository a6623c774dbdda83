// SPDX-License-Identifier: GPL-2.0
/*
 * A program kview cannot scope to a process: an LSM program runs for every
 * process at its hook, not in kernel text a view could copy.  kview attach
 * must refuse it, naming the section, before anything is attached.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("kprobe/ksys_read")
int BPF_KPROBE(scopable_read)
{
	return 0;
}

SEC("lsm/file_open")
int BPF_PROG(lsm_open, struct file *file)
{
	return 0;
}
