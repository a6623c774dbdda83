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
 *   kview-trampoline views    fentry in the target's view and, a program of
 *                             its own, in a second target's: each view
 *                             calls an image of its own, and each program
 *                             counts its own view's reads only
 *   kview-trampoline many     fentry in 40 views at once, more than one
 *                             image takes (BPF_MAX_TRAMP_LINKS, 38 on x86):
 *                             40 images, each view's program counts its
 *                             member's reads as the in-eBPF reference
 *                             does; one view takes 38 programs, not 39;
 *                             a global program gets E2BIG until one image
 *                             can hold every link, then the trampoline
 *                             moves to the global text and back
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
 *
 * One suite (tests/lib/harness.h): the fixture is what a case makes (the
 * processes, the views, the objects and their links, the sample modules),
 * released by its teardown if a check failed first; the variant of entry,
 * exit and mixed says which.
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
#define MANY 40			/* views: more than BPF_MAX_TRAMP_LINKS */
#define MAX_LINKS 38		/* BPF_MAX_TRAMP_LINKS on x86 */
#define MANY_READS "2000"

static char workload[4096];

struct tr_variant {
	bool fexit;		/* exit: fexit, and the sums of the returns */
	bool mixed;		/* mixed: the fentry globally too */
	bool views;		/* views: a second target in a view of its own */
};

/* What the case made; NULL or 0 is what it did not, or released. */
struct tr {
	pid_t t, d, t2;			/* target, decoy, a second target */
	struct kview *kv, *kv2;		/* their views */
	struct tramp *in, *view, *global, *fe, *fx, *kp, *view2;
	struct bpf_link *in_link, *view_link, *global_link, *view2_link;
	struct bpf_link *le, *lx, *lk, *lg;	/* fe's, fx's, kp's, global's */
	bool module;			/* trace-events-sample loaded */
	bool livepatch;			/* livepatch-sample loaded */
	bool tracer;			/* the function tracer's settings */
	pid_t mt[MANY];			/* many: a member per view */
	struct kview *mkv[MANY];
	struct tramp *mskel[MANY], *extra[MAX_LINKS];
	struct bpf_link *mlink[MANY], *extra_link[MAX_LINKS];
};

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

static void destroy_skel(struct tramp **skel)
{
	tramp__destroy(*skel);
	*skel = NULL;
}

/* Detach, close the views and the objects. */
static void tr_release(struct tr *f)
{
	struct bpf_link **links[] = { &f->lg, &f->lk, &f->lx, &f->le, &f->global_link,
				      &f->view2_link, &f->view_link, &f->in_link };
	struct tramp **skels[] = { &f->global, &f->view2, &f->view, &f->in, &f->kp,
				   &f->fx, &f->fe };
	size_t i;

	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		release_link(links[i]);
	release_view(&f->kv);
	release_view(&f->kv2);
	for (i = 0; i < sizeof(skels) / sizeof(skels[0]); i++)
		destroy_skel(skels[i]);
	for (i = 0; i < MAX_LINKS; i++) {
		release_link(&f->extra_link[i]);
		destroy_skel(&f->extra[i]);
	}
	for (i = 0; i < MANY; i++) {
		release_link(&f->mlink[i]);
		release_view(&f->mkv[i]);
		destroy_skel(&f->mskel[i]);
	}
}

#define LP_DIR "/sys/kernel/livepatch/livepatch_sample"

static bool livepatch_settled(int enabled);

static void tr_teardown(void *fixture, const void *variant)
{
	struct tr *f = fixture;

	(void)variant;
	if (f->tracer)
		function_tracer_put_back();
	reap_child(f->t);
	reap_child(f->d);
	reap_child(f->t2);
	for (size_t i = 0; i < MANY; i++)
		reap_child(f->mt[i]);
	tr_release(f);
	if (f->module && system("rmmod trace_events_sample"))
		diag("rmmod trace_events_sample failed");
	if (f->livepatch) {
		if (!access(LP_DIR, F_OK) && system("echo 0 > " LP_DIR "/enabled"))
			diag("cannot disable the livepatch");
		if (!WAIT_FOR(livepatch_settled(0), 60) ||
		    system("rmmod livepatch_sample"))
			diag("rmmod livepatch_sample failed");
	}
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

/* @argv's target and decoy, stopped; the target's view. */
static void spawn_pair(struct tr *f, char **argv)
{
	f->t = spawn_stopped(argv);
	f->d = spawn_stopped(argv);
	f->kv = kview__create(f->t, NULL);
	check(f->kv, "kview__create(%d): %s", f->t, strerror(errno));
}

/* Run target and decoy to their end. */
static void run_pair(struct tr *f)
{
	resume(f->t);
	resume(f->d);
	check_eq(wait_exit(f->t), 0);
	check_eq(wait_exit(f->d), 0);
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

/* The image @kv's copy of @fn calls. */
static unsigned long view_call_target(struct kview *kv, unsigned long fn)
{
	unsigned char vb[5], gb[5];
	int32_t rel;

	check(!kview__read_text(kv, fn, vb, gb, 5), "read text: %s", strerror(errno));
	check_eq(vb[0], 0xe8);
	memcpy(&rel, vb + 1, sizeof(rel));
	return fn + 5 + (long)rel;
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

/*
 * entry, exit, mixed: the in-eBPF program globally, @prog in the view,
 * armed there; for mixed @prog globally too, armed in the global text.
 */
static void reads_attach(struct tr *f, const struct tr_variant *v,
			 const char *prog, unsigned long fn)
{
	const char *in_prog = v->fexit ? "tp_exit" : "tp_enter";
	struct kview_info info;

	f->in = load(in_prog, f->t, 0);
	f->view = load(prog, 0, 0);
	f->in_link = attach_global(f->in, in_prog);
	f->view_link = attach_view(f->kv, f->view, prog);
	check_armed(f->kv, fn, false);
	if (v->mixed) {
		f->global = load(prog, 0, 0);
		f->global_link = attach_global(f->global, prog);
		check_armed(f->kv, fn, true);
	}
	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_attachments, 1);
}

/*
 * mixed: the global program saw the target as the view's did (@want),
 * and the decoy; once it goes, the view holds the call again.
 */
static void reads_global(struct tr *f, unsigned long long want, unsigned long fn)
{
	check_global_counts(bpf_map__fd(f->global->maps.counts), f->t, f->d, want,
			    20000);
	/* The last global program gone: the view holds the call again. */
	release_link(&f->global_link);
	check_armed(f->kv, fn, false);
	destroy_skel(&f->global);
}

/* entry, exit, mixed: dd bs=1 in the target and the decoy. */
static void test_reads(void *fixture, const void *variant)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=" READS, "status=none", NULL };
	const struct tr_variant *v = variant;
	const char *prog = v->fexit ? "fx_read" : "fe_read";
	unsigned long fn = ksym_site("ksys_read");
	unsigned long long want, got;
	struct tr *f = fixture;

	spawn_pair(f, dd);
	if (v->views) {
		f->t2 = spawn_stopped(dd);
		f->kv2 = kview__create(f->t2, NULL);
		check(f->kv2, "kview__create(%d): %s", f->t2, strerror(errno));
	}
	reads_attach(f, v, prog, fn);
	if (v->views) {
		f->view2 = load(prog, 0, 0);
		f->view2_link = attach_view(f->kv2, f->view2, prog);
		check_armed(f->kv2, fn, false);
		check(view_call_target(f->kv, fn) != view_call_target(f->kv2, fn),
		      "the two views call one image");
		resume(f->t2);
	}
	run_pair(f);
	if (v->views)
		check_eq(wait_exit(f->t2), 0);

	want = check_counts_equal(bpf_map__fd(f->view->maps.counts),
				  bpf_map__fd(f->in->maps.counts), f->t, f->d);
	check(want >= 20000, "in-eBPF saw only %llu events of %s reads", want, READS);
	if (v->fexit) {
		want = map_u32_count(bpf_map__fd(f->in->maps.rets), f->t);
		got = map_u32_count(bpf_map__fd(f->view->maps.rets), f->t);
		diag("sum of the target's read returns: kview %llu, in-eBPF %llu", got, want);
		check(want >= 20000, "in-eBPF summed only %llu", want);
		check_eq(got, want);
	}
	if (v->mixed)
		reads_global(f, want, fn);
	if (v->views) {
		/* Each view's program saw its own member only. */
		check_eq(map_u32_count(bpf_map__fd(f->view->maps.counts), f->t2), 0);
		got = map_u32_count(bpf_map__fd(f->view2->maps.counts), f->t2);
		diag("the second view's program: %llu of its member's reads, the first's %llu",
		     got, want);
		check(got >= 20000, "the second view saw only %llu events of %s reads", got,
		      READS);
		check_eq(map_u32_count(bpf_map__fd(f->view2->maps.counts), f->t), 0);
		check_eq(map_u32_count(bpf_map__fd(f->view2->maps.counts), f->d), 0);
		release_link(&f->view2_link);
		check_detached(f->kv2, fn);
		check_armed(f->kv, fn, false);
	}

	release_link(&f->view_link);
	release_link(&f->in_link);
	check_detached(f->kv, fn);
	tr_release(f);
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

static void test_modret(void *fixture, const void *variant)
{
	unsigned long fn = ksym_site("security_task_getsid");
	struct tr *f = fixture;
	unsigned long long want;
	long tfail, dfail;
	int terr, derr;

	(void)variant;
	f->t = spawn_getsid("/tmp/getsid-target");
	f->d = spawn_getsid("/tmp/getsid-decoy");
	f->kv = kview__create(f->t, NULL);
	check(f->kv, "kview__create(%d): %s", f->t, strerror(errno));
	f->in = load("tp_getsid", f->t, 0);
	f->view = load("fm_getsid", 0, 0);
	f->in_link = attach_global(f->in, "tp_getsid");
	f->view_link = attach_view(f->kv, f->view, "fm_getsid");
	check_armed(f->kv, fn, false);

	run_pair(f);
	getsid_result("/tmp/getsid-target", &tfail, &terr);
	getsid_result("/tmp/getsid-decoy", &dfail, &derr);
	diag("target: %ld of %d getsid() failed (errno %d); decoy: %ld failed",
	     tfail, GETSIDS, terr, dfail);
	check_eq(tfail, GETSIDS);
	check_eq(terr, GETSID_ERRNO);
	check_eq(dfail, 0);
	/* fmod_ret ran once per getsid() of the target's, and for nobody else */
	want = check_counts_equal(bpf_map__fd(f->view->maps.counts),
				  bpf_map__fd(f->in->maps.counts), f->t, f->d);
	check_eq(want, GETSIDS);

	release_link(&f->view_link);
	release_link(&f->in_link);
	check_detached(f->kv, fn);
	tr_release(f);
	check_stats_clean();
}

/* The function tracer on, ksys_read only: the view's site keeps its trampoline. */
static void ftrace_on(struct tr *f, unsigned long fn)
{
	unsigned char vb[5], gb[5];

	tracefs_set("trace", "");
	f->tracer = true;
	tracefs_set("set_ftrace_filter", "ksys_read\n");
	tracefs_set("current_tracer", "function\n");
	check(!kview__read_text(f->kv, fn, vb, gb, 5), "read text: %s", strerror(errno));
	diag("function tracer on: view %s, global %s", hexbytes(vb, 5), hexbytes(gb, 5));
	check_eq(gb[0], 0xe8);
	check_eq(vb[0], 0xe8);
	check(memcmp(vb, gb, 5), "the view runs the global call, not its trampoline");
}

/* The function tracer off: the lines of the target it traced. */
static int ftrace_off(struct tr *f)
{
	int lines;

	tracefs_set("tracing_on", "0");
	lines = trace_lines(f->t, "ksys_read");
	kill(f->t, SIGSTOP);
	tracefs_set("current_tracer", "nop\n");
	tracefs_set("set_ftrace_filter", "\n");
	tracefs_set("tracing_on", "1");
	f->tracer = false;
	return lines;
}

/*
 * The function tracer on ksys_read while fentry and fexit sit in the view:
 * the global site holds ftrace's call, the view's its trampoline, which
 * runs ftrace's users first (kview_ftrace_chain).  The marked reads each
 * return MARK_SIZE: the sum checks that fexit saw the function's own
 * return value through the chain.
 */
static void test_ftrace(void *fixture, const void *variant)
{
	char *spin[] = { workload, "spin", NULL };
	unsigned long fn = ksym_site("ksys_read");
	unsigned long long events, exits, sum;
	struct tr *f = fixture;
	int lines;

	(void)variant;
	f->t = spawn_stopped(spin);
	f->kv = kview__create(f->t, NULL);
	check(f->kv, "kview__create: %s", strerror(errno));
	f->fe = load("fe_read", 0, MARK_SIZE);
	f->fx = load("fx_read", 0, MARK_SIZE);
	f->le = attach_view(f->kv, f->fe, "fe_read");
	f->lx = attach_view(f->kv, f->fx, "fx_read");
	check_armed(f->kv, fn, false);
	ftrace_on(f, fn);

	resume(f->t);
	check(WAIT_FOR(map_u32_count(bpf_map__fd(f->fx->maps.counts), f->t) > 100, 30),
	      "the target did not reach the view's fexit");
	lines = ftrace_off(f);
	usleep(100000);
	events = map_u32_count(bpf_map__fd(f->fe->maps.counts), f->t);
	exits = map_u32_count(bpf_map__fd(f->fx->maps.counts), f->t);
	sum = map_u32_count(bpf_map__fd(f->fx->maps.rets), f->t);
	diag("function tracer: %d ksys_read line(s) of the target; fentry %llu, fexit %llu, returns %llu",
	     lines, events, exits, sum);
	check(lines > 0, "the function tracer missed the view's task");
	check(events > 100, "the view's fentry missed the target");
	check_eq(sum, exits * MARK_SIZE);
	check_armed(f->kv, fn, false);

	release_link(&f->lx);
	release_link(&f->le);
	check_detached(f->kv, fn);
	kill(f->t, SIGKILL);
	wait_exit(f->t);
	tr_release(f);
	check_stats_clean();
}

/* Round @i of the loop: attach, wait for the target's fexits, detach. */
static void loop_round(struct tr *f, int i, unsigned long fn)
{
	unsigned long long before = map_u32_count(bpf_map__fd(f->fx->maps.counts), f->t);

	f->le = attach_view(f->kv, f->fe, "fe_read");
	if (i % 4 == 3)
		f->lg = attach_global(f->global, "fe_read");
	f->lx = attach_view(f->kv, f->fx, "fx_read");
	check(WAIT_FOR(map_u32_count(bpf_map__fd(f->fx->maps.counts), f->t) > before + 20, 30),
	      "round %d: the target did not reach the view's fexit", i);
	release_link(&f->lg);
	release_link(&f->le);
	release_link(&f->lx);
	check_detached(f->kv, fn);
}

/*
 * Attach and detach while the target and the decoy read on both vCPUs:
 * between global and view arming too.  The view's programs never count
 * the decoy; the view's text is the global text after each detach.
 */
static void test_loop(void *fixture, const void *variant)
{
	char *spin[] = { workload, "spin", NULL };
	unsigned long fn = ksym_site("ksys_read");
	unsigned long long tcount = 0, dcount, gcount;
	struct tr *f = fixture;
	unsigned int nviews;
	int i;

	(void)variant;
	spawn_pair(f, spin);
	f->fe = load("fe_read", 0, MARK_SIZE);
	f->fx = load("fx_read", 0, MARK_SIZE);
	f->global = load("fe_read", 0, MARK_SIZE);
	resume(f->t);
	resume(f->d);
	for (i = 0; i < LOOP_ROUNDS; i++)
		loop_round(f, i, fn);
	tcount = map_u32_count(bpf_map__fd(f->fe->maps.counts), f->t);
	dcount = map_u32_count(bpf_map__fd(f->fe->maps.counts), f->d) +
		 map_u32_count(bpf_map__fd(f->fx->maps.counts), f->d);
	gcount = map_u32_count(bpf_map__fd(f->global->maps.counts), f->d);
	diag("%d rounds: view fentry saw the target %llu time(s), the decoy %llu; global fentry saw the decoy %llu time(s)",
	     LOOP_ROUNDS, tcount, dcount, gcount);
	check(tcount > 0, "the view's fentry never saw the target");
	check_eq(dcount, 0);
	check(gcount > 0, "the global fentry never saw the decoy");
	check_eq(map_u32_count(bpf_map__fd(f->fx->maps.rets), f->t),
		 map_u32_count(bpf_map__fd(f->fx->maps.counts), f->t) * MARK_SIZE);
	check_eq(kview_verify_total(&nviews), 0);
	kill(f->t, SIGKILL);
	kill(f->d, SIGKILL);
	wait_exit(f->t);
	wait_exit(f->d);
	tr_release(f);
	check_stats_clean();
}

static void test_module(void *fixture, const void *variant)
{
	char *spin[] = { "sleep", "60", NULL };
	struct tr *f = fixture;
	struct kview_info info;
	struct bpf_link *link;

	(void)variant;
	check(!system("modprobe -d \"$KVIEW_MODROOT\" trace-events-sample"),
	      "cannot load trace-events-sample");
	f->module = true;
	f->view = load("fe_module", 0, 0);
	f->t = spawn_stopped(spin);
	resume(f->t);
	f->kv = kview__create(f->t, NULL);
	check(f->kv, "kview__create: %s", strerror(errno));
	link = kview__attach_program(f->kv, f->view->progs.fe_module);
	diag("fentry on foo_bar_reg (trace_events_sample) in a view: %s",
	     link ? "attached" : strerror(errno));
	check(!link && errno == EOPNOTSUPP, "expected EOPNOTSUPP");
	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_refused, 1);
	check(view_refused(info.id, "fentry foo_bar_reg"), "no record of the refusal");
	check_eq(info.nr_attachments, 0);
	check_eq(info.nr_patches, 0);
	/* Outside a view it attaches, as in mainline. */
	f->view_link = bpf_program__attach(f->view->progs.fe_module);
	check(f->view_link, "fentry on foo_bar_reg globally: %s", strerror(errno));
	release_link(&f->view_link);
	kill(f->t, SIGKILL);
	wait_exit(f->t);
	tr_release(f);
	check_stats_clean();
	f->module = false;
	check(!system("rmmod trace_events_sample"), "rmmod failed");
}

/*
 * In one view, @first's program @first_prog, then @second's @second_prog
 * at the same entry: EBUSY; the other view takes @second's meanwhile.
 * The trampoline (fe's) is armed in the view that holds it.
 */
static void busy_pair(struct tr *f, struct tramp *first, const char *first_prog,
		      struct tramp *second, const char *second_prog,
		      const char *what, unsigned long fn)
{
	struct bpf_link *link;

	f->le = attach_view(f->kv, first, first_prog);
	link = kview__attach_program(f->kv, bpf_object__find_program_by_name(second->obj,
									     second_prog));
	diag("%s in one view: %s", what, link ? "attached" : strerror(errno));
	check(!link && errno == EBUSY, "expected EBUSY");
	f->lx = attach_view(f->kv2, second, second_prog);
	check_armed(first == f->fe ? f->kv : f->kv2, fn, false);
	release_link(&f->lx);
	release_link(&f->le);
	check_detached(f->kv, fn);
	check_detached(f->kv2, fn);
}

/*
 * Global first, so both attach: the view's kprobe holds the view's site,
 * the trampoline is in the global text.  When the global program goes,
 * the view cannot take the trampoline over.
 */
static void busy_global_fallback(struct tr *f, unsigned long fn)
{
	struct kview_stats before, after;
	unsigned char vb[5], gb[5];

	f->global = load("fe_read", 0, 0);
	f->lg = attach_global(f->global, "fe_read");
	before = kview_stats();
	f->lk = attach_view(f->kv, f->kp, "kp_read");
	f->le = attach_view(f->kv, f->fe, "fe_read");
	release_link(&f->lg);
	after = kview_stats();
	check(!kview__read_text(f->kv, fn, vb, gb, 5), "read text: %s", strerror(errno));
	diag("global program gone, the view's kprobe on the site: view %s, global %s; global fallbacks %lu -> %lu",
	     hexbytes(vb, 5), hexbytes(gb, 5), before.global_fallback,
	     after.global_fallback);
	check_eq(gb[0], 0xe8);
	check_eq(after.global_fallback, before.global_fallback + 1);
	check(insn_calls(vb, fn, ksym("kprobe_view_caller")),
	      "the view's site does not hold its kprobe's call");
	release_link(&f->lk);
	release_link(&f->le);
	check_detached(f->kv, fn);
	destroy_skel(&f->global);
}

/*
 * One view's copy of a site holds one call: kprobe_view_caller or a
 * trampoline.  The second hook fails cleanly, in either order; another
 * view takes the other kind meanwhile.
 */
static void test_busy(void *fixture, const void *variant)
{
	char *spin[] = { "sleep", "60", NULL };
	unsigned long fn = ksym_site("ksys_read");
	struct tr *f = fixture;
	struct kview_info info;

	(void)variant;
	f->t = spawn_stopped(spin);
	f->t2 = spawn_stopped(spin);
	f->kv = kview__create(f->t, NULL);
	f->kv2 = kview__create(f->t2, NULL);
	check(f->kv && f->kv2, "kview__create: %s", strerror(errno));
	f->kp = load("kp_read", 0, 0);
	f->fe = load("fe_read", 0, 0);

	busy_pair(f, f->fe, "fe_read", f->kp, "kp_read", "kprobe after fentry", fn);
	busy_pair(f, f->kp, "kp_read", f->fe, "fe_read", "fentry after kprobe", fn);
	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_attachments, 0);
	busy_global_fallback(f, fn);

	kill(f->t, SIGKILL);
	kill(f->t2, SIGKILL);
	wait_exit(f->t);
	wait_exit(f->t2);
	tr_release(f);
	check_stats_clean();
}

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
static void cmdline_pair(struct tr *f, char **argv)
{
	f->t = spawn_out(argv, "/tmp/cmdline-target");
	f->d = spawn_out(argv, "/tmp/cmdline-decoy");
	f->kv = kview__create(f->t, NULL);
	check(f->kv, "kview__create(%d): %s", f->t, strerror(errno));
}

/* Run both to the end: each read either made shows the replacement. */
static void cmdline_run(struct tr *f, const char *hook)
{
	long tp, dp;

	run_pair(f);
	tp = cmdline_patched("/tmp/cmdline-target");
	dp = cmdline_patched("/tmp/cmdline-decoy");
	diag("%s: target %ld, decoy %ld of %d reads patched", hook, tp, dp, CMDLINES);
	check_eq(tp, CMDLINES);
	check_eq(dp, CMDLINES);
}

/* What @skel's program counted of the target and the decoy. */
static unsigned long long target_count(struct tr *f, struct tramp *skel)
{
	return map_u32_count(bpf_map__fd(skel->maps.counts), f->t);
}

static unsigned long long decoy_count(struct tr *f, struct tramp *skel)
{
	return map_u32_count(bpf_map__fd(skel->maps.counts), f->d);
}

/* The trampoline first, then the livepatch: the view's site calls it. */
static void livepatch_trampoline(struct tr *f, char **argv, unsigned long fn)
{
	unsigned char vb[5], gb[5];

	cmdline_pair(f, argv);
	f->le = attach_view(f->kv, f->fe, "fe_cmdline");
	f->lx = attach_view(f->kv, f->fx, "fx_cmdline");
	check_armed(f->kv, fn, false);
	check(!system("modprobe -d \"$KVIEW_MODROOT\" livepatch-sample"),
	      "cannot load livepatch-sample");
	f->livepatch = true;
	check(WAIT_FOR(livepatch_settled(1), 60), "the livepatch did not finish its transition");
	check(!kview__read_text(f->kv, fn, vb, gb, 5), "read text: %s", strerror(errno));
	diag("livepatch on, the view's trampoline at %#lx: view %s, global %s",
	     fn, hexbytes(vb, 5), hexbytes(gb, 5));
	check_eq(gb[0], 0xe8);
	check(calls_trampoline(vb, fn), "the view's site does not call its trampoline");
	cmdline_run(f, "trampoline");
	diag("fentry %llu, fexit %llu (decoy %llu, %llu)",
	     target_count(f, f->fe), target_count(f, f->fx),
	     decoy_count(f, f->fe), decoy_count(f, f->fx));
	check_eq(target_count(f, f->fe), CMDLINES);
	check_eq(target_count(f, f->fx), CMDLINES);
	check_eq(decoy_count(f, f->fe), 0);
	check_eq(decoy_count(f, f->fx), 0);
	release_link(&f->lx);
	release_link(&f->le);
	check_detached(f->kv, fn);
	release_view(&f->kv);
}

/* The kprobe while the livepatch is on. */
static void livepatch_kprobe(struct tr *f, char **argv, unsigned long fn)
{
	unsigned char vb[5], gb[5];

	cmdline_pair(f, argv);
	f->lk = attach_view(f->kv, f->kp, "kp_cmdline");
	check(!kview__read_text(f->kv, fn, vb, gb, 5), "read text: %s", strerror(errno));
	diag("livepatch on, the view's kprobe: view %s, global %s",
	     hexbytes(vb, 5), hexbytes(gb, 5));
	check(insn_calls(vb, fn, ksym("kprobe_view_caller")),
	      "the view's site does not hold its kprobe's call");
	check_eq(gb[0], 0xe8);
	cmdline_run(f, "kprobe");
	diag("kprobe %llu (decoy %llu)", target_count(f, f->kp), decoy_count(f, f->kp));
	check_eq(target_count(f, f->kp), CMDLINES);
	check_eq(decoy_count(f, f->kp), 0);
	release_link(&f->lk);
	check_detached(f->kv, fn);
	release_view(&f->kv);
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
static void test_livepatch(void *fixture, const void *variant)
{
	char n[16];
	char *argv[] = { workload, "cmdline", n, NULL };
	unsigned long fn = ksym_site("cmdline_proc_show");
	struct tr *f = fixture;

	(void)variant;
	snprintf(n, sizeof(n), "%d", CMDLINES);
	f->fe = load("fe_cmdline", 0, 0);
	f->fx = load("fx_cmdline", 0, 0);
	f->kp = load("kp_cmdline", 0, 0);
	livepatch_trampoline(f, argv, fn);
	livepatch_kprobe(f, argv, fn);

	check(!system("echo 0 > " LP_DIR "/enabled"), "cannot disable the livepatch");
	check(WAIT_FOR(livepatch_settled(0), 60), "the livepatch did not go");
	f->livepatch = false;
	check(!system("rmmod livepatch_sample"), "rmmod livepatch_sample failed");
	tr_release(f);
	check_stats_clean();
}

/* many: the start of every BPF trampoline image, from one read of kallsyms. */
static size_t trampoline_images(unsigned long *addrs, size_t max)
{
	char line[512], sym[256], t;
	unsigned long a;
	size_t n = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	check(f, "/proc/kallsyms: %s", strerror(errno));
	while (n < max && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %255s", &a, &t, sym) == 3 &&
		    !strncmp(sym, "bpf_trampoline_", 15))
			addrs[n++] = a;
	fclose(f);
	return n;
}

/*
 * many: each of the first @n views that has a link calls a trampoline
 * image of its own from its copy of @fn's site, the global text keeping
 * its NOP; or, @global, the global text calls one and the views run it.
 * As check_armed(), with kallsyms read and the views verified once.
 */
static void many_check(struct tr *f, unsigned long fn, int n, bool global)
{
	unsigned long images[4 * MANY], calls[MANY];
	unsigned char vb[5], gb[5];
	struct kview_info info;
	unsigned int nviews;
	size_t nimages = trampoline_images(images, 4 * MANY), k;
	int i, j, armed = 0;
	int32_t rel;

	for (i = 0; i < n; i++) {
		calls[i] = 0;
		if (!f->mkv[i] || !f->mlink[i])
			continue;
		check(!kview__read_text(f->mkv[i], fn, vb, gb, 5), "read text: %s",
		      strerror(errno));
		check(!kview__info(f->mkv[i], &info), "info: %s", strerror(errno));
		check_eq((global ? gb : vb)[0], 0xe8);
		memcpy(&rel, (global ? gb : vb) + 1, sizeof(rel));
		calls[i] = fn + 5 + (long)rel;
		for (k = 0; k < nimages && images[k] != calls[i]; k++)
			;
		check(k < nimages, "view %d: the call at %#lx does not go to a BPF trampoline",
		      i, fn);
		armed++;
		if (global) {
			check_eq(info.nr_patches, 0);
			check(!memcmp(vb, gb, 5), "view %d does not run the global call", i);
			continue;
		}
		check_eq(gb[0], 0x0f);
		check_eq(info.nr_patches, 1);
		for (j = 0; j < i; j++)
			check(calls[j] != calls[i], "views %d and %d call one image", j, i);
	}
	diag("%d views %s (%zu trampoline images in kallsyms)", armed,
	     global ? "run the global call" : "call an image of their own", nimages);
	check_eq(kview_verify_total(&nviews), 0);
}

/*
 * many: a new process in view @i reads; each of @skels' programs counts
 * its reads as the in-eBPF reference does.
 */
static void many_reads(struct tr *f, int i, struct tramp **skels, int nskels)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=" MANY_READS, "status=none", NULL };
	unsigned long long want;
	pid_t p;
	int k;

	reap_child(f->mt[i]);
	f->mt[i] = p = spawn_stopped(dd);
	check(!kview__add_pid(f->mkv[i], p), "add %d to view %d: %s", p, i, strerror(errno));
	resume(p);
	check_eq(wait_exit(p), 0);
	want = map_u32_count(bpf_map__fd(f->in->maps.counts), p);
	check(want >= 2000, "in-eBPF saw only %llu reads of view %d's new member", want, i);
	for (k = 0; k < nskels; k++)
		check_eq(map_u32_count(bpf_map__fd(skels[k]->maps.counts), p), want);
}

/* many: a global fentry on ksys_read; 0 or its errno. */
static int many_global(struct tr *f)
{
	struct bpf_program *prog;

	if (!f->global)
		f->global = load("fe_read", 0, 0);
	prog = bpf_object__find_program_by_name(f->global->obj, "fe_read");
	f->global_link = bpf_program__attach(prog);
	return f->global_link ? 0 : errno;
}

/* many: fentry on ksys_read in MANY views, more than one image takes. */
static void test_many(void *fixture, const void *variant)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=" MANY_READS, "status=none", NULL };
	unsigned long fn = ksym_site("ksys_read");
	unsigned long long want;
	struct tramp *all[MAX_LINKS];
	struct tr *f = fixture;
	unsigned int keys[4];
	int i, n, err;

	(void)variant;
	f->d = spawn_stopped(dd);
	/* the in-eBPF reference without a filter: every process's reads */
	f->in = load("tp_enter", 0, 0);
	f->in_link = attach_global(f->in, "tp_enter");
	for (i = 0; i < MANY; i++) {
		f->mt[i] = spawn_stopped(dd);
		f->mkv[i] = kview__create(f->mt[i], NULL);
		check(f->mkv[i], "kview__create(%d): %s", f->mt[i], strerror(errno));
		f->mskel[i] = load("fe_read", 0, 0);
		f->mlink[i] = attach_view(f->mkv[i], f->mskel[i], "fe_read");
	}
	diag("%d views each hold an fentry program on ksys_read", MANY);
	many_check(f, fn, MANY, false);

	/* One global image cannot hold the views' links: refused. */
	err = many_global(f);
	diag("a global program with %d programs in views: %s", MANY,
	     err ? strerror(err) : "attached");
	check_eq(err, E2BIG);

	for (i = 0; i < MANY; i++)
		resume(f->mt[i]);
	resume(f->d);
	for (i = 0; i < MANY; i++)
		check_eq(wait_exit(f->mt[i]), 0);
	check_eq(wait_exit(f->d), 0);
	for (i = 0; i < MANY; i++) {
		int fd = bpf_map__fd(f->mskel[i]->maps.counts);

		want = map_u32_count(bpf_map__fd(f->in->maps.counts), f->mt[i]);
		check(want >= 2000, "in-eBPF saw only %llu reads of view %d's member",
		      want, i);
		check_eq(map_u32_count(fd, f->mt[i]), want);
		check_eq(map_u32_keys(fd, keys, 4), 1);
	}
	diag("each view's program counted its member's reads, as in-eBPF did");

	/* One view takes one image's worth of programs, not one more. */
	err = 0;
	for (n = 0; n < MAX_LINKS; n++) {
		struct bpf_program *prog;

		f->extra[n] = load("fe_read", 0, 0);
		prog = bpf_object__find_program_by_name(f->extra[n]->obj, "fe_read");
		f->extra_link[n] = kview__attach_program(f->mkv[0], prog);
		if (!f->extra_link[n]) {
			err = errno;
			break;
		}
	}
	diag("view 0 took %d programs: the next got %s", n + 1, strerror(err));
	check_eq(n + 1, MAX_LINKS);
	check_eq(err, E2BIG);
	many_check(f, fn, MANY, false);
	/* view 0's image of 38 programs runs each for its member */
	memcpy(all, f->extra, sizeof(f->extra[0]) * n);
	all[n] = f->mskel[0];
	many_reads(f, 0, all, n + 1);
	diag("view 0's %d programs each counted its new member's reads", n + 1);
	for (i = 0; i < MAX_LINKS; i++) {
		release_link(&f->extra_link[i]);
		destroy_skel(&f->extra[i]);
	}

	/*
	 * With MAX_LINKS - 1 links left in views, one image holds them and a
	 * global one: the trampoline moves to the global text, the views run
	 * its call; back to an image per view when the global one goes.
	 */
	for (i = MAX_LINKS; i < MANY; i++) {
		release_link(&f->mlink[i]);
		check_detached(f->mkv[i], fn);
	}
	/* exactly one image's worth in views: a global one does not fit */
	check_eq(many_global(f), E2BIG);
	release_link(&f->mlink[MAX_LINKS - 1]);
	check_detached(f->mkv[MAX_LINKS - 1], fn);
	check_eq(many_global(f), 0);
	many_check(f, fn, MAX_LINKS - 1, true);
	many_reads(f, 1, &f->mskel[1], 1);
	check_eq(map_u32_count(bpf_map__fd(f->global->maps.counts), f->mt[1]),
		 map_u32_count(bpf_map__fd(f->in->maps.counts), f->mt[1]));
	release_link(&f->global_link);
	many_check(f, fn, MAX_LINKS - 1, false);
	many_reads(f, 2, &f->mskel[2], 1);
	diag("global text and back: the views' programs counted their new members");

	for (i = 0; i < MANY; i++) {
		release_link(&f->mlink[i]);
		check_detached(f->mkv[i], fn);
	}
	release_link(&f->in_link);
	tr_release(f);
	check_stats_clean();
}

static const struct tr_variant entry, exit_ = { .fexit = true },
	mixed = { .mixed = true }, views = { .views = true };

static const struct check_case cases[] = {
	{ "entry", test_reads, &entry },
	{ "exit", test_reads, &exit_ },
	{ "modret", test_modret, NULL },
	{ "mixed", test_reads, &mixed },
	{ "views", test_reads, &views },
	{ "many", test_many, NULL },
	{ "ftrace", test_ftrace, NULL },
	{ "loop", test_loop, NULL },
	{ "module", test_module, NULL },
	{ "busy", test_busy, NULL },
	{ "livepatch", test_livepatch, NULL },
};

static const struct check_suite suite = {
	.fixture_size = sizeof(struct tr),
	.teardown = tr_teardown,
	CHECK_CASES(cases),
};

int main(int argc, char **argv)
{
	workload_path(workload, sizeof(workload));
	return check_main(&suite, argc, argv);
}
