// SPDX-License-Identifier: GPL-2.0
/*
 * scale: many kernel views at once (issue 31).  Runs in the guest on one
 * vCPU (eval/bench-scale boots it).
 *
 * For each N of a ladder (say 0, 1, 4, 16, 64, 256, 1024), one point:
 *
 *   1. N idle processes, each blocked on a read of one pipe, and C =
 *      min(64, N / 16) more, each moved into a cgroup of its own
 *      (/sys/fs/cgroup/kview-scale/cI);
 *   2. create: one view per process (kview__create(pid)), then one cgroup
 *      view per cgroup (kview__create_cgroup()), each timed; a refusal
 *      (ENOSPC: the kernel's KVIEW_MAX_VIEWS, or any other errno) ends the
 *      creation there, and the point goes on with the views it has, the
 *      errno and the number of views that existed written down;
 *   3. attach: in each view, K kprobes (the hwcost program) in its attach
 *      scope, on the same K functions in every view (as one tool run on
 *      many processes would), each function on a text page of its own
 *      that no process here calls (keyctl, SysV and POSIX IPC, ethtool,
 *      thermal, cpufreq, input, EFI, crypto), each view timed;
 *   4. memory: /proc/meminfo (MemAvailable, MemFree, Slab) before step 2,
 *      after it and after step 3; kview/stats (pages, pt_pages, pool) and
 *      kview/views (libkview's parser: the views' own accounts);
 *   5. global text changes while the views exist: a kprobe attached for
 *      everyone on a function far from the views' pages ("far": each
 *      text_poke() of its arming walks every view, finding no copy) and
 *      on one whose entry lies on the page of a view function ("near":
 *      each text_poke() is replayed into every view's copy), attach and
 *      detach timed; the same before step 2, with the processes there and
 *      no view (kview's static key off), as the point's own baseline;
 *   6. context switches: pipe ping-pong (as eval/guest/switch.c: SCHED_BATCH,
 *      2 context switches a round trip, ROUNDTRIPS measured after 1000
 *      unmeasured) between a process added to the first view and one added
 *      to the last pid view (N >= 2: switches between members of different
 *      views, each of which invalidates the next view's K pages), and
 *      between two untraced processes, with kview/stats' TLB counters
 *      (tlb_switch_in, tlb_inval_pages, tlb_inval_full, tlb_flush_cpus)
 *      read before and after the loop;
 *   7. memcached: Debian's memcached driven by memcaslap for MC_SECONDS
 *      (mcload.h), untraced, with the views there (MC_SECONDS 0: left out);
 *   7b. hits (with a pid view): one hook on personality(2) in every view, for
 *      each of a kprobe, a raw_syscalls:sys_enter tracepoint program, an
 *      fentry program and a raw tracepoint program on sys_enter
 *      (eval/bpf/scalehit.bpf.c; all but the kprobe as a clone per view), attached in view after view until one is refused,
 *      timed; HITS calls by a process added to the first view and by one
 *      in no view (the programs' counts checked: the member's calls once
 *      each, nobody else's); the hook detached, timed.  Before step 2,
 *      the same calls with no hook and with each hook attached globally
 *      once, as the point's baseline;
 *   8. teardown: each view's links destroyed and its fd closed, timed,
 *      then the wait until kview/stats shows no view (the views are freed
 *      from a work item);
 *   9. the same probes without kview, for comparison: once no view is
 *      left and kview's static key is off, K kprobes attached globally
 *      for each view that was made (as one tool per process with its own
 *      in-eBPF pid filter would attach them), each tool's attach and
 *      detach timed, /proc/meminfo before and after the attach; then the
 *      processes and cgroups go.
 *
 * Every point starts without a view: the driver waits until every view is
 * gone, starts the processes and waits 2 s more (kview's static key goes
 * off 1 s after the last view), so that N = 0, and each point's baseline
 * of step 5, is the kernel without kview.  Round 0 is a warm-up; each
 * round runs every point once, in an order that rotates with the round.
 * Times are CLOCK_MONOTONIC: under the icount clock, guest instructions,
 * plus the idle time the guest waits (RCU grace periods at kprobe
 * unregistration), at which the clock jumps.
 *
 *   scale ROUNDS LADDER KPROBES ROUNDTRIPS MC_SECONDS HITS RUNS.csv VIEWS.csv FUNCS.txt
 *
 * LADDER is a comma-separated list of N.  RUNS.csv has a line per point
 * and round, VIEWS.csv a line per view (and per refused creation).
 */
#include <linux/perf_event.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "evalutil.h"
#include "mcload.h"
#include "hwcost.skel.h"
#include "scalehit.skel.h"

#define MAXK 8
#define MAXLADDER 16
#define MAXN 4096
#define CG_EVERY 16
#define CG_MAX 64
#define CG_DIR "/sys/fs/cgroup/kview-scale"
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/*
 * The hit step's hot path: personality(2) asked for the current persona
 * (0xffffffff changes nothing), which nothing else here calls.  A syscall
 * with arguments: the kernels' BTF has no SYSCALL_DEFINE0 function, which
 * an fentry program needs.
 */
#define HOT_FUNC "__x64_sys_personality"
#define HIT_WARM_CALLS 1000

static int nkprobes;

/* ---- the functions ------------------------------------------------------ */

static const char *const prefixes[] = {
	"keyctl_", "mq_", "msg_", "sem_", "shm_", "ethtool_", "thermal_",
	"cpufreq_", "input_", "efi_", "crypto_",
};
#define NPREFIXES ((int)ARRAY_SIZE(prefixes))

struct cand {
	char name[128];
	unsigned long addr;
	int prefix;
};

/* The view functions (funcs[0..K-1]), "far" (funcs[K]) and "near". */
static char funcs[MAXK + 1][128], near_func[128];
static unsigned long func_addr[MAXK + 1], near_addr;

static int prefix_of(const char *name)
{
	int i;

	for (i = 0; i < NPREFIXES; i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return i;
	return -1;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->prefix != y->prefix)
		return x->prefix - y->prefix;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Core-text functions of the prefixes that ftrace can hook, by prefix and address. */
static struct cand *load_candidates(size_t *n)
{
	unsigned long stext = ksym("_stext"), etext = ksym("_etext"), addr;
	char line[512], sym[256], t;
	struct cand *c = NULL;
	size_t cap = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	check(f, "/proc/kallsyms: %s", strerror(errno));
	*n = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %255s", &addr, &t, sym) != 3 ||
		    (t != 't' && t != 'T') || addr < stext || addr >= etext ||
		    strlen(sym) >= sizeof(c->name) || prefix_of(sym) < 0 ||
		    !ftrace_traceable(sym))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 1024;
			c = realloc(c, cap * sizeof(*c));
			check(c, "out of memory");
		}
		snprintf(c[*n].name, sizeof(c[*n].name), "%s", sym);
		c[*n].addr = addr;
		c[(*n)++].prefix = prefix_of(sym);
	}
	fclose(f);
	check(*n, "no candidate functions in kallsyms");
	qsort(c, *n, sizeof(*c), cmp_cand);
	return c;
}

static bool page_taken(unsigned long addr, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (func_addr[i] >> 12 == addr >> 12)
			return true;
	return false;
}

/*
 * K + 1 functions, one from each prefix in turn, each on a text page of
 * its own (not within 16 bytes of its end), whose kprobe attaches in a
 * view and adds exactly one page to it (tried in a throwaway view of an
 * idle process); the last is "far".  (Names kallsyms has twice are
 * refused by the kprobe, hence left out.)
 */
static void pick_functions(struct hwcost *skel, pid_t idle)
{
	struct bpf_link *links[MAXK + 1];
	size_t ncand, pos[NPREFIXES] = { 0 };
	struct cand *cands = load_candidates(&ncand);
	struct kview_info info;
	libbpf_print_fn_t old;
	unsigned int pages = 0;
	int want = nkprobes + 1, n = 0, p, i;
	struct kview *kv;
	bool more = true;

	for (p = 0; p < NPREFIXES; p++)
		while (pos[p] < ncand && cands[pos[p]].prefix < p)
			pos[p]++;
	kv = kview__create(idle, NULL);
	check(kv, "kview__create: %s", strerror(errno));
	old = libbpf_set_print(NULL);	/* refusals are expected here */
	while (n < want && more) {
		more = false;
		for (p = 0; p < NPREFIXES && n < want; p++) {
			struct cand *c = NULL;
			struct bpf_link *l;

			while (pos[p] < ncand && cands[pos[p]].prefix == p) {
				c = &cands[pos[p]++];
				if ((c->addr & 0xfff) <= 0xff0 && !page_taken(c->addr, n))
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
			links[n] = l;
			func_addr[n] = c->addr;
			snprintf(funcs[n++], sizeof(funcs[0]), "%s", c->name);
		}
	}
	libbpf_set_print(old);
	for (i = 0; i < n; i++)
		bpf_link__destroy(links[i]);
	kview__destroy(kv);
	free(cands);
	check(n == want, "found only %d functions on distinct pages for kprobes in a view", n);
}

/*
 * "near": a function whose ftrace site lies on the page of one of the
 * view functions, that a global kprobe takes; none: left out (empty).
 */
static void pick_near(struct hwcost *skel)
{
	unsigned long stext = ksym("_stext"), etext = ksym("_etext"), addr;
	char line[512], sym[256], t;
	libbpf_print_fn_t old;
	struct bpf_link *l;
	FILE *f = fopen("/proc/kallsyms", "r");
	int i;

	check(f, "/proc/kallsyms: %s", strerror(errno));
	old = libbpf_set_print(NULL);
	while (!near_func[0] && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %255s", &addr, &t, sym) != 3 ||
		    (t != 't' && t != 'T') || addr < stext || addr >= etext ||
		    strlen(sym) >= sizeof(near_func) || !page_taken(addr, nkprobes) ||
		    (addr & 0xfff) > 0xff0)
			continue;
		for (i = 0; i < nkprobes && strcmp(funcs[i], sym); i++)
			;
		if (i < nkprobes || !ftrace_traceable(sym))
			continue;
		l = bpf_program__attach_kprobe(skel->progs.hw_ipi, false, sym);
		if (!l)
			continue;
		bpf_link__destroy(l);
		snprintf(near_func, sizeof(near_func), "%s", sym);
		near_addr = addr;
	}
	libbpf_set_print(old);
	fclose(f);
}

/* ---- counters ----------------------------------------------------------- */

struct kstats {
	unsigned long long views, members, patches, pages, pt_pages;
	unsigned long long switch_in, inval_pages, inval_full, flush_cpus;
	unsigned long long pool_blocks, pool_free;
};

static struct kstats kstats(void)
{
	struct kstats s = { 0 };
	unsigned long long v;
	char name[64];
	FILE *f = fopen("/sys/kernel/debug/kview/stats", "r");

	check(f, "kview/stats: %s", strerror(errno));
	while (fscanf(f, "%63s %llu", name, &v) == 2) {
		if (!strcmp(name, "views"))
			s.views = v;
		else if (!strcmp(name, "members"))
			s.members = v;
		else if (!strcmp(name, "patches"))
			s.patches = v;
		else if (!strcmp(name, "pages"))
			s.pages = v;
		else if (!strcmp(name, "pt_pages"))
			s.pt_pages = v;
		else if (!strcmp(name, "tlb_switch_in"))
			s.switch_in = v;
		else if (!strcmp(name, "tlb_inval_pages"))
			s.inval_pages = v;
		else if (!strcmp(name, "tlb_inval_full"))
			s.inval_full = v;
		else if (!strcmp(name, "tlb_flush_cpus"))
			s.flush_cpus = v;
		else if (!strcmp(name, "pool_blocks"))
			s.pool_blocks = v;
		else if (!strcmp(name, "pool_free"))
			s.pool_free = v;
	}
	fclose(f);
	return s;
}

struct meminfo {
	long long avail_kb, free_kb, slab_kb;
};

static struct meminfo meminfo(void)
{
	struct meminfo m = { -1, -1, -1 };
	char line[256];
	FILE *f = fopen("/proc/meminfo", "r");

	check(f, "/proc/meminfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "MemAvailable: %lld kB", &m.avail_kb) == 1 ||
		    sscanf(line, "MemFree: %lld kB", &m.free_kb) == 1)
			continue;
		sscanf(line, "Slab: %lld kB", &m.slab_kb);
	}
	fclose(f);
	check(m.avail_kb >= 0 && m.free_kb >= 0 && m.slab_kb >= 0,
	      "/proc/meminfo: no MemAvailable, MemFree or Slab");
	return m;
}

/* Until kview/stats shows no view and no member (at most @sec s); the wait. */
static long long wait_no_views(int sec)
{
	long long t0 = now_ns();
	struct kstats s;
	int i;

	for (i = 0; i < sec * 100; i++) {
		s = kstats();
		if (!s.views && !s.members)
			return now_ns() - t0;
		usleep(10000);
	}
	fail("%llu view(s), %llu member(s) still there after %d s", s.views, s.members, sec);
}

/* ---- processes ---------------------------------------------------------- */

/* In a child: die with the driver, close fds 3.. but those in @keep (ascending). */
static void child_keep(int *keep, int nkeep)
{
	unsigned int lo = 3;
	int i, j, t;

	/* close_range() goes up: the fds kept, in order. */
	for (i = 0; i < nkeep; i++)
		for (j = i + 1; j < nkeep; j++)
			if (keep[j] < keep[i])
				t = keep[i], keep[i] = keep[j], keep[j] = t;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (i = 0; i < nkeep; i++) {
		if ((unsigned int)keep[i] > lo)
			close_range(lo, keep[i] - 1, 0);
		lo = keep[i] + 1;
	}
	close_range(lo, ~0U, 0);
}

static int idle_pipe[2];

/* An idle process: blocked reading idle_pipe until its write end closes. */
static pid_t spawn_idle(void)
{
	pid_t pid = fork();
	char c;

	check(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		child_keep(&idle_pipe[0], 1);
		while (read(idle_pipe[0], &c, 1) > 0)
			;
		_exit(0);
	}
	return pid;
}

static void write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	check(fd >= 0, "%s: %s", path, strerror(errno));
	check(write(fd, s, strlen(s)) == (ssize_t)strlen(s), "write %s to %s: %s", s, path,
	      strerror(errno));
	close(fd);
}

/* Cgroup @i (made if need be) with @pid in it; its directory's fd. */
static int cgroup_with(int i, pid_t pid)
{
	char path[128], s[32];
	int fd;

	if (mkdir(CG_DIR, 0755))
		check(errno == EEXIST, "mkdir %s: %s", CG_DIR, strerror(errno));
	snprintf(path, sizeof(path), "%s/c%d", CG_DIR, i);
	if (mkdir(path, 0755))
		check(errno == EEXIST, "mkdir %s: %s", path, strerror(errno));
	snprintf(s, sizeof(s), "%d", pid);
	strcat(path, "/cgroup.procs");
	write_file(path, s);
	snprintf(path, sizeof(path), "%s/c%d", CG_DIR, i);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	check(fd >= 0, "%s: %s", path, strerror(errno));
	return fd;
}

static void cgroups_remove(int n)
{
	char path[128];
	int i, tries;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/c%d", CG_DIR, i);
		/* A reaped process leaves its cgroup a moment later. */
		for (tries = 0; rmdir(path) && errno == EBUSY && tries < 200; tries++)
			usleep(10000);
	}
}

/* ---- context switches (eval/guest/switch.c's method) ---------------------- */

struct pingpong {
	long long ns;
	unsigned long long switch_in, inval_pages, inval_full, flush_cpus;
	long long ctxsw;	/* A's and B's, from /proc/PID/status */
};

static long long ctxsw_of(pid_t pid)
{
	char path[64], line[256];
	long long v, sum = 0;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	check(f, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %lld", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %lld", &v) == 1)
			sum += v, found++;
	fclose(f);
	check(found == 2, "%s: no context switch counts", path);
	return sum;
}

static void __attribute__((noreturn)) run_a(int go, int out, int in, int res, pid_t b, long n)
{
	struct kstats s0, s1;
	struct pingpong r;
	long long t0, c0;
	long i;

	pingpong_batch();
	pingpong_get(go);
	for (i = 0; i < PINGPONG_WARM_ROUNDTRIPS; i++) {
		pingpong_put(out);
		pingpong_get(in);
	}
	s0 = kstats();
	c0 = ctxsw_of(getpid()) + ctxsw_of(b);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		pingpong_put(out);
		pingpong_get(in);
	}
	r.ns = now_ns() - t0;
	r.ctxsw = ctxsw_of(getpid()) + ctxsw_of(b) - c0;
	s1 = kstats();
	r.switch_in = s1.switch_in - s0.switch_in;
	r.inval_pages = s1.inval_pages - s0.inval_pages;
	r.inval_full = s1.inval_full - s0.inval_full;
	r.flush_cpus = s1.flush_cpus - s0.flush_cpus;
	check(write(res, &r, sizeof(r)) == sizeof(r), "result write: %s", strerror(errno));
	_exit(0);
}

/*
 * @n measured round trips between A and B; A joins @kva and B @kvb first
 * (NULL: untraced).
 */
static void pingpong(struct kview *kva, struct kview *kvb, long n, struct pingpong *r)
{
	int go[2], ab[2], ba[2], res[2];
	pid_t a, b;

	check(!pipe2(go, O_CLOEXEC) && !pipe2(ab, O_CLOEXEC) && !pipe2(ba, O_CLOEXEC) &&
	      !pipe2(res, O_CLOEXEC), "pipe: %s", strerror(errno));
	b = fork();
	check(b >= 0, "fork: %s", strerror(errno));
	if (!b) {
		int keep[] = { ab[0], ba[1] };

		child_keep(keep, 2);
		pingpong_answer(ab[0], ba[1], n);
	}
	a = fork();
	check(a >= 0, "fork: %s", strerror(errno));
	if (!a) {
		int keep[] = { go[0], ab[1], ba[0], res[1] };

		child_keep(keep, 4);
		run_a(go[0], ab[1], ba[0], res[1], b, n);
	}
	close(go[0]);
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	close(res[1]);
	if (kva)
		check(!kview__add_pid(kva, a), "kview__add_pid A: %s", strerror(errno));
	if (kvb)
		check(!kview__add_pid(kvb, b), "kview__add_pid B: %s", strerror(errno));
	pingpong_put(go[1]);
	check(read(res[0], r, sizeof(*r)) == sizeof(*r), "no result from the ping-pong");
	check(wait_exit(a) == 0, "ping-pong: A failed");
	check(wait_exit(b) == 0, "ping-pong: B failed");
	close(go[1]);
	close(res[0]);
}

/* ---- hits: one hook on a hot path in every view ------------------------ */

enum { HOOK_KPROBE, HOOK_TP, HOOK_FENTRY, HOOK_RAW_TP, NHOOKS };
static const char *const hook_names[NHOOKS] = { "kprobe", "tracepoint", "fentry", "raw_tp" };

struct hits {
	long long ns;		/* the measured calls */
	unsigned long long traced, other;	/* the programs' counts, warm-up calls included */
};

static struct scalehit *hskel;
static int fentry_btf_id, sys_enter_id;
static long hit_calls;

/* @calls personality() after HIT_WARM_CALLS unmeasured ones; the time on @res. */
static void __attribute__((noreturn)) run_calls(int go, int res, long calls)
{
	long long t0, ns;
	long i;

	pingpong_get(go);
	for (i = 0; i < HIT_WARM_CALLS; i++)
		syscall(SYS_personality, 0xffffffffUL);
	t0 = now_ns();
	for (i = 0; i < calls; i++)
		syscall(SYS_personality, 0xffffffffUL);
	ns = now_ns() - t0;
	check(write(res, &ns, sizeof(ns)) == sizeof(ns), "result write: %s", strerror(errno));
	_exit(0);
}

/*
 * A process that makes hit_calls personality() calls, in @kv if not NULL (added
 * before it starts), with the programs' counters zeroed and traced_tgid set
 * to it first.
 */
static void hit_run(struct kview *kv, struct hits *h)
{
	int go[2], res[2];
	pid_t c;

	check(!pipe2(go, O_CLOEXEC) && !pipe2(res, O_CLOEXEC), "pipe: %s", strerror(errno));
	c = fork();
	check(c >= 0, "fork: %s", strerror(errno));
	if (!c) {
		int keep[] = { go[0], res[1] };

		child_keep(keep, 2);
		run_calls(go[0], res[1], hit_calls);
	}
	close(go[0]);
	close(res[1]);
	if (kv)
		check(!kview__add_pid(kv, c), "kview__add_pid: %s", strerror(errno));
	hskel->bss->traced_tgid = c;
	hskel->bss->hits_traced = 0;
	hskel->bss->hits_other = 0;
	pingpong_put(go[1]);
	check(read(res[0], &h->ns, sizeof(h->ns)) == sizeof(h->ns), "no result from the calls");
	check(wait_exit(c) == 0, "the calling process failed");
	h->traced = hskel->bss->hits_traced;
	h->other = hskel->bss->hits_other;
	close(go[1]);
	close(res[0]);
}

/* The perf id of tracepoint @cat:@name, from tracefs. */
static int tracepoint_id(const char *cat, const char *name)
{
	char path[256];
	FILE *f;
	int id;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/%s/id", cat, name);
	f = fopen(path, "r");
	check(f, "%s: %s", path, strerror(errno));
	check(fscanf(f, "%d", &id) == 1, "%s: no id", path);
	fclose(f);
	return id;
}

/*
 * A copy of @prog, loaded on its own: libbpf keeps a program's final
 * instructions after load, with its maps' fds in them.
 */
static int prog_clone(struct bpf_program *prog, enum bpf_attach_type type, int btf_id)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = type, .attach_btf_id = btf_id);

	return bpf_prog_load(bpf_program__type(prog), bpf_program__name(prog), "GPL",
			     bpf_program__insns(prog), bpf_program__insn_cnt(prog), &o);
}

/* One attachment of a hook: a libbpf link (kprobe), or fds (clones). */
struct hook_att {
	struct bpf_link *link;
	int prog_fd, perf_fd, link_fd;
};

/*
 * Attach @hook, in the current attach scope: the kprobe program once more,
 * or a clone of the tracepoint or fentry program of its own.  0 or an errno.
 */
static int hook_attach(int hook, struct hook_att *a)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT, .size = sizeof(attr),
		.sample_period = 1, .wakeup_events = 1,
	};
	int err;

	memset(a, 0, sizeof(*a));
	a->prog_fd = a->perf_fd = a->link_fd = -1;
	switch (hook) {
	case HOOK_KPROBE:
		a->link = bpf_program__attach_kprobe(hskel->progs.hit_kprobe, false, HOT_FUNC);
		return a->link ? 0 : errno;
	case HOOK_TP:
		a->prog_fd = prog_clone(hskel->progs.hit_tp, 0, 0);
		if (a->prog_fd < 0)
			return -a->prog_fd;
		attr.config = sys_enter_id;
		/* As libbpf attaches a tracepoint program: CPU 0, any task. */
		a->perf_fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
		if (a->perf_fd < 0)
			break;
		a->link_fd = bpf_link_create(a->prog_fd, a->perf_fd, BPF_PERF_EVENT, NULL);
		break;
	case HOOK_FENTRY:
		a->prog_fd = prog_clone(hskel->progs.hit_fentry, BPF_TRACE_FENTRY, fentry_btf_id);
		if (a->prog_fd < 0)
			return -a->prog_fd;
		a->link_fd = bpf_link_create(a->prog_fd, 0, BPF_TRACE_FENTRY, NULL);
		break;
	case HOOK_RAW_TP:
		a->prog_fd = prog_clone(hskel->progs.hit_raw_tp, 0, 0);
		if (a->prog_fd < 0)
			return -a->prog_fd;
		a->link_fd = bpf_raw_tracepoint_open("sys_enter", a->prog_fd);
		break;
	}
	if (a->link_fd >= 0)
		return 0;
	err = errno;
	if (a->perf_fd >= 0)
		close(a->perf_fd);
	close(a->prog_fd);
	return err;
}

static void hook_detach(struct hook_att *a)
{
	if (a->link) {
		bpf_link__destroy(a->link);
		return;
	}
	close(a->link_fd);
	if (a->perf_fd >= 0)
		close(a->perf_fd);
	close(a->prog_fd);
}

/*
 * Before the views: hit_calls personality() calls with no hook, and with each
 * hook attached globally, once (one tool for everyone), into @global.
 */
static void hits_before_views(struct hits *base, struct hits *global)
{
	struct hook_att a;
	int h, err;

	hit_run(NULL, base);
	check(!base->traced && !base->other, "a hook fired with none attached");
	for (h = 0; h < NHOOKS; h++) {
		err = hook_attach(h, &a);
		check(!err, "global %s on %s: %s", hook_names[h], HOT_FUNC, strerror(err));
		hit_run(NULL, &global[h]);
		hook_detach(&a);
		check(global[h].traced >= (unsigned long long)hit_calls + HIT_WARM_CALLS,
		      "global %s: %llu hits of the calling process for %ld calls", hook_names[h],
		      global[h].traced, hit_calls + HIT_WARM_CALLS);
	}
}

/* ---- one point ---------------------------------------------------------- */

struct view {
	pid_t pid;
	bool cgroup;
	struct kview *kv;
	struct bpf_link *links[MAXK];
	int nlinks;
	int create_err, attach_err;
	long long create_ns, attach_ns, detach_ns, close_ns;
	struct kview_info info;
	/* The hit step: this view's attachment of the hook at hand */
	struct hook_att hook;
	/* Step 9: the tool's K global links */
	struct bpf_link *glinks[MAXK];
	int nglinks;
	long long g_attach_ns, g_detach_ns;
};

static struct view views[MAXN + CG_MAX];

struct point {
	int n, round, nviews_wanted, cg_wanted, pid_views, cg_views;
	int refused_err, refused_at, attach_err;
	long long create_ns, attach_ns, detach_ns, close_ns, settle_ns;
	long long g_attach_ns, g_detach_ns;
	int g_attach_err;
	struct meminfo m0, m1, m2, gm0, gm1;
	struct kstats k1, k2;
	unsigned long long views_bytes, views_listed, views_members, hits;
	long long far_attach_ns, far_detach_ns, near_attach_ns, near_detach_ns;
	long long far_pre_attach_ns, far_pre_detach_ns, near_pre_attach_ns, near_pre_detach_ns;
	struct pingpong cross, untraced;
	bool have_cross;
	unsigned long long mc_tps, mc_ops;
	long long mc_cpu_ns;
	/* The hit step */
	struct hits base;
	struct hits global[NHOOKS];
	struct hook_point {
		int views, err;		/* views the hook was attached in; the refusal */
		long long attach_ns, detach_ns;
		struct hits member, untraced;
	} hook[NHOOKS];
};

static const char *errname(int err)
{
	const char *s = err ? strerrorname_np(err) : NULL;

	return err ? (s ? s : "?") : "-";
}

static long long global_probe(struct hwcost *skel, const char *fn, long long *detach_ns)
{
	struct bpf_link *l;
	long long t0 = now_ns(), t;

	l = bpf_program__attach_kprobe(skel->progs.hw_ipi, false, fn);
	t = now_ns() - t0;
	check(l, "global kprobe on %s: %s", fn, strerror(errno));
	t0 = now_ns();
	bpf_link__destroy(l);
	*detach_ns = now_ns() - t0;
	return t;
}

/* Create the views of @p: pid views, then cgroup views, until one is refused. */
static void create_views(struct point *p, int *cgfds)
{
	int i, total = p->n + p->cg_wanted;
	struct view *v;
	long long t0;

	for (i = 0; i < total; i++) {
		v = &views[i];
		t0 = now_ns();
		v->kv = v->cgroup ? kview__create_cgroup(cgfds[i - p->n], NULL)
				  : kview__create(v->pid, NULL);
		v->create_ns = now_ns() - t0;
		if (!v->kv) {
			v->create_err = errno;
			p->refused_err = errno;
			p->refused_at = i;
			progress("view %d of %d (%s) refused: %s (%s) with %d views there", i + 1,
				 total, v->cgroup ? "cgroup" : "pid", errname(errno),
				 strerror(errno), i);
			return;
		}
		p->create_ns += v->create_ns;
		if (v->cgroup)
			p->cg_views++;
		else
			p->pid_views++;
	}
}

static void attach_views(struct point *p, struct hwcost *skel)
{
	int i, k, nv = p->pid_views + p->cg_views;
	struct view *v;
	long long t0;

	for (i = 0; i < nv && !p->attach_err; i++) {
		v = &views[i];
		t0 = now_ns();
		check(!kview__enter_scope(v->kv), "enter scope: %s", strerror(errno));
		for (k = 0; k < nkprobes; k++) {
			v->links[k] = bpf_program__attach_kprobe(skel->progs.hw_kprobe, false,
								 funcs[k]);
			if (!v->links[k]) {
				v->attach_err = p->attach_err = errno;
				progress("view %d: kprobe %s refused: %s (%s)", i + 1, funcs[k],
					 errname(errno), strerror(errno));
				break;
			}
			v->nlinks++;
		}
		check(!kview__leave_scope(v->kv), "leave scope: %s", strerror(errno));
		v->attach_ns = now_ns() - t0;
		p->attach_ns += v->attach_ns;
		check(!kview__info(v->kv, &v->info), "info: %s", strerror(errno));
	}
}

static void detach_views(struct point *p)
{
	int i, k, nv = p->pid_views + p->cg_views;
	struct view *v;
	long long t0;

	for (i = 0; i < nv; i++) {
		v = &views[i];
		t0 = now_ns();
		for (k = 0; k < v->nlinks; k++)
			bpf_link__destroy(v->links[k]);
		v->detach_ns = now_ns() - t0;
		t0 = now_ns();
		kview__destroy(v->kv);
		v->close_ns = now_ns() - t0;
		p->detach_ns += v->detach_ns;
		p->close_ns += v->close_ns;
	}
}

/*
 * Step 9: K global kprobes for each view that was made, attached one tool
 * after the other, then detached; the kernel without kview (no view, the
 * static key off).
 */
static void global_series(struct point *p, struct hwcost *skel)
{
	int i, k, nv = p->pid_views + p->cg_views;
	struct view *v;
	long long t0;

	sleep(2);
	p->gm0 = meminfo();
	for (i = 0; i < nv && !p->g_attach_err; i++) {
		v = &views[i];
		t0 = now_ns();
		for (k = 0; k < nkprobes; k++) {
			v->glinks[k] = bpf_program__attach_kprobe(skel->progs.hw_kprobe, false,
								  funcs[k]);
			if (!v->glinks[k]) {
				p->g_attach_err = errno;
				progress("tool %d: global kprobe %s refused: %s (%s)", i + 1,
					 funcs[k], errname(errno), strerror(errno));
				break;
			}
			v->nglinks++;
		}
		v->g_attach_ns = now_ns() - t0;
		p->g_attach_ns += v->g_attach_ns;
	}
	sleep(1);
	p->gm1 = meminfo();
	for (i = 0; i < nv; i++) {
		v = &views[i];
		t0 = now_ns();
		for (k = 0; k < v->nglinks; k++)
			bpf_link__destroy(v->glinks[k]);
		v->g_detach_ns = now_ns() - t0;
		p->g_detach_ns += v->g_detach_ns;
	}
}

/* kview/views through libkview's parser: the views' own bytes and members. */
static void read_views(struct point *p)
{
	struct kview_views *vs;
	size_t i;
	int err = kview__views_read(NULL, &vs);

	check(!err, "kview__views_read: %s", strerror(-err));
	p->views_listed = vs->cnt;
	for (i = 0; i < vs->cnt; i++) {
		p->views_bytes += vs->views[i]->bytes;
		p->views_members += vs->views[i]->nr_members;
	}
	kview__views_free(vs);
}

/*
 * The hit step: each hook attached in every view (in the order the views
 * were made, until one is refused), then hit_calls personality() calls by a
 * process added to the first view and by one in no view, in an order that
 * rotates with the round, then the hook detached from every view.
 */
static void hits_in_views(struct point *p)
{
	int h, i, j, nv = p->pid_views + p->cg_views;
	struct hook_point *hp;
	unsigned long long want = hit_calls + HIT_WARM_CALLS;
	long long t0;

	if (!p->pid_views)
		return;
	for (h = 0; h < NHOOKS; h++) {
		hp = &p->hook[h];
		t0 = now_ns();
		for (i = 0; i < nv; i++) {
			check(!kview__enter_scope(views[i].kv), "enter scope: %s", strerror(errno));
			hp->err = hook_attach(h, &views[i].hook);
			check(!kview__leave_scope(views[i].kv), "leave scope: %s", strerror(errno));
			if (hp->err) {
				progress("%s on %s in view %d of %d refused: %s (%s)", hook_names[h],
					 HOT_FUNC, i + 1, nv, errname(hp->err), strerror(hp->err));
				break;
			}
			hp->views++;
		}
		hp->attach_ns = now_ns() - t0;
		for (j = 0; j < 2; j++) {
			if ((j + p->round) % 2 == 0)
				hit_run(views[0].kv, &hp->member);
			else
				hit_run(NULL, &hp->untraced);
		}
		t0 = now_ns();
		for (i = 0; i < hp->views; i++)
			hook_detach(&views[i].hook);
		hp->detach_ns = now_ns() - t0;
		/* The view's member gets its view's program, once a call; nobody else any. */
		check(h == HOOK_TP || h == HOOK_RAW_TP ? hp->member.traced >= want :
		      hp->member.traced == want,
		      "%s in %d views: %llu hits of the first view's member for %llu calls",
		      hook_names[h], hp->views, hp->member.traced, want);
		check(!hp->member.other, "%s in %d views: %llu hits of other tasks", hook_names[h],
		      hp->views, hp->member.other);
		check(!hp->untraced.traced && !hp->untraced.other,
		      "%s in %d views: a process in no view hit it (%llu, others %llu)",
		      hook_names[h], hp->views, hp->untraced.traced, hp->untraced.other);
	}
}

static void run_point(struct point *p, struct hwcost *skel, long roundtrips, int mc_seconds)
{
	int cgfds[CG_MAX], i, total;
	struct kview *kva = NULL, *kvb = NULL;
	pid_t mc;

	p->cg_wanted = p->n / CG_EVERY < CG_MAX ? p->n / CG_EVERY : CG_MAX;
	p->nviews_wanted = p->n + p->cg_wanted;
	total = p->nviews_wanted;
	/* Every point starts without a view. */
	wait_no_views(60);
	check(!pipe2(idle_pipe, O_CLOEXEC), "pipe: %s", strerror(errno));
	memset(views, 0, sizeof(views[0]) * total);
	for (i = 0; i < total; i++) {
		views[i].pid = spawn_idle();
		views[i].cgroup = i >= p->n;
		if (views[i].cgroup)
			cgfds[i - p->n] = cgroup_with(i - p->n, views[i].pid);
	}
	/*
	 * kview's static key off (1 s after the last view went), the forks'
	 * deferred work done: the global attaches with the processes and
	 * without views, then, settled again, memory.
	 */
	sleep(2);
	p->far_pre_attach_ns = global_probe(skel, funcs[nkprobes], &p->far_pre_detach_ns);
	if (near_func[0])
		p->near_pre_attach_ns = global_probe(skel, near_func, &p->near_pre_detach_ns);
	hits_before_views(&p->base, p->global);
	sleep(1);
	p->m0 = meminfo();
	create_views(p, cgfds);
	for (i = 0; i < p->cg_wanted; i++)
		close(cgfds[i]);
	p->m1 = meminfo();
	p->k1 = kstats();
	attach_views(p, skel);
	sleep(1);
	p->m2 = meminfo();
	p->k2 = kstats();
	read_views(p);
	skel->bss->hits_traced = 0;
	skel->bss->hits_other = 0;

	/* Global text changes while the views exist. */
	p->far_attach_ns = global_probe(skel, funcs[nkprobes], &p->far_detach_ns);
	if (near_func[0])
		p->near_attach_ns = global_probe(skel, near_func, &p->near_detach_ns);

	/* Switches between members of two views, and between untraced processes. */
	p->have_cross = p->pid_views >= 2;
	if (p->have_cross) {
		kva = views[0].kv;
		kvb = views[p->pid_views - 1].kv;
	}
	for (i = 0; i < 2; i++) {
		if ((i + p->round) % 2 == 0 && p->have_cross)
			pingpong(kva, kvb, roundtrips, &p->cross);
		else if ((i + p->round) % 2)
			pingpong(NULL, NULL, roundtrips, &p->untraced);
	}

	if (mc_seconds > 0) {
		sleep(1);
		mc = start_memcached();
		run_memcaslap(mc_seconds, &p->mc_ops, &p->mc_tps, &p->mc_cpu_ns);
		kill(mc, SIGTERM);
		reap_cpu_ns(mc, SIGTERM, "memcached");
	}
	p->hits = skel->bss->hits_traced + skel->bss->hits_other;
	hits_in_views(p);

	detach_views(p);
	p->settle_ns = wait_no_views(300);
	global_series(p, skel);
	close(idle_pipe[1]);
	close(idle_pipe[0]);
	for (i = 0; i < total; i++)
		check(wait_exit(views[i].pid) == 0, "idle process %d failed", views[i].pid);
	cgroups_remove(p->cg_wanted);
	check(!p->hits, "the views' probes fired %llu times: something here calls %s..%s",
	      p->hits, funcs[0], funcs[nkprobes - 1]);
	check(!skel->bss->hits_traced && !skel->bss->hits_other,
	      "the global probes fired: something here calls %s..%s", funcs[0],
	      funcs[nkprobes - 1]);
}

/* ---- output ------------------------------------------------------------- */

static void emit_point(FILE *out, const struct point *p, int warmup, long roundtrips)
{
	const struct pingpong *c = &p->cross, *u = &p->untraced;
	int h;

	fprintf(out, "scale,%s,%d,%d,%d,%d,%d,%d,%d,%d,%s,%d,%s,"
		"%lld,%lld,%lld,%lld,%lld,"
		"%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,"
		"%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,"
		"%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,"
		"%ld,%d,%lld,%llu,%llu,%llu,%llu,%lld,%lld,%llu,%llu,%llu,%llu,%lld,"
		"%llu,%llu,%lld,%llu,"
		"%lld,%lld,%s,%lld,%lld,%lld,%lld",
		clock_name(), p->round, warmup, p->n, nkprobes, p->n, p->pid_views,
		p->cg_wanted, p->cg_views, errname(p->refused_err),
		p->refused_err ? p->refused_at : -1, errname(p->attach_err),
		p->create_ns, p->attach_ns, p->detach_ns, p->close_ns, p->settle_ns,
		p->m0.avail_kb, p->m1.avail_kb, p->m2.avail_kb, p->m0.free_kb, p->m1.free_kb,
		p->m2.free_kb, p->m0.slab_kb, p->m1.slab_kb, p->m2.slab_kb,
		p->k1.pages, p->k1.pt_pages, p->k2.views, p->k2.members, p->k2.patches,
		p->k2.pages, p->k2.pt_pages, p->k2.pool_blocks, p->k2.pool_free,
		p->views_listed, p->views_bytes,
		p->far_attach_ns, p->far_detach_ns, near_func[0] ? p->near_attach_ns : -1,
		near_func[0] ? p->near_detach_ns : -1, p->far_pre_attach_ns, p->far_pre_detach_ns,
		near_func[0] ? p->near_pre_attach_ns : -1, near_func[0] ? p->near_pre_detach_ns : -1,
		roundtrips, p->have_cross, p->have_cross ? c->ns : -1, c->switch_in,
		c->inval_pages, c->inval_full, c->flush_cpus, p->have_cross ? c->ctxsw : -1,
		u->ns, u->switch_in, u->inval_pages, u->inval_full, u->flush_cpus, u->ctxsw,
		p->mc_tps, p->mc_ops, p->mc_cpu_ns, p->hits,
		p->g_attach_ns, p->g_detach_ns, errname(p->g_attach_err), p->gm0.avail_kb,
		p->gm1.avail_kb, p->gm0.slab_kb, p->gm1.slab_kb);
	/* The hit step, a group of columns per hook (runs_header). */
	fprintf(out, ",%ld,%lld", hit_calls, p->base.ns);
	for (h = 0; h < NHOOKS; h++) {
		const struct hook_point *hp = &p->hook[h];

		fprintf(out, ",%lld,%llu,%d,%s,%lld,%lld,%lld,%llu,%lld", p->global[h].ns,
			p->global[h].traced, hp->views, errname(hp->err),
			hp->views ? hp->attach_ns : -1, hp->views ? hp->detach_ns : -1,
			hp->views ? hp->member.ns : -1, hp->member.traced,
			hp->views ? hp->untraced.ns : -1);
	}
	fputc('\n', out);
	fflush(out);
}

/* The hit step's columns of one hook. */
#define HOOK_COLS(h) ",hit_" h "_global_ns,hit_" h "_global_hits,hit_" h "_views,hit_" h "_errno," \
	"hit_" h "_attach_ns,hit_" h "_detach_ns,hit_" h "_member_ns,hit_" h "_member_hits," \
	"hit_" h "_untraced_ns"

static const char runs_header[] =
	"bench,clock,round,warmup,n,kprobes,pid_wanted,pid_views,cg_wanted,cg_views,"
	"refused_errno,refused_at,attach_errno,"
	"create_ns,attach_ns,detach_ns,close_ns,settle_ns,"
	"avail_kb0,avail_kb1,avail_kb2,free_kb0,free_kb1,free_kb2,slab_kb0,slab_kb1,slab_kb2,"
	"empty_pages,empty_pt_pages,views,members,patches,pages,pt_pages,pool_blocks,pool_free,"
	"views_listed,views_bytes,"
	"far_attach_ns,far_detach_ns,near_attach_ns,near_detach_ns,"
	"far_pre_attach_ns,far_pre_detach_ns,near_pre_attach_ns,near_pre_detach_ns,"
	"roundtrips,cross,cross_ns,cross_switch_in,cross_inval_pages,cross_inval_full,"
	"cross_flush_cpus,cross_ctxsw,untraced_ns,untraced_switch_in,untraced_inval_pages,"
	"untraced_inval_full,untraced_flush_cpus,untraced_ctxsw,"
	"mc_tps,mc_ops,mc_cpu_ns,hits,"
	"g_attach_ns,g_detach_ns,g_attach_errno,g_avail_kb0,g_avail_kb1,g_slab_kb0,g_slab_kb1,"
	"hit_calls,hit_base_ns"
	HOOK_COLS("kprobe") HOOK_COLS("tracepoint") HOOK_COLS("fentry") HOOK_COLS("raw_tp") "\n";

static void emit_views(FILE *out, const struct point *p, int warmup)
{
	int i, total = p->pid_views + p->cg_views + (p->refused_err ? 1 : 0);
	const struct view *v;

	for (i = 0; i < total; i++) {
		v = &views[i];
		fprintf(out, "scale,%s,%d,%d,%d,%s,%d,%s,%s,%lld,%lld,%lld,%lld,%u,%u,%u,%u,%llu,%lld,%lld\n",
			clock_name(), p->round, warmup, p->n, v->cgroup ? "cgroup" : "pid", i,
			errname(v->create_err), errname(v->attach_err), v->create_ns,
			v->attach_ns, v->detach_ns, v->close_ns, v->info.nr_attachments,
			v->info.nr_patches, v->info.nr_pages, v->info.nr_pt_pages,
			(unsigned long long)v->info.bytes, v->g_attach_ns, v->g_detach_ns);
	}
	fflush(out);
}

static int parse_ladder(char *s, int *ns)
{
	int n = 0;
	char *tok;

	for (tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
		check(n < MAXLADDER, "at most %d points", MAXLADDER);
		ns[n] = atoi(tok);
		check(ns[n] >= 0 && ns[n] <= MAXN, "N must be 0..%d: %s", MAXN, tok);
		n++;
	}
	check(n, "an empty ladder");
	return n;
}

int main(int argc, char **argv)
{
	struct rlimit nofile = { 1 << 16, 1 << 16 };
	int rounds, ladder[MAXLADDER], nladder, r, i, mc_seconds, nv;
	FILE *out, *vout, *fout;
	struct hwcost *skel;
	struct point p;
	long roundtrips;
	pid_t idle;

	if (argc != 10) {
		fprintf(stderr, "usage: scale ROUNDS LADDER KPROBES ROUNDTRIPS MC_SECONDS HITS RUNS.csv VIEWS.csv FUNCS.txt\n");
		return 2;
	}
	rounds = atoi(argv[1]);
	nladder = parse_ladder(argv[2], ladder);
	nkprobes = atoi(argv[3]);
	roundtrips = atol(argv[4]);
	mc_seconds = atoi(argv[5]);
	hit_calls = atol(argv[6]);
	argv += 1;	/* RUNS.csv VIEWS.csv FUNCS.txt: argv[6..8] from here on */
	check(rounds >= 1 && nkprobes >= 1 && nkprobes <= MAXK && roundtrips >= 1 &&
	      mc_seconds >= 0 && hit_calls >= 1,
	      "ROUNDS >= 1, KPROBES 1..%d, ROUNDTRIPS >= 1, MC_SECONDS >= 0, HITS >= 1", MAXK);
	check(!setrlimit(RLIMIT_NOFILE, &nofile), "RLIMIT_NOFILE: %s", strerror(errno));
	pin_to_cpu(0);
	skel = hwcost__open_and_load();
	check(skel, "load: %s", strerror(errno));
	hskel = scalehit__open_and_load();
	check(hskel, "load scalehit: %s", strerror(errno));
	check(ftrace_traceable(HOT_FUNC), "%s cannot be traced here", HOT_FUNC);
	fentry_btf_id = libbpf_find_vmlinux_btf_id(HOT_FUNC, BPF_TRACE_FENTRY);
	check(fentry_btf_id > 0, "%s: no BTF id: %s", HOT_FUNC, strerror(-fentry_btf_id));
	sys_enter_id = tracepoint_id("raw_syscalls", "sys_enter");
	wait_no_views(60);

	check(!pipe2(idle_pipe, O_CLOEXEC), "pipe: %s", strerror(errno));
	idle = spawn_idle();
	pick_functions(skel, idle);
	close(idle_pipe[1]);
	close(idle_pipe[0]);
	wait_exit(idle);
	pick_near(skel);
	fout = fopen(argv[8], "w");
	check(fout, "%s: %s", argv[8], strerror(errno));
	for (i = 0; i < nkprobes; i++)
		fprintf(fout, "view %s 0x%lx\n", funcs[i], func_addr[i]);
	fprintf(fout, "far %s 0x%lx\n", funcs[nkprobes], func_addr[nkprobes]);
	if (near_func[0])
		fprintf(fout, "near %s 0x%lx\n", near_func, near_addr);
	fclose(fout);
	progress("%d view functions: %s ... %s; far %s; near %s", nkprobes, funcs[0],
		 funcs[nkprobes - 1], funcs[nkprobes], near_func[0] ? near_func : "(none)");

	out = fopen(argv[6], "w");
	vout = fopen(argv[7], "w");
	check(out && vout, "%s, %s: %s", argv[6], argv[7], strerror(errno));
	fputs(runs_header, out);
	fputs("bench,clock,round,warmup,n,kind,index,create_errno,attach_errno,create_ns,attach_ns,detach_ns,close_ns,attachments,patches,pages,pt_pages,bytes,g_attach_ns,g_detach_ns\n",
	      vout);
	for (r = 0; r <= rounds; r++) {
		for (i = 0; i < nladder; i++) {
			memset(&p, 0, sizeof(p));
			p.n = ladder[(i + r) % nladder];
			p.round = r;
			run_point(&p, skel, roundtrips, mc_seconds);
			emit_point(out, &p, r == 0, roundtrips);
			emit_views(vout, &p, r == 0);
			nv = p.pid_views + p.cg_views ? p.pid_views + p.cg_views : 1;
			progress("round %d/%d N=%d: %d+%d views (of %d+%d; refused: %s), per view create %.3f ms, attach %.3f ms, detach %.3f ms (global: attach %.3f ms, detach %.3f ms); %llu KiB of copies and tables; ping-pong %.1f (views) %.1f (untraced) ns/round trip; memcached %llu TPS",
				 r, rounds, p.n, p.pid_views, p.cg_views, p.n, p.cg_wanted,
				 errname(p.refused_err), p.create_ns / 1e6 / nv, p.attach_ns / 1e6 / nv,
				 p.detach_ns / 1e6 / nv, p.g_attach_ns / 1e6 / nv, p.g_detach_ns / 1e6 / nv,
				 p.views_bytes / 1024,
				 p.have_cross ? (double)p.cross.ns / roundtrips : 0.0,
				 (double)p.untraced.ns / roundtrips, p.mc_tps);
		}
	}
	fclose(out);
	fclose(vout);
	scalehit__destroy(hskel);
	hwcost__destroy(skel);
	wait_no_views(60);
	rmdir(CG_DIR);
	return 0;
}
