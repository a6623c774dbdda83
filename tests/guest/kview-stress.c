// SPDX-License-Identifier: GPL-2.0
/*
 * kview-stress: a randomized, reproducible stress of kernel views.
 *
 *   kview-stress [--seed S] [--ops N] [--actors A] [--duration SEC] [-v]
 *                [--global-only]
 *
 * A actor threads pick random operations from their own RNG (splitmix64,
 * seeded from (S, actor index)), all at once on the guest's vCPUs:
 *
 *  - views: create (kernel views and filter views, random follow-fork and
 *    follow-exec, with a first member or empty), close, add a pid (also
 *    ones that must fail: a member of another view, no such process);
 *  - attachments in views (libkview, or the raw scope ioctls around
 *    libbpf's attach), in filter views ("pre"), and globally, mixed on the
 *    same sites: kprobes on ksys_read's ftrace site and at +5, kretprobes,
 *    syscall, raw_syscalls and sched tracepoints, raw and BTF tracepoints,
 *    fentry and fexit programs on vfs_read (BPF trampolines); detach;
 *  - member processes ("workers", this program with --worker, started by
 *    fork+exec and waiting for the go): marked reads (read(2) of
 *    MARK_SIZE bytes of /dev/zero) in a loop, fork (with and without
 *    follow-fork), threads, exec (with and without follow-exec), exit,
 *    SIGKILL of one process or of a whole process group;
 *  - global text changes meanwhile: the bpf_stats_enabled static key, the
 *    function tracer on functions next to the probe sites, tracefs event
 *    enables, tracefs kprobe events (at offsets: optimized), and global
 *    perf counting events on the same tracepoints.
 *
 * Every K operations (random) the actors pause for a check phase: every
 * worker does exactly R marked reads in each of its threads, and
 *
 *  1. scope: a view's program never counted a process that was never a
 *     member of the view (the driver knows membership: it makes every
 *     worker, and workers report their children);
 *  2. equality: a view's or filter view's program on a read hook counted
 *     R x threads for each member and 0 for the others, as a global
 *     in-eBPF reference (pid in a map of the members) on the same hook
 *     does, attached for some check phases; sched_process_exit programs
 *     saw the exit of every process that died in their scope;
 *  3. global consumers: global programs counted exactly R x threads for
 *     every worker, global perf counting events on the read syscall
 *     tracepoints at least the sum;
 *  4. text: at each patch site debugfs lists, the view executes the
 *     patch's bytes and the global text has the saved ones, and the bytes
 *     around it are the global ones; debugfs kview/verify (if the kernel
 *     has it) reports no bad byte; the kernel's membership equals ours.
 *
 * After the teardown (on every exit path): kview/stats is back to no view,
 * patch, page or table page, and its out_of_scope count did not move (no
 * task outside a view reached a hook through the view's text); no kprobe
 * and no syscall-work flag is left.
 *
 * Each violation is one "# VIOLATION: ..." line (the first ones are told
 * again before the last line); the last line counts them, and the exit
 * status is 0 iff there was none.  The same seed replays the same random
 * choices (the interleaving of the actors is the scheduler's).  -v logs
 * every operation and check phase.
 *
 * A watchdog reports a hang (no progress for HANG_S seconds) as a
 * violation, with what each actor was doing and the kernel stacks of the
 * driver and the workers, and asks the kernel for sysrq w and l.
 *
 * --global-only makes no view at all (every attachment global, the same
 * churn otherwise): an A/B run to tell a kview bug from a platform one.
 *
 * The parts, in stress/: actors.c and actors-procs.c (the operations),
 * invariants.c (the check phases), teardown.c (the final invariants),
 * worker.c (the member processes), model.c and inst.c (the driver's view
 * of views, workers, attachments and BPF instances), schedule.c,
 * watchdog.c, output.c and util.c; stress.h declares what they share.
 * This file: the options, the setup and the run.
 */
#include "stress/stress.h"

static void on_signal(int sig)
{
	got_signal = sig;
}

static void usage(void)
{
	fprintf(stderr, "usage: kview-stress [--seed S] [--ops N] [--actors A] [--duration SEC] [-v]\n"
		"       [--global-only]   no view: the same churn, all global (A/B runs)\n");
	exit(2);
}

/* The command line. */
struct options {
	uint64_t seed;
	long ops, duration;
	int nactors;
};

static void parse_options(int argc, char **argv, struct options *o)
{
	struct timespec ts;
	int i;

	clock_gettime(CLOCK_REALTIME, &ts);
	o->seed = (uint64_t)ts.tv_sec * 1000003 ^ ts.tv_nsec ^ getpid();
	o->ops = 400;
	o->duration = 0;
	o->nactors = 3;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			o->seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--ops") && i + 1 < argc)
			o->ops = atol(argv[++i]);
		else if (!strcmp(argv[i], "--actors") && i + 1 < argc)
			o->nactors = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--duration") && i + 1 < argc)
			o->duration = atol(argv[++i]);
		else if (!strcmp(argv[i], "-v"))
			verbose = true;
		else if (!strcmp(argv[i], "--global-only"))
			global_only = true;
		else
			usage();
	}
	if (o->ops < 1 || o->nactors < 1 || o->nactors > 16 || o->duration < 0)
		usage();
	duration_mode = o->duration > 0;
}

/*
 * What the stress needs, and what the machine holds before it (the final
 * invariants compare with it); the out_of_scope count from kview/stats.
 */
static long setup(void)
{
	struct stat_line s[STAT_LINES];
	int n, err, tids[64];
	long oos_before;
	char *v;

	page_size = sysconf(_SC_PAGESIZE);
	v = read_all("/proc/sys/kernel/pid_max");
	pid_max = v ? strtoul(v, NULL, 10) : 0;
	free(v);
	check(pid_max, "read /proc/sys/kernel/pid_max: %s", strerror(errno));
	check(!access(KVIEW_DEVICE, R_OK | W_OK), "%s: %s", KVIEW_DEVICE, strerror(errno));
	check(readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1) > 0,
	      "readlink /proc/self/exe: %s", strerror(errno));
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus > MAX_CPUS)
		ncpus = MAX_CPUS;
	etext = ksym("_etext");
	past_off = past_site_offset("ksys_read");
	n = read_stats(s, STAT_LINES);
	check(n, "no %sstats", KVIEW_DEBUGFS);
	oos_before = stat_get(s, n, "out_of_scope");
	if (stat_get(s, n, "views") || stat_get(s, n, "patches"))
		note("kview/stats before the stress: %ld view(s), %ld patch(es)",
		     stat_get(s, n, "views"), stat_get(s, n, "patches"));
	syscall_work_before = syscall_work_tids(tids, 64);
	if (syscall_work_before)
		note("tasks have the syscall-work flag before the stress: not checked after it");
	kprobes_before = read_all("/sys/kernel/debug/kprobes/list");
	T.bpf_stats_orig = read_long(BPF_STATS, -1);
	T.bpf_stats = T.bpf_stats_orig > 0;
	if (read_long(TRACING "events/syscalls/sys_enter_read/enable", 0) ||
	    read_long(TRACING "events/raw_syscalls/sys_enter/enable", 0))
		note("a syscall event is enabled in tracefs before the stress");

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	libbpf_set_print(NULL);

	err = perf_open(&T.perf[0], "syscalls/sys_enter_read");
	if (err)
		violation("perf_event_open syscalls:sys_enter_read: %s", err_name(-err));
	return oos_before;
}

/* The actors and the watchdog start; the driver runs the check phases. */
static void run(const struct options *o, struct actor *actors)
{
	double next_progress = 0;
	pthread_t watchdog;
	int i, err;

	rng_seed(&main_rng, o->seed, 1000);
	G.nops = duration_mode ? LONG_MAX : o->ops;
	G.next_check = 20 + rnd(&main_rng, 40);
	deadline = t_start + o->duration;
	if (duration_mode)
		next_progress = t_start + o->duration / 10.0;
	beat("running");
	watch_actors = actors;
	watch_nactors = o->nactors;
	err = pthread_create(&watchdog, NULL, watchdog_main, NULL);
	check(!err, "pthread_create: %s", strerror(err));
	pthread_detach(watchdog);
	for (i = 0; i < o->nactors; i++) {
		actors[i].idx = i;
		actors[i].cur = -1;
		rng_seed(&actors[i].rng, o->seed, i);
		err = pthread_create(&actors[i].thread, NULL, actor_main, &actors[i]);
		check(!err, "pthread_create: %s", strerror(err));
	}

	/* Check phases whenever the actors reach the next one. */
	pthread_mutex_lock(&G.lock);
	for (;;) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 200 * 1000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&G.cond, &G.lock, &until);
		if (got_signal || (duration_mode && now() >= deadline)) {
			if (got_signal)
				note("signal %d: stopping", (int)got_signal);
			G.stop = true;
			pthread_cond_broadcast(&G.cond);
		}
		if (duration_mode && now() >= next_progress && !G.stop) {
			next_progress += o->duration / 10.0;
			pthread_mutex_unlock(&G.lock);
			progress(G.done);
			pthread_mutex_lock(&G.lock);
		}
		if (G.stop || G.done >= G.nops)
			break;
		if (G.inflight || G.next_ticket < G.next_check)
			continue;
		pthread_mutex_unlock(&G.lock);
		check_phase(false);
		pthread_mutex_lock(&G.lock);
		G.next_check = G.done + 20 + rnd(&main_rng, 40);
		pthread_cond_broadcast(&G.cond);
	}
	pthread_mutex_unlock(&G.lock);
	for (i = 0; i < o->nactors; i++)
		pthread_join(actors[i].thread, NULL);
}

/* What was attached where, what was refused, and the violations again. */
static void summary(void)
{
	char buf[1024] = "";
	int i;

	for (i = 0; i < NR_HOOKS; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 " %s %lu/%lu/%lu%s", hooks[i].prog,
			 G.attached[i][M_VIEW], G.attached[i][M_PRE],
			 G.attached[i][M_GLOBAL],
			 G.refused[i] ? " (refused)" : "");
	say("kview-stress: attachments view/pre/global:%s", buf);
	for (i = 0; i < NR_HOOKS; i++)
		if (G.refused[i])
			note("%s refused in a view %lu time(s) (EOPNOTSUPP)",
			     hooks[i].name, G.refused[i]);
	say("kview-stress: %ld check phases, %.1f s", (long)phase, now() - t_start);
	for (i = 0; i < RECAP && i < violations; i++)
		say("# violation %d: %.300s", i + 1, recap[i]);
	if (violations > RECAP)
		say("# ... and %ld more", violations - RECAP);
	say("kview-stress: %ld ops, %ld invariant violations", G.done, violations);
}

int main(int argc, char **argv)
{
	struct actor actors[16];
	struct options o;
	long oos_before;

	if (argc == 4 && !strcmp(argv[1], "--worker"))
		return worker_main(atoi(argv[2]), atoi(argv[3]));

	parse_options(argc, argv, &o);
	say("kview-stress: seed %llu ops %s%ld actors %d%s", (unsigned long long)o.seed,
	    duration_mode ? "unbounded, duration " : "",
	    duration_mode ? o.duration : o.ops, o.nactors,
	    global_only ? " (global only: no views)" : "");
	t_start = now();
	oos_before = setup();
	run(&o, actors);

	beat("final check phase");
	if (!got_signal)
		check_phase(true);
	teardown();
	check_clean(oos_before);
	summary();
	return violations ? 1 : 0;
}
