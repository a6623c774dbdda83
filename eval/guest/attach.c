// SPDX-License-Identifier: GPL-2.0
/*
 * attach: how long attaching and detaching N kprobe programs takes,
 * globally and in a kernel view, and what a view costs in memory.  Runs in
 * the guest (eval/bench-attach boots it).
 *
 * Three series of N = 1, 2, 4, ..., 64 kprobes:
 *
 *   spread  N distinct functions, chosen evenly over the kernel's text
 *           (ftrace-able, and accepted by a kprobe): in a view, about one
 *           private page per probe;
 *   same    N programs on one function (vfs_read): one page however many;
 *   multi   the spread functions as one kprobe_multi link (an fprobe
 *           globally; in a view one kprobe per function, detached with
 *           one RCU grace period for all); left out, and said so, on a
 *           kernel without kprobe_multi (CONFIG_FPROBE off, as Debian's).
 *   fentry  N fentry programs (BPF trampolines) on N distinct functions
 *           (the spread ones that have BTF and take an fentry program):
 *           an ftrace direct call per function globally, the views'
 *           copies of the sites call the trampolines in a view;
 *   fentry-same  N fentry programs on vfs_read: one trampoline, rebuilt
 *           at each link; N up to 32 (a trampoline holds at most 38
 *           programs, BPF_MAX_TRAMP_LINKS).
 *
 * Every fentry program is loaded before the rounds (a trampoline program
 * is loaded for its function: 2 x N programs), so that attach time is the
 * links', as for the kprobes, whose one program is loaded once.
 *
 * For each, "global" attaches N links for everyone, "kview" makes a view
 * for an idle process and attaches them in it; attach time includes making
 * the view, detach time destroying it.  Times are guest time (icount:
 * instructions, plus the idle time the guest waits, e.g. for RCU grace
 * periods, at which the clock jumps).  Memory is the view's own account
 * (KVIEW_IOC_INFO: patched sites, private text pages, private page-table
 * pages, bytes), next to what a private copy of the whole kernel text
 * (_stext.._etext) per view would take.  Round 0 is a warm-up.
 *
 *   attach ROUNDS MAXN OUT.csv TEXT.csv
 */
#include "evalutil.h"
#include <bpf/btf.h>

#include "kprobe_count.skel.h"

#define MAXN 64

static char funcs[MAXN][256];
static int nfuncs;

/* Append a copy of @s to the growing array *@v of *@n strings. */
static void push(char ***v, size_t *n, size_t *cap, const char *s)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 65536;
		*v = realloc(*v, *cap * sizeof(**v));
		check(*v, "out of memory");
	}
	(*v)[*n] = strdup(s);
	check((*v)[(*n)++], "out of memory");
}

/*
 * MAXN functions spread evenly over the kernel text's traceable functions
 * (kallsyms lists the text in address order), each accepted by a kprobe
 * (which refuses blacklisted functions and names kallsyms has twice):
 * tried globally one by one.
 */
static void pick_functions(struct kprobe_count *skel, unsigned long stext,
			   unsigned long etext)
{
	char line[512], sym[256], t, **cand = NULL;
	size_t ncand = 0, cap = 0, i;
	libbpf_print_fn_t old;
	unsigned long addr;
	FILE *f = fopen("/proc/kallsyms", "r");

	check(f, "/proc/kallsyms: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %255s", &addr, &t, sym) != 3 ||
		    (t != 't' && t != 'T') || addr < stext || addr >= etext ||
		    !ftrace_traceable(sym))
			continue;
		if (ncand && !strcmp(cand[ncand - 1], sym))
			continue;
		push(&cand, &ncand, &cap, sym);
	}
	fclose(f);
	check(ncand >= 2 * MAXN, "only %zu traceable functions", ncand);

	old = libbpf_set_print(NULL);	/* refusals are expected here */
	for (i = 0; nfuncs < MAXN; i++) {
		struct bpf_link *l;

		/* The next candidate at or after the even spot. */
		if (i < (size_t)nfuncs * ncand / MAXN)
			i = (size_t)nfuncs * ncand / MAXN;
		if (i >= ncand)
			break;
		l = bpf_program__attach_kprobe(skel->progs.count_read, false, cand[i]);
		if (!l)
			continue;
		bpf_link__destroy(l);
		snprintf(funcs[nfuncs++], sizeof(funcs[0]), "%s", cand[i]);
	}
	libbpf_set_print(old);
	for (i = 0; i < ncand; i++)
		free(cand[i]);
	free(cand);
	check(nfuncs == MAXN, "found only %d kprobe-able functions", nfuncs);
}

struct result {
	long long attach_ns, detach_ns;
	struct kview_info info;
};

enum series { SPREAD, SAME, MULTI, FENTRY, FENTRY_SAME, NR_SERIES };

static const char *const series_names[NR_SERIES] = {
	"spread", "same", "multi", "fentry", "fentry-same"
};

/* Loaded fentry programs: on funcs[i], and on vfs_read. */
#define MAX_SAME_FENTRY 32	/* a power of 2 below BPF_MAX_TRAMP_LINKS */
static int fentry_fds[MAXN], fentry_same_fds[MAX_SAME_FENTRY];

/* An fentry program that returns 0 on the function with BTF id @btf_id. */
static int load_fentry(__u32 btf_id)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = btf_id);

	return bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns,
			     sizeof(insns) / sizeof(insns[0]), &opts);
}

/* An fentry program on @name that attaches (globally), or -1. */
static int try_fentry(struct btf *btf, const char *name)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
	int fd, link;

	if (id <= 0)
		return -1;
	fd = load_fentry(id);
	if (fd < 0)
		return -1;
	link = bpf_link_create(fd, 0, BPF_TRACE_FENTRY, NULL);
	if (link < 0) {
		close(fd);
		return -1;
	}
	close(link);
	return fd;
}

/*
 * Load an fentry program for each of funcs[] and MAXN for vfs_read.  The
 * spread functions are kprobe-able, hence traceable; one without BTF (or
 * that fentry refuses) is replaced by the first traceable core-text
 * function after it in kallsyms order that takes one (ffuncs[]).
 */
static char ffuncs[MAXN][256];

static void load_fentries(unsigned long stext, unsigned long etext)
{
	struct btf *btf = btf__load_vmlinux_btf();
	char line[512], sym[256], t;
	unsigned long addr, at;
	int i, id;
	FILE *f;

	check(btf, "vmlinux BTF: %s", strerror(errno));
	for (i = 0; i < MAXN; i++) {
		snprintf(ffuncs[i], sizeof(ffuncs[i]), "%.255s", funcs[i]);
		fentry_fds[i] = try_fentry(btf, funcs[i]);
		if (fentry_fds[i] >= 0)
			continue;
		at = ksym(funcs[i]);
		f = fopen("/proc/kallsyms", "r");
		check(f, "/proc/kallsyms: %s", strerror(errno));
		while (fentry_fds[i] < 0 && fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%lx %c %255s", &addr, &t, sym) != 3 ||
			    (t != 't' && t != 'T') || addr <= at || addr >= etext ||
			    addr < stext || !ftrace_traceable(sym))
				continue;
			fentry_fds[i] = try_fentry(btf, sym);
			if (fentry_fds[i] >= 0)
				snprintf(ffuncs[i], sizeof(ffuncs[i]), "%.255s", sym);
		}
		fclose(f);
		check(fentry_fds[i] >= 0, "no fentry-able function after %s", funcs[i]);
	}
	id = btf__find_by_name_kind(btf, "vfs_read", BTF_KIND_FUNC);
	check(id > 0, "no BTF for vfs_read");
	for (i = 0; i < MAX_SAME_FENTRY; i++) {
		fentry_same_fds[i] = load_fentry(id);
		check(fentry_same_fds[i] >= 0, "load fentry on vfs_read: %s", strerror(errno));
	}
	btf__free(btf);
}

static void one(struct kprobe_count *skel, enum series series, bool in_view,
		int n, pid_t idle, struct result *res)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, mopts, .cnt = n);
	const char *syms[MAXN];
	struct bpf_link *links[MAXN];
	int link_fds[MAXN];
	struct kview *kv = NULL;
	int i, nlinks = n;
	long long t0;

	memset(res, 0, sizeof(*res));
	t0 = now_ns();
	if (in_view) {
		kv = kview__create(idle, NULL);
		check(kv, "kview__create: %s", strerror(errno));
		check(!kview__enter_scope(kv), "enter scope: %s", strerror(errno));
	}
	if (series == MULTI) {
		for (i = 0; i < n; i++)
			syms[i] = funcs[i];
		mopts.syms = syms;
		links[0] = bpf_program__attach_kprobe_multi_opts(skel->progs.count_multi,
								 NULL, &mopts);
		check(links[0], "attach kprobe_multi on %d function(s) (%s): %s", n,
		      in_view ? "kview" : "global", strerror(errno));
		nlinks = 1;
	}
	for (i = 0; (series == SPREAD || series == SAME) && i < n; i++) {
		const char *fn = series == SPREAD ? funcs[i] : "vfs_read";

		links[i] = bpf_program__attach_kprobe(skel->progs.count_read, false, fn);
		check(links[i], "attach kprobe %s (%s): %s", fn,
		      in_view ? "kview" : "global", strerror(errno));
	}
	for (i = 0; (series == FENTRY || series == FENTRY_SAME) && i < n; i++) {
		int fd = series == FENTRY ? fentry_fds[i] : fentry_same_fds[i];

		link_fds[i] = bpf_link_create(fd, 0, BPF_TRACE_FENTRY, NULL);
		check(link_fds[i] >= 0, "attach fentry on %s (%s): %s",
		      series == FENTRY ? ffuncs[i] : "vfs_read",
		      in_view ? "kview" : "global", strerror(errno));
	}
	if (kv)
		check(!kview__leave_scope(kv), "leave scope: %s", strerror(errno));
	res->attach_ns = now_ns() - t0;
	if (kv)
		check(!kview__info(kv, &res->info), "info: %s", strerror(errno));
	t0 = now_ns();
	if (series == FENTRY || series == FENTRY_SAME) {
		for (i = 0; i < n; i++)
			close(link_fds[i]);
		nlinks = 0;
	}
	for (i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	kview__destroy(kv);
	res->detach_ns = now_ns() - t0;
}

int main(int argc, char **argv)
{
	char *sleeper[] = { "sleep", "100000", NULL };
	unsigned long stext, etext;
	struct kprobe_count *skel;
	int rounds, maxn, r, n, v;
	LIBBPF_OPTS(bpf_kprobe_multi_opts, probe, .cnt = 1);
	struct bpf_link *link;
	const char *sym0;
	bool has_multi;
	enum series s;
	struct result res;
	FILE *out, *text;
	pid_t idle;

	if (argc != 5) {
		fprintf(stderr, "usage: attach ROUNDS MAXN OUT.csv TEXT.csv\n");
		return 2;
	}
	rounds = atoi(argv[1]);
	maxn = atoi(argv[2]);
	check(rounds >= 1 && maxn >= 1 && maxn <= MAXN, "ROUNDS >= 1, MAXN 1..%d", MAXN);
	skel = kprobe_count__open_and_load();
	check(skel, "load: %s", strerror(errno));
	stext = ksym("_stext");
	etext = ksym("_etext");
	pick_functions(skel, stext, etext);
	load_fentries(stext, etext);
	/* Whether the kernel has kprobe_multi links at all. */
	sym0 = funcs[0];
	probe.syms = &sym0;
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.count_multi, NULL, &probe);
	has_multi = link;
	check(link || errno == EOPNOTSUPP, "kprobe_multi on %s: %s", funcs[0], strerror(errno));
	bpf_link__destroy(link);
	if (!has_multi)
		progress("this kernel has no kprobe_multi links (CONFIG_FPROBE off): the multi series is left out");

	text = fopen(argv[4], "w");
	check(text, "%s: %s", argv[4], strerror(errno));
	fprintf(text, "text_bytes,text_pages,pt_pages_4k,first_function,last_function\n");
	fprintf(text, "%lu,%lu,%lu,%s,%s\n", etext - stext, (etext - stext + 4095) / 4096,
		(etext - stext + (2UL << 20) - 1) >> 21, funcs[0], funcs[MAXN - 1]);
	fclose(text);

	out = fopen(argv[3], "w");
	check(out, "%s: %s", argv[3], strerror(errno));
	fprintf(out, "bench,clock,series,mode,n,round,warmup,attach_ns,detach_ns,patches,pages,pt_pages,bytes\n");
	idle = spawn_stopped(sleeper);
	resume(idle);
	for (r = 0; r <= rounds; r++) {
		for (s = 0; s < NR_SERIES; s++) {
			if (s == MULTI && !has_multi)
				continue;
			for (n = 1; n <= maxn; n *= 2) {
				if (s == FENTRY_SAME && n > MAX_SAME_FENTRY)
					break;
				for (v = 0; v < 2; v++) {
					bool in_view = (v + r) % 2;

					one(skel, s, in_view, n, idle, &res);
					fprintf(out, "attach,%s,%s,%s,%d,%d,%d,%lld,%lld,%u,%u,%u,%llu\n",
						clock_name(), series_names[s],
						in_view ? "kview" : "global", n, r, r == 0,
						res.attach_ns, res.detach_ns, res.info.nr_patches,
						res.info.nr_pages, res.info.nr_pt_pages,
						(unsigned long long)res.info.bytes);
					fflush(out);
				}
			}
			progress("round %d/%d: %s series, N = 1..%d, global and kview", r,
				 rounds, series_names[s], maxn);
		}
	}
	kill(idle, SIGKILL);
	wait_exit(idle);
	kprobe_count__destroy(skel);
	fclose(out);
	return 0;
}
