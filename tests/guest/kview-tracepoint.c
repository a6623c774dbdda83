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
 *   syscall-work  only the view's tasks (threads, follow-fork children)
 *                 have the syscall-work flag, and none after the detach
 *   module        a tracepoint defined in a module is refused, perf and raw
 *   direct-call   armed in the view only, the tracepoint's static call site
 *                 in the view's copy calls its only probe; a second probe
 *                 (a raw tracepoint program) or a global arm give the view
 *                 the global call back, and the view gets its direct call
 *                 again when they go; the counts stay exact throughout
 */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "kvtest.h"
#include "tpcount.skel.h"

#define N 2000
#define NSTR "2000"

static char workload[4096];

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

/* @prog in the view of `workload ARGS`, with a decoy doing the same. */
static unsigned long long run_view(const char *prog, unsigned long mark,
				   char **args, bool check_text)
{
	struct tpcount *view = load(prog, 0, mark);
	unsigned long long got;
	struct bpf_link *link;
	struct kview *kv;
	pid_t t, d;

	t = spawn_stopped(args);
	d = spawn_stopped(args);
	kv = kview__create(t, NULL);
	check(kv, "kview__create: %s", strerror(errno));
	link = attach(view, prog, kv);
	if (check_text) {
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
	resume(t);
	resume(d);
	check_eq(wait_exit(t), 0);
	check_eq(wait_exit(d), 0);
	got = counted(view, t);
	diag("%s in the view: target %llu, decoy %llu, processes %zu", prog,
	     got, counted(view, d), nkeys(view));
	check_eq(counted(view, d), 0);
	check_eq(nkeys(view), 1);
	bpf_link__destroy(link);
	kview__destroy(kv);
	tpcount__destroy(view);
	settle_clean();
	return got;
}

/* The in-eBPF baseline: @prog globally with pid == target, alone. */
static unsigned long long run_in_ebpf(const char *prog, unsigned long mark,
				      char **args)
{
	struct tpcount *in;
	unsigned long long got;
	struct bpf_link *link;
	pid_t t;

	t = spawn_stopped(args);
	in = load(prog, t, mark);
	link = attach(in, prog, NULL);
	resume(t);
	check_eq(wait_exit(t), 0);
	got = counted(in, t);
	diag("%s in-eBPF (global, pid == %d): %llu", prog, t, got);
	bpf_link__destroy(link);
	tpcount__destroy(in);
	return got;
}

static void test_sequential(const char *prog, char **args, long at_least)
{
	unsigned long long in = run_in_ebpf(prog, 0, args);
	unsigned long long view = run_view(prog, 0, args, true);

	check(in >= (unsigned long long)at_least,
	      "in-eBPF counted %llu, expected at least %ld", in, at_least);
	check_eq(view, in);
}

/* syscalls/sys_enter_read in the view vs kprobe ksys_read in-eBPF, one run. */
static void test_read(void)
{
	char *args[] = { workload, "reads", NSTR, NULL };
	struct tpcount *view = load("tp_read", 0, MARK_SIZE), *in;
	struct bpf_link *vl, *il;
	struct kview *kv;
	pid_t t, d;

	t = spawn_stopped(args);
	d = spawn_stopped(args);
	in = load("kp_read", t, MARK_SIZE);
	kv = kview__create(t, NULL);
	check(kv, "kview__create: %s", strerror(errno));
	il = attach(in, "kp_read", NULL);
	vl = attach(view, "tp_read", kv);
	resume(t);
	resume(d);
	check_eq(wait_exit(t), 0);
	check_eq(wait_exit(d), 0);
	diag("sys_enter_read in the view: target %llu, decoy %llu; in-eBPF ksys_read: %llu",
	     counted(view, t), counted(view, d), counted(in, t));
	check_eq(counted(in, t), N);
	check_eq(counted(view, t), N);
	check_eq(nkeys(view), 1);
	bpf_link__destroy(vl);
	bpf_link__destroy(il);
	kview__destroy(kv);
	tpcount__destroy(view);
	tpcount__destroy(in);
	settle_clean();
}

static void test_mixed(void)
{
	char *args[] = { workload, "reads", NSTR, NULL };
	struct tpcount *view, *in, *global;
	struct bpf_link *vl, *il, *gl;
	struct kview *kv;
	pid_t t, d;

	t = spawn_stopped(args);
	d = spawn_stopped(args);
	view = load("tp_raw_enter", 0, 0);
	in = load("tp_raw_enter", t, 0);
	global = load("tp_raw_enter", 0, 0);
	kv = kview__create(t, NULL);
	check(kv, "kview__create: %s", strerror(errno));
	vl = attach(view, "tp_raw_enter", kv);
	gl = attach(global, "tp_raw_enter", NULL);
	il = attach(in, "tp_raw_enter", NULL);
	resume(t);
	resume(d);
	check_eq(wait_exit(t), 0);
	check_eq(wait_exit(d), 0);
	diag("raw_syscalls/sys_enter: view %llu, in-eBPF %llu, global target %llu decoy %llu",
	     counted(view, t), counted(in, t), counted(global, t),
	     counted(global, d));
	check(counted(in, t) >= N, "in-eBPF counted %llu", counted(in, t));
	check_eq(counted(view, t), counted(in, t));
	check_eq(counted(global, t), counted(in, t));
	check(counted(global, d) >= N, "the global program missed the decoy");
	check_eq(nkeys(view), 1);
	bpf_link__destroy(il);
	bpf_link__destroy(gl);
	bpf_link__destroy(vl);
	kview__destroy(kv);
	tpcount__destroy(global);
	tpcount__destroy(in);
	tpcount__destroy(view);
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
static int forkspin_child_flagged(bool follow)
{
	char *forkspin[] = { workload, "forkspin", NULL };
	LIBBPF_OPTS(kview_opts, opts, .follow_fork = follow);
	struct tpcount *skel = load("tp_raw_enter", 0, 0);
	struct bpf_link *link;
	struct kview *kv;
	int children;
	pid_t t;

	t = spawn_stopped(forkspin);
	kv = kview__create(t, &opts);
	check(kv, "kview__create: %s", strerror(errno));
	link = attach(skel, "tp_raw_enter", kv);
	resume(t);
	check(WAIT_FOR(children_of(t) > 0, 20), "forkspin did not fork");
	usleep(100000);
	children = count_flagged("PPid", t);
	diag("forkspin%s: target flagged %d, its child %d", follow ?
	     " with follow-fork" : "", count_flagged("Tgid", t), children);
	check_eq(count_flagged("Tgid", t), 1);
	kill(-t, SIGKILL);
	wait_exit(t);
	bpf_link__destroy(link);
	kview__destroy(kv);
	tpcount__destroy(skel);
	settle_clean();
	return children;
}

static void test_syscall_work(void)
{
	char *spin[] = { workload, "spin", NULL };
	char *threads[] = { workload, "threads", "3", "200000", NULL };
	LIBBPF_OPTS(kview_opts, opts, .follow_fork = true);
	struct tpcount *skel = load("tp_raw_enter", 0, 0);
	int tids[512];
	struct bpf_link *link;
	struct kview *kv;
	pid_t t, d, child;
	size_t n;

	check_eq(syscall_work_tids(tids, 512), 0);
	t = spawn_stopped(threads);
	d = spawn_stopped(spin);
	kv = kview__create(t, &opts);
	check(kv, "kview__create: %s", strerror(errno));
	link = attach(skel, "tp_raw_enter", kv);
	resume(t);
	resume(d);
	WAIT_FOR(count_flagged("Tgid", t) == 4, 20);
	n = syscall_work_tids(tids, 512);
	diag("while the view traces syscalls: %zu task(s) flagged, %d of the target",
	     n, count_flagged("Tgid", t));
	/* The target's main thread and its 3 workers, nobody else. */
	check_eq(count_flagged("Tgid", t), 4);
	check_eq(n, 4);
	check(!syscall_work_flagged(d), "the decoy has the flag");
	check(!syscall_work_flagged(getpid()), "the test has the flag");
	check_eq(wait_exit(t), 0);
	check_eq(syscall_work_tids(tids, 512), 0);

	/* A process added to the view gets it; the test's own child not. */
	check(!kview__add_pid(kv, d), "add decoy: %s", strerror(errno));
	check(WAIT_FOR(syscall_work_flagged(d), 20),
	      "a process added to the view has no flag");
	child = fork();
	if (!child) {
		execl(workload, workload, "spin", NULL);
		_exit(127);
	}
	usleep(100000);
	check(!syscall_work_flagged(child), "the test's own child got the flag");
	kill(child, SIGKILL);
	wait_exit(child);
	kill(d, SIGKILL);
	wait_exit(d);
	check_eq(syscall_work_tids(tids, 512), 0);
	bpf_link__destroy(link);
	kview__destroy(kv);
	tpcount__destroy(skel);
	settle_clean();

	/* Children forked after the attach: traced with follow-fork only. */
	check_eq(forkspin_child_flagged(true), 1);
	check_eq(forkspin_child_flagged(false), 0);
	check_eq(syscall_work_tids(tids, 512), 0);
}

static void test_module(void)
{
	char *spin[] = { "sleep", "60", NULL };
	struct tpcount *skel = tpcount__open();
	struct bpf_link *link;
	struct kview *kv;
	pid_t t;

	check(!system("modprobe -d \"$KVIEW_MODROOT\" trace-events-sample"),
	      "cannot load trace-events-sample");
	check(skel, "open: %s", strerror(errno));
	bpf_program__set_autoload(skel->progs.tp_read, false);
	bpf_program__set_autoload(skel->progs.kp_read, false);
	bpf_program__set_autoload(skel->progs.tp_raw_enter, false);
	bpf_program__set_autoload(skel->progs.tp_fork, false);
	bpf_program__set_autoload(skel->progs.rawtp_enter, false);
	bpf_program__set_autoload(skel->progs.btf_enter, false);
	check(!tpcount__load(skel), "load: %s", strerror(errno));
	t = spawn_stopped(spin);
	resume(t);
	kv = kview__create(t, NULL);
	check(kv, "kview__create: %s", strerror(errno));
	link = kview__attach_program(kv, skel->progs.tp_module);
	diag("sample-trace/foo_bar in a view: %s", link ? "attached" : strerror(errno));
	check(!link && errno == EOPNOTSUPP, "expected EOPNOTSUPP");
	link = kview__attach_program(kv, skel->progs.rawtp_module);
	diag("raw_tp foo_bar in a view: %s", link ? "attached" : strerror(errno));
	check(!link && errno == EOPNOTSUPP, "expected EOPNOTSUPP");
	kill(t, SIGKILL);
	wait_exit(t);
	kview__destroy(kv);
	tpcount__destroy(skel);
	settle_clean();
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
static void run_counted(struct kview *kv, struct tpcount *a, struct tpcount *b)
{
	char *args[] = { workload, "reads", NSTR, NULL };
	pid_t t = spawn_stopped(args), d = spawn_stopped(args);

	check(!kview__add_pid(kv, t), "add target: %s", strerror(errno));
	resume(t);
	resume(d);
	check_eq(wait_exit(t), 0);
	check_eq(wait_exit(d), 0);
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

static void test_direct_call(void)
{
	char *spin[] = { "sleep", "60", NULL };
	struct tpcount *view = load("tp_raw_enter", 0, 0), *raw, *global;
	struct bpf_link *vl, *rl, *gl;
	unsigned long site;
	unsigned int nr;
	struct kview *kv;
	pid_t holder;

	/* The view lives on a sleeper; targets join it one by one. */
	holder = spawn_stopped(spin);
	kv = kview__create(holder, NULL);
	check(kv, "kview__create: %s", strerror(errno));
	vl = attach(view, "tp_raw_enter", kv);
	site = first_patch("call", &nr);
	diag("raw_syscalls/sys_enter in the view: %u call patch(es), first at %#lx",
	     nr, site);
	check_site(kv, site, 1, "perf_trace_sys_enter", "__traceiter_sys_enter",
		   "one probe, armed in the view");
	run_counted(kv, view, NULL);

	/* A second probe: the iterator for the view too, no global write. */
	raw = load("rawtp_enter", 0, 0);
	rl = attach(raw, "rawtp_enter", kv);
	check_site(kv, site, 0, "__traceiter_sys_enter", "__traceiter_sys_enter",
		   "two probes");
	run_counted(kv, view, raw);
	bpf_link__destroy(rl);
	tpcount__destroy(raw);
	check_eq(first_patch("call", NULL), site);
	check_site(kv, site, 1, "perf_trace_sys_enter", "__traceiter_sys_enter",
		   "the second probe gone");

	/* Armed globally: the global text calls the probe, the view with it. */
	global = load("tp_raw_enter", 0, 0);
	gl = attach(global, "tp_raw_enter", NULL);
	check_site(kv, site, 0, "perf_trace_sys_enter", "perf_trace_sys_enter",
		   "armed globally too");
	run_counted(kv, view, NULL);
	bpf_link__destroy(gl);
	tpcount__destroy(global);
	check_site(kv, site, 1, "perf_trace_sys_enter", "__traceiter_sys_enter",
		   "the global arm gone");
	run_counted(kv, view, NULL);

	bpf_link__destroy(vl);
	first_patch("call", &nr);
	check_eq(nr, 0);
	kill(holder, SIGKILL);
	wait_exit(holder);
	kview__destroy(kv);
	tpcount__destroy(view);
	settle_clean();
}

int main(int argc, char **argv)
{
	char *reads[] = { workload, "reads", NSTR, NULL };
	char *forks[] = { workload, "forks", "50", NULL };
	const char *mode = argc > 1 ? argv[1] : "";

	workload_path(workload, sizeof(workload));

	if (!strcmp(mode, "read"))
		test_read();
	else if (!strcmp(mode, "raw-syscalls"))
		test_sequential("tp_raw_enter", reads, N);
	else if (!strcmp(mode, "sched"))
		test_sequential("tp_fork", forks, 50);
	else if (!strcmp(mode, "raw-tp"))
		test_sequential("rawtp_enter", reads, N);
	else if (!strcmp(mode, "tp-btf"))
		test_sequential("btf_enter", reads, N);
	else if (!strcmp(mode, "mixed"))
		test_mixed();
	else if (!strcmp(mode, "syscall-work"))
		test_syscall_work();
	else if (!strcmp(mode, "module"))
		test_module();
	else if (!strcmp(mode, "direct-call"))
		test_direct_call();
	else {
		fprintf(stderr, "usage: kview-tracepoint read|raw-syscalls|sched|raw-tp|tp-btf|mixed|syscall-work|module|direct-call\n");
		return 2;
	}
	return 0;
}
