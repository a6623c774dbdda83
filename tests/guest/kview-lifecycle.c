// SPDX-License-Identifier: GPL-2.0
/*
 * kview-lifecycle: membership follows the rules of kernel views, and views
 * leave nothing behind.  A kprobe on ksys_read counts workload's marked
 * reads (tests/guest/workload.c) per process.
 *
 *   threads       every thread of the target is traced
 *   fork          a child is not traced without follow-fork...
 *   fork-follow   ...and is with it
 *   exec          the target leaves the view when it execs...
 *   exec-follow   ...unless follow-exec
 *   exit          the target exits while attached: membership dropped,
 *                 detaching afterwards works
 *   loop-attach   attach and detach 1000 times on a running target: no
 *                 page, table or memory is left behind
 *   loop-views    create and destroy 1000 views: likewise
 *   concurrent    attach/detach in a loop while the target and a decoy
 *                 hammer ksys_read on the other CPU: the decoy is never
 *                 counted, the target is
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "kvtest.h"
#include "count.skel.h"

#define N 3000
#define NSTR "3000"

static char workload[4096];

static struct count *load(void)
{
	struct count *skel = count__open();

	check(skel, "open count.bpf.o: %s", strerror(errno));
	skel->rodata->mark_size = MARK_SIZE;
	only_program(skel->obj, "kp_entry");
	check(!count__load(skel), "load count.bpf.o: %s", strerror(errno));
	return skel;
}

static struct bpf_link *attach(struct kview *kv, struct count *skel)
{
	struct bpf_link *link = kview__attach_program(kv, skel->progs.kp_entry);

	check(link, "attach in the view: %s", strerror(errno));
	return link;
}

static unsigned long long counted(struct count *skel, pid_t pid)
{
	return map_u32_count(bpf_map__fd(skel->maps.counts), pid);
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

static unsigned long long child_counts[16];

/* Run workload ARGS... in a view (@opts), return the count per process. */
static void run(const char *what, const struct kview_opts *opts, char **args,
		unsigned long long *target_count, unsigned int *keys,
		size_t *nkeys, pid_t *target)
{
	struct count *skel = load();
	struct bpf_link *link;
	struct kview *kv;
	size_t i;

	*target = spawn_stopped(args);
	kv = kview__create(*target, opts);
	check(kv, "kview__create: %s", strerror(errno));
	link = attach(kv, skel);
	resume(*target);
	check_eq(wait_exit(*target), 0);
	*target_count = counted(skel, *target);
	*nkeys = map_u32_keys(bpf_map__fd(skel->maps.counts), keys, 16);
	diag("%s: target %d counted %llu; processes counted: %zu", what,
	     *target, *target_count, *nkeys);
	for (i = 0; i < *nkeys; i++) {
		child_counts[i] = counted(skel, keys[i]);
		diag("  pid %u: %llu", keys[i], child_counts[i]);
	}
	bpf_link__destroy(link);
	kview__destroy(kv);
	count__destroy(skel);
	settle_clean();
}

static void test_threads(void)
{
	char *args[] = { workload, "threads", "4", NSTR, NULL };
	unsigned long long c;
	unsigned int keys[16];
	size_t n;
	pid_t t;

	run("4 threads", NULL, args, &c, keys, &n, &t);
	check_eq(c, 4 * N);
	check_eq(n, 1);
}

static void test_fork(bool follow)
{
	LIBBPF_OPTS(kview_opts, opts, .follow_fork = follow);
	char *args[] = { workload, "fork", NSTR, NULL };
	unsigned long long c;
	unsigned int keys[16];
	size_t n, i;
	pid_t t;

	run(follow ? "fork, follow-fork" : "fork", &opts, args, &c, keys, &n, &t);
	/* The parent: N before the fork and N after. */
	check_eq(c, 2 * N);
	if (!follow) {
		check_eq(n, 1);
		return;
	}
	/* The child, forked after the attach, is in the view too. */
	check_eq(n, 2);
	for (i = 0; i < n; i++)
		if (keys[i] != (unsigned int)t)
			check_eq(child_counts[i], N);
}

static void test_exec(bool follow)
{
	LIBBPF_OPTS(kview_opts, opts, .follow_exec = follow);
	char *args[] = { workload, "exec", NSTR, workload, "reads", NSTR, NULL };
	unsigned long long c;
	unsigned int keys[16];
	size_t n;
	pid_t t;

	run(follow ? "exec, follow-exec" : "exec", &opts, args, &c, keys, &n, &t);
	check_eq(c, follow ? 2 * N : N);
	check_eq(n, 1);
}

static void test_exit(void)
{
	char *args[] = { workload, "reads", NSTR, NULL };
	struct count *skel = load();
	struct kview_info info;
	struct bpf_link *link;
	struct kview *kv;
	pid_t t;

	t = spawn_stopped(args);
	kv = kview__create(t, NULL);
	check(kv, "kview__create: %s", strerror(errno));
	link = attach(kv, skel);
	resume(t);
	check_eq(wait_exit(t), 0);
	/* It leaves at its last switch, which may come just after the reap. */
	info = kview_info_memberless(kv);
	diag("after the target's exit: %u members, %u attachments, %u sites",
	     info.nr_members, info.nr_attachments, info.nr_patches);
	check_eq(info.nr_members, 0);
	check_eq(info.nr_attachments, 1);
	check_eq(counted(skel, t), N);
	bpf_link__destroy(link);
	kview__destroy(kv);
	count__destroy(skel);
	settle_clean();
}

static void test_loop_attach(void)
{
	/* An idle target: kview-concurrent attaches to a running one. */
	char *args[] = { "sleep", "1000", NULL };
	struct count *skel = load();
	struct bpf_link *link;
	struct kview_info info;
	struct kview *kv;
	long before, after;
	pid_t t;
	int i;

	t = spawn_stopped(args);
	resume(t);
	kv = kview__create(t, NULL);
	check(kv, "kview__create: %s", strerror(errno));
	/* Warm up the allocators, then measure. */
	for (i = 0; i < 50; i++)
		bpf_link__destroy(attach(kv, skel));
	before = mem_free_kb();
	for (i = 0; i < 1000; i++) {
		link = attach(kv, skel);
		bpf_link__destroy(link);
	}
	after = mem_free_kb();
	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	diag("1000 attach/detach: MemFree %ld -> %ld kB; view: %u sites, %u pages, %u table pages",
	     before, after, info.nr_patches, info.nr_pages, info.nr_pt_pages);
	check_eq(info.nr_patches, 0);
	check_eq(info.nr_pages, 0);
	check_eq(info.nr_pt_pages, view_base_pt_pages());
	/* A page leaked per round would be 4000 kB. */
	check(before - after < 2048, "MemFree fell by %ld kB", before - after);
	kill(t, SIGKILL);
	wait_exit(t);
	kview__destroy(kv);
	count__destroy(skel);
	settle_clean();
}

static void test_loop_views(void)
{
	char *args[] = { workload, "spin", NULL };
	struct kview *kv;
	long before, after;
	pid_t t;
	int i;

	t = spawn_stopped(args);
	resume(t);
	for (i = 0; i < 50; i++) {
		kv = kview__create(t, NULL);
		check(kv, "kview__create: %s", strerror(errno));
		kview__destroy(kv);
	}
	kview_stats_settled(0);
	before = mem_free_kb();
	for (i = 0; i < 1000; i++) {
		kv = kview__create(t, NULL);
		check(kv, "kview__create #%d: %s", i, strerror(errno));
		kview__destroy(kv);
	}
	settle_clean();
	after = mem_free_kb();
	diag("1000 views created and destroyed: MemFree %ld -> %ld kB", before, after);
	check(before - after < 2048, "MemFree fell by %ld kB", before - after);
	kill(t, SIGKILL);
	wait_exit(t);
}

static void test_concurrent(void)
{
	char *args[] = { workload, "spin", NULL };
	struct count *skel = load();
	struct bpf_link *link;
	struct kview *kv;
	pid_t t, d;
	int i, ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	check(ncpu >= 2, "needs 2 CPUs, have %d (kvm/run --smp 2)", ncpu);
	t = spawn_stopped(args);
	d = spawn_stopped(args);
	kv = kview__create(t, NULL);
	check(kv, "kview__create: %s", strerror(errno));
	/* Target and decoy on CPU 1, the attacher on CPU 0. */
	{
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(1, &set);
		check(!sched_setaffinity(t, sizeof(set), &set), "affinity: %s", strerror(errno));
		check(!sched_setaffinity(d, sizeof(set), &set), "affinity: %s", strerror(errno));
	}
	pin_to_cpu(0);
	resume(t);
	resume(d);
	for (i = 0; i < 300; i++) {
		link = attach(kv, skel);
		usleep(1000);
		bpf_link__destroy(link);
	}
	kill(t, SIGKILL);
	kill(d, SIGKILL);
	wait_exit(t);
	wait_exit(d);
	diag("300 attach/detach under load: target %llu, decoy %llu",
	     counted(skel, t), counted(skel, d));
	check(counted(skel, t) > 0, "the target was never counted");
	check_eq(counted(skel, d), 0);
	kview__destroy(kv);
	count__destroy(skel);
	settle_clean();
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	/* workload is built next to us. */
	workload_path(workload, sizeof(workload));

	if (!strcmp(mode, "threads"))
		test_threads();
	else if (!strcmp(mode, "fork"))
		test_fork(false);
	else if (!strcmp(mode, "fork-follow"))
		test_fork(true);
	else if (!strcmp(mode, "exec"))
		test_exec(false);
	else if (!strcmp(mode, "exec-follow"))
		test_exec(true);
	else if (!strcmp(mode, "exit"))
		test_exit();
	else if (!strcmp(mode, "loop-attach"))
		test_loop_attach();
	else if (!strcmp(mode, "loop-views"))
		test_loop_views();
	else if (!strcmp(mode, "concurrent"))
		test_concurrent();
	else {
		fprintf(stderr, "usage: kview-lifecycle threads|fork|fork-follow|exec|exec-follow|exit|loop-attach|loop-views|concurrent\n");
		return 2;
	}
	return 0;
}
