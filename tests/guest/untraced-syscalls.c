// SPDX-License-Identifier: GPL-2.0
/*
 * untraced-syscalls: while a kernel view traces the system calls of one
 * (idle) process, an untraced process's system calls take the fast path:
 * it has no syscall-work flag, and in icount mode (kvm/run --icount, guest
 * time counts instructions) `workload syscalls N` executes the same number
 * of instructions as with nothing attached, within 0.5%.  The same program
 * attached globally with the in-eBPF pid filter is shown for comparison.
 */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "kvtest.h"
#include "tpcount.skel.h"

static char workload[4096];

/* CPU time (ns; instructions in icount mode) of `workload syscalls N`. */
static long long run(bool *flag)
{
	char *args[] = { workload, "syscalls", "200000", NULL };
	struct rusage ru;
	pid_t pid;
	int st;

	pid = spawn_stopped(args);
	/* Its syscall-work flag, as kview's debugfs lists it. */
	*flag = syscall_work_flagged(pid);
	resume(pid);
	check(wait4(pid, &st, 0, &ru) == pid, "wait4: %s", strerror(errno));
	check(WIFEXITED(st) && !WEXITSTATUS(st), "workload failed");
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

int main(void)
{
	char *idle[] = { "sleep", "100000", NULL };
	long long none = 0, view = 0, global = 0;
	bool flag;
	struct tpcount *skel;
	struct bpf_link *link;
	struct kview *kv;
	pid_t traced;
	int r;

	workload_path(workload, sizeof(workload));

	traced = spawn_stopped(idle);
	resume(traced);
	kv = kview__create(traced, NULL);
	check(kv, "kview__create: %s", strerror(errno));

	/* Warm up, then two rounds of each, interleaved. */
	run(&flag);
	for (r = 0; r < 2; r++) {
		none += run(&flag);
		check(!flag, "the untraced process had the flag with nothing attached");

		skel = tpcount__open();
		check(skel, "open: %s", strerror(errno));
		only_program(skel->obj, "tp_raw_enter");
		check(!tpcount__load(skel), "load: %s", strerror(errno));
		link = kview__attach_program(kv, skel->progs.tp_raw_enter);
		check(link, "attach in the view: %s", strerror(errno));
		sleep(1);
		view += run(&flag);
		check(!flag, "the untraced process has the syscall-work flag");
		bpf_link__destroy(link);
		tpcount__destroy(skel);

		skel = tpcount__open();
		check(skel, "open: %s", strerror(errno));
		skel->rodata->filter_tgid = traced;
		only_program(skel->obj, "tp_raw_enter");
		check(!tpcount__load(skel), "load: %s", strerror(errno));
		link = bpf_program__attach(skel->progs.tp_raw_enter);
		check(link, "attach globally: %s", strerror(errno));
		sleep(1);
		global += run(&flag);
		check(flag, "a global syscall tracepoint left the flag unset");
		bpf_link__destroy(link);
		tpcount__destroy(skel);
		sleep(1);
	}
	diag("untraced 200000 getppid(), instructions: nothing attached %lld, in another process's view %lld (%+.3f%%), global with pid filter %lld (%+.3f%%)",
	     none / 2, view / 2, 100.0 * (view - none) / none, global / 2,
	     100.0 * (global - none) / none);
	check(view - none < none / 200 && none - view < none / 200,
	      "more than 0.5%% apart");
	kill(traced, SIGKILL);
	wait_exit(traced);
	kview__destroy(kv);
	return 0;
}
