// SPDX-License-Identifier: GPL-2.0
/*
 * switch: what a context switch into a kernel view's member costs, and
 * what the untraced side pays per switch while a view exists.  Runs in the
 * guest on one vCPU (eval/bench-switch boots it).
 *
 * On a real CPU kernel text is mapped global.  A CPU that switches from an
 * mm outside a view to a member of the view flushes the member's ASID and
 * invalidates (invlpg) each page the view replaced whose global mapping is
 * global, or flushes the whole TLB beyond 32 such pages
 * (switch_mm_irqs_off(), arch/x86/mm/kview.c); a switch between members of
 * one view, or between two processes outside any view, does not, and costs
 * the latter one compare while a view exists (nothing otherwise: a static
 * key).
 *
 * Workload: pipe ping-pong between two processes A and B on the one CPU: A
 * writes a byte into one pipe, B reads it and writes it back into another,
 * A reads it; ROUNDTRIPS round trips per run, two context switches each,
 * after PINGPONG_WARM_ROUNDTRIPS unmeasured ones.  Both run SCHED_BATCH
 * (evalutil.h: no wakeup preemption, so every round trip takes the same
 * path).  A
 * times its loop (CLOCK_MONOTONIC: under icount, guest instructions) and
 * reads kview/stats (debugfs), both processes' context switch counts
 * (/proc/PID/status) and the system's (/proc/stat: context switches,
 * interrupts, softirqs) right before and after it.  Configurations:
 *
 *   none     no view at all: the driver waits until every view is gone,
 *            then 2 s more (kview's static key goes off 1 s after the last
 *            view went), so that this is the kernel as without kview
 *   keeper   an empty view exists (kview__create(0)): no member, no probe;
 *            every process pays what the static key's paths cost
 *   view-N   A is the one member of a view with N kprobes attached in its
 *            scope on N functions the ping-pong does not call (on N
 *            distinct text pages: the view replaces N pages); B untraced
 *   both-N   A and B both members of such a view: switches between members
 *            of one view
 *
 * The N functions come from subsystems the ping-pong does not use (keyctl,
 * SysV and POSIX IPC, ethtool, thermal, cpufreq, input, EFI, crypto), taken
 * in turn from each, ftrace-able, one name in kallsyms, each on a text page
 * of its own (not within 16 bytes of the page's end), and kept only if a
 * kprobe on it attaches in a view and adds exactly one page to it (tried
 * in a throwaway view before the runs).  Every run checks that no probe
 * fired (the program counts its hits): a hit fails the run.
 *
 * Round 0 is a warm-up; each round runs every configuration once, in an
 * order that rotates with the round.
 *
 *   switch ROUNDS ROUNDTRIPS OUT.csv FUNCS.txt GUEST.txt
 */
#include <sys/prctl.h>

#include "evalutil.h"
#include "hwcost.skel.h"

#define MAXN 64
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum kind { NONE, KEEPER, VIEW, BOTH };

static const struct config {
	const char *name;
	enum kind kind;
	int n;
} configs[] = {
	{ "none", NONE, 0 },
	{ "keeper", KEEPER, 0 },
	{ "view-1", VIEW, 1 },
	{ "view-16", VIEW, 16 },
	{ "view-64", VIEW, 64 },
	{ "both-16", BOTH, 16 },
};
#define NCONFIGS ((int)ARRAY_SIZE(configs))

/* ---- the functions ------------------------------------------------------ */

static const char *const prefixes[] = {
	"keyctl_", "mq_", "msg_", "sem_", "shm_", "ethtool_", "thermal_",
	"cpufreq_", "input_", "efi_", "crypto_",
};
#define NPREFIXES ((int)ARRAY_SIZE(prefixes))

struct cand {
	char *name;
	unsigned long addr;
	int prefix, kallsyms;	/* which prefix; how often kallsyms has the name */
};

static struct cand *cands;
static size_t ncands;
static char funcs[MAXN][128];
static unsigned long func_addr[MAXN];
static int nfuncs;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_cand_name(const void *a, const void *b)
{
	return strcmp(((const struct cand *)a)->name, ((const struct cand *)b)->name);
}

static int cmp_cand_order(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->prefix != y->prefix)
		return x->prefix - y->prefix;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int prefix_of(const char *name)
{
	int i;

	for (i = 0; i < NPREFIXES; i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return i;
	return -1;
}

/* The core-text functions ftrace lists once, sorted (for bsearch()). */
static char **traceable;
static size_t ntraceable;

static void load_traceable(void)
{
	const char *path = "/sys/kernel/tracing/available_filter_functions";
	size_t cap = 0, i, j;
	char line[512];
	FILE *f = fopen(path, "r");

	check(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '['))
			continue;	/* a module's */
		line[strcspn(line, " \t\n")] = '\0';
		if (prefix_of(line) < 0)
			continue;
		if (ntraceable == cap) {
			cap = cap ? 2 * cap : 4096;
			traceable = realloc(traceable, cap * sizeof(*traceable));
			check(traceable, "out of memory");
		}
		traceable[ntraceable] = strdup(line);
		check(traceable[ntraceable++], "out of memory");
	}
	fclose(f);
	qsort(traceable, ntraceable, sizeof(*traceable), cmp_str);
	/* A name ftrace lists twice: leave it out. */
	for (i = j = 0; i < ntraceable; i++) {
		if ((i + 1 < ntraceable && !strcmp(traceable[i], traceable[i + 1])) ||
		    (i > 0 && !strcmp(traceable[i], traceable[i - 1])))
			continue;
		traceable[j++] = traceable[i];
	}
	ntraceable = j;
}

static void load_candidates(void)
{
	unsigned long stext = ksym("_stext"), etext = ksym("_etext"), addr;
	char line[512], sym[256], t;
	struct cand key, *c;
	size_t cap = 0, i, j;
	char *name = sym;
	FILE *f;

	load_traceable();
	f = fopen("/proc/kallsyms", "r");
	check(f, "/proc/kallsyms: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %255s", &addr, &t, sym) != 3 ||
		    (t != 't' && t != 'T') || addr < stext || addr >= etext ||
		    prefix_of(sym) < 0 ||
		    !bsearch(&name, traceable, ntraceable, sizeof(*traceable), cmp_str))
			continue;
		if (ncands == cap) {
			cap = cap ? 2 * cap : 1024;
			cands = realloc(cands, cap * sizeof(*cands));
			check(cands, "out of memory");
		}
		cands[ncands] = (struct cand){ .name = strdup(sym), .addr = addr,
					       .prefix = prefix_of(sym) };
		check(cands[ncands++].name, "out of memory");
	}
	fclose(f);
	check(ncands, "no candidate functions in kallsyms");

	/* How often kallsyms has each name, in any section. */
	qsort(cands, ncands, sizeof(*cands), cmp_cand_name);
	f = fopen("/proc/kallsyms", "r");
	check(f, "/proc/kallsyms: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*c %255s", sym) != 1)
			continue;
		key.name = sym;
		c = bsearch(&key, cands, ncands, sizeof(*cands), cmp_cand_name);
		if (c)
			c->kallsyms++;
	}
	fclose(f);
	/* Equal names sit side by side now: count them all as duplicates. */
	for (i = 0; i < ncands; i = j) {
		for (j = i + 1; j < ncands && !strcmp(cands[i].name, cands[j].name); j++)
			;
		if (j - i > 1)
			while (i < j)
				cands[i++].kallsyms = 2;
	}
	qsort(cands, ncands, sizeof(*cands), cmp_cand_order);
}

static bool page_used(unsigned long addr)
{
	int i;

	for (i = 0; i < nfuncs; i++)
		if (func_addr[i] >> 12 == addr >> 12)
			return true;
	return false;
}

/*
 * MAXN functions, one from each prefix in turn (in address order within
 * one), each on a page of its own that a kprobe attached in a view on it
 * adds to the view: tried in a throwaway view of a sleeping process.
 */
static void pick_functions(struct hwcost *skel)
{
	char *sleeper[] = { "sleep", "100000", NULL };
	struct bpf_link *links[MAXN];
	size_t pos[NPREFIXES] = { 0 };
	struct kview_info info;
	libbpf_print_fn_t old;
	unsigned int pages = 0;
	struct kview *kv;
	bool more = true;
	pid_t idle;
	int p, i;

	load_candidates();
	for (p = 0; p < NPREFIXES; p++)
		while (pos[p] < ncands && cands[pos[p]].prefix < p)
			pos[p]++;
	idle = spawn_stopped(sleeper);
	resume(idle);
	kv = kview__create(idle, NULL);
	check(kv, "kview__create: %s", strerror(errno));
	old = libbpf_set_print(NULL);	/* refusals are expected here */
	while (nfuncs < MAXN && more) {
		more = false;
		for (p = 0; p < NPREFIXES && nfuncs < MAXN; p++) {
			struct cand *c = NULL;
			struct bpf_link *l;

			while (pos[p] < ncands && cands[pos[p]].prefix == p) {
				c = &cands[pos[p]++];
				if (c->kallsyms == 1 && (c->addr & 0xfff) <= 0xff0 &&
				    !page_used(c->addr))
					break;
				c = NULL;
			}
			if (!c)
				continue;
			more = true;
			check(!kview__enter_scope(kv), "enter scope: %s", strerror(errno));
			l = bpf_program__attach_kprobe(skel->progs.hw_kprobe, false, c->name);
			check(!kview__leave_scope(kv), "leave scope: %s", strerror(errno));
			if (!l)
				continue;
			check(!kview__info(kv, &info), "info: %s", strerror(errno));
			if (info.nr_pages != pages + 1) {
				bpf_link__destroy(l);
				continue;
			}
			pages++;
			links[nfuncs] = l;
			func_addr[nfuncs] = c->addr;
			snprintf(funcs[nfuncs++], sizeof(funcs[0]), "%.127s", c->name);
		}
	}
	libbpf_set_print(old);
	for (i = 0; i < nfuncs; i++)
		bpf_link__destroy(links[i]);
	kview__destroy(kv);
	kill(idle, SIGKILL);
	wait_exit(idle);
	check(nfuncs == MAXN, "found only %d functions on distinct pages for kprobes in a view",
	      nfuncs);
}

/* ---- counters ----------------------------------------------------------- */

struct tlb_stats {
	unsigned long long switch_in, inval_pages, inval_full, views;
};

static struct tlb_stats tlb_stats(void)
{
	struct tlb_stats s = { 0 };
	unsigned long long v;
	char name[64];
	int found = 0;
	FILE *f = fopen("/sys/kernel/debug/kview/stats", "r");

	check(f, "kview stats: %s", strerror(errno));
	while (fscanf(f, "%63s %llu", name, &v) == 2) {
		if (!strcmp(name, "tlb_switch_in"))
			s.switch_in = v, found++;
		else if (!strcmp(name, "tlb_inval_pages"))
			s.inval_pages = v, found++;
		else if (!strcmp(name, "tlb_inval_full"))
			s.inval_full = v, found++;
		else if (!strcmp(name, "views"))
			s.views = v;
	}
	fclose(f);
	check(found == 3, "kview/stats has no tlb_switch_in/tlb_inval_pages/tlb_inval_full lines");
	return s;
}

struct ctxsw {
	long long vol, invol;
};

/* Voluntary and involuntary context switches of @pid (its main thread). */
static struct ctxsw ctxsw(pid_t pid)
{
	char path[64], line[256];
	struct ctxsw c = { -1, -1 };
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	check(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "voluntary_ctxt_switches: %lld", &c.vol) != 1)
			sscanf(line, "nonvoluntary_ctxt_switches: %lld", &c.invol);
	}
	fclose(f);
	check(c.vol >= 0 && c.invol >= 0, "%s: no context switch counts", path);
	return c;
}

/* The system's context switches, interrupts and softirqs since boot. */
struct sysstat {
	unsigned long long ctxt, intr, softirq;
};

static struct sysstat sysstat(void)
{
	struct sysstat s = { 0 };
	char line[256];
	FILE *f = fopen("/proc/stat", "r");

	check(f, "/proc/stat: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "ctxt %llu", &s.ctxt) == 1 ||
		    sscanf(line, "intr %llu", &s.intr) == 1)
			continue;
		sscanf(line, "softirq %llu", &s.softirq);
		/* The intr and softirq lines are long: skip their rest. */
		while (!strchr(line, '\n') && fgets(line, sizeof(line), f))
			;
	}
	fclose(f);
	check(s.ctxt && s.intr, "/proc/stat: no ctxt or intr line");
	return s;
}

/* ---- one run ------------------------------------------------------------ */

struct result {
	long long ns;
	struct ctxsw a, b;
	unsigned long long switch_in, inval_pages, inval_full;
	struct sysstat sys;
};

/* A: wait for go, then @n round trips with B, measured. */
static void __attribute__((noreturn)) run_a(int go, int out, int in, int res, pid_t b,
					    long n)
{
	struct tlb_stats s0, s1;
	struct sysstat y0, y1;
	struct ctxsw a0, b0, a1, b1;
	struct result r;
	long long t0;
	long i;

	pingpong_batch();
	pingpong_get(go);
	for (i = 0; i < PINGPONG_WARM_ROUNDTRIPS; i++) {
		pingpong_put(out);
		pingpong_get(in);
	}
	s0 = tlb_stats();
	y0 = sysstat();
	a0 = ctxsw(getpid());
	b0 = ctxsw(b);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		pingpong_put(out);
		pingpong_get(in);
	}
	r.ns = now_ns() - t0;
	a1 = ctxsw(getpid());
	b1 = ctxsw(b);
	y1 = sysstat();
	s1 = tlb_stats();
	r.a = (struct ctxsw){ a1.vol - a0.vol, a1.invol - a0.invol };
	r.b = (struct ctxsw){ b1.vol - b0.vol, b1.invol - b0.invol };
	r.sys = (struct sysstat){ y1.ctxt - y0.ctxt, y1.intr - y0.intr,
				  y1.softirq - y0.softirq };
	r.switch_in = s1.switch_in - s0.switch_in;
	r.inval_pages = s1.inval_pages - s0.inval_pages;
	r.inval_full = s1.inval_full - s0.inval_full;
	check(write(res, &r, sizeof(r)) == sizeof(r), "result write: %s", strerror(errno));
	_exit(0);
}

/* In a child: die with the driver, close fds 3..@maxfd but those in @keep. */
static void child_setup(const int *keep, int nkeep, int maxfd)
{
	int fd, i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (fd = 3; fd <= maxfd; fd++) {
		for (i = 0; i < nkeep && keep[i] != fd; i++)
			;
		if (i == nkeep)
			close(fd);
	}
}

/* Every view gone (settled, within 30 s), then @extra seconds more. */
static void no_views(unsigned int extra)
{
	struct kview_stats s;
	int i;

	for (i = 0; i < 15; i++) {
		s = kview_stats_settled(0);
		if (!s.views)
			break;
	}
	check(!s.views, "%u view(s) still there after 30 s", s.views);
	if (extra)
		sleep(extra);
}

struct run {
	struct result r;
	unsigned long long hits;
	unsigned int pages, patches;
};

static void run_one(struct hwcost *skel, const struct config *cfg, long n, struct run *run)
{
	int go[2], ab[2], ba[2], res[2], maxfd, i;
	struct bpf_link *links[MAXN];
	struct kview_info info;
	struct kview *kv = NULL;
	pid_t a, b;

	memset(run, 0, sizeof(*run));
	/*
	 * Every run starts without a view; "none" also waits for kview's
	 * static key to go off (1 s after the last view went).
	 */
	no_views(cfg->kind == NONE ? 2 : 0);
	check(!pipe(go) && !pipe(ab) && !pipe(ba) && !pipe(res), "pipe: %s", strerror(errno));
	maxfd = res[1];		/* the last fd opened */
	b = fork();
	check(b >= 0, "fork: %s", strerror(errno));
	if (!b) {
		int keep[] = { ab[0], ba[1] };

		child_setup(keep, 2, maxfd);
		pingpong_answer(ab[0], ba[1], n);
	}
	a = fork();
	check(a >= 0, "fork: %s", strerror(errno));
	if (!a) {
		int keep[] = { go[0], ab[1], ba[0], res[1] };

		child_setup(keep, 4, maxfd);
		run_a(go[0], ab[1], ba[0], res[1], b, n);
	}
	close(go[0]);
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	close(res[1]);

	if (cfg->kind == KEEPER) {
		kv = kview__create(0, NULL);
		check(kv, "kview__create (no member): %s", strerror(errno));
	} else if (cfg->kind == VIEW || cfg->kind == BOTH) {
		kv = kview__create(a, NULL);
		check(kv, "kview__create: %s", strerror(errno));
		if (cfg->kind == BOTH)
			check(!kview__add_pid(kv, b), "kview__add_pid: %s", strerror(errno));
		check(!kview__enter_scope(kv), "enter scope: %s", strerror(errno));
		for (i = 0; i < cfg->n; i++) {
			links[i] = bpf_program__attach_kprobe(skel->progs.hw_kprobe, false,
							      funcs[i]);
			check(links[i], "attach kprobe %s in the view: %s", funcs[i],
			      strerror(errno));
		}
		check(!kview__leave_scope(kv), "leave scope: %s", strerror(errno));
		check(!kview__info(kv, &info), "info: %s", strerror(errno));
		run->pages = info.nr_pages;
		run->patches = info.nr_patches;
	}
	skel->bss->traced_tgid = a;
	skel->bss->hits_traced = 0;
	skel->bss->hits_other = 0;

	pingpong_put(go[1]);
	check(read(res[0], &run->r, sizeof(run->r)) == sizeof(run->r),
	      "%s: no result from the ping-pong", cfg->name);
	check(wait_exit(a) == 0, "%s: A failed", cfg->name);
	check(wait_exit(b) == 0, "%s: B failed", cfg->name);
	close(go[1]);
	close(res[0]);
	run->hits = skel->bss->hits_traced + skel->bss->hits_other;
	if (kv && cfg->n) {
		for (i = 0; i < cfg->n; i++)
			bpf_link__destroy(links[i]);
	}
	kview__destroy(kv);
	check(!run->hits, "%s: the view's probes fired %llu times: the ping-pong calls %s",
	      cfg->name, run->hits, "one of the functions");
}

/* ---- main --------------------------------------------------------------- */

/* The CPU's paging features and PTI, for the report. */
static void write_guest(const char *path)
{
	char line[8192], *flags = NULL;
	FILE *f = fopen("/proc/cpuinfo", "r"), *out;
	const char *want[] = { "pge", "pcid", "invpcid" };
	unsigned int i;

	check(f, "/proc/cpuinfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			flags = strdup(line);
			break;
		}
	fclose(f);
	check(flags, "no flags in /proc/cpuinfo");
	out = fopen(path, "w");
	check(out, "%s: %s", path, strerror(errno));
	flags[strcspn(flags, "\n")] = ' ';
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		char w[32];

		snprintf(w, sizeof(w), " %s ", want[i]);
		fprintf(out, "%s %s\n", want[i], strstr(flags, w) ? "yes" : "no");
	}
	f = fopen("/sys/devices/system/cpu/vulnerabilities/meltdown", "r");
	if (f && fgets(line, sizeof(line), f))
		fprintf(out, "meltdown %s", line);
	if (f)
		fclose(f);
	f = fopen("/proc/cmdline", "r");
	if (f && fgets(line, sizeof(line), f))
		fprintf(out, "cmdline %s", line);
	if (f)
		fclose(f);
	fclose(out);
	free(flags);
}

int main(int argc, char **argv)
{
	struct hwcost *skel;
	int rounds, r, i;
	struct run run;
	long n;
	FILE *out;

	if (argc != 6) {
		fprintf(stderr, "usage: switch ROUNDS ROUNDTRIPS OUT.csv FUNCS.txt GUEST.txt\n");
		return 2;
	}
	rounds = atoi(argv[1]);
	n = atol(argv[2]);
	check(rounds >= 1 && n >= 1, "ROUNDS >= 1, ROUNDTRIPS >= 1");
	pin_to_cpu(0);
	write_guest(argv[5]);
	skel = hwcost__open_and_load();
	check(skel, "load: %s", strerror(errno));
	no_views(0);
	pick_functions(skel);
	out = fopen(argv[4], "w");
	check(out, "%s: %s", argv[4], strerror(errno));
	for (i = 0; i < MAXN; i++)
		fprintf(out, "%s 0x%lx\n", funcs[i], func_addr[i]);
	fclose(out);
	progress("%d functions on distinct pages for the probes: %s, %s, ..., %s", MAXN,
		 funcs[0], funcs[1], funcs[MAXN - 1]);

	out = fopen(argv[3], "w");
	check(out, "%s: %s", argv[3], strerror(errno));
	fprintf(out, "bench,clock,config,n,round,warmup,roundtrips,ns,switch_in,inval_pages,inval_full,ctxsw_a,ctxsw_b,hits,view_pages,view_patches,vol_a,invol_a,vol_b,invol_b,sys_ctxt,sys_intr,sys_softirq\n");
	for (r = 0; r <= rounds; r++) {
		for (i = 0; i < NCONFIGS; i++) {
			const struct config *cfg = &configs[(i + r) % NCONFIGS];

			run_one(skel, cfg, n, &run);
			fprintf(out, "switch,%s,%s,%d,%d,%d,%ld,%lld,%llu,%llu,%llu,%lld,%lld,%llu,%u,%u,%lld,%lld,%lld,%lld,%llu,%llu,%llu\n",
				clock_name(), cfg->name, cfg->n, r, r == 0, n, run.r.ns,
				run.r.switch_in, run.r.inval_pages, run.r.inval_full,
				run.r.a.vol + run.r.a.invol, run.r.b.vol + run.r.b.invol,
				run.hits, run.pages, run.patches, run.r.a.vol, run.r.a.invol,
				run.r.b.vol, run.r.b.invol, run.r.sys.ctxt, run.r.sys.intr,
				run.r.sys.softirq);
			fflush(out);
			progress("round %d/%d %-8s %7.1f ns/round trip, per round trip: %.3f switch-ins, %.2f pages, %.3f full flushes; context switches: A %lld+%lld, B %lld+%lld, all %llu; %llu interrupts, %llu softirqs",
				 r, rounds, cfg->name, (double)run.r.ns / n,
				 (double)run.r.switch_in / n, (double)run.r.inval_pages / n,
				 (double)run.r.inval_full / n, run.r.a.vol, run.r.a.invol,
				 run.r.b.vol, run.r.b.invol, run.r.sys.ctxt, run.r.sys.intr,
				 run.r.sys.softirq);
		}
	}
	fclose(out);
	hwcost__destroy(skel);
	no_views(0);
	return 0;
}
