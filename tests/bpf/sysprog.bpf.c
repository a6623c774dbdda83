// SPDX-License-Identifier: GPL-2.0
/*
 * A BPF_PROG_TYPE_SYSCALL program that does nothing: BPF_PROG_TEST_RUN
 * runs it in the caller's context, through bpf_prog_test_run_syscall(),
 * whose run-time statistics are behind the bpf_stats_enabled static key.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("syscall")
int noop(void *ctx)
{
	return 0;
}
