// SPDX-License-Identifier: GPL-2.0
/*
 * kview-faults: allocation failures on the way to a view or an attachment.
 * For each operation, the Nth allocation the calling thread makes fails
 * (failslab and fail_page_alloc through /proc/thread-self/fail-nth), for
 * N = 1, 2, ... until the operation gets through without reaching the Nth:
 * every failure must give the caller a clean errno and leave nothing
 * behind (no patch, copied page or table, member, attachment, kprobe or
 * syscall-work flag; the view's text equal to the global text), and the
 * operation must work once nothing fails.  Needs the debug kernel
 * (CONFIG_FAULT_INJECTION); kmemleak (kmemleak.sh, run after the suite)
 * finds what would leak.
 *
 *   kview-faults [OP...]     default: all of them
 *
 *   create          KVIEW_IOC_CREATE with a process
 *   add-pid         KVIEW_IOC_ADD_PID, which allocates nothing (membership
 *                   is a pointer and a list node in the mm): the walk
 *                   checks that no allocation is reached
 *   kprobe          a kprobe mid-function, the view's first patch (a PTE
 *                   page, a copy, the region made non-global)
 *   kprobe-entry    a kprobe on an ftrace site
 *   kretprobe       a kretprobe
 *   kprobe-page     a second kprobe on a page the view copied already
 *                   (copy and swap)
 *   kprobe-mixed    a view kprobe where a global one is already
 *   kprobe-pool     a kprobe whose copy finds kview's pool of read-only
 *                   copies empty (a kprobe_multi link in another view
 *                   holds every free page): a new 2 MiB block, or a
 *                   single page made read-only if there is none.  The
 *                   first absorbed failure lets the block be made, so
 *                   the walk counts order-9 page allocations only
 *                   (fail_page_alloc/min-order 9, no slab failures): the
 *                   block's allocation fails, the copy falls back to a
 *                   single page; no page of the pool may be lost
 *   tracepoint      sched/sched_process_fork in the view (jump sites)
 *   syscall-tp      syscalls/sys_enter_read in the view (syscall work)
 *   raw-tp          a raw tracepoint in the view
 *   global-detach   the global kprobe goes while a view kprobe stays on
 *                   the same address: the view must take over, or the
 *                   probe stays armed globally (counted in global_fallback)
 *
 * One suite (tests/lib/harness.h), each operation a case: the fixture is
 * the fault injection set up, the target (`workload spin`), the objects
 * loaded and libbpf's features probed (setup), and what the case makes
 * (views, links, the pool drained, the knobs of kprobe-pool), released and
 * put back by its teardown if a check failed first.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "kvtest.h"
#include "count.skel.h"
#include "multi.skel.h"
#include "tpcount.skel.h"

static char workload[4096];

/* What setup and the case made; NULL or 0 is what they did not, or released. */
struct fa {
	int nth_fd;			/* /proc/thread-self/fail-nth */
	pid_t target;			/* `workload spin` */
	struct kview *view, *drain_view;
	struct count *kskel, *gskel;	/* view programs, global ones */
	struct count *vk, *gk;		/* global-detach's own */
	struct tpcount *tskel;
	struct multi *drain_skel;
	struct bpf_link *op_link, *held, *global, *drain_link;
	struct bpf_program *prog;	/* what the attach operations attach */
	/* ksys_read's first instruction past its ftrace site (read before a walk). */
	unsigned long past_off;
	bool pool_knobs;		/* kprobe-pool's: min-order 9, cache-filter */
};

struct fa_variant {
	const char *name;		/* the operation's, the case's */
	void (*run)(struct fa *f, const struct fa_variant *v);	/* NULL: attach */
	const char *prog;		/* an attach's program */
	bool tp;			/* @prog is tpcount.bpf.o's */
	bool hold_entry;		/* kp_entry in the view first */
	bool hold_global;		/* a global kprobe past the site first */
	bool pool;			/* the pool of copies drained first */
};

static void write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	check(fd >= 0, "%s: %s", path, strerror(errno));
	check(write(fd, val, strlen(val)) == (ssize_t)strlen(val),
	      "write %s to %s: %s", val, path, strerror(errno));
	close(fd);
}

/* Fail every kind of allocation, quietly (no stack dump per failure). */
static void setup_fault_injection(struct fa *f)
{
	static const char *const knobs[][2] = {
		{ "failslab/ignore-gfp-wait", "N" },
		{ "failslab/verbose", "0" },
		{ "fail_page_alloc/ignore-gfp-wait", "N" },
		{ "fail_page_alloc/ignore-gfp-highmem", "N" },
		{ "fail_page_alloc/min-order", "0" },
		{ "fail_page_alloc/verbose", "0" },
	};
	char path[128];
	size_t i;

	check(!access("/proc/thread-self/fail-nth", W_OK),
	      "no /proc/thread-self/fail-nth: needs the debug kernel (CONFIG_FAULT_INJECTION)");
	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/%s", knobs[i][0]);
		write_file(path, knobs[i][1]);
	}
	f->nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	check(f->nth_fd >= 0, "fail-nth: %s", strerror(errno));
}

static void fail_nth(struct fa *f, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	check(pwrite(f->nth_fd, buf, len, 0) == len, "write fail-nth: %s",
	      strerror(errno));
}

/* Was the armed failure injected (the counter ran down to 0)? */
static bool fault_injected(struct fa *f)
{
	char buf[16] = "";

	check(pread(f->nth_fd, buf, sizeof(buf) - 1, 0) > 0, "read fail-nth: %s",
	      strerror(errno));
	fail_nth(f, 0);
	return atoi(buf) == 0;
}

/* What must be the same after a failed operation as before it. */
struct state {
	struct kview_stats stats;
	unsigned int attachments, kprobes, syscall_work;
	unsigned long bad;		/* kview/verify: bad bytes, maps, tables */
	unsigned long pool_used;	/* pages of kview's pool of copies in use */
};

/* kview's pool: blocks of 2 MiB (order 9) of 4 KiB pages. */
#define POOL_BLOCK_PAGES 512

static unsigned int count_lines(const char *path, const char *prefix)
{
	char line[512];
	unsigned int n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n += !strncmp(line, prefix, strlen(prefix));
	fclose(f);
	return n;
}

/* The hooks attached in any view, as kview/views lists them. */
static unsigned int views_hooks(void)
{
	struct kview_views *views = views_read();
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < views->cnt; i++)
		n += views->views[i]->hooks_cnt;
	kview__views_free(views);
	return n;
}

static struct state state(void)
{
	struct state s;

	s.stats = kview_stats_settled(~0u);
	s.attachments = views_hooks();
	s.kprobes = count_lines("/sys/kernel/debug/kprobes/list", "");
	s.syscall_work = count_lines("/sys/kernel/debug/kview/syscall_work", "");
	s.bad = kview_verify_total(NULL);
	s.pool_used = kview_stat("pool_blocks") * POOL_BLOCK_PAGES -
		      kview_stat("pool_free");
	return s;
}

/*
 * The pool of copies may have grown (a block stays until the last view
 * goes), but every page of it is free again or used as before.
 */
static void check_same(const char *op, unsigned int n, struct state *a)
{
	struct state b;
	int i;

	/* Views and members go from work items and at tasks' last switch. */
	for (i = 0; i < 100; i++) {
		b = state();
		if (b.stats.views == a->stats.views &&
		    b.stats.members == a->stats.members)
			break;
		usleep(10000);
	}
#define SAME(f) check(a->f == b.f, "%s, allocation %u failed: " #f " %lu before, %lu after", \
		      op, n, (unsigned long)a->f, (unsigned long)b.f)
	SAME(stats.views);
	SAME(stats.members);
	SAME(stats.patches);
	SAME(stats.pages);
	SAME(stats.pt_pages);
	SAME(attachments);
	SAME(kprobes);
	SAME(syscall_work);
	SAME(pool_used);
#undef SAME
	check(!b.bad, "%s, allocation %u failed: a view's text or tables differ from the global ones (kview/verify)",
	      op, n);
}

/*
 * An operation under test: @act is what runs with the Nth allocation
 * failing; it returns 0 or -errno, and @undo takes back a success.
 */
struct op {
	const char *name;
	int (*act)(struct fa *f);
	void (*undo)(struct fa *f);
	bool allocates_nothing;	/* then no allocation may be reached */
	bool absorbs;		/* every failure is absorbed: none fails it */
	int also_clean;		/* an errno that is clean for this op */
};

/* Errnos that would mean something was left behind or mixed up. */
static bool suspicious(int err)
{
	return err == -EBUSY || err == -EEXIST || err == -EOPNOTSUPP ||
	       err == -ESRCH || err == -EPERM || err == -ENOSPC;
}

/* Errnos of a walk's failures, each once, into @errs. */
static void note_errno(char *errs, size_t size, int err)
{
	if (!strstr(errs, strerror(-err)) &&
	    strlen(errs) + strlen(strerror(-err)) + 3 < size)
		sprintf(errs + strlen(errs), "%s%s", *errs ? ", " : "",
			strerror(-err));
}

/*
 * After a walk that reached @n - 1 allocations: none if it allocates
 * nothing, else failures that failed it (or, if it absorbs them all,
 * absorbed ones only).
 */
static void walk_report(const struct op *op, unsigned int n, unsigned int failed,
			unsigned int absorbed, const char *errs)
{
	check(n < 5000, "%s: no end to its allocations", op->name);
	if (op->allocates_nothing) {
		check(n == 1, "%s: made %u allocation(s), expected none",
		      op->name, n - 1);
		diag("%s: no allocation on the way, as designed", op->name);
		return;
	}
	diag("%s: %u allocation(s) on the way: %u injected failure(s) failed it cleanly (%s), %u absorbed",
	     op->name, n - 1, failed, errs, absorbed);
	if (op->absorbs)
		check(!failed && absorbed, "%s: %u failure(s) failed it, %u absorbed: expected only absorbed ones",
		      op->name, failed, absorbed);
	else
		check(failed > 0, "%s: no injected failure made it fail", op->name);
}

/*
 * Walk the failure points of @op: with the Nth allocation failing it must
 * fail with a clean errno and change nothing; the walk ends when it gets
 * through without reaching the Nth.
 */
static void walk(struct fa *f, const struct op *op)
{
	struct state before = state();
	unsigned int n, failed = 0, absorbed = 0;
	char errs[256] = "";
	int err;

	for (n = 1; n < 5000; n++) {
		fail_nth(f, n);
		err = op->act(f);
		if (!fault_injected(f)) {
			check(!err, "%s failed (%s) without an injected failure",
			      op->name, strerror(-err));
			op->undo(f);
			check_same(op->name, n, &before);
			break;
		}
		if (err) {
			check(err < 0 && (!suspicious(err) || -err == op->also_clean),
			      "%s, allocation %u failed: errno %d (%s)", op->name,
			      n, -err, strerror(-err));
			note_errno(errs, sizeof(errs), err);
			failed++;
		} else {
			/* The failure was absorbed (an optional allocation). */
			absorbed++;
			op->undo(f);
		}
		check_same(op->name, n, &before);
	}
	walk_report(op, n, failed, absorbed, errs);
}

/* --- the operations --- */

static int act_create(struct fa *f)
{
	f->view = kview__create(f->target, NULL);
	return f->view ? 0 : -errno;
}

static void undo_view(struct fa *f)
{
	release_view(&f->view);
}

static int act_add_pid(struct fa *f)
{
	return kview__add_pid(f->view, f->target);
}

/* A member cannot leave but with its view: a new, empty view. */
static void undo_add_pid(struct fa *f)
{
	release_view(&f->view);
	f->view = kview__create(0, NULL);
	check(f->view, "kview__create: %s", strerror(errno));
}

static int act_attach(struct fa *f)
{
	/* kp_offset has no target: ksys_read past its ftrace site. */
	if (f->prog == f->kskel->progs.kp_offset)
		f->op_link = attach_kprobe_off(f->view, f->prog, "ksys_read", f->past_off);
	else
		f->op_link = kview__attach_program(f->view, f->prog);
	return f->op_link ? 0 : -errno;
}

static void undo_attach(struct fa *f)
{
	release_link(&f->op_link);
}

static void with_view(struct fa *f, pid_t pid)
{
	f->view = kview__create(pid, NULL);
	check(f->view, "kview__create: %s", strerror(errno));
}

static struct count *load_count(void)
{
	struct count *skel = count__open();

	check(skel, "open count.bpf.o: %s", strerror(errno));
	bpf_program__set_autoload(skel->progs.fe_read, false);
	bpf_program__set_autoload(skel->progs.up_any, false);
	check(!count__load(skel), "load count.bpf.o: %s", strerror(errno));
	return skel;
}

static unsigned long long target_reads(struct fa *f, struct count *skel)
{
	return map_u32_count(bpf_map__fd(skel->maps.counts), f->target);
}

/* The view's kprobe counts on: its count grows past what it was. */
static bool view_counts(struct fa *f, unsigned long long *n0, unsigned long long *n1)
{
	*n0 = target_reads(f, f->vk);
	return WAIT_FOR((*n1 = target_reads(f, f->vk)) > *n0, 20);
}

/*
 * The global kprobe on ksys_read goes while the view's stays on the same
 * address, with its Nth allocation failing: the view must take the probe
 * over (its copy calls kprobe_view_caller), or the probe stays armed
 * globally (kview/stats global_fallback); the view's program must keep
 * counting the target's reads either way.
 *
 * Its own objects, so that nothing else writes its maps while the probe
 * changes hands.
 */
static void global_detach(struct fa *f, const struct fa_variant *v)
{
	unsigned long before = kview_stats().global_fallback;
	unsigned long long n0, n1 = 0;
	unsigned int n;

	(void)v;
	f->vk = load_count();
	f->gk = load_count();
	with_view(f, f->target);
	f->op_link = kview__attach_program(f->view, f->vk->progs.kp_entry);
	check(f->op_link, "attach kp_entry in the view: %s", strerror(errno));
	check(view_counts(f, &n0, &n1), "global-detach: the view's kprobe does not count");
	for (n = 1; n < 2000; n++) {
		f->global = bpf_program__attach(f->gk->progs.kp_entry);
		check(f->global, "attach the global kprobe: %s", strerror(errno));
		fail_nth(f, n);
		release_link(&f->global);
		if (!fault_injected(f))
			break;
		check(view_counts(f, &n0, &n1),
		      "global-detach, allocation %u failed: the view's kprobe stopped counting (%llu reads, then %llu)",
		      n, n0, n1);
	}
	diag("global-detach: %u allocation(s) on the way, %lu fallback(s) to global arming",
	     n - 1, kview_stats().global_fallback - before);
	check(view_counts(f, &n0, &n1), "global-detach: the view's kprobe stopped counting");
	undo_attach(f);
	undo_view(f);
	count__destroy(f->gk);
	count__destroy(f->vk);
	f->gk = f->vk = NULL;
}

/*
 * Take every free page of kview's pool of copies: a kprobe_multi link in
 * a view of its own (no member: its copies are made all the same) on one
 * function per text page, none on the page of @keep (the page the
 * operation under test patches).  Functions with an ftrace site (as
 * kprobe_multi needs), a name kallsyms and ftrace have once, in the core
 * kernel's text, not on the kprobe blacklist.
 */
struct func {
	unsigned long addr;
	char *name;
};

static int by_addr(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Names, sorted, to count how often each is there. */
struct names {
	char **v;
	size_t n, cap;
};

static void names_add(struct names *s, const char *name)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		check(s->v, "out of memory");
	}
	s->v[s->n] = strdup(name);
	check(s->v[s->n++], "out of memory");
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static unsigned int names_count(const struct names *s, const char *name)
{
	char **p = bsearch(&name, s->v, s->n, sizeof(*s->v), by_name), **q;
	unsigned int c = 0;

	if (!p)
		return 0;
	for (q = p; q >= s->v && !strcmp(*q, name); q--)
		c++;
	for (q = p + 1; q < s->v + s->n && !strcmp(*q, name); q++)
		c++;
	return c;
}

static void names_free(struct names *s)
{
	while (s->n)
		free(s->v[--s->n]);
	free(s->v);
}

/*
 * Each line of @path: the name after the last tab, or the whole line;
 * lines with a space (a module's function, "f [mod]") left out.
 */
static void names_of(struct names *s, const char *path)
{
	char *text = kvtest_slurp(path), *line, *save = NULL, *tab;

	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		tab = strrchr(line, '\t');
		if (tab)
			line = tab + 1;
		if (!strchr(line, ' '))
			names_add(s, line);
	}
	free(text);
	qsort(s->v, s->n, sizeof(*s->v), by_name);
}

/* The traceable functions of the core kernel's text, sorted by address. */
struct funcs {
	struct func *f;
	size_t n;
	unsigned long stext, etext;
	struct names core;		/* every core symbol's name */
};

static void funcs_read(struct funcs *fs)
{
	char *ksyms = kvtest_slurp("/proc/kallsyms"), *line, *save = NULL;
	size_t cap = 1 << 17;

	fs->f = calloc(cap, sizeof(*fs->f));
	check(fs->f, "out of memory");
	for (line = strtok_r(ksyms, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long addr;
		char type, name[128];

		if (sscanf(line, "%lx %c %127s", &addr, &type, name) != 3 ||
		    strchr(line, '['))
			continue;	/* a module's */
		names_add(&fs->core, name);
		if (!strcmp(name, "_stext"))
			fs->stext = addr;
		else if (!strcmp(name, "_etext"))
			fs->etext = addr;
		if ((type == 't' || type == 'T') && fs->n < cap) {
			fs->f[fs->n].addr = addr;
			fs->f[fs->n++].name = strdup(name);
		}
	}
	free(ksyms);
	qsort(fs->core.v, fs->core.n, sizeof(*fs->core.v), by_name);
	check(fs->stext && fs->etext, "no _stext/_etext in /proc/kallsyms (not root?)");
	qsort(fs->f, fs->n, sizeof(*fs->f), by_addr);
}

static void funcs_free(struct funcs *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		free(fs->f[i].name);
	free(fs->f);
	names_free(&fs->core);
}

/*
 * Up to @want functions into @syms, one a text page but the page of
 * @keep, with an ftrace site, a name kallsyms and ftrace have once, not
 * on the kprobe blacklist.  How many.
 */
static size_t pick_functions(const struct funcs *fs, unsigned long keep,
			     const char **syms, size_t want)
{
	struct names ftrace = { 0 }, bl = { 0 };
	unsigned long last_page = 0, page;
	size_t i, n = 0;

	names_of(&ftrace, "/sys/kernel/tracing/available_filter_functions");
	names_of(&bl, "/sys/kernel/debug/kprobes/blacklist");
	for (i = 0; i < fs->n && n < want; i++) {
		page = fs->f[i].addr & ~4095UL;
		if (fs->f[i].addr < fs->stext || fs->f[i].addr >= fs->etext ||
		    page == (keep & ~4095UL) || page == last_page)
			continue;
		if (names_count(&ftrace, fs->f[i].name) != 1 ||
		    names_count(&fs->core, fs->f[i].name) != 1 ||
		    names_count(&bl, fs->f[i].name))
			continue;
		syms[n++] = fs->f[i].name;
		last_page = page;
	}
	names_free(&ftrace);
	names_free(&bl);
	return n;
}

static void drain_pool(struct fa *f, unsigned long keep)
{
	unsigned long want = kview_stat("pool_free");
	struct funcs fs = { 0 };
	const char **syms;
	size_t n;
	int err;

	funcs_read(&fs);
	syms = calloc(want + 1, sizeof(*syms));
	check(syms, "out of memory");
	n = pick_functions(&fs, keep, syms, want);
	check(n == want, "only %zu text pages with a traceable function for %lu free pages",
	      n, want);

	f->drain_skel = multi__open_and_load();
	check(f->drain_skel, "load multi.bpf.o: %s", strerror(errno));
	f->drain_view = kview__create(0, NULL);
	check(f->drain_view, "kview__create: %s", strerror(errno));
	check(!kview__enter_scope(f->drain_view), "enter the view's scope: %s",
	      strerror(errno));
	f->drain_link = bpf_program__attach_kprobe_multi_opts(f->drain_skel->progs.km_entry, NULL,
		&(struct bpf_kprobe_multi_opts){ .sz = sizeof(struct bpf_kprobe_multi_opts),
						 .syms = syms, .cnt = n });
	err = errno;
	kview__leave_scope(f->drain_view);
	check(f->drain_link, "kprobe_multi on %zu functions in a view: %s", n,
	      strerror(err));
	diag("kprobe-pool: a kprobe_multi link on %zu functions, one a text page, took the pool's %lu free pages: %lu free, %lu block(s)",
	     n, want, kview_stat("pool_free"), kview_stat("pool_blocks"));
	check_eq(kview_stat("pool_free"), 0);
	free(syms);
	funcs_free(&fs);
}

static void undrain_pool(struct fa *f)
{
	release_link(&f->drain_link);
	release_view(&f->drain_view);
	multi__destroy(f->drain_skel);
	f->drain_skel = NULL;
}

/* kprobe-pool's knobs: order-9 page allocations fail, no slab ones. */
static void pool_knobs(struct fa *f, bool on)
{
	f->pool_knobs = on;
	write_file("/sys/kernel/debug/fail_page_alloc/min-order", on ? "9" : "0");
	write_file("/sys/kernel/debug/failslab/cache-filter", on ? "Y" : "N");
}

static void op_create(struct fa *f, const struct fa_variant *v)
{
	struct op op = { v->name, act_create, undo_view, false, false, 0 };

	walk(f, &op);
}

static void op_add_pid(struct fa *f, const struct fa_variant *v)
{
	struct op op = { v->name, act_add_pid, undo_add_pid, true, false, 0 };

	with_view(f, 0);
	walk(f, &op);
	undo_view(f);
}

/*
 * What an attach walks on: @v->prog in a view of the target; first, for
 * kprobe-page, kp_entry in the view (past the site is on the page of
 * ksys_read's entry), for kprobe-mixed a global kprobe past the site, for
 * kprobe-pool the pool drained and its knobs set.
 */
static void attach_prepare(struct fa *f, const struct fa_variant *v)
{
	with_view(f, f->target);
	f->prog = bpf_object__find_program_by_name(v->tp ? f->tskel->obj : f->kskel->obj,
						   v->prog);
	check(f->prog, "no program %s", v->prog);
	if (v->hold_entry) {
		f->held = kview__attach_program(f->view, f->kskel->progs.kp_entry);
		check(f->held, "attach kp_entry: %s", strerror(errno));
	}
	if (v->hold_global) {
		f->held = attach_kprobe_off(NULL, f->gskel->progs.kp_offset,
					    "ksys_read", f->past_off);
		check(f->held, "attach the global kprobe: %s", strerror(errno));
	}
	if (v->pool)
		drain_pool(f, ksym("ksys_read"));
}

/*
 * The walk got through once the pool could grow: one new block (a
 * direct-map change).  Before, the block's allocation failed and the copy
 * took a single page, made read-only and back (two direct-map changes).
 */
static void check_pool_grew(unsigned long blocks, unsigned long dmap)
{
	diag("kprobe-pool: the pool grew from %lu to %lu block(s); %lu copy(ies) on the way fell back to a single page",
	     blocks, kview_stat("pool_blocks"),
	     (kview_stat("dmap_changes") - dmap - 1) / 2);
	check_eq(kview_stat("pool_blocks"), blocks + 1);
	check(kview_stat("dmap_changes") - dmap >= 3,
	      "kprobe-pool: no copy fell back to a single page");
}

/* The attach of @v->prog in a view of the target, walked. */
static void op_attach(struct fa *f, const struct fa_variant *v)
{
	struct op op = { v->name, act_attach, undo_attach, false, v->pool, 0 };
	unsigned long blocks = 0, dmap = 0;

	attach_prepare(f, v);
	/*
	 * libbpf 1.1 falls back to a tracefs kprobe event when it cannot
	 * read the kprobe PMU's type (an injected failure in that read), and
	 * kview refuses tracefs kprobes in a scope: EOPNOTSUPP, a clean
	 * refusal with nothing attached (check_same() makes sure).
	 */
	if (!v->tp)
		op.also_clean = EOPNOTSUPP;
	if (v->pool) {
		blocks = kview_stat("pool_blocks");
		dmap = kview_stat("dmap_changes");
		pool_knobs(f, true);
	}
	walk(f, &op);
	if (v->pool) {
		pool_knobs(f, false);
		check_pool_grew(blocks, dmap);
	}
	release_link(&f->held);
	undo_view(f);
	if (f->drain_view)
		undrain_pool(f);
}

/* A case: its operation, walked; nothing is left. */
static void fa_run(void *fixture, const void *variant)
{
	const struct fa_variant *v = variant;
	struct fa *f = fixture;

	if (v->run)
		v->run(f, v);
	else
		op_attach(f, v);
	check_stats_clean();
}

/*
 * Fault injection set up, the target running, the objects loaded, and
 * libbpf's probes of kernel features made once (not under injected
 * failures).
 */
static void fa_setup(void *fixture, const void *variant)
{
	char *spin[] = { workload, "spin", NULL };
	struct fa *f = fixture;
	struct bpf_link *warm;

	(void)variant;
	setup_fault_injection(f);
	f->target = spawn_stopped(spin);
	resume(f->target);
	f->kskel = load_count();
	f->gskel = load_count();
	f->past_off = past_site_offset("ksys_read");
	f->tskel = tpcount__open();
	check(f->tskel, "open tpcount.bpf.o: %s", strerror(errno));
	bpf_program__set_autoload(f->tskel->progs.tp_module, false);
	bpf_program__set_autoload(f->tskel->progs.rawtp_module, false);
	check(!tpcount__load(f->tskel), "load tpcount.bpf.o: %s", strerror(errno));

	/* libbpf probes kernel features once: not under injected failures. */
	with_view(f, f->target);
	warm = kview__attach_program(f->view, f->kskel->progs.kp_entry);
	check(warm, "warm-up attach: %s", strerror(errno));
	bpf_link__destroy(warm);
	undo_view(f);
}

/*
 * No failure armed any more, the knobs back, every link, view and object
 * released, the target killed.
 */
static void fa_teardown(void *fixture, const void *variant)
{
	struct fa *f = fixture;

	(void)variant;
	if (f->nth_fd > 0 && pwrite(f->nth_fd, "0", 1, 0) != 1)
		diag("teardown: write fail-nth: %s", strerror(errno));
	if (f->pool_knobs) {
		put_back("/sys/kernel/debug/fail_page_alloc/min-order", "0", false);
		put_back("/sys/kernel/debug/failslab/cache-filter", "N", false);
	}
	release_link(&f->op_link);
	release_link(&f->global);
	release_link(&f->held);
	undrain_pool(f);
	release_view(&f->view);
	count__destroy(f->vk);
	count__destroy(f->gk);
	count__destroy(f->gskel);
	count__destroy(f->kskel);
	tpcount__destroy(f->tskel);
	reap_child(f->target);
	release_fd(&f->nth_fd);
}

static const struct fa_variant
	create = { "create", .run = op_create },
	add_pid = { "add-pid", .run = op_add_pid },
	kprobe = { "kprobe", .prog = "kp_offset" },
	kprobe_entry = { "kprobe-entry", .prog = "kp_entry" },
	kretprobe = { "kretprobe", .prog = "krp_return" },
	kprobe_page = { "kprobe-page", .prog = "kp_offset", .hold_entry = true },
	kprobe_mixed = { "kprobe-mixed", .prog = "kp_offset", .hold_global = true },
	kprobe_pool = { "kprobe-pool", .prog = "kp_offset", .pool = true },
	tracepoint = { "tracepoint", .prog = "tp_fork", .tp = true },
	syscall_tp = { "syscall-tp", .prog = "tp_read", .tp = true },
	raw_tp = { "raw-tp", .prog = "rawtp_enter", .tp = true },
	global = { "global-detach", .run = global_detach };

static const struct check_case cases[] = {
	{ "create", fa_run, &create },
	{ "add-pid", fa_run, &add_pid },
	{ "kprobe", fa_run, &kprobe },
	{ "kprobe-entry", fa_run, &kprobe_entry },
	{ "kretprobe", fa_run, &kretprobe },
	{ "kprobe-page", fa_run, &kprobe_page },
	{ "kprobe-mixed", fa_run, &kprobe_mixed },
	{ "kprobe-pool", fa_run, &kprobe_pool },
	{ "tracepoint", fa_run, &tracepoint },
	{ "syscall-tp", fa_run, &syscall_tp },
	{ "raw-tp", fa_run, &raw_tp },
	{ "global-detach", fa_run, &global },
};

static const struct check_suite suite = {
	.fixture_size = sizeof(struct fa),
	.setup = fa_setup,
	.teardown = fa_teardown,
	CHECK_CASES(cases),
};

int main(int argc, char **argv)
{
	workload_path(workload, sizeof(workload));
	libbpf_set_print(NULL);
	return check_main(&suite, argc, argv);
}
