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
 *
 * One suite (tests/lib/harness.h): the fixture is the kprobe program,
 * loaded, and the processes, view and link each case makes; teardown
 * releases what a failed check left.
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

struct lc_variant {
	bool follow;		/* fork, exec: follow-fork, follow-exec */
	bool no_program;	/* loop-views: no program to load */
};

/* What the case made; NULL or 0 is what it did not, or released. */
struct lc {
	struct count *skel;	/* kp_entry, loaded by setup */
	struct kview *kv;
	struct bpf_link *link;
	pid_t t, d;		/* target, decoy */
};

static void lc_setup(void *fixture, const void *variant)
{
	const struct lc_variant *v = variant;
	struct lc *f = fixture;

	if (v && v->no_program)
		return;
	f->skel = count__open();
	check(f->skel, "open count.bpf.o: %s", strerror(errno));
	f->skel->rodata->mark_size = MARK_SIZE;
	only_program(f->skel->obj, "kp_entry");
	check(!count__load(f->skel), "load count.bpf.o: %s", strerror(errno));
}

/* Detach, close the view and the object. */
static void lc_release(struct lc *f)
{
	release_link(&f->link);
	release_view(&f->kv);
	count__destroy(f->skel);
	f->skel = NULL;
}

static void lc_teardown(void *fixture, const void *variant)
{
	struct lc *f = fixture;

	(void)variant;
	reap_child(f->t);
	reap_child(f->d);
	lc_release(f);
}

static struct bpf_link *attach(struct kview *kv, struct count *skel)
{
	struct bpf_link *link = kview__attach_program(kv, skel->progs.kp_entry);

	check(link, "attach in the view: %s", strerror(errno));
	return link;
}

static void create_view(struct lc *f, const struct kview_opts *opts)
{
	f->kv = kview__create(f->t, opts);
	check(f->kv, "kview__create: %s", strerror(errno));
}

static unsigned long long counted(struct count *skel, pid_t pid)
{
	return map_u32_count(bpf_map__fd(skel->maps.counts), pid);
}

static unsigned long long child_counts[16];

/* Run workload ARGS... in a view (@opts), return the count per process. */
static void run(struct lc *f, const char *what, const struct kview_opts *opts,
		char **args, unsigned long long *target_count,
		unsigned int *keys, size_t *nkeys)
{
	size_t i;

	f->t = spawn_stopped(args);
	create_view(f, opts);
	f->link = attach(f->kv, f->skel);
	resume(f->t);
	check_eq(wait_exit(f->t), 0);
	*target_count = counted(f->skel, f->t);
	*nkeys = map_u32_keys(bpf_map__fd(f->skel->maps.counts), keys, 16);
	diag("%s: target %d counted %llu; processes counted: %zu", what,
	     f->t, *target_count, *nkeys);
	for (i = 0; i < *nkeys; i++) {
		child_counts[i] = counted(f->skel, keys[i]);
		diag("  pid %u: %llu", keys[i], child_counts[i]);
	}
	lc_release(f);
	check_stats_clean();
}

static void test_threads(void *fixture, const void *variant)
{
	char *args[] = { workload, "threads", "4", NSTR, NULL };
	unsigned long long c;
	unsigned int keys[16];
	size_t n;

	(void)variant;
	run(fixture, "4 threads", NULL, args, &c, keys, &n);
	check_eq(c, 4 * N);
	check_eq(n, 1);
}

static void test_fork(void *fixture, const void *variant)
{
	bool follow = ((const struct lc_variant *)variant)->follow;
	LIBBPF_OPTS(kview_opts, opts, .follow_fork = follow);
	char *args[] = { workload, "fork", NSTR, NULL };
	struct lc *f = fixture;
	unsigned long long c;
	unsigned int keys[16];
	size_t n, i;

	run(f, follow ? "fork, follow-fork" : "fork", &opts, args, &c, keys, &n);
	/* The parent: N before the fork and N after. */
	check_eq(c, 2 * N);
	if (!follow) {
		check_eq(n, 1);
		return;
	}
	/* The child, forked after the attach, is in the view too. */
	check_eq(n, 2);
	for (i = 0; i < n; i++)
		if (keys[i] != (unsigned int)f->t)
			check_eq(child_counts[i], N);
}

static void test_exec(void *fixture, const void *variant)
{
	bool follow = ((const struct lc_variant *)variant)->follow;
	LIBBPF_OPTS(kview_opts, opts, .follow_exec = follow);
	char *args[] = { workload, "exec", NSTR, workload, "reads", NSTR, NULL };
	unsigned long long c;
	unsigned int keys[16];
	size_t n;

	run(fixture, follow ? "exec, follow-exec" : "exec", &opts, args, &c, keys, &n);
	check_eq(c, follow ? 2 * N : N);
	check_eq(n, 1);
}

static void test_exit(void *fixture, const void *variant)
{
	char *args[] = { workload, "reads", NSTR, NULL };
	struct lc *f = fixture;
	struct kview_info info;

	(void)variant;
	f->t = spawn_stopped(args);
	create_view(f, NULL);
	f->link = attach(f->kv, f->skel);
	resume(f->t);
	check_eq(wait_exit(f->t), 0);
	/* It leaves at its last switch, which may come just after the reap. */
	info = kview_info_memberless(f->kv);
	diag("after the target's exit: %u members, %u attachments, %u sites",
	     info.nr_members, info.nr_attachments, info.nr_patches);
	check_eq(info.nr_members, 0);
	check_eq(info.nr_attachments, 1);
	check_eq(counted(f->skel, f->t), N);
	lc_release(f);
	check_stats_clean();
}

static void test_loop_attach(void *fixture, const void *variant)
{
	/* An idle target: kview-concurrent attaches to a running one. */
	char *args[] = { "sleep", "1000", NULL };
	struct lc *f = fixture;
	struct kview_info info;
	long before, after;
	int i;

	(void)variant;
	f->t = spawn_stopped(args);
	resume(f->t);
	create_view(f, NULL);
	/* Warm up the allocators, then measure. */
	for (i = 0; i < 50; i++)
		bpf_link__destroy(attach(f->kv, f->skel));
	before = mem_free_kb();
	for (i = 0; i < 1000; i++) {
		f->link = attach(f->kv, f->skel);
		release_link(&f->link);
	}
	after = mem_free_kb();
	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	diag("1000 attach/detach: MemFree %ld -> %ld kB; view: %u sites, %u pages, %u table pages",
	     before, after, info.nr_patches, info.nr_pages, info.nr_pt_pages);
	check_eq(info.nr_patches, 0);
	check_eq(info.nr_pages, 0);
	check_eq(info.nr_pt_pages, view_base_pt_pages());
	/* A page leaked per round would be 4000 kB. */
	check(before - after < 2048, "MemFree fell by %ld kB", before - after);
	kill(f->t, SIGKILL);
	wait_exit(f->t);
	lc_release(f);
	check_stats_clean();
}

static void test_loop_views(void *fixture, const void *variant)
{
	char *args[] = { workload, "spin", NULL };
	struct lc *f = fixture;
	long before, after;
	int i;

	(void)variant;
	f->t = spawn_stopped(args);
	resume(f->t);
	for (i = 0; i < 50; i++) {
		create_view(f, NULL);
		release_view(&f->kv);
	}
	kview_stats_settled(0);
	before = mem_free_kb();
	for (i = 0; i < 1000; i++) {
		f->kv = kview__create(f->t, NULL);
		check(f->kv, "kview__create #%d: %s", i, strerror(errno));
		release_view(&f->kv);
	}
	check_stats_clean();
	after = mem_free_kb();
	diag("1000 views created and destroyed: MemFree %ld -> %ld kB", before, after);
	check(before - after < 2048, "MemFree fell by %ld kB", before - after);
	kill(f->t, SIGKILL);
	wait_exit(f->t);
}

/* Target and decoy on CPU 1, the attacher on CPU 0. */
static void pin_apart(struct lc *f)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(1, &set);
	check(!sched_setaffinity(f->t, sizeof(set), &set), "affinity: %s", strerror(errno));
	check(!sched_setaffinity(f->d, sizeof(set), &set), "affinity: %s", strerror(errno));
	pin_to_cpu(0);
}

static void test_concurrent(void *fixture, const void *variant)
{
	char *args[] = { workload, "spin", NULL };
	int i, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct lc *f = fixture;

	(void)variant;
	check(ncpu >= 2, "needs 2 CPUs, have %d (kvm/run --smp 2)", ncpu);
	f->t = spawn_stopped(args);
	f->d = spawn_stopped(args);
	create_view(f, NULL);
	pin_apart(f);
	resume(f->t);
	resume(f->d);
	for (i = 0; i < 300; i++) {
		f->link = attach(f->kv, f->skel);
		usleep(1000);
		release_link(&f->link);
	}
	kill(f->t, SIGKILL);
	kill(f->d, SIGKILL);
	wait_exit(f->t);
	wait_exit(f->d);
	diag("300 attach/detach under load: target %llu, decoy %llu",
	     counted(f->skel, f->t), counted(f->skel, f->d));
	check(counted(f->skel, f->t) > 0, "the target was never counted");
	check_eq(counted(f->skel, f->d), 0);
	lc_release(f);
	check_stats_clean();
}

static const struct lc_variant nofollow, follow = { .follow = true },
	no_program = { .no_program = true };

static const struct check_case cases[] = {
	{ "threads", test_threads, NULL },
	{ "fork", test_fork, &nofollow },
	{ "fork-follow", test_fork, &follow },
	{ "exec", test_exec, &nofollow },
	{ "exec-follow", test_exec, &follow },
	{ "exit", test_exit, NULL },
	{ "loop-attach", test_loop_attach, NULL },
	{ "loop-views", test_loop_views, &no_program },
	{ "concurrent", test_concurrent, NULL },
};

static const struct check_suite suite = {
	.fixture_size = sizeof(struct lc),
	.setup = lc_setup,
	.teardown = lc_teardown,
	CHECK_CASES(cases),
};

int main(int argc, char **argv)
{
	/* workload is built next to us. */
	workload_path(workload, sizeof(workload));
	return check_main(&suite, argc, argv);
}
