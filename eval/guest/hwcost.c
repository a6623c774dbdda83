// SPDX-License-Identifier: GPL-2.0
/*
 * hwcost: what attaching, keeping and detaching hooks costs the CPUs in
 * events a real CPU pays for (IPIs, TLB flushes, CR3 loads, direct-map
 * splits, global text mappings), for untraced work on another CPU.  Runs
 * in the guest on two vCPUs (eval/bench-hwcost boots it, once per kernel);
 * these are event counts, not times.
 *
 * CPU 1 runs the untraced work: a spinner (a user loop and getppid()) and
 * Debian's memcached (one worker thread) with a loopback client that sends
 * it "get" requests one after the other, all pinned to CPU 1 (started
 * from children pinned there first, so that this driver never runs on
 * CPU 1).  CPU 0 runs this driver (the tool) and the traced process, `dd
 * if=/dev/zero of=/dev/null bs=1`.
 *
 * Configurations: N = 1, 16, 64 kprobes (one program, N links, on N
 * distinct functions with an ftrace site), or one kprobe_multi link on
 * MULTI functions ("multi"), each with a raw_syscalls:sys_enter tracepoint
 * program too.  Modes:
 *
 *   view     a view made on dd, the hooks attached in its attach scope;
 *            the view is closed at detach
 *   global   attached for everyone, programs without a filter
 *   in-ebpf  attached for everyone, "pid == dd" first thing in the
 *            programs (the hooks, hence the kernel's costs, are global's)
 *   none     nothing attached (the background: one run a round)
 *
 * Each run has three phases, measured apart: attach (including making the
 * view), steady (1 s), detach (including closing the view and waiting
 * until it is gone, then 0.3 s more for deferred work).  Per phase: the
 * IPIs CPU 1 and CPU 0 took (the CAL and TLB rows of /proc/interrupts),
 * the TLB counters of /proc/vmstat (CONFIG_DEBUG_TLBFLUSH), kview/stats
 * (the TLB and pool lines where the kernel has them, else "na"),
 * DirectMap4k/2M/1G before and after, the GLB lines of the kernel image's
 * mappings (debugfs page_tables/kernel, High Kernel Mapping) before and
 * after, and the tlb:tlb_flush events per CPU counted by a BPF program
 * attached once at start: reason TLB_FLUSH_ON_TASK_SWITCH is a CR3 load
 * (switch_mm_irqs_off()).  The context switches of CPU 1's processes
 * (their threads' /proc status) are there too, as a cross-check.
 *
 * What CPU 1's IPIs ran: kprobes attached once at start (int3 kprobes
 * past the functions' ftrace sites, which leave ftrace as it was) count,
 * per CPU, the functions cross-CPU calls run (ipi_fns[] below: text_poke's
 * core sync, RCU Tasks Trace's reader check, flush_tlb_all(), kernel-range
 * and CPA flushes, kview's flush); an mm's TLB shootdown is the TLB row.
 * /proc/interrupts counts a shootdown in both CAL (the vector) and TLB
 * (the flush), and one CAL interrupt may run several queued functions.
 *
 * Every BPF program is loaded, and these counters attached, before
 * anything is measured.  Then, measured once, the first view after boot
 * (kview's static key flips; it is kept open, the "keeper", for the rest
 * of the run), and warm-up runs (round 0): view and global with the multi
 * set (kview's pool of copies grows to what the largest view needs; the
 * fprobe's first registration).  Rounds 1..ROUNDS run a "none" run (the
 * background), then every configuration in every mode, the modes in an
 * order that rotates with the round.
 *
 *   hwcost KERNEL ROUNDS MULTI CONFIGS MODES OUT.csv PAGETABLES.txt FUNCS.txt
 *     CONFIGS: of 1,16,64,multi; MODES: of view,global,in-ebpf
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "evalutil.h"
#include "mcload.h"
#include "hwcost.skel.h"

#define MAXMULTI 1024
#define NSITES_MAX 64

/* ---- the functions ------------------------------------------------------ */

/* Hot functions first (the N = 1 probe is vfs_read), then by prefix. */
static const char *const hot[] = {
	"vfs_read", "vfs_write", "ksys_read", "ksys_write", "sock_read_iter",
	"sock_write_iter", "tcp_sendmsg", "tcp_recvmsg", "sock_sendmsg",
	"sock_recvmsg", "__x64_sys_getppid", "__x64_sys_read",
	"__x64_sys_write", "do_epoll_wait", "tcp_rcv_established", "tcp_v4_rcv",
};
static const char *const prefixes[] = {
	"vfs_", "ksys_", "do_sys_", "sock_", "tcp_", "__x64_sys_",
};
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct fn {
	char *name;
	int ftrace, kallsyms;	/* how often the name is there */
	bool blacklisted, chosen;
};

static struct fn *fns;		/* available_filter_functions, in its order */
static struct fn **byname;	/* the same, sorted by name */
static size_t nfns;
static const char *funcs[MAXMULTI];
static int nfuncs;

static int cmp_fn(const void *a, const void *b)
{
	return strcmp((*(struct fn *const *)a)->name, (*(struct fn *const *)b)->name);
}

static struct fn *find_fn(const char *name)
{
	struct fn key = { .name = (char *)name }, *k = &key, **f;

	f = bsearch(&k, byname, nfns, sizeof(*byname), cmp_fn);
	return f ? *f : NULL;
}

static bool usable(const struct fn *f)
{
	return f && f->ftrace == 1 && f->kallsyms == 1 && !f->blacklisted &&
	       !f->chosen;
}

/*
 * Up to @max functions a kprobe and kprobe_multi take: an ftrace site,
 * core kernel text, one symbol of the name in kallsyms and in ftrace's
 * list, not on the kprobe blacklist.  The hot ones first.
 */
static void pick_functions(int max)
{
	unsigned long stext = ksym("_stext"), etext = ksym("_etext"), addr;
	char line[512], sym[256], t;
	size_t cap = 0, i, j;
	struct fn *f;
	FILE *in;

	in = fopen("/sys/kernel/tracing/available_filter_functions", "r");
	check(in, "available_filter_functions: %s", strerror(errno));
	while (fgets(line, sizeof(line), in)) {
		if (strchr(line, '['))
			continue;	/* a module's */
		line[strcspn(line, " \t\n")] = '\0';
		if (nfns == cap) {
			cap = cap ? 2 * cap : 32768;
			fns = realloc(fns, cap * sizeof(*fns));
			check(fns, "out of memory");
		}
		fns[nfns++] = (struct fn){ .name = strdup(line), .ftrace = 1 };
	}
	fclose(in);
	byname = malloc(nfns * sizeof(*byname));
	check(byname, "out of memory");
	for (i = 0; i < nfns; i++)
		byname[i] = &fns[i];
	qsort(byname, nfns, sizeof(*byname), cmp_fn);
	for (i = 1; i < nfns; i++)
		if (!strcmp(byname[i]->name, byname[i - 1]->name))
			byname[i]->ftrace = byname[i - 1]->ftrace = 2;

	in = fopen("/proc/kallsyms", "r");
	check(in, "/proc/kallsyms: %s", strerror(errno));
	while (fgets(line, sizeof(line), in)) {
		if (sscanf(line, "%lx %c %255s", &addr, &t, sym) != 3)
			continue;
		f = find_fn(sym);
		if (!f)
			continue;
		f->kallsyms++;
		if ((t != 't' && t != 'T') || addr < stext || addr >= etext)
			f->kallsyms++;	/* not core text: leave it out */
	}
	fclose(in);

	in = fopen("/sys/kernel/debug/kprobes/blacklist", "r");
	check(in, "kprobes/blacklist: %s", strerror(errno));
	while (fgets(line, sizeof(line), in)) {
		if (sscanf(line, "%*s %255s", sym) == 1 && (f = find_fn(sym)))
			f->blacklisted = true;
	}
	fclose(in);

	for (i = 0; i < ARRAY_SIZE(hot) && nfuncs < max; i++) {
		f = find_fn(hot[i]);
		if (!usable(f))
			continue;
		f->chosen = true;
		funcs[nfuncs++] = f->name;
	}
	for (j = 0; j < ARRAY_SIZE(prefixes); j++)
		for (i = 0; i < nfns && nfuncs < max; i++) {
			f = &fns[i];
			if (strncmp(f->name, prefixes[j], strlen(prefixes[j])) ||
			    !usable(find_fn(f->name)))
				continue;
			f = find_fn(f->name);
			f->chosen = true;
			funcs[nfuncs++] = f->name;
		}
	check(nfuncs == max, "found only %d functions for kprobes (wanted %d)", nfuncs, max);
	check(!strcmp(funcs[0], "vfs_read"), "vfs_read is not usable for a kprobe");
}

/* ---- the untraced work on CPU 1 ----------------------------------------- */

struct shared {
	volatile unsigned long long spins, ops;
};

static struct shared *sh;
static pid_t cpu1_pids[3];

static void __attribute__((noreturn)) spin(void)
{
	for (;;) {
		syscall(SYS_getppid);
		for (int i = 0; i < 1000; i++)
			__asm__ volatile("" ::: "memory");
		sh->spins++;
	}
}

static void xwrite(int fd, const char *s)
{
	size_t len = strlen(s);

	check(write(fd, s, len) == (ssize_t)len, "client: write: %s", strerror(errno));
}

/* Read until the reply ends in @end. */
static void xread_until(int fd, const char *end)
{
	char buf[4096];
	size_t len = 0, elen = strlen(end);
	ssize_t n;

	for (;;) {
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		check(n > 0, "client: read: %s", n ? strerror(errno) : "EOF");
		len += n;
		buf[len] = '\0';
		if (len >= elen && !strcmp(buf + len - elen, end))
			return;
		check(len < sizeof(buf) - 1, "client: odd reply %s", buf);
	}
}

/* memcaslap-like, one connection: a set, then gets one after the other. */
static void __attribute__((noreturn)) client(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(MC_PORT),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	check(fd >= 0 && !connect(fd, (void *)&a, sizeof(a)), "client: connect: %s",
	      strerror(errno));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	xwrite(fd, "set hwcost 0 0 64\r\n"
		   "0123456789012345678901234567890123456789012345678901234567890123\r\n");
	xread_until(fd, "STORED\r\n");
	for (;;) {
		xwrite(fd, "get hwcost\r\n");
		xread_until(fd, "END\r\n");
		sh->ops++;
	}
}

/* A child that pins itself to CPU 1, then runs @what (0, 1, 2). */
static pid_t on_cpu1(int what)
{
	char *mc[] = { "memcached", "-u", "root", "-l", "127.0.0.1", "-p", "11211",
		       "-U", "0", "-t", "1", "-m", "64", NULL };
	pid_t pid = fork();

	check(pid >= 0, "fork: %s", strerror(errno));
	if (pid)
		return pid;
	pin_to_cpu(1);
	if (what == 0)
		spin();
	if (what == 2)
		client();
	execvp(mc[0], mc);
	fprintf(stderr, "exec memcached: %s\n", strerror(errno));
	_exit(127);
}

static void start_cpu1(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(MC_PORT),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int i, fd;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	check(sh != MAP_FAILED, "mmap: %s", strerror(errno));
	cpu1_pids[0] = on_cpu1(0);
	cpu1_pids[1] = on_cpu1(1);
	for (i = 0; i < 1000; i++) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		check(fd >= 0, "socket: %s", strerror(errno));
		if (!connect(fd, (void *)&a, sizeof(a))) {
			close(fd);
			break;
		}
		close(fd);
		usleep(10000);
	}
	check(i < 1000, "memcached did not listen on 127.0.0.1:%d in 10 s", MC_PORT);
	cpu1_pids[2] = on_cpu1(2);
}

/* Context switches of the CPU-1 processes, all their threads. */
static unsigned long cpu1_switches(void)
{
	char path[64], line[256], tpath[352];
	unsigned long v, sum = 0;
	struct dirent *d;
	unsigned int i;
	DIR *dir;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(cpu1_pids); i++) {
		snprintf(path, sizeof(path), "/proc/%d/task", cpu1_pids[i]);
		dir = opendir(path);
		check(dir, "%s: %s", path, strerror(errno));
		while ((d = readdir(dir))) {
			if (d->d_name[0] == '.')
				continue;
			snprintf(tpath, sizeof(tpath), "%s/%s/status", path, d->d_name);
			f = fopen(tpath, "r");
			if (!f)
				continue;
			while (fgets(line, sizeof(line), f))
				if (sscanf(line, "voluntary_ctxt_switches: %lu", &v) == 1 ||
				    sscanf(line, "nonvoluntary_ctxt_switches: %lu", &v) == 1)
					sum += v;
			fclose(f);
		}
		closedir(dir);
	}
	return sum;
}

/* The traced process: dd reading a byte at a time, on CPU 0. */
static pid_t start_dd(void)
{
	char *argv[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1", "status=none", NULL };
	pid_t pid = spawn_stopped(argv);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	check(!sched_setaffinity(pid, sizeof(set), &set), "pin %d: %s", pid, strerror(errno));
	resume(pid);
	return pid;
}

/* ---- counters ----------------------------------------------------------- */

static const char *const kstat_names[] = {
	"tlb_flush_requests", "tlb_flush_cpus", "tlb_flush_ipis", "tlb_flush_asid",
	"tlb_switch_in", "tlb_inval_pages", "tlb_inval_full", "dmap_changes",
	"dmap_pages", "pool_blocks", "pool_free",
};
#define NKSTATS ARRAY_SIZE(kstat_names)
#define KSTAT_GAUGES 2		/* the last ones: levels, not counts */

static const char *const vm_names[] = {
	"nr_tlb_remote_flush", "nr_tlb_remote_flush_received",
	"nr_tlb_local_flush_all", "nr_tlb_local_flush_one",
};
#define NVM ARRAY_SIZE(vm_names)

/* The functions cross-CPU calls run, by kind (hw_ipi's cookie). */
static const char *const ipi_kinds[] = {
	"text_poke", "rcu_tasks_trace", "tlb_all", "tlb_range", "cpa", "kview",
};
#define NIPIKINDS ARRAY_SIZE(ipi_kinds)
static const struct {
	const char *fn;
	unsigned int kind;
} ipi_fns[] = {
	{ "do_sync_core", 0 },		/* text_poke_bp(), text_poke_sync() */
	{ "trc_read_check_handler", 1 },	/* an RCU Tasks Trace grace period */
	{ "rcu_tasks_trace_empty_fn", 1 },
	{ "do_flush_tlb_all", 2 },		/* flush_tlb_all() */
	{ "do_kernel_range_flush", 3 },	/* flush_tlb_kernel_range() */
	{ "__cpa_flush_all", 4 },		/* a direct-map or vmalloc attribute change */
	{ "__cpa_flush_tlb", 4 },
	{ "kv_flush_func", 5 },		/* kview_pt_flush() (the new kernel's) */
	{ "kv_leave_lazy", 5 },
	{ "kv_tlb_pt_forget", 5 },
};

struct sample {
	long long ns;
	unsigned long cal[2], tlb[2];
	long vm[NVM];
	long ks[NKSTATS];		/* -1: the kernel has no such line */
	unsigned long views, members, out_of_scope;
	unsigned long dmap[3];		/* DirectMap4k, 2M, 1G (kB) */
	unsigned long long tlbev[2][5], cr3_full[2], hits_traced, hits_other;
	unsigned long long spins, ops;
	unsigned long csw1;
	unsigned long long ipifn[NIPIKINDS];	/* CPU 1's */
};

static struct hwcost *skel;

static void read_ipis(struct sample *s)
{
	char row[16], line[4096], *p, *end;
	FILE *f = fopen("/proc/interrupts", "r");
	int i;

	check(f, "/proc/interrupts: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		unsigned long *dst;

		if (sscanf(line, " %15s", row) != 1)
			continue;
		if (!strcmp(row, "CAL:"))
			dst = s->cal;
		else if (!strcmp(row, "TLB:"))
			dst = s->tlb;
		else
			continue;
		p = strchr(line, ':') + 1;
		for (i = 0; i < 2; i++) {
			dst[i] = strtoul(p, &end, 10);
			check(end != p, "/proc/interrupts: no CPU %d in %s", i, row);
			p = end;
		}
	}
	fclose(f);
}

static void read_vmstat(struct sample *s)
{
	char name[64];
	unsigned int i;
	long v;
	FILE *f = fopen("/proc/vmstat", "r");

	check(f, "/proc/vmstat: %s", strerror(errno));
	for (i = 0; i < NVM; i++)
		s->vm[i] = -1;
	while (fscanf(f, "%63s %ld", name, &v) == 2)
		for (i = 0; i < NVM; i++)
			if (!strcmp(name, vm_names[i]))
				s->vm[i] = v;
	fclose(f);
}

static void read_kstats(struct sample *s)
{
	char name[64];
	unsigned long v;
	unsigned int i;
	FILE *f = fopen("/sys/kernel/debug/kview/stats", "r");

	check(f, "kview/stats: %s", strerror(errno));
	for (i = 0; i < NKSTATS; i++)
		s->ks[i] = -1;
	while (fscanf(f, "%63s %lu", name, &v) == 2) {
		for (i = 0; i < NKSTATS; i++)
			if (!strcmp(name, kstat_names[i]))
				s->ks[i] = v;
		if (!strcmp(name, "views"))
			s->views = v;
		else if (!strcmp(name, "members"))
			s->members = v;
		else if (!strcmp(name, "out_of_scope"))
			s->out_of_scope = v;
	}
	fclose(f);
}

static void read_dmap(unsigned long dm[3])
{
	static const char *const names[] = { "DirectMap4k:", "DirectMap2M:", "DirectMap1G:" };
	char line[256], name[64];
	unsigned long v;
	FILE *f = fopen("/proc/meminfo", "r");
	int i;

	check(f, "/proc/meminfo: %s", strerror(errno));
	dm[0] = dm[1] = dm[2] = 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lu", name, &v) == 2)
			for (i = 0; i < 3; i++)
				if (!strcmp(name, names[i]))
					dm[i] = v;
	fclose(f);
}

static void sample(struct sample *s)
{
	int c, r;

	memset(s, 0, sizeof(*s));
	read_ipis(s);
	read_vmstat(s);
	read_kstats(s);
	read_dmap(s->dmap);
	for (c = 0; c < 2; c++) {
		for (r = 0; r < 5; r++)
			s->tlbev[c][r] = skel->bss->tlb_events[c * 5 + r];
		s->cr3_full[c] = skel->bss->cr3_full[c];
	}
	for (c = 0; c < (int)NIPIKINDS; c++)
		s->ipifn[c] = skel->bss->ipi_funcs[ARRAY_SIZE(skel->bss->ipi_funcs) / 2 + c];
	s->hits_traced = skel->bss->hits_traced;
	s->hits_other = skel->bss->hits_other;
	s->spins = sh->spins;
	s->ops = sh->ops;
	s->csw1 = cpu1_switches();
	s->ns = now_ns();
}

/* The kernel image's mappings (page_tables/kernel, High Kernel Mapping). */
struct glb {
	int lines;		/* lines with GLB */
	unsigned long nonglb_kb;	/* mapped kB without GLB */
	char *text;
};

static unsigned long size_kb(const char *s)
{
	char unit = 0;
	unsigned long v = 0;

	sscanf(s, "%lu%c", &v, &unit);
	return unit == 'G' ? v << 20 : unit == 'M' ? v << 10 : v;
}

static struct glb read_glb(void)
{
	FILE *f = fopen("/sys/kernel/debug/page_tables/kernel", "r");
	char line[512], range[128], size[32];
	struct glb g = { 0 };
	size_t len = 0;
	FILE *m = open_memstream(&g.text, &len);
	bool in = false;

	check(f, "debugfs page_tables/kernel: %s (CONFIG_PTDUMP_DEBUGFS)", strerror(errno));
	check(m, "open_memstream: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "---[ High Kernel Mapping ]---")) {
			in = true;
			continue;
		}
		if (strstr(line, "---["))
			in = false;
		if (!in)
			continue;
		fputs(line, m);
		if (strstr(line, " GLB "))
			g.lines++;
		else if ((strstr(line, " ro ") || strstr(line, " RW ")) &&
			 sscanf(line, "%127s %31s", range, size) == 2)
			g.nonglb_kb += size_kb(size);
	}
	fclose(f);
	fclose(m);
	check(len, "no High Kernel Mapping in page_tables/kernel");
	return g;
}

/*
 * A kprobe counting @fn's runs, past its ftrace site: an int3 (or
 * optimized) kprobe, so that these counters leave ftrace as it is (no
 * ftrace_ops registered, as on a machine where nothing traces); the first
 * offset kprobes take, from just after the 5-byte ftrace call.  NULL when
 * the kernel has no @fn (kview's functions on the kernel before the change).
 */
static struct bpf_link *attach_ipi_probe(const char *fn, unsigned int kind)
{
	struct bpf_link *link = NULL;
	libbpf_print_fn_t old;
	size_t off;

	if (!ksym_find(fn))
		return NULL;
	old = libbpf_set_print(NULL);	/* refusals of offsets are expected */
	for (off = 5; !link && off < 64; off++) {
		LIBBPF_OPTS(bpf_kprobe_opts, ko, .bpf_cookie = kind, .offset = off);

		link = bpf_program__attach_kprobe_opts(skel->progs.hw_ipi, fn, &ko);
	}
	libbpf_set_print(old);
	check(link, "no kprobe past the ftrace site of %s: %s", fn, strerror(errno));
	return link;
}

/* ---- runs --------------------------------------------------------------- */

enum mode { VIEW, GLOBAL, IN_EBPF, NONE, FIRST };
static const char *const mode_names[] = { "view", "global", "in-ebpf", "none", "first-view" };

struct cfg {
	const char *label;
	int n;			/* functions */
	bool multi;
};

static const char *kernel;
static FILE *csv, *ptout;
static pid_t dd;
static struct glb glb_base;

static void row(enum mode mode, const struct cfg *c, const char *phase, int round,
		const struct sample *a, const struct sample *b, int glb0, int glb1,
		unsigned long ng0, unsigned long ng1, unsigned int pages)
{
	unsigned int i;

	fprintf(csv, "%s,%s,%s,%d,%s,%d,%d,%.1f", kernel, mode_names[mode], c->label,
		c->n, phase, round, round == 0, (b->ns - a->ns) / 1e6);
	fprintf(csv, ",%lu,%lu,%lu,%lu,%lu,%lu",
		b->cal[1] - a->cal[1] + b->tlb[1] - a->tlb[1], b->cal[1] - a->cal[1],
		b->tlb[1] - a->tlb[1],
		b->cal[0] - a->cal[0] + b->tlb[0] - a->tlb[0], b->cal[0] - a->cal[0],
		b->tlb[0] - a->tlb[0]);
	fprintf(csv, ",%llu,%llu,%llu,%llu,%llu,%lu",
		b->tlbev[1][0] - a->tlbev[1][0], b->cr3_full[1] - a->cr3_full[1],
		b->tlbev[1][1] - a->tlbev[1][1], b->tlbev[0][0] - a->tlbev[0][0],
		b->tlbev[0][1] - a->tlbev[0][1], b->csw1 - a->csw1);
	for (i = 0; i < NIPIKINDS; i++)
		fprintf(csv, ",%llu", b->ipifn[i] - a->ipifn[i]);
	for (i = 0; i < NVM; i++)
		fprintf(csv, ",%ld", b->vm[i] - a->vm[i]);
	for (i = 0; i < NKSTATS; i++) {
		if (a->ks[i] < 0 || b->ks[i] < 0)
			fprintf(csv, ",na");
		else if (i >= NKSTATS - KSTAT_GAUGES)
			fprintf(csv, ",%ld", b->ks[i]);
		else
			fprintf(csv, ",%ld", b->ks[i] - a->ks[i]);
	}
	for (i = 0; i < 3; i++)
		fprintf(csv, ",%lu,%lu", a->dmap[i], b->dmap[i]);
	fprintf(csv, ",%d,%d,%lu,%lu,%u,%llu,%llu,%lu,%llu,%llu\n", glb0, glb1, ng0, ng1,
		pages, b->hits_traced - a->hits_traced, b->hits_other - a->hits_other,
		b->out_of_scope - a->out_of_scope, b->ops - a->ops, b->spins - a->spins);
	fflush(csv);
}

static void csv_header(void)
{
	unsigned int i;

	fprintf(csv, "kernel,mode,n,functions,phase,round,warmup,ms,"
		"ipi1,cal1,tlb1,ipi0,cal0,tlb0,"
		"cr3_1,cr3_full_1,shootdown_1,cr3_0,shootdown_0,csw1");
	for (i = 0; i < NIPIKINDS; i++)
		fprintf(csv, ",fn1_%s", ipi_kinds[i]);
	for (i = 0; i < NVM; i++)
		fprintf(csv, ",%s", vm_names[i] + 3);
	for (i = 0; i < NKSTATS; i++)
		fprintf(csv, ",kv_%s", kstat_names[i]);
	fprintf(csv, ",dm4k_before,dm4k_after,dm2m_before,dm2m_after,dm1g_before,dm1g_after,"
		"glb_before,glb_after,nonglb_kb_before,nonglb_kb_after,view_pages,"
		"hits_traced,hits_other,out_of_scope,ops1,spins1\n");
}

struct hooks {
	struct bpf_link *links[NSITES_MAX + 2];
	int n;
};

static void attach(const struct cfg *c, struct kview *kv, struct hooks *h)
{
	const char *where = kv ? " in the view" : "";
	int i;

	h->n = 0;
	if (kv)
		check(!kview__enter_scope(kv), "enter scope: %s", strerror(errno));
	if (c->multi) {
		LIBBPF_OPTS(bpf_kprobe_multi_opts, mo, .syms = funcs, .cnt = c->n);

		h->links[h->n] = bpf_program__attach_kprobe_multi_opts(skel->progs.hw_multi,
								       NULL, &mo);
		check(h->links[h->n], "kprobe_multi on %d functions%s: %s", c->n, where,
		      strerror(errno));
		h->n++;
	}
	for (i = 0; !c->multi && i < c->n; i++) {
		h->links[h->n] = bpf_program__attach_kprobe(skel->progs.hw_kprobe, false,
							    funcs[i]);
		check(h->links[h->n], "kprobe on %s%s: %s", funcs[i], where, strerror(errno));
		h->n++;
	}
	h->links[h->n] = bpf_program__attach(skel->progs.hw_sys_enter);
	check(h->links[h->n], "raw_syscalls:sys_enter%s: %s", where, strerror(errno));
	h->n++;
	if (kv)
		check(!kview__leave_scope(kv), "leave scope: %s", strerror(errno));
}

static void detach(struct hooks *h)
{
	while (h->n)
		bpf_link__destroy(h->links[--h->n]);
}

/* Until only the keeper is left and dd has left its view (at most 3 s). */
static void views_settled(unsigned long views)
{
	struct sample s;
	int i;

	for (i = 0; i < 300; i++) {
		read_kstats(&s);
		if (s.views <= views && !s.members)
			return;
		usleep(10000);
	}
	progress("warning: views did not settle: %lu views, %lu members", s.views, s.members);
}

static void dump_tables(const char *what, const struct glb *g)
{
	fprintf(ptout, "## %s: %d GLB lines, %lu kB mapped without GLB\n", what, g->lines,
		g->nonglb_kb);
	if (g != &glb_base && !strcmp(g->text, glb_base.text))
		fprintf(ptout, "(the same as before any view)\n\n");
	else
		fprintf(ptout, "%s\n", g->text);
	fflush(ptout);
}

static unsigned long ipis(const struct sample *a, const struct sample *b, int cpu)
{
	return b->cal[cpu] - a->cal[cpu] + b->tlb[cpu] - a->tlb[cpu];
}

static void run(enum mode mode, const struct cfg *c, int round)
{
	struct sample s0, s1, s2, s3, s4;
	struct kview *kv = NULL;
	struct kview_info info = { 0 };
	struct glb g0, g1, g2;
	struct hooks h = { .n = 0 };
	char what[128];

	skel->bss->traced_tgid = dd;
	skel->bss->filter_tgid = mode == IN_EBPF ? dd : 0;
	g0 = read_glb();

	sample(&s0);
	if (mode == VIEW) {
		kv = kview__create(dd, NULL);
		check(kv, "kview__create(%d): %s", dd, strerror(errno));
	}
	if (mode != NONE)
		attach(c, kv, &h);
	sample(&s1);
	if (kv)
		check(!kview__info(kv, &info), "info: %s", strerror(errno));
	g1 = read_glb();
	row(mode, c, "attach", round, &s0, &s1, g0.lines, g1.lines, g0.nonglb_kb,
	    g1.nonglb_kb, info.nr_pages);

	sample(&s2);
	usleep(1000000);
	sample(&s3);
	row(mode, c, "steady", round, &s2, &s3, g1.lines, g1.lines, g1.nonglb_kb,
	    g1.nonglb_kb, info.nr_pages);
	if (mode != NONE && s3.hits_traced == s2.hits_traced)
		progress("warning: %s %s round %d: the programs never ran for dd",
			 mode_names[mode], c->label, round);
	if (mode == VIEW && s3.hits_other != s2.hits_other)
		progress("warning: view %s round %d: programs ran for %llu events of other processes",
			 c->label, round, s3.hits_other - s2.hits_other);

	detach(&h);
	kview__destroy(kv);
	views_settled(1);
	usleep(300000);
	sample(&s4);
	g2 = read_glb();
	row(mode, c, "detach", round, &s3, &s4, g1.lines, g2.lines, g1.nonglb_kb,
	    g2.nonglb_kb, 0);

	if (round <= 1 && mode != NONE) {
		snprintf(what, sizeof(what), "%s, N = %s, round %d: attached", mode_names[mode],
			 c->label, round);
		dump_tables(what, &g1);
		snprintf(what, sizeof(what), "%s, N = %s, round %d: detached", mode_names[mode],
			 c->label, round);
		dump_tables(what, &g2);
	}
	free(g0.text);
	free(g1.text);
	free(g2.text);
	progress("%s round %d: %s N=%s: IPIs attach/steady/detach: CPU 1 %lu/%lu/%lu, CPU 0 %lu/%lu/%lu",
		 kernel, round, mode_names[mode], c->label, ipis(&s0, &s1, 1),
		 ipis(&s2, &s3, 1), ipis(&s3, &s4, 1), ipis(&s0, &s1, 0),
		 ipis(&s2, &s3, 0), ipis(&s3, &s4, 0));
	usleep(300000);
}

/* Is @name in the comma-separated @list? */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	const struct cfg none = { "0", 0, false };
	struct cfg cfgs[] = { { "1", 1, false }, { "16", 16, false },
			      { "64", 64, false }, { "multi", 0, true } };
	const char *cfg_list, *mode_list;
	struct bpf_link *tlb_link, *ipi_links[ARRAY_SIZE(ipi_fns)] = { NULL };
	struct kview *keeper;
	struct sample a, b;
	int rounds, nmulti, r, i, m;
	FILE *ff;

	if (argc != 9) {
		fprintf(stderr, "usage: hwcost KERNEL ROUNDS MULTI CONFIGS MODES OUT.csv PAGETABLES.txt FUNCS.txt\n");
		return 2;
	}
	kernel = argv[1];
	rounds = atoi(argv[2]);
	nmulti = atoi(argv[3]);
	cfg_list = argv[4];
	mode_list = argv[5];
	check(rounds >= 1 && nmulti >= NSITES_MAX && nmulti <= MAXMULTI,
	      "ROUNDS >= 1, MULTI %d..%d", NSITES_MAX, MAXMULTI);
	cfgs[3].n = nmulti;
	pin_to_cpu(0);
	check(sysconf(_SC_NPROCESSORS_ONLN) == 2, "needs 2 CPUs (kvm/run --smp 2)");

	skel = hwcost__open_and_load();
	check(skel, "load hwcost.bpf.o: %s", strerror(errno));
	tlb_link = bpf_program__attach(skel->progs.on_tlb_flush);
	check(tlb_link, "tlb:tlb_flush: %s", strerror(errno));
	for (i = 0; i < (int)ARRAY_SIZE(ipi_fns); i++)
		ipi_links[i] = attach_ipi_probe(ipi_fns[i].fn, ipi_fns[i].kind);
	/* int3 kprobes get optimized into jumps by delayed work: let it run. */
	usleep(1000000);
	pick_functions(nmulti);
	ff = fopen(argv[8], "w");
	check(ff, "%s: %s", argv[8], strerror(errno));
	for (i = 0; i < nfuncs; i++)
		fprintf(ff, "%s\n", funcs[i]);
	fclose(ff);

	csv = fopen(argv[6], "w");
	check(csv, "%s: %s", argv[6], strerror(errno));
	csv_header();
	ptout = fopen(argv[7], "w");
	check(ptout, "%s: %s", argv[7], strerror(errno));

	start_cpu1();
	dd = start_dd();
	usleep(1000000);
	check(sh->ops > 0 && sh->spins > 0, "CPU 1's work does not run (ops %llu, spins %llu)",
	      sh->ops, sh->spins);
	glb_base = read_glb();
	dump_tables("before any view", &glb_base);

	/* The first view after boot: kview's static key, measured once. */
	sample(&a);
	keeper = kview__create(0, NULL);
	check(keeper, "kview__create(0): %s", strerror(errno));
	sample(&b);
	row(FIRST, &none, "create", 0, &a, &b, glb_base.lines, glb_base.lines,
	    glb_base.nonglb_kb, glb_base.nonglb_kb, 0);
	progress("%s: first view made (keeper): IPIs: CPU 1 %lu, CPU 0 %lu", kernel,
		 ipis(&a, &b, 1), ipis(&a, &b, 0));

	/* Warm-up (round 0): the largest view, the fprobe. */
	run(VIEW, &cfgs[3], 0);
	run(GLOBAL, &cfgs[3], 0);

	for (r = 1; r <= rounds; r++) {
		run(NONE, &none, r);
		for (i = 0; i < 4; i++) {
			if (!listed(cfg_list, cfgs[i].label))
				continue;
			for (m = 0; m < 3; m++) {
				enum mode mode = (m + r - 1) % 3;

				if (listed(mode_list, mode_names[mode]))
					run(mode, &cfgs[i], r);
			}
		}
	}

	kview__destroy(keeper);
	bpf_link__destroy(tlb_link);
	for (i = 0; i < (int)ARRAY_SIZE(ipi_fns); i++)
		bpf_link__destroy(ipi_links[i]);
	for (i = 2; i >= 0; i--) {	/* the client first */
		kill(cpu1_pids[i], SIGKILL);
		waitpid(cpu1_pids[i], NULL, 0);
	}
	kill(dd, SIGKILL);
	waitpid(dd, NULL, 0);
	hwcost__destroy(skel);
	fclose(csv);
	fclose(ptout);
	return 0;
}
