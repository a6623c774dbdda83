// SPDX-License-Identifier: GPL-2.0
/*
 * A program kview cannot scope to a process: a BPF trampoline (fentry)
 * patches the function's global entry.  kview attach must refuse it,
 * naming the section, before anything is attached.
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

SEC("fentry/ksys_read")
int BPF_PROG(trampoline_read)
{
	return 0;
}
