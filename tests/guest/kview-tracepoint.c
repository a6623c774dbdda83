// SPDX-License-Identifier: GPL-2.0
/*
 * kview-tracepoint: tracepoints, syscall tracepoints and raw tracepoints in
 * a kernel view.  A program attached in the target's view counts exactly
 * what the in-eBPF filter (pid == N, attached globally) counts for the
 * target, and nothing of an identical decoy; the global text keeps the
 * tracepoint's NOP.
 *
 *   read          syscalls/sys_enter_read in the view, in-eBPF on ksys_read
 *                 (one read syscall is one ksys_read()) in the same run
 *   raw-syscalls  raw_syscalls/sys_enter          } in the view, and in a
 *   sched         sched/sched_process_fork         } second run of the same
 *   raw-tp        raw tracepoint sys_enter         } workload with the in-eBPF
 *   tp-btf        BTF tracepoint sys_enter         } program on the same hook
 *   mixed         raw_syscalls/sys_enter globally (no filter), in-eBPF and
 *                 in the view at once: the global one sees both processes
 *   views         the same event in two views at once (two programs in the
 *                 first), globally and in-eBPF: one program array, indexed
 *                 by view; each view counts its member only, also after the
 *                 other view's programs went; each view may have 64
 *                 programs a task runs there, globals included (E2BIG
 *                 past them, for that view only), and a global one is
 *                 refused once some view is full
 *   raw-views     raw tracepoint links on sys_enter in two views at once
 *                 (two in the first, one a tp_btf link), globally and
 *                 in-eBPF: one probe runs the views' links, by view; each
 *                 view counts its member only, also after a link of each
 *                 view went and new members came
 *   syscall-work  only the view's tasks (threads, follow-fork children)
 *                 have the syscall-work flag, and none after the detach
 *   module        a tracepoint defined in a module is refused, perf and raw
 *   direct-call   armed in the view only, the tracepoint's static call site
 *                 in the view's copy calls its only probe; a second probe
 *                 (a raw tracepoint program) or a global arm give the view
 *                 the global call back, and the view gets its direct call
 *                 again when they go; the counts stay exact throughout
 *
 * One suite (tests/lib/harness.h): the fixture is what a case makes (the
 * processes, the view, up to three objects and their links, the sample
 * module), released by its teardown if a check failed first; the variant
 * of the sequential cases is their program and workload.
 */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "kvtest.h"
#include "tpcount.skel.h"

#define N 2000
#define NSTR "2000"
/* Programs a task may run on one event (kernel/trace/bpf_trace.c). */
#define MAX_PROGS 64
#define MORE MAX_PROGS

static char workload[4096];

struct tp_variant {
	const char *prog;	/* raw-syscalls, sched, raw-tp, tp-btf */
	const char *work, *n;	/* `workload WORK N` */
	long at_least;		/* events in-eBPF must count */
};

/* What the case made; NULL or 0 is what it did not, or released. */
struct tp {
	pid_t t, d, holder, child;	/* target, decoy, view holder, own child */
	struct kview *kv;
	struct tpcount *view, *in, *global;
	struct bpf_link *vl, *il, *gl;	/* their links */
	bool module;			/* trace-events-sample loaded */
	/* views: the second view, and the programs that fill it up */
	struct kview *kv2;
	struct tpcount *a2, *more[MORE];
	struct bpf_link *a2l, *ml[MORE];
};

static struct tpcount *load(const char *prog, unsigned int filter,
			    unsigned long mark)
{
	struct tpcount *skel = tpcount__open();

	check(skel, "open tpcount.bpf.o: %s", strerror(errno));
	skel->rodata->filter_tgid = filter;
	skel->rodata->mark_size = mark;
	only_program(skel->obj, prog);
	check(!tpcount__load(skel), "load %s: %s", prog, strerror(errno));
	return skel;
}

static struct bpf_link *attach(struct tpcount *skel, const char *prog,
			       struct kview *kv)
{
	return attach_prog(skel->obj, prog, kv);
}

static unsigned long long counted(struct tpcount *skel, pid_t pid)
{
	return map_u32_count(bpf_map__fd(skel->maps.counts), pid);
}

static size_t nkeys(struct tpcount *skel)
{
	unsigned int keys[64];

	return map_u32_keys(bpf_map__fd(skel->maps.counts), keys, 64);
}

static void settle_clean(void)
{
	struct kview_stats s = kview_stats_settled(0);

	check_eq(s.views, 0);
	check_eq(s.patches, 0);
	check_eq(s.pages, 0);
	check_eq(s.pt_pages, 0);
}

static void destroy_skel(struct tpcount **skel)
{
	tpcount__destroy(*skel);
	*skel = NULL;
}

/* Detach, close the view and the objects. */
static void tp_release(struct tp *f)
{
	int i;

	for (i = 0; i < MORE; i++) {
		release_link(&f->ml[i]);
		destroy_skel(&f->more[i]);
	}
	release_link(&f->a2l);
	destroy_skel(&f->a2);
	release_view(&f->kv2);
	release_link(&f->il);
	release_link(&f->gl);
	release_link(&f->vl);
	release_view(&f->kv);
	destroy_skel(&f->global);
	destroy_skel(&f->in);
	destroy_skel(&f->view);
}

static void tp_teardown(void *fixture, const void *variant)
{
	struct tp *f = fixture;

	(void)variant;
	reap_child(f->t);
	reap_child(f->d);
	reap_child(f->holder);
	reap_child(f->child);
	tp_release(f);
	if (f->module && system("rmmod trace_events_sample"))
		diag("rmmod trace_events_sample failed");
}

/* Target and decoy running `workload ARGS`, stopped; the target's view. */
static void spawn_pair(struct tp *f, char **args, const struct kview_opts *opts)
{
	f->t = spawn_stopped(args);
	f->d = spawn_stopped(args);
	f->kv = kview__create(f->t, opts);
	check(f->kv, "kview__create: %s", strerror(errno));
}

/* Run target and decoy to their end. */
static void run_pair(struct tp *f)
{
	resume(f->t);
	resume(f->d);
	check_eq(wait_exit(f->t), 0);
	check_eq(wait_exit(f->d), 0);
}

/* The view's copy of the tracepoint's first jump site jumps; the global text not. */
static void check_jump_site(struct kview *kv)
{
	unsigned char vb[8], gb[8];
	unsigned long site = first_jump_patch();

	check(site, "no jump patch listed in kview/views");
	check(!kview__read_text(kv, site, vb, gb, 5), "read text: %s",
	      strerror(errno));
	diag("site %#lx: view %02x %02x, global %02x %02x", site,
	     vb[0], vb[1], gb[0], gb[1]);
	check(vb[0] == 0xe9 || vb[0] == 0xeb, "the view has no jump");
	check(gb[0] != 0xe9 && gb[0] != 0xeb, "the global text jumps");
}

/* @prog in the view of `workload ARGS`, with a decoy doing the same. */
static unsigned long long run_view(struct tp *f, const char *prog,
				   unsigned long mark, char **args, bool check_text)
{
	unsigned long long got;

	f->view = load(prog, 0, mark);
	spawn_pair(f, args, NULL);
	f->vl = attach(f->view, prog, f->kv);
	if (check_text)
		check_jump_site(f->kv);
	run_pair(f);
	got = counted(f->view, f->t);
	diag("%s in the view: target %llu, decoy %llu, processes %zu", prog,
	     got, counted(f->view, f->d), nkeys(f->view));
	check_eq(counted(f->view, f->d), 0);
	check_eq(nkeys(f->view), 1);
	tp_release(f);
	settle_clean();
	return got;
}

/* The in-eBPF baseline: @prog globally with pid == target, alone. */
static unsigned long long run_in_ebpf(struct tp *f, const char *prog,
				      unsigned long mark, char **args)
{
	unsigned long long got;

	f->t = spawn_stopped(args);
	f->in = load(prog, f->t, mark);
	f->il = attach(f->in, prog, NULL);
	resume(f->t);
	check_eq(wait_exit(f->t), 0);
	got = counted(f->in, f->t);
	diag("%s in-eBPF (global, pid == %d): %llu", prog, f->t, got);
	tp_release(f);
	return got;
}

/* raw-syscalls, sched, raw-tp, tp-btf: in-eBPF, then in the view. */
static void test_sequential(void *fixture, const void *variant)
{
	const struct tp_variant *v = variant;
	char *args[] = { workload, (char *)v->work, (char *)v->n, NULL };
	unsigned long long in = run_in_ebpf(fixture, v->prog, 0, args);
	unsigned long long view = run_view(fixture, v->prog, 0, args, true);

	check(in >= (unsigned long long)v->at_least,
	      "in-eBPF counted %llu, expected at least %ld", in, v->at_least);
	check_eq(view, in);
}

/* syscalls/sys_enter_read in the view vs kprobe ksys_read in-eBPF, one run. */
static void test_read(void *fixture, const void *variant)
{
	char *args[] = { workload, "reads", NSTR, NULL };
	struct tp *f = fixture;

	(void)variant;
	f->view = load("tp_read", 0, MARK_SIZE);
	f->t = spawn_stopped(args);
	f->d = spawn_stopped(args);
	f->in = load("kp_read", f->t, MARK_SIZE);
	f->kv = kview__create(f->t, NULL);
	check(f->kv, "kview__create: %s", strerror(errno));
	f->il = attach(f->in, "kp_read", NULL);
	f->vl = attach(f->view, "tp_read", f->kv);
	run_pair(f);
	diag("sys_enter_read in the view: target %llu, decoy %llu; in-eBPF ksys_read: %llu",
	     counted(f->view, f->t), counted(f->view, f->d), counted(f->in, f->t));
	check_eq(counted(f->in, f->t), N);
	check_eq(counted(f->view, f->t), N);
	check_eq(nkeys(f->view), 1);
	tp_release(f);
	settle_clean();
}

static void test_mixed(void *fixture, const void *variant)
{
	char *args[] = { workload, "reads", NSTR, NULL };
	struct tp *f = fixture;
	pid_t t, d;

	(void)variant;
	f->t = t = spawn_stopped(args);
	f->d = d = spawn_stopped(args);
	f->view = load("tp_raw_enter", 0, 0);
	f->in = load("tp_raw_enter", t, 0);
	f->global = load("tp_raw_enter", 0, 0);
	f->kv = kview__create(t, NULL);
	check(f->kv, "kview__create: %s", strerror(errno));
	f->vl = attach(f->view, "tp_raw_enter", f->kv);
	f->gl = attach(f->global, "tp_raw_enter", NULL);
	f->il = attach(f->in, "tp_raw_enter", NULL);
	run_pair(f);
	diag("raw_syscalls/sys_enter: view %llu, in-eBPF %llu, global target %llu decoy %llu",
	     counted(f->view, t), counted(f->in, t), counted(f->global, t),
	     counted(f->global, d));
	check(counted(f->in, t) >= N, "in-eBPF counted %llu", counted(f->in, t));
	check_eq(counted(f->view, t), counted(f->in, t));
	check_eq(counted(f->global, t), counted(f->in, t));
	check(counted(f->global, d) >= N, "the global program missed the decoy");
	check_eq(nkeys(f->view), 1);
	tp_release(f);
	settle_clean();
}

/*
 * Attach another tp_raw_enter program in @kv (NULL: globally) into
 * f->more[@i]: 0, or the errno of a refusal.
 */
/* views, raw-views: t and d, stopped, each in a view of its own (kv, kv2). */
static void spawn_two_views(struct tp *f, char **args)
{
	f->t = spawn_stopped(args);
	f->d = spawn_stopped(args);
	f->kv = kview__create(f->t, NULL);
	check(f->kv, "kview__create: %s", strerror(errno));
	f->kv2 = kview__create(f->d, NULL);
	check(f->kv2, "kview__create: %s", strerror(errno));
}

static int attach_more(struct tp *f, int i, struct kview *kv)
{
	struct bpf_program *p;

	f->more[i] = load("tp_raw_enter", 0, 0);
	p = bpf_object__find_program_by_name(f->more[i]->obj, "tp_raw_enter");
	check(p, "no program tp_raw_enter");
	f->ml[i] = kv ? kview__attach_program(kv, p) : bpf_program__attach(p);
	if (f->ml[i])
		return 0;
	check(errno, "attach failed without an errno");
	return errno;
}

static void test_views(void *fixture, const void *variant)
{
	char *args[] = { workload, "reads", NSTR, NULL };
	struct tp *f = fixture;
	int n, err;
	pid_t t, d;

	(void)variant;
	spawn_two_views(f, args);
	t = f->t;
	d = f->d;
	f->view = load("tp_raw_enter", 0, 0);		/* in t's view */
	f->a2 = load("tp_raw_enter", 0, 0);		/* in t's view too */
	f->more[0] = load("tp_raw_enter", 0, 0);	/* in d's view */
	f->in = load("tp_raw_enter", t, 0);
	f->global = load("tp_raw_enter", 0, 0);
	/* Mixed in time, so that each view's items must be gathered. */
	f->vl = attach(f->view, "tp_raw_enter", f->kv);
	f->gl = attach(f->global, "tp_raw_enter", NULL);
	f->ml[0] = attach(f->more[0], "tp_raw_enter", f->kv2);
	f->il = attach(f->in, "tp_raw_enter", NULL);
	f->a2l = attach(f->a2, "tp_raw_enter", f->kv);
	run_pair(f);
	diag("raw_syscalls/sys_enter: t's view %llu and %llu, d's view %llu, in-eBPF %llu, global t %llu d %llu",
	     counted(f->view, t), counted(f->a2, t), counted(f->more[0], d),
	     counted(f->in, t), counted(f->global, t), counted(f->global, d));
	check(counted(f->in, t) >= N, "in-eBPF counted %llu", counted(f->in, t));
	check_eq(counted(f->view, t), counted(f->in, t));
	check_eq(counted(f->a2, t), counted(f->in, t));
	check_eq(counted(f->global, t), counted(f->in, t));
	check(counted(f->global, d) >= N, "the global program missed d");
	check_eq(counted(f->more[0], d), counted(f->global, d));
	check_eq(nkeys(f->view), 1);
	check_eq(nkeys(f->a2), 1);
	check_eq(nkeys(f->more[0]), 1);

	/* t's view's programs go: the array is made again without them. */
	release_link(&f->a2l);
	release_link(&f->vl);
	release_link(&f->gl);
	release_link(&f->ml[0]);
	destroy_skel(&f->global);
	destroy_skel(&f->more[0]);
	/* New processes, stopped before the programs count anything. */
	f->t = t = spawn_stopped(args);
	f->d = d = spawn_stopped(args);
	f->global = load("tp_raw_enter", 0, 0);
	f->gl = attach(f->global, "tp_raw_enter", NULL);
	f->more[0] = load("tp_raw_enter", 0, 0);
	err = kview__add_pid(f->kv2, d);
	check(!err, "add %d to d's view: %s", d, strerror(-err));
	f->ml[0] = attach(f->more[0], "tp_raw_enter", f->kv2);
	run_pair(f);
	diag("after t's view's programs went: d's view %llu, global d %llu, t %llu",
	     counted(f->more[0], d), counted(f->global, d),
	     counted(f->global, t));
	check(counted(f->global, d) >= N, "the global program missed d");
	check_eq(counted(f->more[0], d), counted(f->global, d));
	check_eq(nkeys(f->more[0]), 1);
	check(counted(f->global, t) >= N, "the global program missed t");

	/*
	 * Limits: with 2 global programs (in-eBPF and global) and 1 in d's
	 * view, d's view takes 61 more, not 62; t's view still takes one;
	 * then no global one fits (it would run for d's view's tasks too).
	 */
	for (n = 1; n < MORE; n++) {
		err = attach_more(f, n, f->kv2);
		if (err)
			break;
	}
	diag("d's view took %d programs with 2 global ones: the next got %s",
	     n, strerror(err));
	check_eq(err, E2BIG);
	check_eq(n, MAX_PROGS - 2);
	release_link(&f->ml[n]);
	destroy_skel(&f->more[n]);
	check_eq(attach_more(f, n, f->kv), 0);
	check_eq(attach_more(f, n + 1, NULL), E2BIG);
	tp_release(f);
	settle_clean();
}

/*
 * raw-views: the views' raw tracepoint links on sys_enter share one probe,
 * which runs the current task's view's links only.
 */
static void test_raw_views(void *fixture, const void *variant)
{
	char *args[] = { workload, "reads", NSTR, NULL };
	struct tp *f = fixture;
	pid_t t, d;
	int err;

	(void)variant;
	spawn_two_views(f, args);
	t = f->t;
	d = f->d;
	f->view = load("rawtp_enter", 0, 0);		/* in t's view */
	f->a2 = load("btf_enter", 0, 0);		/* in t's view too */
	f->more[0] = load("rawtp_enter", 0, 0);		/* in d's view */
	f->more[1] = load("rawtp_enter", 0, 0);		/* in d's view too */
	f->in = load("rawtp_enter", t, 0);
	f->global = load("rawtp_enter", 0, 0);
	f->vl = attach(f->view, "rawtp_enter", f->kv);
	f->gl = attach(f->global, "rawtp_enter", NULL);
	f->ml[0] = attach(f->more[0], "rawtp_enter", f->kv2);
	f->il = attach(f->in, "rawtp_enter", NULL);
	f->a2l = attach(f->a2, "btf_enter", f->kv);
	f->ml[1] = attach(f->more[1], "rawtp_enter", f->kv2);
	run_pair(f);
	diag("sys_enter: t's view %llu and %llu (tp_btf), d's view %llu and %llu, in-eBPF %llu, global t %llu d %llu",
	     counted(f->view, t), counted(f->a2, t), counted(f->more[0], d),
	     counted(f->more[1], d), counted(f->in, t), counted(f->global, t),
	     counted(f->global, d));
	check(counted(f->in, t) >= N, "in-eBPF counted %llu", counted(f->in, t));
	check_eq(counted(f->view, t), counted(f->in, t));
	check_eq(counted(f->a2, t), counted(f->in, t));
	check_eq(counted(f->global, t), counted(f->in, t));
	check(counted(f->global, d) >= N, "the global program missed d");
	check_eq(counted(f->more[0], d), counted(f->global, d));
	check_eq(counted(f->more[1], d), counted(f->global, d));
	check_eq(nkeys(f->view), 1);
	check_eq(nkeys(f->a2), 1);
	check_eq(nkeys(f->more[0]), 1);
	check_eq(nkeys(f->more[1]), 1);

	/* A link of each view goes; new members, counted afresh. */
	release_link(&f->a2l);
	release_link(&f->ml[0]);
	release_link(&f->gl);
	destroy_skel(&f->global);
	f->t = t = spawn_stopped(args);
	f->d = d = spawn_stopped(args);
	err = kview__add_pid(f->kv, t);
	check(!err, "add %d to t's view: %s", t, strerror(-err));
	err = kview__add_pid(f->kv2, d);
	check(!err, "add %d to d's view: %s", d, strerror(-err));
	/* the reference from here on: t and d are stopped after exec */
	f->global = load("rawtp_enter", 0, 0);
	f->gl = attach(f->global, "rawtp_enter", NULL);
	run_pair(f);
	diag("after a link of each view went: t's view %llu, d's view %llu, global t %llu d %llu",
	     counted(f->view, t), counted(f->more[1], d), counted(f->global, t),
	     counted(f->global, d));
	check(counted(f->global, t) >= N, "the global program missed t");
	check(counted(f->global, d) >= N, "the global program missed d");
	check_eq(counted(f->view, t), counted(f->global, t));
	check_eq(counted(f->more[1], d), counted(f->global, d));
	check_eq(counted(f->view, d), 0);
	check_eq(counted(f->more[1], t), 0);
	check_eq(nkeys(f->view), 2);
	check_eq(nkeys(f->more[1]), 2);
	tp_release(f);
	settle_clean();
}

/* Flagged tasks whose "Tgid:" (or "PPid:") in /proc is @id. */
static int count_flagged(const char *field, pid_t id)
{
	char path[64], line[256], fmt[32];
	int tids[512], n = 0, v;
	size_t i, nf = syscall_work_tids(tids, 512);
	FILE *f;

	snprintf(fmt, sizeof(fmt), "%s: %%d", field);
	for (i = 0; i < nf; i++) {
		snprintf(path, sizeof(path), "/proc/%d/status", tids[i]);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, fmt, &v) == 1 && v == id)
				n++;
		fclose(f);
	}
	return n;
}

/* Processes whose parent is @pid (a scan of /proc). */
static int children_of(pid_t pid)
{
	char path[300], line[256];
	struct dirent *de;
	int n = 0, ppid;
	DIR *d = opendir("/proc");
	FILE *f;

	check(d, "/proc: %s", strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "PPid: %d", &ppid) == 1 && ppid == pid)
				n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

/* A view with @follow on `workload forkspin`: is the child flagged? */
static int forkspin_child_flagged(struct tp *f, bool follow)
{
	char *forkspin[] = { workload, "forkspin", NULL };
	LIBBPF_OPTS(kview_opts, opts, .follow_fork = follow);
	int children;

	f->view = load("tp_raw_enter", 0, 0);
	f->t = spawn_stopped(forkspin);
	f->kv = kview__create(f->t, &opts);
	check(f->kv, "kview__create: %s", strerror(errno));
	f->vl = attach(f->view, "tp_raw_enter", f->kv);
	resume(f->t);
	check(WAIT_FOR(children_of(f->t) > 0, 20), "forkspin did not fork");
	usleep(100000);
	children = count_flagged("PPid", f->t);
	diag("forkspin%s: target flagged %d, its child %d", follow ?
	     " with follow-fork" : "", count_flagged("Tgid", f->t), children);
	check_eq(count_flagged("Tgid", f->t), 1);
	kill(-f->t, SIGKILL);
	wait_exit(f->t);
	tp_release(f);
	settle_clean();
	return children;
}

/*
 * The target's threads (in a follow-fork view tracing syscalls) have the
 * flag, nobody else, and none once it exited.
 */
static void flagged_threads(struct tp *f)
{
	char *spin[] = { workload, "spin", NULL };
	char *threads[] = { workload, "threads", "3", "200000", NULL };
	LIBBPF_OPTS(kview_opts, opts, .follow_fork = true);
	int tids[512];
	size_t n;

	f->t = spawn_stopped(threads);
	f->d = spawn_stopped(spin);
	f->kv = kview__create(f->t, &opts);
	check(f->kv, "kview__create: %s", strerror(errno));
	f->vl = attach(f->view, "tp_raw_enter", f->kv);
	resume(f->t);
	resume(f->d);
	WAIT_FOR(count_flagged("Tgid", f->t) == 4, 20);
	n = syscall_work_tids(tids, 512);
	diag("while the view traces syscalls: %zu task(s) flagged, %d of the target",
	     n, count_flagged("Tgid", f->t));
	/* The target's main thread and its 3 workers, nobody else. */
	check_eq(count_flagged("Tgid", f->t), 4);
	check_eq(n, 4);
	check(!syscall_work_flagged(f->d), "the decoy has the flag");
	check(!syscall_work_flagged(getpid()), "the test has the flag");
	check_eq(wait_exit(f->t), 0);
	check_eq(syscall_work_tids(tids, 512), 0);
}

/* A process added to the view gets it; the test's own child not. */
static void flagged_added(struct tp *f)
{
	int tids[512];

	check(!kview__add_pid(f->kv, f->d), "add decoy: %s", strerror(errno));
	check(WAIT_FOR(syscall_work_flagged(f->d), 20),
	      "a process added to the view has no flag");
	f->child = fork();
	if (!f->child) {
		execl(workload, workload, "spin", NULL);
		_exit(127);
	}
	usleep(100000);
	check(!syscall_work_flagged(f->child), "the test's own child got the flag");
	kill(f->child, SIGKILL);
	wait_exit(f->child);
	kill(f->d, SIGKILL);
	wait_exit(f->d);
	check_eq(syscall_work_tids(tids, 512), 0);
}

static void test_syscall_work(void *fixture, const void *variant)
{
	struct tp *f = fixture;
	int tids[512];

	(void)variant;
	f->view = load("tp_raw_enter", 0, 0);
	check_eq(syscall_work_tids(tids, 512), 0);
	flagged_threads(f);
	flagged_added(f);
	tp_release(f);
	settle_clean();

	/* Children forked after the attach: traced with follow-fork only. */
	check_eq(forkspin_child_flagged(f, true), 1);
	check_eq(forkspin_child_flagged(f, false), 0);
	check_eq(syscall_work_tids(tids, 512), 0);
}

static void test_module(void *fixture, const void *variant)
{
	char *spin[] = { "sleep", "60", NULL };
	struct tp *f = fixture;
	struct bpf_link *link;

	(void)variant;
	check(!system("modprobe -d \"$KVIEW_MODROOT\" trace-events-sample"),
	      "cannot load trace-events-sample");
	f->module = true;
	f->view = tpcount__open();
	check(f->view, "open: %s", strerror(errno));
	bpf_program__set_autoload(f->view->progs.tp_read, false);
	bpf_program__set_autoload(f->view->progs.kp_read, false);
	bpf_program__set_autoload(f->view->progs.tp_raw_enter, false);
	bpf_program__set_autoload(f->view->progs.tp_fork, false);
	bpf_program__set_autoload(f->view->progs.rawtp_enter, false);
	bpf_program__set_autoload(f->view->progs.btf_enter, false);
	check(!tpcount__load(f->view), "load: %s", strerror(errno));
	f->t = spawn_stopped(spin);
	resume(f->t);
	f->kv = kview__create(f->t, NULL);
	check(f->kv, "kview__create: %s", strerror(errno));
	link = kview__attach_program(f->kv, f->view->progs.tp_module);
	diag("sample-trace/foo_bar in a view: %s", link ? "attached" : strerror(errno));
	check(!link && errno == EOPNOTSUPP, "expected EOPNOTSUPP");
	link = kview__attach_program(f->kv, f->view->progs.rawtp_module);
	diag("raw_tp foo_bar in a view: %s", link ? "attached" : strerror(errno));
	check(!link && errno == EOPNOTSUPP, "expected EOPNOTSUPP");
	kill(f->t, SIGKILL);
	wait_exit(f->t);
	tp_release(f);
	settle_clean();
	f->module = false;
	check(!system("rmmod trace_events_sample"), "rmmod failed");
}

/*
 * The views hold @nr call patches, and at sys_enter's static call site
 * @site the view calls @view_dest, the global text @global_dest.
 */
static void check_site(struct kview *kv, unsigned long site, unsigned int nr,
		       const char *view_dest, const char *global_dest,
		       const char *when)
{
	unsigned char vb[5], gb[5];
	unsigned int have;

	first_patch("call", &have);
	check_eq(have, nr);

	check(!kview__read_text(kv, site, vb, gb, 5), "read text at %#lx: %s",
	      site, strerror(errno));
	diag("%s: view %s, global %s", when, hexbytes(vb, 5), hexbytes(gb, 5));
	check(insn_calls(vb, site, ksym(view_dest)),
	      "%s: the view does not call %s", when, view_dest);
	check(insn_calls(gb, site, ksym(global_dest)),
	      "%s: the global text does not call %s", when, global_dest);
}

/* A target whose sys_enter events two programs count, with a decoy. */
static void run_counted(struct tp *f, struct tpcount *a, struct tpcount *b)
{
	char *args[] = { workload, "reads", NSTR, NULL };
	pid_t t, d;

	f->t = t = spawn_stopped(args);
	f->d = d = spawn_stopped(args);
	check(!kview__add_pid(f->kv, t), "add target: %s", strerror(errno));
	run_pair(f);
	if (b)
		diag("target %d: %llu event(s), second program %llu, decoy %llu",
		     t, counted(a, t), counted(b, t), counted(a, d));
	else
		diag("target %d: %llu event(s), decoy %llu", t, counted(a, t),
		     counted(a, d));
	check(counted(a, t) >= N, "the view counted %llu", counted(a, t));
	check_eq(counted(a, d), 0);
	if (b)
		check_eq(counted(b, t), counted(a, t));
}

/* A second probe (a raw tracepoint program in the view), then gone. */
static void direct_call_second_probe(struct tp *f, unsigned long site)
{
	f->in = load("rawtp_enter", 0, 0);
	f->il = attach(f->in, "rawtp_enter", f->kv);
	check_site(f->kv, site, 0, "__traceiter_sys_enter", "__traceiter_sys_enter",
		   "two probes");
	run_counted(f, f->view, f->in);
	release_link(&f->il);
	destroy_skel(&f->in);
	check_eq(first_patch("call", NULL), site);
	check_site(f->kv, site, 1, "perf_trace_sys_enter", "__traceiter_sys_enter",
		   "the second probe gone");
}

/* Armed globally: the global text calls the probe, the view with it. */
static void direct_call_global(struct tp *f, unsigned long site)
{
	f->global = load("tp_raw_enter", 0, 0);
	f->gl = attach(f->global, "tp_raw_enter", NULL);
	check_site(f->kv, site, 0, "perf_trace_sys_enter", "perf_trace_sys_enter",
		   "armed globally too");
	run_counted(f, f->view, NULL);
	release_link(&f->gl);
	destroy_skel(&f->global);
	check_site(f->kv, site, 1, "perf_trace_sys_enter", "__traceiter_sys_enter",
		   "the global arm gone");
	run_counted(f, f->view, NULL);
}

static void test_direct_call(void *fixture, const void *variant)
{
	char *spin[] = { "sleep", "60", NULL };
	struct tp *f = fixture;
	unsigned long site;
	unsigned int nr;

	(void)variant;
	f->view = load("tp_raw_enter", 0, 0);
	/* The view lives on a sleeper; targets join it one by one. */
	f->holder = spawn_stopped(spin);
	f->kv = kview__create(f->holder, NULL);
	check(f->kv, "kview__create: %s", strerror(errno));
	f->vl = attach(f->view, "tp_raw_enter", f->kv);
	site = first_patch("call", &nr);
	diag("raw_syscalls/sys_enter in the view: %u call patch(es), first at %#lx",
	     nr, site);
	check_site(f->kv, site, 1, "perf_trace_sys_enter", "__traceiter_sys_enter",
		   "one probe, armed in the view");
	run_counted(f, f->view, NULL);
	direct_call_second_probe(f, site);
	direct_call_global(f, site);

	release_link(&f->vl);
	first_patch("call", &nr);
	check_eq(nr, 0);
	kill(f->holder, SIGKILL);
	wait_exit(f->holder);
	tp_release(f);
	settle_clean();
}

static const struct tp_variant
	raw_syscalls = { "tp_raw_enter", "reads", NSTR, N },
	sched = { "tp_fork", "forks", "50", 50 },
	raw_tp = { "rawtp_enter", "reads", NSTR, N },
	tp_btf = { "btf_enter", "reads", NSTR, N };

static const struct check_case cases[] = {
	{ "read", test_read, NULL },
	{ "raw-syscalls", test_sequential, &raw_syscalls },
	{ "sched", test_sequential, &sched },
	{ "raw-tp", test_sequential, &raw_tp },
	{ "tp-btf", test_sequential, &tp_btf },
	{ "mixed", test_mixed, NULL },
	{ "views", test_views, NULL },
	{ "raw-views", test_raw_views, NULL },
	{ "syscall-work", test_syscall_work, NULL },
	{ "module", test_module, NULL },
	{ "direct-call", test_direct_call, NULL },
};

static const struct check_suite suite = {
	.fixture_size = sizeof(struct tp),
	.teardown = tp_teardown,
	CHECK_CASES(cases),
};

int main(int argc, char **argv)
{
	workload_path(workload, sizeof(workload));
	return check_main(&suite, argc, argv);
}
