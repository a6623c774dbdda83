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
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "kvtest.h"
#include "count.skel.h"
#include "tpcount.skel.h"
#include "sysprog.skel.h"

#define TRACING "/sys/kernel/tracing/"

static char workload[4096];

static void write_file(const char *path, const char *s, bool append)
{
	int fd = open(path, O_WRONLY | (append ? O_APPEND : O_TRUNC));

	check(fd >= 0, "open %s: %s", path, strerror(errno));
	check(write(fd, s, strlen(s)) == (ssize_t)strlen(s), "write '%s' to %s: %s",
	      s, path, strerror(errno));
	close(fd);
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

static pid_t start_target(struct kview **kv)
{
	char *spin[] = { workload, "spin", NULL };
	pid_t t = spawn_stopped(spin);

	*kv = kview__create(t, NULL);
	check(*kv, "kview__create: %s", strerror(errno));
	return t;
}

/*
 * Define the tracefs kprobe event kview_mirror at the first instruction of
 * ksys_read past @min: the kernel's decoder refuses an offset inside an
 * instruction with EILSEQ, and the code there differs between the test
 * and the debug kernel (KASAN instruments it).  Returns the offset.
 */
static unsigned long kprobe_event_after(unsigned long min)
{
	char cmd[128];
	unsigned long off;
	ssize_t n;
	int fd;

	for (off = min + 1; off < min + 16; off++) {
		snprintf(cmd, sizeof(cmd), "p:kview_mirror ksys_read+%lu\n", off);
		fd = open(TRACING "kprobe_events", O_WRONLY | O_APPEND);
		check(fd >= 0, "open kprobe_events: %s", strerror(errno));
		n = write(fd, cmd, strlen(cmd));
		close(fd);
		if (n == (ssize_t)strlen(cmd))
			return off;
		check(errno == EILSEQ, "write '%s' to kprobe_events: %s", cmd,
		      strerror(errno));
	}
	fail("no instruction boundary in ksys_read+%lu..+%lu", min + 1, min + 15);
}

static void test_kprobe_event(void)
{
	unsigned long fn = ksym("ksys_read"), entry_site = fentry_site(fn);
	unsigned long past = entry_site + 5, site;
	struct count *entry = load("kp_entry"), *offset = load("kp_offset");
	struct bpf_link *le, *lo;
	unsigned char g;
	struct kview *kv;
	pid_t t;

	t = start_target(&kv);
	le = kview__attach_program(kv, entry->progs.kp_entry);
	lo = attach_past_site(kv, offset->progs.kp_offset, "ksys_read");
	check(le && lo, "attach in the view: %s", strerror(errno));

	write_file(TRACING "trace", "", false);
	/* Past the view kprobe past the ftrace site, on the same page. */
	site = fn + kprobe_event_after(past - fn);
	diag("global kprobe event at ksys_read+%#lx", site - fn);
	check((fn >> 12) == (site >> 12), "ksys_read+%#lx is on another page",
	      site - fn);
	write_file(TRACING "events/kprobes/kview_mirror/enable", "1", false);
	check_eq(view_byte(kv, site, &g), 0xcc);
	check_eq(g, 0xcc);

	resume(t);
	/*
	 * Wait on a counter, not on the trace: reading the trace while the
	 * target fills it does not finish under TCG.  Not on the event's hit
	 * count either: other tasks' reads hit it too, maybe before the
	 * target's.  The view's kprobe past the ftrace site counts the
	 * target's reads: once it has seen two, the first of them has passed
	 * the event's site.
	 */
	WAIT_FOR(map_u32_count(bpf_map__fd(offset->maps.counts), t) >= 2, 20);
	write_file(TRACING "events/kprobes/kview_mirror/enable", "0", false);
	diag("global kprobe event at ksys_read+%#lx: %d event(s) of the target",
	     site - fn, trace_lines(t, "kview_mirror"));
	check(trace_lines(t, "kview_mirror") > 0,
	      "the target ran the global kprobe's int3 in no copy");
	write_file(TRACING "kprobe_events", "-:kview_mirror\n", true);
	check(view_byte(kv, site, &g) == g && g != 0xcc,
	      "the event's int3 stayed in the view or the global text");

	/* One view kprobe less: its byte is back, the copy matches. */
	bpf_link__destroy(lo);
	check_view_kprobe_insn(kv, entry_site, true);
	check_text_same(kv, past, 32, "after the view kprobe past the site left");
	bpf_link__destroy(le);
	check_text_same(kv, fn, 32, "after both view kprobes left");

	kill(t, SIGKILL);
	wait_exit(t);
	kview__destroy(kv);
	count__destroy(offset);
	count__destroy(entry);
}

static void test_ftrace(void)
{
	unsigned long fn = ksym_site("ksys_read");
	struct count *entry = load("kp_entry");
	unsigned char g, vb[5], gb[5];
	unsigned long long events;
	struct bpf_link *le;
	struct kview *kv;
	pid_t t;

	t = start_target(&kv);
	le = kview__attach_program(kv, entry->progs.kp_entry);
	check(le, "attach in the view: %s", strerror(errno));

	write_file(TRACING "trace", "", false);
	write_file(TRACING "set_ftrace_filter", "ksys_read\n", false);
	write_file(TRACING "current_tracer", "function\n", false);
	/* The view keeps its own call; the global text has ftrace's. */
	check_view_kprobe_insn(kv, fn, true);
	check(!kview__read_text(kv, fn, vb, gb, sizeof(gb)), "read text: %s",
	      strerror(errno));
	check_eq(gb[0], 0xe8);
	check(!insn_calls(gb, fn, ksym("kprobe_view_caller")),
	      "the global text calls kprobe_view_caller");

	resume(t);
	WAIT_FOR(map_u32_count(bpf_map__fd(entry->maps.counts), t) > 0, 20);
	write_file(TRACING "tracing_on", "0", false);
	events = map_u32_count(bpf_map__fd(entry->maps.counts), t);
	diag("function tracer: %d ksys_read line(s) of the target; view kprobe: %llu",
	     trace_lines(t, "ksys_read"), events);
	check(trace_lines(t, "ksys_read") > 0,
	      "the function tracer missed the view's task");
	check(events > 0, "the view kprobe missed the target");
	write_file(TRACING "current_tracer", "nop\n", false);
	write_file(TRACING "set_ftrace_filter", "\n", false);
	write_file(TRACING "tracing_on", "1", false);
	check_view_kprobe_insn(kv, fn, true);
	check(view_byte(kv, fn, &g) == 0xe8 && g == 0x0f,
	      "the site is not back to the NOP");

	bpf_link__destroy(le);
	check_text_same(kv, fn, 16, "after the view kprobe left");
	kill(t, SIGKILL);
	wait_exit(t);
	kview__destroy(kv);
	count__destroy(entry);
}

/*
 * The function tracer turned on and off on ksys_read while the target runs
 * through the view's call on the other vCPU: some of its calls meet
 * text_poke_bp() halfway, and the view's handler then makes the call being
 * installed.  The view kprobe counts in every round, the function tracer
 * sees the target, and the copy is the global text after the detach.
 */
static void test_ftrace_loop(void)
{
	unsigned long fn = ksym_site("ksys_read");
	struct count *entry = load("kp_entry");
	int fd = bpf_map__fd(entry->maps.counts);
	unsigned long long n = 0, last;
	struct bpf_link *le;
	struct kview *kv;
	int i, lines;
	pid_t t;

	t = start_target(&kv);
	le = kview__attach_program(kv, entry->progs.kp_entry);
	check(le, "attach in the view: %s", strerror(errno));
	check_view_kprobe_insn(kv, fn, true);
	write_file(TRACING "set_ftrace_filter", "ksys_read\n", false);
	resume(t);
	for (i = 0; i <= 40; i++) {
		write_file(TRACING "current_tracer", i % 2 ? "nop\n" : "function\n",
			   false);
		/* The target reads on in each state (TCG runs one vCPU at a time). */
		last = map_u32_count(fd, t);
		check(WAIT_FOR((n = map_u32_count(fd, t)) >= last + 100, 20),
		      "round %d: the view kprobe stopped at %llu", i, n);
	}
	/* The last round enabled the tracer; a tracer change clears the trace. */
	write_file(TRACING "tracing_on", "0", false);
	lines = trace_lines(t, "ksys_read");
	write_file(TRACING "current_tracer", "nop\n", false);
	write_file(TRACING "set_ftrace_filter", "\n", false);
	write_file(TRACING "tracing_on", "1", false);
	diag("41 rounds: view kprobe %llu event(s), function tracer %d line(s) of the target",
	     n, lines);
	check(lines > 0, "the function tracer missed the view's task");

	bpf_link__destroy(le);
	check_text_same(kv, fn, 16, "after the view kprobe left");
	check_eq(kview_verify_total(NULL), 0);
	kill(t, SIGKILL);
	wait_exit(t);
	kview__destroy(kv);
	count__destroy(entry);
}

/* Where global text changes when @sysctl goes to 1, in [@start, @end). */
static unsigned long find_changed(struct kview *kv, unsigned long start,
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
		check(!kview__read_text(kv, a, vb, before + (a - start), n),
		      "read text: %s", strerror(errno));
	}
	write_file(sysctl, "1", false);
	for (a = start; a < end && !found; a += n) {
		n = end - a < 64 ? end - a : 64;
		if ((a & 4095) + n > 4096)
			n = 4096 - (a & 4095);
		check(!kview__read_text(kv, a, vb, gb, n), "read text: %s",
		      strerror(errno));
		for (size_t i = 0; i < n; i++)
			if (gb[i] != before[a - start + i]) {
				found = a + i;
				break;
			}
	}
	write_file(sysctl, "0", false);
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

static void test_static_key(void)
{
	const char *sysctl = "/proc/sys/kernel/bpf_stats_enabled";
	unsigned long fn = ksym("bpf_prog_test_run_syscall"), site;
	struct count *helper = count__open();
	struct sysprog *sys = sysprog__open_and_load();
	LIBBPF_OPTS(bpf_test_run_opts, run);
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	struct bpf_link *lh;
	struct kview *kv;
	int i, fd;

	check(helper && sys, "open: %s", strerror(errno));
	only_program(helper->obj, "kp_offset");
	check(!count__load(helper), "load: %s", strerror(errno));
	fd = bpf_program__fd(sys->progs.noop);
	/* This process is the view's member: it runs the program itself. */
	kv = kview__create(getpid(), NULL);
	check(kv, "kview__create: %s", strerror(errno));
	write_file(sysctl, "0", false);
	site = find_changed(kv, fn, symbol_end(fn), sysctl);
	check(site, "kernel.bpf_stats_enabled changed nothing in bpf_prog_test_run_syscall()");
	diag("bpf_stats_enabled_key site at bpf_prog_test_run_syscall+%#lx", site - fn);
	lh = probe_page(kv, helper, site);
	check_text_same(kv, site, 5, "before the sysctl");

	write_file(sysctl, "1", false);
	check_text_same(kv, site, 5, "with bpf_stats_enabled");
	for (i = 0; i < 100; i++)
		check(!bpf_prog_test_run_opts(fd, &run), "test run: %s",
		      strerror(errno));
	write_file(sysctl, "0", false);
	check_text_same(kv, site, 5, "after bpf_stats_enabled");
	for (i = 0; i < 100; i++)
		check(!bpf_prog_test_run_opts(fd, &run), "test run: %s",
		      strerror(errno));

	memset(&info, 0, sizeof(info));
	check(!bpf_obj_get_info_by_fd(fd, &info, &len), "prog info: %s",
	      strerror(errno));
	diag("200 runs in the view, 100 with bpf_stats_enabled: run_cnt %llu",
	     (unsigned long long)info.run_cnt);
	check_eq(info.run_cnt, 100);

	bpf_link__destroy(lh);
	check_text_same(kv, site, 5, "after the helper kprobe left");
	kview__destroy(kv);
	sysprog__destroy(sys);
	count__destroy(helper);
}

static void test_tracepoint(void)
{
	const char *enable = TRACING "events/raw_syscalls/sys_enter/enable";
	struct tpcount *skel = tpcount__open();
	struct bpf_program *prog;
	unsigned char vb[8], gb[8];
	unsigned long long events;
	struct bpf_link *link;
	unsigned long site;
	struct kview *kv;
	pid_t t;

	check(skel, "open tpcount.bpf.o: %s", strerror(errno));
	only_program(skel->obj, "tp_raw_enter");
	check(!tpcount__load(skel), "load: %s", strerror(errno));
	prog = skel->progs.tp_raw_enter;
	t = start_target(&kv);
	link = kview__attach_program(kv, prog);
	check(link, "attach in the view: %s", strerror(errno));
	site = first_jump_patch();
	check(site, "no jump patch listed in kview/views");
	check(!kview__read_text(kv, site, vb, gb, 5), "read text: %s",
	      strerror(errno));
	diag("sys_enter site %#lx: view %s, global %s", site, hexbytes(vb, 5),
	     hexbytes(gb, 5));
	check(vb[0] == 0xe9 || vb[0] == 0xeb, "the view does not jump");
	check(gb[0] != 0xe9 && gb[0] != 0xeb, "the global text jumps");

	write_file(TRACING "trace", "", false);
	write_file(enable, "1", false);
	check_text_same(kv, site, 5, "with the event enabled globally");
	resume(t);
	WAIT_FOR(map_u32_count(bpf_map__fd(skel->maps.counts), t) > 0, 20);
	kill(t, SIGSTOP);
	usleep(100000);
	write_file(enable, "0", false);
	diag("tracefs raw_syscalls:sys_enter: %d line(s) of the target",
	     trace_lines(t, "sys_enter"));
	check(trace_lines(t, "sys_enter") > 0,
	      "the global event missed the view's task");
	check(!kview__read_text(kv, site, vb, gb, 5), "read text: %s",
	      strerror(errno));
	diag("after the global disable: view %s, global %s", hexbytes(vb, 5),
	     hexbytes(gb, 5));
	check(vb[0] == 0xe9 || vb[0] == 0xeb, "the view lost its jump");
	check(gb[0] != 0xe9 && gb[0] != 0xeb, "the global text still jumps");
	events = map_u32_count(bpf_map__fd(skel->maps.counts), t);
	diag("view program: %llu events of the target", events);
	check(events > 0, "the view program missed the target");

	bpf_link__destroy(link);
	check_text_same(kv, site, 5, "after the view's detach");
	kill(t, SIGKILL);
	wait_exit(t);
	kview__destroy(kv);
	tpcount__destroy(skel);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	struct kview_stats s;

	workload_path(workload, sizeof(workload));

	if (!strcmp(mode, "kprobe-event"))
		test_kprobe_event();
	else if (!strcmp(mode, "ftrace"))
		test_ftrace();
	else if (!strcmp(mode, "ftrace-loop"))
		test_ftrace_loop();
	else if (!strcmp(mode, "static-key"))
		test_static_key();
	else if (!strcmp(mode, "tracepoint"))
		test_tracepoint();
	else {
		fprintf(stderr, "usage: kview-mirror kprobe-event|ftrace|ftrace-loop|static-key|tracepoint\n");
		return 2;
	}
	s = kview_stats_settled(0);
	check_eq(s.views, 0);
	check_eq(s.pages, 0);
	return 0;
}
