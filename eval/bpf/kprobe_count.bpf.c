// SPDX-License-Identifier: GPL-2.0
/*
 * The program of the untraced-overhead kprobe benchmark (and of the
 * attach-time benchmark, where count_multi is one kprobe_multi link on
 * many functions): count ksys_read() calls per process with the
 * tests' counting code.  filter_tgid != 0 makes it the in-eBPF baseline
 * (the bpftrace-style "pid == N" test first thing in the program).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "../../tests/bpf/pidcount.h"

char LICENSE[] SEC("license") = "GPL";

SEC("kprobe/ksys_read")
int BPF_KPROBE(count_read)
{
	return count_event(true);
}

/* The same, as one kprobe_multi link over many functions (bench-attach). */
SEC("kprobe.multi")
int BPF_KPROBE(count_multi)
{
	return count_event(true);
}
