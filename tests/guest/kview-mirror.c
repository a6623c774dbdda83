// SPDX-License-Identifier: GPL-2.0
/*
 * kview-mirror: changes to the global kernel text reach the copies that
 * views hold of the same pages, and removing a view's patch restores the
 * current global bytes.  The target runs `workload spin` (ksys_read in a
 * loop) in a view that holds a copy of the page under test.
 *
 *   kprobe-event  a global kprobe event (tracefs kprobe_events) on the page
 *                 of two view kprobes: the target's reads produce its
 *                 events; after it is gone and one view kprobe is removed,
 *                 the view's bytes equal the global ones
 *   ftrace        the function tracer enabled on ksys_read, whose ftrace
 *                 site holds a view kprobe's call to kprobe_view_caller:
 *                 the target's calls are traced too (the view's handler
 *                 makes ftrace's call after its own)
 *   ftrace-loop   the same, the tracer turned on and off 20 times while
 *                 the target runs on the other vCPU
 *   static-key    kernel.bpf_stats_enabled flips a static key whose site in
 *                 bpf_prog_test_run_syscall() is on a page the view copied
 *                 (this process is the member): the runs of a syscall
 *                 program made while it is on are counted, through the copy
 *   tracepoint    raw_syscalls:sys_enter armed in the view (its jump sites
 *                 are the view's own patch) and enabled globally in tracefs
 *                 meanwhile: the target's syscalls reach the global trace,
 *                 the view keeps its jump after the global disable, and the
 *                 copy equals the global text after the view's detach
 *   many          200 views at once (MANY_VIEWS; the limit was 64), each
 *                 of one stopped process and holding the same kprobe on
 *                 ksys_read's ftrace site: a global kprobe event on
 *                 another function of that page reaches every copy, and
 *                 its removal too; two of the processes and one in no
 *                 view read: each view's program counts its own process's
 *                 reads exactly and the others' counts do not move;
 *                 detached from every other view, those lose the patch
 *                 and the rest keep it; all of it is gone after the detach
 *
 * One suite (tests/lib/harness.h): the fixture is what a case makes (the
 * target, the view, the objects and links) and the global tracing state it
 * changed (tracefs, the sysctl), which its teardown puts back if a check
 * failed first; no view or copied page is left after each case.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "kvtest.h"
#include "count.skel.h"
#include "tpcount.skel.h"
#include "sysprog.skel.h"

#define TRACING "/sys/kernel/tracing/"

static char workload[4096];

struct many;
static void many_release(struct many *m);

/* What the case made or changed; NULL, 0 or false is what it did not. */
struct mir {
	pid_t t;			/* the target, `workload spin` */
	struct kview *kv;
	struct count *entry, *offset;	/* kp_entry, kp_offset */
	struct tpcount *tp;
	struct sysprog *sys;
	struct bpf_link *le, *lo, *lt;	/* their links */
	bool kprobe_event;		/* kview_mirror defined in tracefs */
	bool tracer;			/* the function tracer's settings */
	bool sysctl;			/* kernel.bpf_stats_enabled */
	bool event;			/* raw_syscalls/sys_enter enabled */
	struct many *many;		/* many's processes, views, objects */
};

static void write_file(const char *path, const char *s, bool append)
{
	int fd = open(path, O_WRONLY | (append ? O_APPEND : O_TRUNC));

	check(fd >= 0, "open %s: %s", path, strerror(errno));
	check(write(fd, s, strlen(s)) == (ssize_t)strlen(s), "write '%s' to %s: %s",
	      s, path, strerror(errno));
	close(fd);
}

static const char sysctl_stats[] = "/proc/sys/kernel/bpf_stats_enabled";
static const char sys_enter_enable[] = TRACING "events/raw_syscalls/sys_enter/enable";

/* Detach, close the view and the objects. */
static void mir_release(struct mir *f)
{
	release_link(&f->lo);
	release_link(&f->le);
	release_link(&f->lt);
	release_view(&f->kv);
	count__destroy(f->offset);
	count__destroy(f->entry);
	tpcount__destroy(f->tp);
	sysprog__destroy(f->sys);
	f->offset = f->entry = NULL;
	f->tp = NULL;
	f->sys = NULL;
}

static void mir_teardown(void *fixture, const void *variant)
{
	struct mir *f = fixture;

	(void)variant;
	if (f->kprobe_event) {
		put_back(TRACING "events/kprobes/kview_mirror/enable", "0", false);
		put_back(TRACING "kprobe_events", "-:kview_mirror\n", true);
	}
	if (f->tracer)
		function_tracer_put_back();
	if (f->sysctl)
		put_back(sysctl_stats, "0", false);
	if (f->event)
		put_back(sys_enter_enable, "0", false);
	reap_child(f->t);
	mir_release(f);
	if (f->many) {
		many_release(f->many);
		free(f->many);
	}
}

/* The end of each case: no view or copied page is left. */
static void check_no_views(void)
{
	struct kview_stats s = kview_stats_settled(0);

	check_eq(s.views, 0);
	check_eq(s.pages, 0);
}

/* Kill the target, detach, close the view and the objects. */
static void mir_done(struct mir *f)
{
	kill(f->t, SIGKILL);
	wait_exit(f->t);
	mir_release(f);
	check_no_views();
}

static struct count *load(const char *prog)
{
	struct count *skel = count__open();

	check(skel, "open count.bpf.o: %s", strerror(errno));
	skel->rodata->mark_size = MARK_SIZE;
	only_program(skel->obj, prog);
	check(!count__load(skel), "load %s: %s", prog, strerror(errno));
	return skel;
}

static unsigned char view_byte(struct kview *kv, unsigned long addr,
			       unsigned char *global)
{
	unsigned char vb, gb;

	check(!kview__read_text(kv, addr, &vb, &gb, 1), "read text: %s",
	      strerror(errno));
	if (global)
		*global = gb;
	return vb;
}

/* The target, `workload spin`, stopped, and its view. */
static void start_target(struct mir *f)
{
	char *spin[] = { workload, "spin", NULL };

	f->t = spawn_stopped(spin);
	f->kv = kview__create(f->t, NULL);
	check(f->kv, "kview__create: %s", strerror(errno));
}

/* kp_entry loaded and attached in the target's view (on ksys_read). */
static void attach_entry(struct mir *f)
{
	f->entry = load("kp_entry");
	start_target(f);
	f->le = kview__attach_program(f->kv, f->entry->progs.kp_entry);
	check(f->le, "attach in the view: %s", strerror(errno));
}

/*
 * Define the tracefs kprobe event kview_mirror with @cmd (appended to
 * kprobe_events); false, with errno, if the kernel refused it.
 */
static bool kprobe_event_add(struct mir *f, const char *cmd)
{
	int fd = open(TRACING "kprobe_events", O_WRONLY | O_APPEND);
	ssize_t n;

	check(fd >= 0, "open kprobe_events: %s", strerror(errno));
	n = write(fd, cmd, strlen(cmd));
	if (n != (ssize_t)strlen(cmd)) {
		int err = errno;

		close(fd);
		errno = err;
		return false;
	}
	close(fd);
	f->kprobe_event = true;
	return true;
}

/*
 * Define the tracefs kprobe event kview_mirror at the first instruction of
 * ksys_read past @min: the kernel's decoder refuses an offset inside an
 * instruction with EILSEQ, and the code there differs between the test
 * and the debug kernel (KASAN instruments it).  Returns the offset.
 */
static unsigned long kprobe_event_after(struct mir *f, unsigned long min)
{
	char cmd[128];
	unsigned long off;

	for (off = min + 1; off < min + 16; off++) {
		snprintf(cmd, sizeof(cmd), "p:kview_mirror ksys_read+%lu\n", off);
		if (kprobe_event_add(f, cmd))
			return off;
		check(errno == EILSEQ, "write '%s' to kprobe_events: %s", cmd,
		      strerror(errno));
	}
	fail("no instruction boundary in ksys_read+%lu..+%lu", min + 1, min + 15);
}

/*
 * The global kprobe event kview_mirror past the view kprobe past ksys_read's
 * ftrace site, on the same page, enabled: its int3 is in the global text
 * and in the view's copy.  Its address.
 */
static unsigned long global_kprobe_event(struct mir *f, unsigned long fn,
					 unsigned long past)
{
	unsigned long site;
	unsigned char g;

	write_file(TRACING "trace", "", false);
	site = fn + kprobe_event_after(f, past - fn);
	diag("global kprobe event at ksys_read+%#lx", site - fn);
	check((fn >> 12) == (site >> 12), "ksys_read+%#lx is on another page",
	      site - fn);
	write_file(TRACING "events/kprobes/kview_mirror/enable", "1", false);
	check_eq(view_byte(f->kv, site, &g), 0xcc);
	check_eq(g, 0xcc);
	return site;
}

/* The target ran the event's int3 in its view's copy; then the event goes. */
static void check_kprobe_event_hits(struct mir *f, unsigned long fn,
				    unsigned long site)
{
	unsigned char g;

	resume(f->t);
	/*
	 * Wait on a counter, not on the trace: reading the trace while the
	 * target fills it does not finish under TCG.  Not on the event's hit
	 * count either: other tasks' reads hit it too, maybe before the
	 * target's.  The view's kprobe past the ftrace site counts the
	 * target's reads: once it has seen two, the first of them has passed
	 * the event's site.
	 */
	WAIT_FOR(map_u32_count(bpf_map__fd(f->offset->maps.counts), f->t) >= 2, 20);
	write_file(TRACING "events/kprobes/kview_mirror/enable", "0", false);
	diag("global kprobe event at ksys_read+%#lx: %d event(s) of the target",
	     site - fn, trace_lines(f->t, "kview_mirror"));
	check(trace_lines(f->t, "kview_mirror") > 0,
	      "the target ran the global kprobe's int3 in no copy");
	write_file(TRACING "kprobe_events", "-:kview_mirror\n", true);
	f->kprobe_event = false;
	check(view_byte(f->kv, site, &g) == g && g != 0xcc,
	      "the event's int3 stayed in the view or the global text");
}

static void test_kprobe_event(void *fixture, const void *variant)
{
	unsigned long fn = ksym("ksys_read"), entry_site = fentry_site(fn);
	unsigned long past = entry_site + 5, site;
	struct mir *f = fixture;

	(void)variant;
	f->offset = load("kp_offset");
	attach_entry(f);
	f->lo = attach_past_site(f->kv, f->offset->progs.kp_offset, "ksys_read");
	check(f->lo, "attach in the view: %s", strerror(errno));

	site = global_kprobe_event(f, fn, past);
	check_kprobe_event_hits(f, fn, site);

	/* One view kprobe less: its byte is back, the copy matches. */
	release_link(&f->lo);
	check_view_kprobe_insn(f->kv, entry_site, true);
	check_text_same(f->kv, past, 32, "after the view kprobe past the site left");
	release_link(&f->le);
	check_text_same(f->kv, fn, 32, "after both view kprobes left");
	mir_done(f);
}

/* The function tracer on @fn (ksys_read) only. */
static void tracer_on(struct mir *f)
{
	f->tracer = true;
	write_file(TRACING "set_ftrace_filter", "ksys_read\n", false);
	write_file(TRACING "current_tracer", "function\n", false);
}

static void tracer_off(struct mir *f)
{
	write_file(TRACING "current_tracer", "nop\n", false);
	write_file(TRACING "set_ftrace_filter", "\n", false);
	write_file(TRACING "tracing_on", "1", false);
	f->tracer = false;
}

static void test_ftrace(void *fixture, const void *variant)
{
	unsigned long fn = ksym_site("ksys_read");
	unsigned char g, vb[5], gb[5];
	struct mir *f = fixture;
	unsigned long long events;

	(void)variant;
	attach_entry(f);
	write_file(TRACING "trace", "", false);
	tracer_on(f);
	/* The view keeps its own call; the global text has ftrace's. */
	check_view_kprobe_insn(f->kv, fn, true);
	check(!kview__read_text(f->kv, fn, vb, gb, sizeof(gb)), "read text: %s",
	      strerror(errno));
	check_eq(gb[0], 0xe8);
	check(!insn_calls(gb, fn, ksym("kprobe_view_caller")),
	      "the global text calls kprobe_view_caller");

	resume(f->t);
	WAIT_FOR(map_u32_count(bpf_map__fd(f->entry->maps.counts), f->t) > 0, 20);
	write_file(TRACING "tracing_on", "0", false);
	events = map_u32_count(bpf_map__fd(f->entry->maps.counts), f->t);
	diag("function tracer: %d ksys_read line(s) of the target; view kprobe: %llu",
	     trace_lines(f->t, "ksys_read"), events);
	check(trace_lines(f->t, "ksys_read") > 0,
	      "the function tracer missed the view's task");
	check(events > 0, "the view kprobe missed the target");
	tracer_off(f);
	check_view_kprobe_insn(f->kv, fn, true);
	check(view_byte(f->kv, fn, &g) == 0xe8 && g == 0x0f,
	      "the site is not back to the NOP");

	release_link(&f->le);
	check_text_same(f->kv, fn, 16, "after the view kprobe left");
	mir_done(f);
}

/*
 * The function tracer turned on and off on ksys_read while the target runs
 * through the view's call on the other vCPU: some of its calls meet
 * text_poke_bp() halfway, and the view's handler then makes the call being
 * installed.  The view kprobe counts in every round, the function tracer
 * sees the target, and the copy is the global text after the detach.
 */
static void test_ftrace_loop(void *fixture, const void *variant)
{
	unsigned long fn = ksym_site("ksys_read");
	unsigned long long n = 0, last;
	struct mir *f = fixture;
	int i, lines, fd;

	(void)variant;
	attach_entry(f);
	fd = bpf_map__fd(f->entry->maps.counts);
	check_view_kprobe_insn(f->kv, fn, true);
	f->tracer = true;
	write_file(TRACING "set_ftrace_filter", "ksys_read\n", false);
	resume(f->t);
	for (i = 0; i <= 40; i++) {
		write_file(TRACING "current_tracer", i % 2 ? "nop\n" : "function\n",
			   false);
		/* The target reads on in each state (TCG runs one vCPU at a time). */
		last = map_u32_count(fd, f->t);
		check(WAIT_FOR((n = map_u32_count(fd, f->t)) >= last + 100, 20),
		      "round %d: the view kprobe stopped at %llu", i, n);
	}
	/* The last round enabled the tracer; a tracer change clears the trace. */
	write_file(TRACING "tracing_on", "0", false);
	lines = trace_lines(f->t, "ksys_read");
	tracer_off(f);
	diag("41 rounds: view kprobe %llu event(s), function tracer %d line(s) of the target",
	     n, lines);
	check(lines > 0, "the function tracer missed the view's task");

	release_link(&f->le);
	check_text_same(f->kv, fn, 16, "after the view kprobe left");
	check_eq(kview_verify_total(NULL), 0);
	mir_done(f);
}

/* Where global text changes when @sysctl goes to 1, in [@start, @end). */
static unsigned long find_changed(struct mir *f, unsigned long start,
				  unsigned long end, const char *sysctl)
{
	static unsigned char before[16384];
	unsigned char vb[64], gb[64];
	unsigned long a, found = 0;
	size_t n;

	check(end - start <= sizeof(before), "function too large");
	for (a = start; a < end; a += n) {
		n = end - a < 64 ? end - a : 64;
		if ((a & 4095) + n > 4096)
			n = 4096 - (a & 4095);
		check(!kview__read_text(f->kv, a, vb, before + (a - start), n),
		      "read text: %s", strerror(errno));
	}
	f->sysctl = true;
	write_file(sysctl, "1", false);
	for (a = start; a < end && !found; a += n) {
		n = end - a < 64 ? end - a : 64;
		if ((a & 4095) + n > 4096)
			n = 4096 - (a & 4095);
		check(!kview__read_text(f->kv, a, vb, gb, n), "read text: %s",
		      strerror(errno));
		for (size_t i = 0; i < n; i++)
			if (gb[i] != before[a - start + i]) {
				found = a + i;
				break;
			}
	}
	write_file(sysctl, "0", false);
	f->sysctl = false;
	return found;
}

/* The end of the function that starts at @start (next text symbol). */
static unsigned long symbol_end(unsigned long start)
{
	char line[512], sym[256], t;
	unsigned long addr, end = start + 4096;
	FILE *f = fopen("/proc/kallsyms", "r");

	check(f, "kallsyms: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %255s", &addr, &t, sym) == 3 &&
		    addr > start && addr < end)
			end = addr;
	fclose(f);
	return end;
}

/* A scoped kprobe on some function entry on the page of @addr. */
static struct bpf_link *probe_page(struct kview *kv, struct count *skel,
				   unsigned long addr)
{
	char line[512], sym[256], t;
	unsigned long a;
	struct bpf_link *link = NULL;
	FILE *f = fopen("/proc/kallsyms", "r");

	check(f, "kallsyms: %s", strerror(errno));
	while (!link && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %255s", &a, &t, sym) != 3 ||
		    (t != 't' && t != 'T') || (a >> 12) != (addr >> 12))
			continue;
		check(!kview__enter_scope(kv), "scope: %s", strerror(errno));
		link = bpf_program__attach_kprobe(skel->progs.kp_offset, false, sym);
		kview__leave_scope(kv);
		if (link)
			diag("view kprobe on %s to copy the page of %#lx", sym, addr);
	}
	fclose(f);
	check(link, "no function of the page of %#lx takes a kprobe", addr);
	return link;
}

/* @n test runs of the syscall program @fd: through the view's copy. */
static void test_runs(int fd, int n)
{
	LIBBPF_OPTS(bpf_test_run_opts, run);
	int i;

	for (i = 0; i < n; i++)
		check(!bpf_prog_test_run_opts(fd, &run), "test run: %s",
		      strerror(errno));
}

/*
 * The syscall program's runs while kernel.bpf_stats_enabled is on, and
 * only those, counted: the static key's site changes in the copy too.
 */
static void static_key_runs(struct mir *f, unsigned long site)
{
	int fd = bpf_program__fd(f->sys->progs.noop);
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	f->sysctl = true;
	write_file(sysctl_stats, "1", false);
	check_text_same(f->kv, site, 5, "with bpf_stats_enabled");
	test_runs(fd, 100);
	write_file(sysctl_stats, "0", false);
	f->sysctl = false;
	check_text_same(f->kv, site, 5, "after bpf_stats_enabled");
	test_runs(fd, 100);

	memset(&info, 0, sizeof(info));
	check(!bpf_obj_get_info_by_fd(fd, &info, &len), "prog info: %s",
	      strerror(errno));
	diag("200 runs in the view, 100 with bpf_stats_enabled: run_cnt %llu",
	     (unsigned long long)info.run_cnt);
	check_eq(info.run_cnt, 100);
}

static void test_static_key(void *fixture, const void *variant)
{
	unsigned long fn = ksym("bpf_prog_test_run_syscall"), site;
	struct mir *f = fixture;

	(void)variant;
	f->offset = count__open();
	f->sys = sysprog__open_and_load();
	check(f->offset && f->sys, "open: %s", strerror(errno));
	only_program(f->offset->obj, "kp_offset");
	check(!count__load(f->offset), "load: %s", strerror(errno));
	/* This process is the view's member: it runs the program itself. */
	f->kv = kview__create(getpid(), NULL);
	check(f->kv, "kview__create: %s", strerror(errno));
	write_file(sysctl_stats, "0", false);
	site = find_changed(f, fn, symbol_end(fn), sysctl_stats);
	check(site, "kernel.bpf_stats_enabled changed nothing in bpf_prog_test_run_syscall()");
	diag("bpf_stats_enabled_key site at bpf_prog_test_run_syscall+%#lx", site - fn);
	f->lo = probe_page(f->kv, f->offset, site);
	check_text_same(f->kv, site, 5, "before the sysctl");
	static_key_runs(f, site);

	release_link(&f->lo);
	check_text_same(f->kv, site, 5, "after the helper kprobe left");
	mir_release(f);
	check_no_views();
}

/* The view's copy of the first jump site at @site jumps, the global text not. */
static void check_view_jumps(struct mir *f, unsigned long site, const char *when)
{
	unsigned char vb[8], gb[8];

	check(!kview__read_text(f->kv, site, vb, gb, 5), "read text: %s",
	      strerror(errno));
	diag("%s: view %s, global %s", when, hexbytes(vb, 5), hexbytes(gb, 5));
	check(vb[0] == 0xe9 || vb[0] == 0xeb, "%s: the view does not jump", when);
	check(gb[0] != 0xe9 && gb[0] != 0xeb, "%s: the global text jumps", when);
}

/* The tracefs event enabled globally while the target runs, then disabled. */
static void sys_enter_enabled(struct mir *f, unsigned long site)
{
	write_file(TRACING "trace", "", false);
	f->event = true;
	write_file(sys_enter_enable, "1", false);
	check_text_same(f->kv, site, 5, "with the event enabled globally");
	resume(f->t);
	WAIT_FOR(map_u32_count(bpf_map__fd(f->tp->maps.counts), f->t) > 0, 20);
	kill(f->t, SIGSTOP);
	usleep(100000);
	write_file(sys_enter_enable, "0", false);
	f->event = false;
	diag("tracefs raw_syscalls:sys_enter: %d line(s) of the target",
	     trace_lines(f->t, "sys_enter"));
	check(trace_lines(f->t, "sys_enter") > 0,
	      "the global event missed the view's task");
}

static void test_tracepoint(void *fixture, const void *variant)
{
	struct mir *f = fixture;
	unsigned long long events;
	unsigned long site;
	char when[64];

	(void)variant;
	f->tp = tpcount__open();
	check(f->tp, "open tpcount.bpf.o: %s", strerror(errno));
	only_program(f->tp->obj, "tp_raw_enter");
	check(!tpcount__load(f->tp), "load: %s", strerror(errno));
	start_target(f);
	f->lt = kview__attach_program(f->kv, f->tp->progs.tp_raw_enter);
	check(f->lt, "attach in the view: %s", strerror(errno));
	site = first_jump_patch();
	check(site, "no jump patch listed in kview/views");
	snprintf(when, sizeof(when), "sys_enter site %#lx", site);
	check_view_jumps(f, site, when);

	sys_enter_enabled(f, site);
	check_view_jumps(f, site, "after the global disable");
	events = map_u32_count(bpf_map__fd(f->tp->maps.counts), f->t);
	diag("view program: %llu events of the target", events);
	check(events > 0, "the view program missed the target");

	release_link(&f->lt);
	check_text_same(f->kv, site, 5, "after the view's detach");
	mir_done(f);
}

/*
 * many: MANY_VIEWS views at once, more than the 64 the series allowed
 * before patch 0033, each of one `workload reads` process started stopped
 * and each holding kp_entry on ksys_read's ftrace site (one aggregator of
 * MANY_VIEWS members).  The first view's program is an object of its own,
 * so is the last view's; the views between share a third object, whose
 * one program is attached in each of them (an object each would have
 * libbpf parse the kernel's BTF 200 times): a hit that ran another view's
 * program would show in the map of another object than its view's.
 */
#define MANY_VIEWS 200
#define MANY_READS 10000	/* marked reads of the processes that run */

struct many {
	pid_t pid[MANY_VIEWS];		/* `workload reads`, kv[i]'s member */
	pid_t loner;			/* the same, in no view */
	struct kview *kv[MANY_VIEWS];
	struct bpf_link *link[MANY_VIEWS];	/* kp_entry in kv[i] */
	/* kp_entry of the first view, of the last, of those between */
	struct count *first, *last, *rest;
};

/* Detach, close the views, end the processes, close the objects. */
static void many_release(struct many *m)
{
	int i;

	for (i = 0; i < MANY_VIEWS; i++)
		release_link(&m->link[i]);
	for (i = 0; i < MANY_VIEWS; i++)
		release_view(&m->kv[i]);
	for (i = 0; i < MANY_VIEWS; i++)
		if (m->pid[i] > 0)
			kill(m->pid[i], SIGKILL);
	for (i = 0; i < MANY_VIEWS; i++)
		reap_child(m->pid[i]);
	reap_child(m->loner);
	count__destroy(m->first);
	count__destroy(m->last);
	count__destroy(m->rest);
	memset(m, 0, sizeof(*m));
}

static struct count *many_obj(struct many *m, int i)
{
	return !i ? m->first : i == MANY_VIEWS - 1 ? m->last : m->rest;
}

/* The processes, stopped after their exec, before any view or object. */
static void many_spawn(struct many *m)
{
	char n[16], *argv[] = { workload, "reads", n, NULL };
	double t0 = kvtest_now();
	int i;

	snprintf(n, sizeof(n), "%d", MANY_READS);
	for (i = 0; i < MANY_VIEWS; i++)
		m->pid[i] = spawn_stopped(argv);
	m->loner = spawn_stopped(argv);
	diag("%d processes started stopped in %.1f s", MANY_VIEWS + 1,
	     kvtest_now() - t0);
}

/*
 * A view for each process and kp_entry in it; the times they took.  The
 * global byte at ksys_read's site (@site) before the first attach in
 * @before.
 */
static void many_attach(struct many *m, unsigned long site,
			unsigned char *before)
{
	unsigned char vb;
	double t, create = 0, attach = 0, head = 0, tail = 0;
	int i;

	for (i = 0; i < MANY_VIEWS; i++) {
		t = kvtest_now();
		m->kv[i] = kview__create(m->pid[i], NULL);
		check(m->kv[i], "kview__create of view %d of %d (pid %d): %s",
		      i + 1, MANY_VIEWS, m->pid[i], strerror(errno));
		create += kvtest_now() - t;
		if (!i)
			check(!kview__read_text(m->kv[0], site, &vb, before, 1),
			      "read text: %s", strerror(errno));
		t = kvtest_now();
		m->link[i] = kview__attach_program(m->kv[i],
						   many_obj(m, i)->progs.kp_entry);
		check(m->link[i], "attach in view %d of %d: %s", i + 1,
		      MANY_VIEWS, strerror(errno));
		t = kvtest_now() - t;
		attach += t;
		if (i < 10)
			head += t;
		if (i >= MANY_VIEWS - 10)
			tail += t;
	}
	diag("%d views made in %.2f s, kp_entry attached in them in %.2f s (the first 10: %.1f ms each, the last 10: %.1f ms each)",
	     MANY_VIEWS, create, attach, head * 100, tail * 100);
}

/*
 * Each view holds one patch on one copied page, its copy of ksys_read's
 * ftrace site calls kprobe_view_caller (@caller), and the global text
 * there is what it was before (@before).
 */
static void many_check_attached(struct many *m, unsigned long site,
				unsigned long caller, unsigned char before)
{
	unsigned char vb[5], gb[5];
	struct kview_info info;
	int i;

	for (i = 0; i < MANY_VIEWS; i++) {
		check(!kview__info(m->kv[i], &info), "info of view %d: %s", i,
		      strerror(errno));
		check(!kview__read_text(m->kv[i], site, vb, gb, sizeof(vb)),
		      "read text of view %d: %s", i, strerror(errno));
		if (info.nr_members != 1 || info.nr_attachments != 1 ||
		    info.nr_patches != 1 || info.nr_pages != 1)
			fail("view %d of %d: %u member(s), %u attachment(s), %u patch(es), %u page(s), expected one of each",
			     i + 1, MANY_VIEWS, info.nr_members,
			     info.nr_attachments, info.nr_patches, info.nr_pages);
		check(insn_calls(vb, site, caller),
		      "view %d holds %s at ksys_read's site, not a call to kprobe_view_caller",
		      i + 1, hexbytes(vb, 5));
		check(gb[0] == before, "the global byte at ksys_read's site is %02x, was %02x",
		      gb[0], before);
	}
}

/* Every view's copy has the global text's @len bytes at @addr. */
static void many_check_mirrored(struct many *m, unsigned long addr,
				size_t len, const char *when)
{
	unsigned char vb[32], gb[32];
	int i, bad = 0;

	check(len <= sizeof(vb), "%zu bytes", len);
	for (i = 0; i < MANY_VIEWS; i++) {
		check(!kview__read_text(m->kv[i], addr, vb, gb, len),
		      "read text of view %d: %s", i, strerror(errno));
		if (memcmp(vb, gb, len) && !bad++) {
			diag("view %d: %s", i + 1, hexbytes(vb, len));
			diag("global:  %s", hexbytes(gb, len));
		}
	}
	check(!bad, "%s: %d of %d views' copies differ from the global text at %#lx",
	      when, bad, MANY_VIEWS, addr);
}

/*
 * The tracefs kprobe event kview_mirror on the entry of a function other
 * than ksys_read on the page of @site, defined (not enabled): the first
 * one on that page the kernel takes.  Its address, the name in @name.
 */
static unsigned long neighbour_event(struct mir *f, unsigned long site,
				     char *name, size_t size)
{
	unsigned long a, fn = ksym("ksys_read");
	char line[512], sym[256], cmd[300], t;
	FILE *k = fopen("/proc/kallsyms", "r");

	check(k, "kallsyms: %s", strerror(errno));
	while (fgets(line, sizeof(line), k)) {
		if (sscanf(line, "%lx %c %255s", &a, &t, sym) != 3 ||
		    (t != 't' && t != 'T') || (a >> 12) != (site >> 12) ||
		    a == fn || (a & 4095) > 4096 - 32 ||
		    !strncmp(sym, "__pfx_", 6) || !strncmp(sym, "__cfi_", 6))
			continue;
		snprintf(cmd, sizeof(cmd), "p:kview_mirror %s\n", sym);
		if (kprobe_event_add(f, cmd)) {
			fclose(k);
			snprintf(name, size, "%s", sym);
			return a;
		}
		diag("no kprobe event on %s: %s", sym, strerror(errno));
	}
	fclose(k);
	fail("no function but ksys_read on the page of %#lx takes a kprobe event",
	     site);
}

/*
 * A global change on the page every view copied: the kprobe event on a
 * neighbour of ksys_read enabled (every copy gets the global bytes), then
 * disabled and removed (every copy gets the restored bytes).
 */
static void many_mirror(struct mir *f, struct many *m, unsigned long site)
{
	unsigned char before[32], after[32], vb[32];
	unsigned long fn;
	char name[256];
	double t;
	int i;

	fn = neighbour_event(f, site, name, sizeof(name));
	check(!kview__read_text(m->kv[0], fn, vb, before, sizeof(before)),
	      "read text: %s", strerror(errno));
	t = kvtest_now();
	write_file(TRACING "events/kprobes/kview_mirror/enable", "1", false);
	t = kvtest_now() - t;
	check(!kview__read_text(m->kv[0], fn, vb, after, sizeof(after)),
	      "read text: %s", strerror(errno));
	for (i = 0; i < 32 && before[i] == after[i]; i++)
		;
	diag("global kprobe event on %s (%#lx, ksys_read's site %#lx), enabled in %.0f ms: %s -> %s",
	     name, fn, site, t * 1000, hexbytes(before, 8), hexbytes(after, 8));
	check(i < 32, "enabling the kprobe event on %s changed no global byte", name);
	many_check_mirrored(m, fn, sizeof(after), "with the kprobe event enabled");
	check_eq(kview_verify_total(NULL), 0);

	t = kvtest_now();
	write_file(TRACING "events/kprobes/kview_mirror/enable", "0", false);
	write_file(TRACING "kprobe_events", "-:kview_mirror\n", true);
	f->kprobe_event = false;
	diag("the event disabled and removed in %.0f ms", (kvtest_now() - t) * 1000);
	check(!kview__read_text(m->kv[0], fn, vb, after, sizeof(after)),
	      "read text: %s", strerror(errno));
	check(!memcmp(before, after, sizeof(after)),
	      "the global text of %s is %s, was %s", name, hexbytes(after, 8),
	      hexbytes(before, 8));
	many_check_mirrored(m, fn, sizeof(after), "after the kprobe event left");
}

/* Wait for @pid's exit; its exit status, its system time in @sys_ms. */
static int wait_exit_sys(pid_t pid, double *sys_ms)
{
	struct rusage ru;
	int st;

	check(wait4(pid, &st, 0, &ru) == pid, "wait4 %d: %s", pid, strerror(errno));
	*sys_ms = ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * The first and the last view's processes and the loner make their marked
 * reads at once: view 0's program counts its process's reads, exactly,
 * and nothing else; so does the last view's; the program of the views
 * between counts nothing, for none of their processes or anybody else.
 */
static void many_isolation(struct many *m)
{
	pid_t a = m->pid[0], b = m->pid[MANY_VIEWS - 1];
	int fa = bpf_map__fd(m->first->maps.counts);
	int fb = bpf_map__fd(m->last->maps.counts);
	int fr = bpf_map__fd(m->rest->maps.counts);
	unsigned int keys[16];
	double sa, sb, sl;
	int i;

	resume(a);
	resume(b);
	resume(m->loner);
	check_eq(wait_exit_sys(a, &sa), 0);
	check_eq(wait_exit_sys(b, &sb), 0);
	check_eq(wait_exit_sys(m->loner, &sl), 0);
	diag("%d marked reads each; system time: view 1's %.0f ms, view %d's %.0f ms, in no view %.0f ms",
	     MANY_READS, sa, MANY_VIEWS, sb, sl);
	diag("view 1's program: %llu for its process, %llu for view %d's, %llu for the loner, %zu key(s)",
	     map_u32_count(fa, a), map_u32_count(fa, b), MANY_VIEWS,
	     map_u32_count(fa, m->loner), map_u32_keys(fa, keys, 16));
	diag("view %d's program: %llu for its process, %llu for view 1's, %llu for the loner, %zu key(s)",
	     MANY_VIEWS, map_u32_count(fb, b), map_u32_count(fb, a),
	     map_u32_count(fb, m->loner), map_u32_keys(fb, keys, 16));
	diag("the other %d views' program: %zu key(s)", MANY_VIEWS - 2,
	     map_u32_keys(fr, keys, 16));
	check_eq(map_u32_count(fa, a), MANY_READS);
	check_eq(map_u32_keys(fa, keys, 16), 1);
	check_eq(map_u32_count(fb, b), MANY_READS);
	check_eq(map_u32_keys(fb, keys, 16), 1);
	for (i = 1; i < MANY_VIEWS - 1; i++)
		check(!map_u32_count(fr, m->pid[i]),
		      "view %d's count of its stopped process moved", i + 1);
	check_eq(map_u32_keys(fr, keys, 16), 0);
	m->pid[0] = m->pid[MANY_VIEWS - 1] = m->loner = 0;
}

/*
 * Detach from every other view first: each of those loses its patch and
 * its copy, each of the others keeps its call to kprobe_view_caller (the
 * kprobe leaves one member's view at a time, not all and back).  Then
 * from the rest (each view is then empty), close the views, end the
 * stopped processes: no view, member, patch or copy is left, and the
 * global text at ksys_read's site is what it was.
 */
static void many_teardown(struct many *m, unsigned long site,
			  unsigned long caller, unsigned char before)
{
	unsigned char vb[5], gb[5];
	struct kview_info info;
	double t = kvtest_now();
	int i;

	for (i = 1; i < MANY_VIEWS; i += 2)
		release_link(&m->link[i]);
	for (i = 0; i < MANY_VIEWS; i++) {
		check(!kview__info(m->kv[i], &info), "info of view %d: %s",
		      i + 1, strerror(errno));
		check(!kview__read_text(m->kv[i], site, vb, gb, sizeof(vb)),
		      "read text of view %d: %s", i + 1, strerror(errno));
		if (i % 2) {
			check(!info.nr_patches && !info.nr_pages &&
			      !memcmp(vb, gb, sizeof(vb)),
			      "view %d, detached: %u patch(es), %u page(s), %s at ksys_read's site where the global text has %s",
			      i + 1, info.nr_patches, info.nr_pages,
			      hexbytes(vb, 5), hexbytes(gb, 5));
		} else {
			check(info.nr_patches == 1 &&
			      insn_calls(vb, site, caller),
			      "view %d, still attached: %u patch(es), %s at ksys_read's site",
			      i + 1, info.nr_patches, hexbytes(vb, 5));
		}
	}
	check_eq(kview_verify_total(NULL), 0);
	for (i = 0; i < MANY_VIEWS; i += 2)
		release_link(&m->link[i]);
	diag("%d links destroyed in %.2f s", MANY_VIEWS, kvtest_now() - t);
	check(!kview__read_text(m->kv[0], site, vb, gb, 1), "read text: %s",
	      strerror(errno));
	check_eq(gb[0], before);
	t = kvtest_now();
	for (i = 0; i < MANY_VIEWS; i++) {
		check_view_empty_destroy(m->kv[i]);
		m->kv[i] = NULL;
	}
	for (i = 0; i < MANY_VIEWS; i++)
		if (m->pid[i] > 0)
			kill(m->pid[i], SIGKILL);
	for (i = 0; i < MANY_VIEWS; i++)
		reap_child(m->pid[i]);
	memset(m->pid, 0, sizeof(m->pid));
	check(WAIT_FOR(!kview_stats().views && !kview_stats().members, 60),
	      "views left: %u, members %u", kview_stats().views,
	      kview_stats().members);
	diag("the views closed and their processes gone in %.2f s",
	     kvtest_now() - t);
	check_stats_clean();
}

static void test_many(void *fixture, const void *variant)
{
	unsigned long site = ksym_site("ksys_read");
	unsigned long caller = ksym("kprobe_view_caller");
	struct kview_stats s0 = kview_stats(), s;
	long free0 = mem_free_kb();
	unsigned char before;
	struct mir *f = fixture;
	struct many *m;
	unsigned int nviews;

	(void)variant;
	check_eq(s0.views, 0);
	m = f->many = calloc(1, sizeof(*m));
	check(m, "calloc: %s", strerror(errno));
	many_spawn(m);
	m->first = load("kp_entry");
	m->last = load("kp_entry");
	m->rest = load("kp_entry");

	many_attach(m, site, &before);
	s = kview_stats();
	diag("kview/stats: %u views, %u members, %u patches, %u pages, %u table pages; MemFree %ld kB less than before the processes",
	     s.views, s.members, s.patches, s.pages, s.pt_pages,
	     free0 - mem_free_kb());
	check_eq(s.views, MANY_VIEWS);
	check_eq(s.members, MANY_VIEWS);
	check_eq(s.patches, MANY_VIEWS);
	check_eq(s.pages, MANY_VIEWS);
	many_check_attached(m, site, caller, before);
	check_eq(kview_verify_total(&nviews), 0);
	check_eq(nviews, MANY_VIEWS);

	many_mirror(f, m, site);
	many_check_attached(m, site, caller, before);
	many_isolation(m);
	many_teardown(m, site, caller, before);
	check_eq(kview_stats().out_of_scope, s0.out_of_scope);
	free(m);
	f->many = NULL;
}

static const struct check_case cases[] = {
	{ "kprobe-event", test_kprobe_event, NULL },
	{ "ftrace", test_ftrace, NULL },
	{ "ftrace-loop", test_ftrace_loop, NULL },
	{ "static-key", test_static_key, NULL },
	{ "tracepoint", test_tracepoint, NULL },
	{ "many", test_many, NULL },
};

static const struct check_suite suite = {
	.fixture_size = sizeof(struct mir),
	.teardown = mir_teardown,
	CHECK_CASES(cases),
};

int main(int argc, char **argv)
{
	workload_path(workload, sizeof(workload));
	return check_main(&suite, argc, argv);
}
