// SPDX-License-Identifier: GPL-2.0
/*
 * kview-trampoline: BPF trampolines (fentry, fexit, fmod_ret) attached in a
 * process's kernel view.  The view's copy of the function's ftrace site
 * calls the trampoline; the global text keeps its NOP.  The programs see
 * exactly what the in-eBPF filter (pid == N first thing in a globally
 * attached program, on the syscall tracepoints) sees for the target, and
 * nothing of an identical decoy.
 *
 *   kview-trampoline entry    fentry on ksys_read
 *   kview-trampoline exit     fexit on ksys_read: also the sum of the
 *                             return values each process's reads returned
 *   kview-trampoline modret   fmod_ret on security_task_getsid: the
 *                             target's getsid() calls fail with EDOM, the
 *                             decoy's do not
 *   kview-trampoline mixed    the fentry in the view and, at once, globally:
 *                             the global one sees everybody, the view one
 *                             the target; the trampoline is armed in the
 *                             global text then, and back in the view alone
 *                             after the global program left
 *   kview-trampoline ftrace   fentry and fexit in the view while the
 *                             function tracer traces ksys_read: the view's
 *                             task reaches both
 *   kview-trampoline loop     attached and detached 24 times (fentry and
 *                             fexit, every 4th round a global fentry too)
 *                             while target and decoy read on 2 vCPUs
 *   kview-trampoline module   fentry on a module's function: refused
 *   kview-trampoline livepatch  fentry and fexit, then a kprobe, in the
 *                             view on cmdline_proc_show() while
 *                             samples/livepatch replaces it: the view's
 *                             task runs the replacement, and the view's
 *                             programs see each of its calls
 *   kview-trampoline busy     a kprobe and a trampoline at the same entry
 *                             of one view: the second gets EBUSY, other
 *                             views are not affected, nothing is left;
 *                             and when the last global program goes while
 *                             the view's kprobe holds the site, the
 *                             trampoline stays in the global text (a
 *                             global fallback), its view program still
 *                             running for the view's task only
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "kvtest.h"
#include "tramp.skel.h"

#define READS "20000"
#define GETSIDS 1000
#define GETSID_ERRNO 33		/* tramp.bpf.c */
#define LOOP_ROUNDS 24

static char workload[4096];

static struct tramp *load(const char *prog, unsigned int filter,
			  unsigned long long mark)
{
	struct tramp *skel = tramp__open();

	check(skel, "open tramp.bpf.o: %s", strerror(errno));
	skel->rodata->filter_tgid = filter;
	skel->rodata->mark_size = mark;
	only_program(skel->obj, prog);
	check(!tramp__load(skel), "load %s: %s", prog, strerror(errno));
	return skel;
}

static struct bpf_link *attach_view(struct kview *kv, struct tramp *skel,
				    const char *prog)
{
	struct bpf_link *link;

	link = kview__attach_program(kv, bpf_object__find_program_by_name(skel->obj, prog));
	check(link, "attach %s in the view: %s", prog, strerror(errno));
	return link;
}

static struct bpf_link *attach_global(struct tramp *skel, const char *prog)
{
	struct bpf_link *link;

	link = bpf_program__attach(bpf_object__find_program_by_name(skel->obj, prog));
	check(link, "attach %s globally: %s", prog, strerror(errno));
	return link;
}

/* Whether @addr is the start of a BPF trampoline image (kallsyms). */
static bool is_trampoline(unsigned long addr)
{
	char line[512], sym[256], t;
	unsigned long a;
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	check(f, "/proc/kallsyms: %s", strerror(errno));
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%lx %c %255s", &a, &t, sym) == 3 &&
			a == addr && !strncmp(sym, "bpf_trampoline_", 15);
	fclose(f);
	return found;
}

/* Whether @insn, at @fn, is a call of a BPF trampoline. */
static bool calls_trampoline(const unsigned char *insn, unsigned long fn)
{
	int32_t rel;

	if (insn[0] != 0xe8)
		return false;
	memcpy(&rel, insn + 1, sizeof(rel));
	return is_trampoline(fn + 5 + (long)rel);
}

/*
 * The view holds the trampoline's call at @fn (its own patch: one site on
 * one page), the global text its NOP; or, @global, the global text holds
 * the call and the view runs it (no patch of its own).
 */
static void check_armed(struct kview *kv, unsigned long fn, bool global)
{
	unsigned char vb[5], gb[5];
	struct kview_info info;
	unsigned int nviews;

	check(!kview__read_text(kv, fn, vb, gb, 5), "read text: %s", strerror(errno));
	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	diag("%s armed: view %s, global %s; %u site(s), %u page(s)",
	     global ? "globally" : "in the view", hexbytes(vb, 5),
	     hexbytes(gb, 5), info.nr_patches, info.nr_pages);
	check_eq((global ? gb : vb)[0], 0xe8);
	check(calls_trampoline(global ? gb : vb, fn),
	      "the call at %#lx does not go to a BPF trampoline", fn);
	if (global) {
		check_eq(info.nr_patches, 0);
		check(!memcmp(vb, gb, 5), "the view does not run the global call");
	} else {
		check_eq(gb[0], 0x0f);
		check_eq(info.nr_patches, 1);
		check_eq(info.nr_pages, 1);
	}
	check_eq(kview_verify_total(&nviews), 0);
}

/* Nothing of the view is left: no patch, no page, no attachment. */
static void check_detached(struct kview *kv, unsigned long fn)
{
	struct kview_info info;

	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_patches, 0);
	check_eq(info.nr_pages, 0);
	check_eq(info.nr_attachments, 0);
	check_text_same(kv, fn, 16, "after detach");
}

/* entry, exit, mixed: dd bs=1 in the target and the decoy. */
static void test_reads(const char *mode)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=" READS, "status=none", NULL };
	bool fexit = !strcmp(mode, "exit"), mixed = !strcmp(mode, "mixed");
	const char *prog = fexit ? "fx_read" : "fe_read";
	const char *in_prog = fexit ? "tp_exit" : "tp_enter";
	unsigned long fn = ksym_site("ksys_read");
	struct tramp *in, *view, *global = NULL;
	struct bpf_link *in_link, *view_link, *global_link = NULL;
	unsigned long long want, got, gt, gd;
	struct kview_info info;
	pid_t target, decoy;
	struct kview *kv;

	target = spawn_stopped(dd);
	decoy = spawn_stopped(dd);
	kv = kview__create(target, NULL);
	check(kv, "kview__create(%d): %s", target, strerror(errno));

	in = load(in_prog, target, 0);
	view = load(prog, 0, 0);
	in_link = attach_global(in, in_prog);
	view_link = attach_view(kv, view, prog);
	check_armed(kv, fn, false);
	if (mixed) {
		global = load(prog, 0, 0);
		global_link = attach_global(global, prog);
		check_armed(kv, fn, true);
	}
	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_attachments, 1);

	resume(target);
	resume(decoy);
	check_eq(wait_exit(target), 0);
	check_eq(wait_exit(decoy), 0);

	want = check_counts_equal(bpf_map__fd(view->maps.counts),
				  bpf_map__fd(in->maps.counts), target, decoy);
	check(want >= 20000, "in-eBPF saw only %llu events of %s reads", want, READS);
	if (fexit) {
		want = map_u32_count(bpf_map__fd(in->maps.rets), target);
		got = map_u32_count(bpf_map__fd(view->maps.rets), target);
		diag("sum of the target's read returns: kview %llu, in-eBPF %llu", got, want);
		check(want >= 20000, "in-eBPF summed only %llu", want);
		check_eq(got, want);
	}
	if (mixed) {
		gt = map_u32_count(bpf_map__fd(global->maps.counts), target);
		gd = map_u32_count(bpf_map__fd(global->maps.counts), decoy);
		diag("global program: target %llu, decoy %llu", gt, gd);
		check_eq(gt, want);
		check(gd >= 20000, "the global program missed the decoy: %llu", gd);
		/* The last global program gone: the view holds the call again. */
		bpf_link__destroy(global_link);
		check_armed(kv, fn, false);
		tramp__destroy(global);
	}

	bpf_link__destroy(view_link);
	bpf_link__destroy(in_link);
	check_detached(kv, fn);
	kview__destroy(kv);
	tramp__destroy(view);
	tramp__destroy(in);
	check_stats_clean();
}

/* Start @argv stopped, its output going to @out. */
static pid_t spawn_out(char **argv, const char *out)
{
	int fd, saved;
	pid_t pid;

	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	check(fd >= 0, "%s: %s", out, strerror(errno));
	saved = dup(1);
	fflush(stdout);
	dup2(fd, 1);
	pid = spawn_stopped(argv);
	dup2(saved, 1);
	close(saved);
	close(fd);
	return pid;
}

/* Start `workload getsid N` stopped, its output going to @out. */
static pid_t spawn_getsid(const char *out)
{
	char *argv[] = { workload, "getsid", "1000", NULL };

	return spawn_out(argv, out);
}

/* "getsid: F failed, errno E" from @out. */
static void getsid_result(const char *out, long *failed, int *err)
{
	FILE *f = fopen(out, "r");

	check(f, "%s: %s", out, strerror(errno));
	check(fscanf(f, "getsid: %ld failed, errno %d", failed, err) == 2,
	      "no result in %s", out);
	fclose(f);
}

static void test_modret(void)
{
	struct tramp *in, *view;
	struct bpf_link *in_link, *view_link;
	unsigned long fn = ksym_site("security_task_getsid");
	unsigned long long want;
	long tfail, dfail;
	pid_t target, decoy;
	struct kview *kv;
	int terr, derr;

	target = spawn_getsid("/tmp/getsid-target");
	decoy = spawn_getsid("/tmp/getsid-decoy");
	kv = kview__create(target, NULL);
	check(kv, "kview__create(%d): %s", target, strerror(errno));
	in = load("tp_getsid", target, 0);
	view = load("fm_getsid", 0, 0);
	in_link = attach_global(in, "tp_getsid");
	view_link = attach_view(kv, view, "fm_getsid");
	check_armed(kv, fn, false);

	resume(target);
	resume(decoy);
	check_eq(wait_exit(target), 0);
	check_eq(wait_exit(decoy), 0);
	getsid_result("/tmp/getsid-target", &tfail, &terr);
	getsid_result("/tmp/getsid-decoy", &dfail, &derr);
	diag("target: %ld of %d getsid() failed (errno %d); decoy: %ld failed",
	     tfail, GETSIDS, terr, dfail);
	check_eq(tfail, GETSIDS);
	check_eq(terr, GETSID_ERRNO);
	check_eq(dfail, 0);
	/* fmod_ret ran once per getsid() of the target's, and for nobody else */
	want = check_counts_equal(bpf_map__fd(view->maps.counts),
				  bpf_map__fd(in->maps.counts), target, decoy);
	check_eq(want, GETSIDS);

	bpf_link__destroy(view_link);
	bpf_link__destroy(in_link);
	check_detached(kv, fn);
	kview__destroy(kv);
	tramp__destroy(view);
	tramp__destroy(in);
	check_stats_clean();
}

/*
 * The function tracer on ksys_read while fentry and fexit sit in the view:
 * the global site holds ftrace's call, the view's its trampoline, which
 * runs ftrace's users first (kview_ftrace_chain).  The marked reads each
 * return MARK_SIZE: the sum checks that fexit saw the function's own
 * return value through the chain.
 */
static void test_ftrace(void)
{
	char *spin[] = { workload, "spin", NULL };
	unsigned long fn = ksym_site("ksys_read");
	struct tramp *fe, *fx;
	struct bpf_link *le, *lx;
	unsigned long long events, exits, sum;
	unsigned char vb[5], gb[5];
	struct kview *kv;
	int lines;
	pid_t t;

	t = spawn_stopped(spin);
	kv = kview__create(t, NULL);
	check(kv, "kview__create: %s", strerror(errno));
	fe = load("fe_read", 0, MARK_SIZE);
	fx = load("fx_read", 0, MARK_SIZE);
	le = attach_view(kv, fe, "fe_read");
	lx = attach_view(kv, fx, "fx_read");
	check_armed(kv, fn, false);

	tracefs_set("trace", "");
	tracefs_set("set_ftrace_filter", "ksys_read\n");
	tracefs_set("current_tracer", "function\n");
	check(!kview__read_text(kv, fn, vb, gb, 5), "read text: %s", strerror(errno));
	diag("function tracer on: view %s, global %s", hexbytes(vb, 5), hexbytes(gb, 5));
	check_eq(gb[0], 0xe8);
	check_eq(vb[0], 0xe8);
	check(memcmp(vb, gb, 5), "the view runs the global call, not its trampoline");

	resume(t);
	check(WAIT_FOR(map_u32_count(bpf_map__fd(fx->maps.counts), t) > 100, 30),
	      "the target did not reach the view's fexit");
	tracefs_set("tracing_on", "0");
	lines = trace_lines(t, "ksys_read");
	kill(t, SIGSTOP);
	tracefs_set("current_tracer", "nop\n");
	tracefs_set("set_ftrace_filter", "\n");
	tracefs_set("tracing_on", "1");
	usleep(100000);
	events = map_u32_count(bpf_map__fd(fe->maps.counts), t);
	exits = map_u32_count(bpf_map__fd(fx->maps.counts), t);
	sum = map_u32_count(bpf_map__fd(fx->maps.rets), t);
	diag("function tracer: %d ksys_read line(s) of the target; fentry %llu, fexit %llu, returns %llu",
	     lines, events, exits, sum);
	check(lines > 0, "the function tracer missed the view's task");
	check(events > 100, "the view's fentry missed the target");
	check_eq(sum, exits * MARK_SIZE);
	check_armed(kv, fn, false);

	bpf_link__destroy(lx);
	bpf_link__destroy(le);
	check_detached(kv, fn);
	kill(t, SIGKILL);
	wait_exit(t);
	kview__destroy(kv);
	tramp__destroy(fx);
	tramp__destroy(fe);
	check_stats_clean();
}

/*
 * Attach and detach while the target and the decoy read on both vCPUs:
 * between global and view arming too.  The view's programs never count
 * the decoy; the view's text is the global text after each detach.
 */
static void test_loop(void)
{
	char *spin[] = { workload, "spin", NULL };
	unsigned long fn = ksym_site("ksys_read");
	struct tramp *fe, *fx, *g;
	unsigned long long tcount = 0, dcount, gcount;
	unsigned int nviews;
	pid_t t, d;
	struct kview *kv;
	int i;

	t = spawn_stopped(spin);
	d = spawn_stopped(spin);
	kv = kview__create(t, NULL);
	check(kv, "kview__create: %s", strerror(errno));
	fe = load("fe_read", 0, MARK_SIZE);
	fx = load("fx_read", 0, MARK_SIZE);
	g = load("fe_read", 0, MARK_SIZE);
	resume(t);
	resume(d);
	for (i = 0; i < LOOP_ROUNDS; i++) {
		struct bpf_link *le, *lx, *lg = NULL;
		unsigned long long before = map_u32_count(bpf_map__fd(fx->maps.counts), t);

		le = attach_view(kv, fe, "fe_read");
		if (i % 4 == 3)
			lg = attach_global(g, "fe_read");
		lx = attach_view(kv, fx, "fx_read");
		check(WAIT_FOR(map_u32_count(bpf_map__fd(fx->maps.counts), t) > before + 20, 30),
		      "round %d: the target did not reach the view's fexit", i);
		if (lg)
			bpf_link__destroy(lg);
		bpf_link__destroy(le);
		bpf_link__destroy(lx);
		check_detached(kv, fn);
	}
	tcount = map_u32_count(bpf_map__fd(fe->maps.counts), t);
	dcount = map_u32_count(bpf_map__fd(fe->maps.counts), d) +
		 map_u32_count(bpf_map__fd(fx->maps.counts), d);
	gcount = map_u32_count(bpf_map__fd(g->maps.counts), d);
	diag("%d rounds: view fentry saw the target %llu time(s), the decoy %llu; global fentry saw the decoy %llu time(s)",
	     LOOP_ROUNDS, tcount, dcount, gcount);
	check(tcount > 0, "the view's fentry never saw the target");
	check_eq(dcount, 0);
	check(gcount > 0, "the global fentry never saw the decoy");
	check_eq(map_u32_count(bpf_map__fd(fx->maps.rets), t),
		 map_u32_count(bpf_map__fd(fx->maps.counts), t) * MARK_SIZE);
	check_eq(kview_verify_total(&nviews), 0);
	kill(t, SIGKILL);
	kill(d, SIGKILL);
	wait_exit(t);
	wait_exit(d);
	kview__destroy(kv);
	tramp__destroy(g);
	tramp__destroy(fx);
	tramp__destroy(fe);
	check_stats_clean();
}

static void test_module(void)
{
	char *spin[] = { "sleep", "60", NULL };
	struct kview_info info;
	struct bpf_link *link;
	struct tramp *skel;
	struct kview *kv;
	pid_t t;

	check(!system("modprobe -d \"$KVIEW_MODROOT\" trace-events-sample"),
	      "cannot load trace-events-sample");
	skel = load("fe_module", 0, 0);
	t = spawn_stopped(spin);
	resume(t);
	kv = kview__create(t, NULL);
	check(kv, "kview__create: %s", strerror(errno));
	link = kview__attach_program(kv, skel->progs.fe_module);
	diag("fentry on foo_bar_reg (trace_events_sample) in a view: %s",
	     link ? "attached" : strerror(errno));
	check(!link && errno == EOPNOTSUPP, "expected EOPNOTSUPP");
	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_refused, 1);
	check(view_refused(info.id, "fentry foo_bar_reg"), "no record of the refusal");
	check_eq(info.nr_attachments, 0);
	check_eq(info.nr_patches, 0);
	/* Outside a view it attaches, as in mainline. */
	link = bpf_program__attach(skel->progs.fe_module);
	check(link, "fentry on foo_bar_reg globally: %s", strerror(errno));
	bpf_link__destroy(link);
	kill(t, SIGKILL);
	wait_exit(t);
	kview__destroy(kv);
	tramp__destroy(skel);
	check_stats_clean();
	check(!system("rmmod trace_events_sample"), "rmmod failed");
}

/*
 * One view's copy of a site holds one call: kprobe_view_caller or a
 * trampoline.  The second hook fails cleanly, in either order; another
 * view takes the other kind meanwhile.
 */
static void test_busy(void)
{
	char *spin[] = { "sleep", "60", NULL };
	unsigned long fn = ksym_site("ksys_read");
	struct bpf_link *first, *second, *other;
	struct tramp *kp, *fe;
	struct kview *kv, *kv2;
	struct kview_info info;
	pid_t t, t2;

	t = spawn_stopped(spin);
	t2 = spawn_stopped(spin);
	kv = kview__create(t, NULL);
	kv2 = kview__create(t2, NULL);
	check(kv && kv2, "kview__create: %s", strerror(errno));
	kp = load("kp_read", 0, 0);
	fe = load("fe_read", 0, 0);

	first = attach_view(kv, fe, "fe_read");
	second = kview__attach_program(kv, kp->progs.kp_read);
	diag("kprobe after fentry in one view: %s", second ? "attached" : strerror(errno));
	check(!second && errno == EBUSY, "expected EBUSY");
	other = attach_view(kv2, kp, "kp_read");
	check_armed(kv, fn, false);
	bpf_link__destroy(other);
	bpf_link__destroy(first);
	check_detached(kv, fn);
	check_detached(kv2, fn);

	first = attach_view(kv, kp, "kp_read");
	second = kview__attach_program(kv, fe->progs.fe_read);
	diag("fentry after kprobe in one view: %s", second ? "attached" : strerror(errno));
	check(!second && errno == EBUSY, "expected EBUSY");
	other = attach_view(kv2, fe, "fe_read");
	check_armed(kv2, fn, false);
	bpf_link__destroy(other);
	bpf_link__destroy(first);
	check_detached(kv, fn);
	check_detached(kv2, fn);
	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_attachments, 0);

	/*
	 * Global first, so both attach: the view's kprobe holds the view's
	 * site, the trampoline is in the global text.  When the global
	 * program goes, the view cannot take the trampoline over.
	 */
	{
		struct tramp *g = load("fe_read", 0, 0);
		struct bpf_link *lg = attach_global(g, "fe_read");
		struct kview_stats before = kview_stats(), after;
		unsigned char vb[5], gb[5];

		first = attach_view(kv, kp, "kp_read");
		second = attach_view(kv, fe, "fe_read");
		bpf_link__destroy(lg);
		after = kview_stats();
		check(!kview__read_text(kv, fn, vb, gb, 5), "read text: %s", strerror(errno));
		diag("global program gone, the view's kprobe on the site: view %s, global %s; global fallbacks %lu -> %lu",
		     hexbytes(vb, 5), hexbytes(gb, 5), before.global_fallback,
		     after.global_fallback);
		check_eq(gb[0], 0xe8);
		check_eq(after.global_fallback, before.global_fallback + 1);
		check(insn_calls(vb, fn, ksym("kprobe_view_caller")),
		      "the view's site does not hold its kprobe's call");
		bpf_link__destroy(first);
		bpf_link__destroy(second);
		check_detached(kv, fn);
		tramp__destroy(g);
	}

	kill(t, SIGKILL);
	kill(t2, SIGKILL);
	wait_exit(t);
	wait_exit(t2);
	kview__destroy(kv);
	kview__destroy(kv2);
	tramp__destroy(fe);
	tramp__destroy(kp);
	check_stats_clean();
}

#define LP_DIR "/sys/kernel/livepatch/livepatch_sample"
#define CMDLINES 200

static int sysfs_int(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* The livepatch is @enabled, and every task is on that side of it. */
static bool livepatch_settled(int enabled)
{
	if (!enabled)
		return access(LP_DIR, F_OK);
	return sysfs_int(LP_DIR "/enabled") == 1 &&
	       sysfs_int(LP_DIR "/transition") == 0;
}

/* "cmdline: P of N patched" from @out: P. */
static long cmdline_patched(const char *out)
{
	long patched, n;
	FILE *f = fopen(out, "r");

	check(f, "%s: %s", out, strerror(errno));
	check(fscanf(f, "cmdline: %ld of %ld patched", &patched, &n) == 2,
	      "no result in %s", out);
	fclose(f);
	check_eq(n, CMDLINES);
	return patched;
}

/* Target and decoy running @argv (workload cmdline), stopped; the target's view. */
static struct kview *cmdline_pair(char **argv, pid_t *t, pid_t *d)
{
	struct kview *kv;

	*t = spawn_out(argv, "/tmp/cmdline-target");
	*d = spawn_out(argv, "/tmp/cmdline-decoy");
	kv = kview__create(*t, NULL);
	check(kv, "kview__create(%d): %s", *t, strerror(errno));
	return kv;
}

/* Run both to the end: each read either made shows the replacement. */
static void cmdline_run(const char *hook, pid_t t, pid_t d)
{
	long tp, dp;

	resume(t);
	resume(d);
	check_eq(wait_exit(t), 0);
	check_eq(wait_exit(d), 0);
	tp = cmdline_patched("/tmp/cmdline-target");
	dp = cmdline_patched("/tmp/cmdline-decoy");
	diag("%s: target %ld, decoy %ld of %d reads patched", hook, tp, dp, CMDLINES);
	check_eq(tp, CMDLINES);
	check_eq(dp, CMDLINES);
}

/*
 * A view's hooks on a function that samples/livepatch replaces: the
 * livepatch's ftrace handler sets the RIP to the replacement, in the global
 * call at the site.  The view's trampoline (attached before the livepatch
 * comes) runs ftrace's users first (kview_ftrace_chain), and then calls
 * what they left in the site's return address, the replacement; the view's
 * kprobe (attached while the livepatch is on) makes the global call after
 * its handler.  Either way the view's task reads what the replacement
 * shows, as every other task does, and the view's programs see each of its
 * calls, and nothing of the decoy's.
 */
static void test_livepatch(void)
{
	char n[16];
	char *argv[] = { workload, "cmdline", n, NULL };
	unsigned long fn = ksym_site("cmdline_proc_show");
	unsigned char vb[5], gb[5];
	struct bpf_link *le, *lx, *lk;
	struct tramp *fe, *fx, *kp;
	struct kview *kv;
	pid_t t, d;

	snprintf(n, sizeof(n), "%d", CMDLINES);
	fe = load("fe_cmdline", 0, 0);
	fx = load("fx_cmdline", 0, 0);
	kp = load("kp_cmdline", 0, 0);

	/* The trampoline first, then the livepatch. */
	kv = cmdline_pair(argv, &t, &d);
	le = attach_view(kv, fe, "fe_cmdline");
	lx = attach_view(kv, fx, "fx_cmdline");
	check_armed(kv, fn, false);
	check(!system("modprobe -d \"$KVIEW_MODROOT\" livepatch-sample"),
	      "cannot load livepatch-sample");
	check(WAIT_FOR(livepatch_settled(1), 60), "the livepatch did not finish its transition");
	check(!kview__read_text(kv, fn, vb, gb, 5), "read text: %s", strerror(errno));
	diag("livepatch on, the view's trampoline at %#lx: view %s, global %s",
	     fn, hexbytes(vb, 5), hexbytes(gb, 5));
	check_eq(gb[0], 0xe8);
	check(calls_trampoline(vb, fn), "the view's site does not call its trampoline");
	cmdline_run("trampoline", t, d);
	diag("fentry %llu, fexit %llu (decoy %llu, %llu)",
	     map_u32_count(bpf_map__fd(fe->maps.counts), t),
	     map_u32_count(bpf_map__fd(fx->maps.counts), t),
	     map_u32_count(bpf_map__fd(fe->maps.counts), d),
	     map_u32_count(bpf_map__fd(fx->maps.counts), d));
	check_eq(map_u32_count(bpf_map__fd(fe->maps.counts), t), CMDLINES);
	check_eq(map_u32_count(bpf_map__fd(fx->maps.counts), t), CMDLINES);
	check_eq(map_u32_count(bpf_map__fd(fe->maps.counts), d), 0);
	check_eq(map_u32_count(bpf_map__fd(fx->maps.counts), d), 0);
	bpf_link__destroy(lx);
	bpf_link__destroy(le);
	check_detached(kv, fn);
	kview__destroy(kv);

	/* The kprobe while the livepatch is on. */
	kv = cmdline_pair(argv, &t, &d);
	lk = attach_view(kv, kp, "kp_cmdline");
	check(!kview__read_text(kv, fn, vb, gb, 5), "read text: %s", strerror(errno));
	diag("livepatch on, the view's kprobe: view %s, global %s",
	     hexbytes(vb, 5), hexbytes(gb, 5));
	check(insn_calls(vb, fn, ksym("kprobe_view_caller")),
	      "the view's site does not hold its kprobe's call");
	check_eq(gb[0], 0xe8);
	cmdline_run("kprobe", t, d);
	diag("kprobe %llu (decoy %llu)",
	     map_u32_count(bpf_map__fd(kp->maps.counts), t),
	     map_u32_count(bpf_map__fd(kp->maps.counts), d));
	check_eq(map_u32_count(bpf_map__fd(kp->maps.counts), t), CMDLINES);
	check_eq(map_u32_count(bpf_map__fd(kp->maps.counts), d), 0);
	bpf_link__destroy(lk);
	check_detached(kv, fn);
	kview__destroy(kv);

	check(!system("echo 0 > " LP_DIR "/enabled"), "cannot disable the livepatch");
	check(WAIT_FOR(livepatch_settled(0), 60), "the livepatch did not go");
	check(!system("rmmod livepatch_sample"), "rmmod livepatch_sample failed");
	tramp__destroy(kp);
	tramp__destroy(fx);
	tramp__destroy(fe);
	check_stats_clean();
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	workload_path(workload, sizeof(workload));
	if (!strcmp(mode, "entry") || !strcmp(mode, "exit") || !strcmp(mode, "mixed"))
		test_reads(mode);
	else if (!strcmp(mode, "modret"))
		test_modret();
	else if (!strcmp(mode, "ftrace"))
		test_ftrace();
	else if (!strcmp(mode, "loop"))
		test_loop();
	else if (!strcmp(mode, "module"))
		test_module();
	else if (!strcmp(mode, "busy"))
		test_busy();
	else if (!strcmp(mode, "livepatch"))
		test_livepatch();
	else {
		fprintf(stderr, "usage: kview-trampoline entry|exit|modret|mixed|ftrace|loop|module|busy|livepatch\n");
		return 2;
	}
	return 0;
}
