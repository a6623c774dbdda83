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
static int nth_fd = -1;
static pid_t target;

static void write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);

	check(fd >= 0, "%s: %s", path, strerror(errno));
	check(write(fd, val, strlen(val)) == (ssize_t)strlen(val),
	      "write %s to %s: %s", val, path, strerror(errno));
	close(fd);
}

/* Fail every kind of allocation, quietly (no stack dump per failure). */
static void setup_fault_injection(void)
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
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	check(nth_fd >= 0, "fail-nth: %s", strerror(errno));
}

static void fail_nth(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	check(pwrite(nth_fd, buf, len, 0) == len, "write fail-nth: %s",
	      strerror(errno));
}

/* Was the armed failure injected (the counter ran down to 0)? */
static bool fault_injected(void)
{
	char buf[16] = "";

	check(pread(nth_fd, buf, sizeof(buf) - 1, 0) > 0, "read fail-nth: %s",
	      strerror(errno));
	fail_nth(0);
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
	int (*act)(void);
	void (*undo)(void);
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

/*
 * Walk the failure points of @op: with the Nth allocation failing it must
 * fail with a clean errno and change nothing; the walk ends when it gets
 * through without reaching the Nth.
 */
static void walk(const struct op *op)
{
	struct state before = state();
	unsigned int n, failed = 0, absorbed = 0;
	char errs[256] = "";
	int err;

	for (n = 1; n < 5000; n++) {
		fail_nth(n);
		err = op->act();
		if (!fault_injected()) {
			check(!err, "%s failed (%s) without an injected failure",
			      op->name, strerror(-err));
			op->undo();
			check_same(op->name, n, &before);
			break;
		}
		if (err) {
			check(err < 0 && (!suspicious(err) || -err == op->also_clean),
			      "%s, allocation %u failed: errno %d (%s)", op->name,
			      n, -err, strerror(-err));
			if (!strstr(errs, strerror(-err)) &&
			    strlen(errs) + strlen(strerror(-err)) + 3 < sizeof(errs))
				sprintf(errs + strlen(errs), "%s%s", *errs ? ", " : "",
					strerror(-err));
			failed++;
		} else {
			/* The failure was absorbed (an optional allocation). */
			absorbed++;
			op->undo();
		}
		check_same(op->name, n, &before);
	}
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

/* --- the operations --- */

static struct kview *view;
static struct count *kskel, *gskel;
static struct tpcount *tskel;
static struct bpf_link *op_link;
static struct bpf_program *prog;
/* ksys_read's first instruction past its ftrace site (read before a walk). */
static unsigned long past_off;

static int act_create(void)
{
	view = kview__create(target, NULL);
	return view ? 0 : -errno;
}

static void undo_view(void)
{
	kview__destroy(view);
	view = NULL;
}

static int act_add_pid(void)
{
	return kview__add_pid(view, target);
}

/* A member cannot leave but with its view: a new, empty view. */
static void undo_add_pid(void)
{
	kview__destroy(view);
	view = kview__create(0, NULL);
	check(view, "kview__create: %s", strerror(errno));
}

static int act_attach(void)
{
	/* kp_offset has no target: ksys_read past its ftrace site. */
	if (prog == kskel->progs.kp_offset)
		op_link = attach_kprobe_off(view, prog, "ksys_read", past_off);
	else
		op_link = kview__attach_program(view, prog);
	return op_link ? 0 : -errno;
}

static void undo_attach(void)
{
	bpf_link__destroy(op_link);
	op_link = NULL;
}

static void with_view(pid_t pid)
{
	view = kview__create(pid, NULL);
	check(view, "kview__create: %s", strerror(errno));
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

static unsigned long long target_reads(struct count *skel)
{
	return map_u32_count(bpf_map__fd(skel->maps.counts), target);
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
static void global_detach(void)
{
	unsigned long before = kview_stats().global_fallback;
	struct count *vk = load_count(), *gk = load_count();
	unsigned long long n0, n1 = 0;
	struct bpf_link *global;
	unsigned int n;

	with_view(target);
	op_link = kview__attach_program(view, vk->progs.kp_entry);
	check(op_link, "attach kp_entry in the view: %s", strerror(errno));
	n0 = target_reads(vk);
	check(WAIT_FOR(target_reads(vk) > n0, 20),
	      "global-detach: the view's kprobe does not count");
	for (n = 1; n < 2000; n++) {
		global = bpf_program__attach(gk->progs.kp_entry);
		check(global, "attach the global kprobe: %s", strerror(errno));
		fail_nth(n);
		bpf_link__destroy(global);
		if (!fault_injected())
			break;
		n0 = target_reads(vk);
		check(WAIT_FOR((n1 = target_reads(vk)) > n0, 20),
		      "global-detach, allocation %u failed: the view's kprobe stopped counting (%llu reads, then %llu)",
		      n, n0, n1);
	}
	diag("global-detach: %u allocation(s) on the way, %lu fallback(s) to global arming",
	     n - 1, kview_stats().global_fallback - before);
	n0 = target_reads(vk);
	check(WAIT_FOR(target_reads(vk) > n0, 20),
	      "global-detach: the view's kprobe stopped counting");
	undo_attach();
	undo_view();
	count__destroy(gk);
	count__destroy(vk);
}

/*
 * Take every free page of kview's pool of copies: a kprobe_multi link in
 * a view of its own (no member: its copies are made all the same) on one
 * function per text page, none on the page of @keep (the page the
 * operation under test patches).  Functions with an ftrace site (as
 * kprobe_multi needs), a name kallsyms and ftrace have once, in the core
 * kernel's text, not on the kprobe blacklist.
 */
static struct kview *drain_view;
static struct multi *drain_skel;
static struct bpf_link *drain_link;

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

static void drain_pool(unsigned long keep)
{
	struct names ftrace = { 0 }, bl = { 0 }, core = { 0 };
	char *ksyms = kvtest_slurp("/proc/kallsyms"), *line, *save = NULL;
	unsigned long want = kview_stat("pool_free"), stext = 0, etext = 0;
	unsigned long last_page = 0;
	size_t nf = 0, cap = 1 << 17, i, n = 0;
	struct func *f = calloc(cap, sizeof(*f));
	const char **syms;
	int err;

	check(f, "out of memory");
	names_of(&ftrace, "/sys/kernel/tracing/available_filter_functions");
	names_of(&bl, "/sys/kernel/debug/kprobes/blacklist");
	for (line = strtok_r(ksyms, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long addr;
		char type, name[128];

		if (sscanf(line, "%lx %c %127s", &addr, &type, name) != 3 ||
		    strchr(line, '['))
			continue;	/* a module's */
		names_add(&core, name);
		if (!strcmp(name, "_stext"))
			stext = addr;
		else if (!strcmp(name, "_etext"))
			etext = addr;
		if ((type == 't' || type == 'T') && nf < cap) {
			f[nf].addr = addr;
			f[nf++].name = strdup(name);
		}
	}
	free(ksyms);
	qsort(core.v, core.n, sizeof(*core.v), by_name);
	check(stext && etext, "no _stext/_etext in /proc/kallsyms (not root?)");
	qsort(f, nf, sizeof(*f), by_addr);
	syms = calloc(want + 1, sizeof(*syms));
	check(syms, "out of memory");
	for (i = 0; i < nf && n < want; i++) {
		unsigned long page = f[i].addr & ~4095UL;

		if (f[i].addr < stext || f[i].addr >= etext ||
		    page == (keep & ~4095UL) || page == last_page)
			continue;
		if (names_count(&ftrace, f[i].name) != 1 ||
		    names_count(&core, f[i].name) != 1 ||
		    names_count(&bl, f[i].name))
			continue;
		syms[n++] = f[i].name;
		last_page = page;
	}
	check(n == want, "only %zu text pages with a traceable function for %lu free pages",
	      n, want);

	drain_skel = multi__open_and_load();
	check(drain_skel, "load multi.bpf.o: %s", strerror(errno));
	drain_view = kview__create(0, NULL);
	check(drain_view, "kview__create: %s", strerror(errno));
	check(!kview__enter_scope(drain_view), "enter the view's scope: %s",
	      strerror(errno));
	drain_link = bpf_program__attach_kprobe_multi_opts(drain_skel->progs.km_entry, NULL,
		&(struct bpf_kprobe_multi_opts){ .sz = sizeof(struct bpf_kprobe_multi_opts),
						 .syms = syms, .cnt = n });
	err = errno;
	kview__leave_scope(drain_view);
	check(drain_link, "kprobe_multi on %zu functions in a view: %s", n,
	      strerror(err));
	diag("kprobe-pool: a kprobe_multi link on %zu functions, one a text page, took the pool's %lu free pages: %lu free, %lu block(s)",
	     n, want, kview_stat("pool_free"), kview_stat("pool_blocks"));
	check_eq(kview_stat("pool_free"), 0);
	free(syms);
	for (i = 0; i < nf; i++)
		free(f[i].name);
	free(f);
	names_free(&ftrace);
	names_free(&bl);
	names_free(&core);
}

static void undrain_pool(void)
{
	bpf_link__destroy(drain_link);
	kview__destroy(drain_view);
	multi__destroy(drain_skel);
	drain_link = NULL;
	drain_view = NULL;
	drain_skel = NULL;
}

static void run_op(const char *name)
{
	struct op op = { name, act_attach, undo_attach, false, false, 0 };
	struct bpf_link *held = NULL;
	unsigned long blocks = 0, dmap = 0;
	struct kview_stats s;

	if (!strcmp(name, "create")) {
		op.act = act_create;
		op.undo = undo_view;
		walk(&op);
		goto out;
	}
	if (!strcmp(name, "global-detach")) {
		global_detach();
		goto out;
	}
	if (!strcmp(name, "add-pid")) {
		with_view(0);
		op.act = act_add_pid;
		op.undo = undo_add_pid;
		op.allocates_nothing = true;
		walk(&op);
		undo_view();
		goto out;
	}

	with_view(target);
	/*
	 * libbpf 1.1 falls back to a tracefs kprobe event when it cannot
	 * read the kprobe PMU's type (an injected failure in that read), and
	 * kview refuses tracefs kprobes in a scope: EOPNOTSUPP, a clean
	 * refusal with nothing attached (check_same() makes sure).
	 */
	if (!strncmp(name, "kprobe", 6) || !strcmp(name, "kretprobe"))
		op.also_clean = EOPNOTSUPP;
	if (!strcmp(name, "kprobe")) {
		prog = kskel->progs.kp_offset;
	} else if (!strcmp(name, "kprobe-entry")) {
		prog = kskel->progs.kp_entry;
	} else if (!strcmp(name, "kretprobe")) {
		prog = kskel->progs.krp_return;
	} else if (!strcmp(name, "kprobe-page")) {
		/* Past the site is on the page of ksys_read's entry. */
		held = kview__attach_program(view, kskel->progs.kp_entry);
		check(held, "attach kp_entry: %s", strerror(errno));
		prog = kskel->progs.kp_offset;
	} else if (!strcmp(name, "kprobe-pool")) {
		drain_pool(ksym("ksys_read"));
		blocks = kview_stat("pool_blocks");
		dmap = kview_stat("dmap_changes");
		prog = kskel->progs.kp_offset;
		op.absorbs = true;
		write_file("/sys/kernel/debug/fail_page_alloc/min-order", "9");
		write_file("/sys/kernel/debug/failslab/cache-filter", "Y");
	} else if (!strcmp(name, "kprobe-mixed")) {
		held = attach_kprobe_off(NULL, gskel->progs.kp_offset,
					 "ksys_read", past_off);
		check(held, "attach the global kprobe: %s", strerror(errno));
		prog = kskel->progs.kp_offset;
	} else if (!strcmp(name, "tracepoint")) {
		prog = tskel->progs.tp_fork;
	} else if (!strcmp(name, "syscall-tp")) {
		prog = tskel->progs.tp_read;
	} else if (!strcmp(name, "raw-tp")) {
		prog = tskel->progs.rawtp_enter;
	} else {
		fail("unknown operation %s", name);
	}
	walk(&op);
	if (op.absorbs) {
		write_file("/sys/kernel/debug/fail_page_alloc/min-order", "0");
		write_file("/sys/kernel/debug/failslab/cache-filter", "N");
	}
	if (drain_view) {
		/*
		 * The walk got through once the pool could grow: one new block
		 * (a direct-map change).  Before, the block's allocation
		 * failed and the copy took a single page, made read-only and
		 * back (two direct-map changes).
		 */
		diag("kprobe-pool: the pool grew from %lu to %lu block(s); %lu copy(ies) on the way fell back to a single page",
		     blocks, kview_stat("pool_blocks"),
		     (kview_stat("dmap_changes") - dmap - 1) / 2);
		check_eq(kview_stat("pool_blocks"), blocks + 1);
		check(kview_stat("dmap_changes") - dmap >= 3,
		      "kprobe-pool: no copy fell back to a single page");
	}
	bpf_link__destroy(held);
	undo_view();
	if (drain_view)
		undrain_pool();
out:
	s = kview_stats_settled(0);
	check_eq(s.views, 0);
	check_eq(s.members, 0);
	check_eq(s.patches, 0);
	check_eq(s.pages, 0);
	check_eq(s.pt_pages, 0);
}

int main(int argc, char **argv)
{
	static const char *const all[] = {
		"create", "add-pid", "kprobe", "kprobe-entry", "kretprobe",
		"kprobe-page", "kprobe-mixed", "kprobe-pool", "tracepoint", "syscall-tp",
		"raw-tp", "global-detach",
	};
	char *spin[] = { workload, "spin", NULL };
	struct bpf_link *warm;
	int i;

	workload_path(workload, sizeof(workload));
	libbpf_set_print(NULL);
	setup_fault_injection();
	target = spawn_stopped(spin);
	resume(target);
	kskel = load_count();
	gskel = load_count();
	past_off = past_site_offset("ksys_read");
	tskel = tpcount__open();
	check(tskel, "open tpcount.bpf.o: %s", strerror(errno));
	bpf_program__set_autoload(tskel->progs.tp_module, false);
	bpf_program__set_autoload(tskel->progs.rawtp_module, false);
	check(!tpcount__load(tskel), "load tpcount.bpf.o: %s", strerror(errno));

	/* libbpf probes kernel features once: not under injected failures. */
	with_view(target);
	warm = kview__attach_program(view, kskel->progs.kp_entry);
	check(warm, "warm-up attach: %s", strerror(errno));
	bpf_link__destroy(warm);
	undo_view();

	if (argc > 1) {
		for (i = 1; i < argc; i++)
			run_op(argv[i]);
	} else {
		for (i = 0; i < (int)(sizeof(all) / sizeof(all[0])); i++)
			run_op(all[i]);
	}
	kill(target, SIGKILL);
	wait_exit(target);
	count__destroy(gskel);
	count__destroy(kskel);
	tpcount__destroy(tskel);
	return 0;
}
