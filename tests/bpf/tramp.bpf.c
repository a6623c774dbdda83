// SPDX-License-Identifier: GPL-2.0
/*
 * BPF trampoline programs (fentry, fexit, fmod_ret) for kview-trampoline,
 * with their in-eBPF baselines (pidcount.h: filter_tgid != 0 is the
 * "pid == N" check first thing in the program, attached globally).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#include "pidcount.h"

/* What fmod_ret makes getsid() fail with for the processes it is for. */
#define GETSID_ERRNO 33	/* EDOM: nothing else returns it from getsid() */

/* Sum of the return values a process's counted reads returned. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, u32);
	__type(value, u64);
} rets SEC(".maps");

static __always_inline int count_ret(long ret)
{
	u32 tgid = bpf_get_current_pid_tgid() >> 32;
	u64 r = ret, *sum;

	if (filter_tgid && tgid != filter_tgid)
		return 0;
	count_in(&counts);
	sum = bpf_map_lookup_elem(&rets, &tgid);
	if (sum)
		__sync_fetch_and_add(sum, r);
	else
		bpf_map_update_elem(&rets, &tgid, &r, BPF_NOEXIST);
	return 0;
}

SEC("fentry/ksys_read")
int BPF_PROG(fe_read, unsigned int fd, char *buf, size_t size)
{
	return count_event(!mark_size || size == mark_size);
}

SEC("fexit/ksys_read")
int BPF_PROG(fx_read, unsigned int fd, char *buf, size_t size, long ret)
{
	if (mark_size && size != mark_size)
		return 0;
	return count_ret(ret);
}

/* getsid() fails with EDOM for whoever this program is for. */
SEC("fmod_ret/security_task_getsid")
int BPF_PROG(fm_getsid, struct task_struct *p, int ret)
{
	u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (filter_tgid && tgid != filter_tgid)
		return 0;
	count_in(&counts);
	return -GETSID_ERRNO;
}

/* In-eBPF baselines on hooks the trampoline does not share. */
SEC("tracepoint/syscalls/sys_enter_read")
int tp_enter(struct syscall_trace_enter *ctx)
{
	return count_event(!mark_size || ctx->args[2] == mark_size);
}

SEC("tracepoint/syscalls/sys_exit_read")
int tp_exit(struct syscall_trace_exit *ctx)
{
	return count_ret(ctx->ret);
}

SEC("tracepoint/syscalls/sys_enter_getsid")
int tp_getsid(struct syscall_trace_enter *ctx)
{
	return count_event(true);
}

/* A kprobe on the same entry: a view's site holds one call. */
SEC("kprobe/ksys_read")
int BPF_KPROBE(kp_read)
{
	return count_event(true);
}

/*
 * cmdline_proc_show(), which samples/livepatch replaces: the livepatch's
 * ftrace handler moves the RIP, and the view's trampoline and kprobe must
 * reach the replacement.
 */
SEC("fentry/cmdline_proc_show")
int BPF_PROG(fe_cmdline, struct seq_file *m, void *v)
{
	return count_event(true);
}

SEC("fexit/cmdline_proc_show")
int BPF_PROG(fx_cmdline, struct seq_file *m, void *v, int ret)
{
	return count_ret(ret);
}

SEC("kprobe/cmdline_proc_show")
int BPF_KPROBE(kp_cmdline)
{
	return count_event(true);
}

/* A module's function (samples/trace_events): a view cannot patch it. */
SEC("fentry/foo_bar_reg")
int BPF_PROG(fe_module)
{
	return count_event(true);
}
