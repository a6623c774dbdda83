// SPDX-License-Identifier: GPL-2.0
/*
 * kview-scope: what reaches a view's programs is exactly what the in-eBPF
 * filter (pid == N) lets through, and a view changes nothing for anybody
 * else's tracing.
 *
 *   global-perf   a program in A's view on syscalls/sys_enter_read leaves
 *                 global perf users of the tracepoint alone: a counting
 *                 perf event (no program) and one with a global program
 *                 that returns 1 get every event of B, an untraced process
 *                 doing the same reads (A's are dropped, as any program
 *                 returning 0 drops them in mainline: the view's program
 *                 is A's filter)
 *   exit-events   events the target raises on its way out, after exit_mm()
 *                 (sched_process_exit, the SIGCHLD to its parent, a kprobe
 *                 on exit_files()), reach its view as they reach pid == N
 *   lazy-tlb      on 2 vCPUs with timers and loopback TCP: hooks that run
 *                 in interrupts, softirqs and the scheduler, in the view of
 *                 a process that sleeps between round trips, are never
 *                 reached by anybody else (kview/stats out_of_scope stays
 *                 0: idle CPUs and kernel threads do not run view text)
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kvtest.h"
#include "scope.skel.h"

#define N 2000
#define NSTR "2000"

static char workload[4096];

static struct scope *load(const char *prog, unsigned int filter,
			  unsigned long mark)
{
	struct scope *skel = scope__open();

	check(skel, "open scope.bpf.o: %s", strerror(errno));
	skel->rodata->filter_tgid = filter;
	skel->rodata->mark_size = mark;
	only_program(skel->obj, prog);
	check(!scope__load(skel), "load %s: %s", prog, strerror(errno));
	return skel;
}

static struct bpf_link *attach(struct scope *skel, const char *prog,
			       struct kview *kv)
{
	return attach_prog(skel->obj, prog, kv);
}

static unsigned long long counted(struct scope *skel, pid_t pid)
{
	return map_u32_count(bpf_map__fd(skel->maps.counts), pid);
}

static size_t keys(struct scope *skel, unsigned int *k, size_t max)
{
	return map_u32_keys(bpf_map__fd(skel->maps.counts), k, max);
}

static void settle_clean(void)
{
	struct kview_stats s = kview_stats_settled(0);

	check_eq(s.views, 0);
	check_eq(s.members, 0);
	check_eq(s.patches, 0);
	check_eq(s.pages, 0);
	check_eq(s.pt_pages, 0);
}

static long tracepoint_id(const char *sys, const char *name)
{
	char path[256];
	long id = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/%s/id",
		 sys, name);
	f = fopen(path, "r");
	check(f, "%s: %s", path, strerror(errno));
	check(fscanf(f, "%ld", &id) == 1, "no id in %s", path);
	fclose(f);
	return id;
}

/* A counting perf event on a tracepoint, with a filter. */
static int tp_counter(long id, pid_t pid, int cpu, const char *filter)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = id,
		.sample_period = 1,
	};
	int fd = syscall(SYS_perf_event_open, &attr, pid, cpu, -1,
			 PERF_FLAG_FD_CLOEXEC);

	check(fd >= 0, "perf_event_open(tracepoint %ld, pid %d, cpu %d): %s",
	      id, pid, cpu, strerror(errno));
	check(!ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter),
	      "set filter '%s': %s", filter, strerror(errno));
	return fd;
}

static unsigned long long read_counter(int fd)
{
	unsigned long long v = 0;

	check(read(fd, &v, sizeof(v)) == sizeof(v), "read counter: %s",
	      strerror(errno));
	return v;
}

static void test_global_perf(void)
{
	char *args[] = { workload, "reads", NSTR, NULL };
	long id = tracepoint_id("syscalls", "sys_enter_read");
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), cpu, cpufd[64], taskfd;
	struct scope *view, *pass;
	unsigned long long all = 0, task;
	struct bpf_link *vl, *pl;
	struct kview *kv;
	pid_t a, b;

	check(ncpu > 0 && ncpu <= 64, "%d CPUs", ncpu);
	a = spawn_stopped(args);
	b = spawn_stopped(args);
	kv = kview__create(a, NULL);
	check(kv, "kview__create: %s", strerror(errno));
	view = load("tp_read_drop", 0, MARK_SIZE);
	vl = attach(view, "tp_read_drop", kv);

	/* Global perf users: system-wide counters, no program... */
	for (cpu = 0; cpu < ncpu; cpu++)
		cpufd[cpu] = tp_counter(id, -1, cpu, "count == 7");
	/* ...and one on B with a global program that returns 1. */
	pass = load("tp_read_pass", 0, MARK_SIZE);
	taskfd = tp_counter(id, b, -1, "count == 7");
	pl = bpf_program__attach_perf_event(pass->progs.tp_read_pass, taskfd);
	check(pl, "attach tp_read_pass to the perf event: %s", strerror(errno));

	resume(a);
	resume(b);
	check_eq(wait_exit(a), 0);
	check_eq(wait_exit(b), 0);
	for (cpu = 0; cpu < ncpu; cpu++) {
		all += read_counter(cpufd[cpu]);
		close(cpufd[cpu]);
	}
	task = read_counter(taskfd);
	diag("view program: A %llu, B %llu; global program: A %llu, B %llu",
	     counted(view, a), counted(view, b), counted(pass, a),
	     counted(pass, b));
	diag("perf counts of marked reads: system-wide %llu, on B with a program %llu",
	     all, task);
	check_eq(counted(view, a), N);
	check_eq(counted(view, b), 0);
	check_eq(counted(pass, a), N);
	check_eq(counted(pass, b), N);
	/* B's events reach every global user; A's are its view's to drop. */
	check_eq(task, N);
	check_eq(all, N);

	bpf_link__destroy(pl);
	close(taskfd);
	bpf_link__destroy(vl);
	kview__destroy(kv);
	scope__destroy(pass);
	scope__destroy(view);
	settle_clean();
}

static const char *const exit_progs[] = { "tp_exit", "tp_sigchld",
					  "kp_exit_files" };
#define NEXIT (sizeof(exit_progs) / sizeof(exit_progs[0]))

/*
 * The exit-path programs, in the view of a process that exits (@view), or
 * globally with pid == N (in-eBPF): what each counted for the process.
 */
static void run_exit(bool in_view, unsigned long long *got)
{
	char *args[] = { workload, "reads", "10", NULL };
	struct bpf_link *links[NEXIT];
	struct scope *skels[NEXIT];
	struct kview *kv = NULL;
	unsigned int k[16];
	size_t i;
	pid_t t, d;

	t = spawn_stopped(args);
	d = spawn_stopped(args);
	if (in_view) {
		kv = kview__create(t, NULL);
		check(kv, "kview__create: %s", strerror(errno));
	}
	for (i = 0; i < NEXIT; i++) {
		skels[i] = load(exit_progs[i], in_view ? 0 : t, 0);
		links[i] = attach(skels[i], exit_progs[i], kv);
	}
	resume(t);
	resume(d);
	check_eq(wait_exit(t), 0);
	check_eq(wait_exit(d), 0);
	for (i = 0; i < NEXIT; i++) {
		got[i] = counted(skels[i], t);
		diag("%s %s: target %llu, decoy %llu", exit_progs[i],
		     in_view ? "in the view" : "in-eBPF", got[i],
		     counted(skels[i], d));
		check_eq(counted(skels[i], d), 0);
		check(keys(skels[i], k, 16) <= 1, "%s counted other processes",
		      exit_progs[i]);
		bpf_link__destroy(links[i]);
		scope__destroy(skels[i]);
	}
	kview__destroy(kv);
	settle_clean();
}

static void test_exit_events(void)
{
	unsigned long long view[NEXIT], in[NEXIT];
	size_t i;

	run_exit(false, in);
	run_exit(true, view);
	for (i = 0; i < NEXIT; i++) {
		check(in[i] >= 1, "in-eBPF saw no %s of the target", exit_progs[i]);
		check_eq(view[i], in[i]);
	}
}

static const char *const irq_progs[] = { "tp_softirq", "tp_hrtimer",
					 "tp_switch", "tp_netif",
					 "kp_tcp_rcv", "kp_hrtimer_irq" };
#define NIRQ (sizeof(irq_progs) / sizeof(irq_progs[0]))

static void test_lazy_tlb(void)
{
	char *args[] = { workload, "pingpong", "3000", NULL };
	struct bpf_link *links[NIRQ];
	struct scope *skels[NIRQ];
	struct kview_stats before, after;
	unsigned long long total = 0;
	unsigned int k[64];
	struct kview *kv;
	size_t i, j, n;
	pid_t t, d;

	check(sysconf(_SC_NPROCESSORS_ONLN) >= 2, "needs 2 CPUs");
	t = spawn_stopped(args);
	d = spawn_stopped(args);
	kv = kview__create(t, NULL);
	check(kv, "kview__create: %s", strerror(errno));
	for (i = 0; i < NIRQ; i++) {
		struct bpf_program *p;

		skels[i] = load(irq_progs[i], 0, 0);
		p = bpf_object__find_program_by_name(skels[i]->obj, irq_progs[i]);
		links[i] = kview__attach_program(kv, p);
		/*
		 * A view refuses a tracepoint whose jump sites it cannot patch
		 * (one across a page boundary, kview_text_ok()); where they
		 * fall depends on the build: the fresh clone's kernel refused
		 * net/netif_receive_skb, ours not.  The others still cover
		 * the path.
		 */
		if (!links[i] && errno == EOPNOTSUPP && !strncmp(irq_progs[i], "tp_", 3)) {
			diag("%s refused in the view: %s", irq_progs[i],
			     strerror(errno));
			continue;
		}
		check(links[i], "attach %s in the view: %s", irq_progs[i],
		      strerror(errno));
	}
	before = kview_stats();
	resume(t);
	resume(d);
	check_eq(wait_exit(t), 0);
	check_eq(wait_exit(d), 0);
	after = kview_stats();
	for (i = 0; i < NIRQ; i++) {
		n = keys(skels[i], k, 64);
		diag("%s in the view: target %llu, %zu process(es)",
		     irq_progs[i], counted(skels[i], t), n);
		for (j = 0; j < n; j++)
			check(k[j] == (unsigned int)t,
			      "%s counted process %u (%llu events)", irq_progs[i],
			      k[j], counted(skels[i], k[j]));
		total += counted(skels[i], t);
		bpf_link__destroy(links[i]);
		scope__destroy(skels[i]);
	}
	diag("out-of-scope hits on the view's text: %lu", after.out_of_scope -
	     before.out_of_scope);
	check(total > 0, "the view saw nothing of the target");
	check_eq(after.out_of_scope - before.out_of_scope, 0);
	kview__destroy(kv);
	settle_clean();
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	workload_path(workload, sizeof(workload));

	if (!strcmp(mode, "global-perf"))
		test_global_perf();
	else if (!strcmp(mode, "exit-events"))
		test_exit_events();
	else if (!strcmp(mode, "lazy-tlb"))
		test_lazy_tlb();
	else {
		fprintf(stderr, "usage: kview-scope global-perf|exit-events|lazy-tlb\n");
		return 2;
	}
	return 0;
}
