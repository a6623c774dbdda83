// SPDX-License-Identifier: GPL-2.0
/*
 * kview-multi: BPF kprobe_multi links (libbpf's kprobe.multi/ and
 * kretprobe.multi/, bpftrace's wildcard kprobes) in a kernel view.  In a
 * view that scopes hooks the link is one kprobe per function in the view's
 * text (probes in its copies, the global text untouched); its program sees
 * what an fprobe would show it (bpf_get_func_ip(), the attach cookie of
 * the function, the return value) for the view's processes and nobody
 * else: exactly what the in-eBPF filter (pid == N on the read and write
 * syscall tracepoints, attached globally in the same run) counts.
 *
 * On a kernel without fprobe (CONFIG_FPROBE off, as in Debian's 6.1) every
 * mode checks instead that kprobe_multi fails with EOPNOTSUPP in a view as
 * it does globally, leaving nothing behind.
 *
 * Target and decoy both run `dd if=/dev/zero of=/dev/null bs=1 count=N`
 * (N reads and N writes of one byte), started stopped after exec.
 *
 *   kview-multi entry    kprobe.multi on ksys_read and ksys_write, with
 *                        cookies
 *   kview-multi return   kretprobe.multi on the same, return values
 *   kview-multi mixed    entry in the view and, at once, the same link
 *                        globally (an fprobe): each sees what it should
 *   kview-multi filter   entry in a filter view (pre-eBPF): the fprobe
 *                        stays global, the program sees the target only
 *   kview-multi many     every traceable vfs_* function in one link: all
 *                        armed in the view only, all gone after detach
 *   kview-multi bad      an address that is no function entry: EINVAL, as
 *                        globally, and nothing left in the view; a view
 *                        whose link is gone can be made again at once
 *   kview-multi dup      a function given twice: one kprobe, one event a
 *                        call; a function on the kprobe blacklist that
 *                        the fprobe takes globally: EINVAL in the view
 *   kview-multi session  a kprobe session on ksys_read in the view
 *
 * One suite (tests/lib/harness.h): the fixture is what a case makes (the
 * processes, the view, the objects, links and link fds), released by its
 * teardown if a check failed first; the variant of the link cases says
 * which flavour, view and global link they take.  Without fprobe, every
 * case is the check of EOPNOTSUPP.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <sys/syscall.h>

#include "kvtest.h"
#include "multi.skel.h"
#include "session.skel.h"

#define READS 5000
#define MAX_FUNCS 1024

struct hit_key {
	__u32 tgid;
	__u32 ret;
	__u64 ip;
};

struct hit {
	__u64 count;
	__u64 cookie;
	__u64 bad_cookie;
	__u64 ret_one;
};

struct mu_variant {
	bool ret;		/* kretprobe.multi */
	bool mixed;		/* the same link globally too */
	bool filter;		/* in a filter view */
};

/* What the case made; NULL or 0 is what it did not, or released. */
struct mu {
	pid_t target, decoy;
	struct kview *kv;
	struct multi *view, *global;
	struct session *sview, *sglobal;
	struct bpf_link *ref_links[4], *view_link, *global_link;
	int vfd, gfd;				/* session links */
	unsigned long ip[2], site[2];		/* ksys_read's, ksys_write's */
	unsigned char gbefore[2];		/* the global text at site[] */
};

static struct multi *load(unsigned int filter)
{
	struct multi *skel = multi__open();

	check(skel, "open multi.bpf.o: %s", strerror(errno));
	skel->rodata->filter_tgid = filter;
	check(!multi__load(skel), "load multi.bpf.o: %s", strerror(errno));
	return skel;
}

/* Detach, close the view and the objects. */
static void mu_release(struct mu *f)
{
	size_t i;

	release_link(&f->global_link);
	release_link(&f->view_link);
	release_fd(&f->gfd);
	release_fd(&f->vfd);
	for (i = 0; i < 4; i++)
		release_link(&f->ref_links[i]);
	release_view(&f->kv);
	multi__destroy(f->global);
	multi__destroy(f->view);
	session__destroy(f->sglobal);
	session__destroy(f->sview);
	f->global = f->view = NULL;
	f->sglobal = f->sview = NULL;
}

static void mu_teardown(void *fixture, const void *variant)
{
	struct mu *f = fixture;

	(void)variant;
	reap_child(f->target);
	reap_child(f->decoy);
	mu_release(f);
}

/* Check the view is empty, close it; release the rest; nothing is left. */
static void mu_done(struct mu *f)
{
	check_view_empty_destroy(f->kv);
	f->kv = NULL;
	mu_release(f);
	check_stats_clean();
}

/* The target and the decoy running @dd, stopped; the target's view (@opts). */
static void spawn_pair(struct mu *f, char **dd, const struct kview_opts *opts)
{
	f->target = spawn_stopped(dd);
	f->decoy = spawn_stopped(dd);
	f->kv = kview__create(f->target, opts);
	check(f->kv, "kview__create(%d): %s", f->target, strerror(errno));
}

static void run_pair(struct mu *f)
{
	resume(f->target);
	resume(f->decoy);
	check_eq(wait_exit(f->target), 0);
	check_eq(wait_exit(f->decoy), 0);
}

/* The program's events for @tgid at @ip (ret: the return flavour). */
static struct hit hits(struct multi *skel, pid_t tgid, int ret,
		       unsigned long ip)
{
	struct hit_key k = { .tgid = tgid, .ret = ret, .ip = ip };
	struct hit h = { 0 };

	bpf_map_lookup_elem(bpf_map__fd(skel->maps.hits), &k, &h);
	return h;
}

/* How many (process, function) entries the program has for @tgid. */
static size_t keys_of(struct multi *skel, pid_t tgid, size_t *others)
{
	struct hit_key k, next, *prev = NULL;
	int fd = bpf_map__fd(skel->maps.hits);
	size_t n = 0;

	*others = 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (next.tgid == (__u32)tgid)
			n++;
		else
			(*others)++;
		k = next;
		prev = &k;
	}
	return n;
}

static __u64 ref(struct multi *skel, __u32 idx)
{
	__u64 v = 0;

	bpf_map_lookup_elem(bpf_map__fd(skel->maps.ref), &idx, &v);
	return v;
}

static struct bpf_link *attach_multi(struct multi *skel, struct kview *kv,
				     bool ret, const char **syms,
				     const __u64 *cookies, size_t cnt)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .syms = syms,
		    .cookies = cookies, .cnt = cnt, .retprobe = ret);
	struct bpf_program *prog = ret ? skel->progs.km_return :
					 skel->progs.km_entry;
	struct bpf_link *link;
	int err;

	if (kv)
		check(!kview__enter_scope(kv), "enter the view's scope: %s",
		      strerror(errno));
	link = bpf_program__attach_kprobe_multi_opts(prog, NULL, &opts);
	err = errno;
	if (kv)
		kview__leave_scope(kv);
	check(link, "attach %s on %zu function(s)%s: %s",
	      bpf_program__name(prog), cnt, kv ? " in the view" : "",
	      strerror(err));
	return link;
}

/*
 * km_entry on @opts's functions in @kv's attach scope: the link, or NULL
 * with the errno in @err.
 */
static struct bpf_link *attach_in_scope(struct multi *skel, struct kview *kv,
					const struct bpf_kprobe_multi_opts *opts,
					int *err)
{
	struct bpf_link *link;

	check(!kview__enter_scope(kv), "enter the view's scope: %s", strerror(errno));
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.km_entry, NULL, opts);
	*err = link ? 0 : errno;
	kview__leave_scope(kv);
	return link;
}

/*
 * Up to @max functions named @prefix* with an ftrace site (available_
 * filter_functions, as kprobe_multi needs), in the core kernel, one symbol
 * of the name, and on the kprobe blacklist or not (@blacklisted).
 */
static size_t traceable(const char *prefix, bool blacklisted, char **names,
			size_t max)
{
	char *bl = kvtest_slurp("/sys/kernel/debug/kprobes/blacklist");
	char *funcs = kvtest_slurp("/sys/kernel/tracing/available_filter_functions");
	static bool ambiguous[MAX_FUNCS];
	char *line, *save = NULL, pat[160];
	size_t n = 0, i, j;

	for (line = strtok_r(funcs, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		bool dup = false;

		if (strncmp(line, prefix, strlen(prefix)) || strchr(line, ' '))
			continue;	/* not ours, or a module's ("f [mod]") */
		snprintf(pat, sizeof(pat), "\t%s\n", line);
		if (!strstr(bl, pat) != !blacklisted)
			continue;
		for (j = 0; j < n && !dup; j++) {
			/* A name twice is ambiguous: leave it out. */
			dup = !strcmp(names[j], line);
			if (dup)
				ambiguous[j] = true;
		}
		if (!dup)
			names[n++] = strdup(line);
	}
	for (i = j = 0; i < n; i++) {
		if (ambiguous[i])
			free(names[i]);
		else
			names[j++] = names[i];
	}
	free(bl);
	free(funcs);
	return j;
}

static void test_many(void *fixture, const void *variant)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=2000", "status=none", NULL };
	static char *names[MAX_FUNCS];
	struct mu *f = fixture;
	struct kview_info info;
	unsigned int nviews;
	size_t n, mine, others;
	struct hit h;
	double t0, t_attach, t_detach;

	(void)variant;
	n = traceable("vfs_", false, names, MAX_FUNCS);
	check(n >= 20, "only %zu traceable vfs_* functions", n);
	spawn_pair(f, dd, NULL);
	f->view = load(f->target);

	t0 = kvtest_now();
	f->view_link = attach_multi(f->view, f->kv, false, (const char **)names, NULL, n);
	t_attach = kvtest_now() - t0;
	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	diag("%zu vfs_* functions in one link: %u attachment(s), %u site(s), %u text page(s), %u table page(s); attached in %.3f s",
	     n, info.nr_attachments, info.nr_patches, info.nr_pages,
	     info.nr_pt_pages, t_attach);
	check_eq(info.nr_attachments, n);
	check_eq(info.nr_patches, n);
	check_eq(kview_verify_total(&nviews), 0);

	run_pair(f);
	h = hits(f->view, f->target, 0, ksym("vfs_read"));
	mine = keys_of(f->view, f->target, &others);
	diag("target %d: %llu vfs_read, %zu function(s) hit; other processes: %zu entries",
	     f->target, (unsigned long long)h.count, mine, others);
	check(h.count >= 2000, "vfs_read seen %llu times for 2000 reads",
	      (unsigned long long)h.count);
	check_eq(others, 0);

	t0 = kvtest_now();
	release_link(&f->view_link);
	t_detach = kvtest_now() - t0;
	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	diag("detached in %.3f s: %u attachment(s), %u site(s), %u page(s) left",
	     t_detach, info.nr_attachments, info.nr_patches, info.nr_pages);
	mu_done(f);
}

/* ksys_read given twice: one kprobe, one event a call, as in-eBPF counts. */
static void dup_twice(struct mu *f)
{
	unsigned long twice[2] = { ksym("ksys_read"), ksym("ksys_read") };
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .addrs = twice, .cnt = 2);
	struct kview_info info;
	struct hit h;
	int err;

	f->ref_links[0] = bpf_program__attach(f->view->progs.ref_enter_read);
	check(f->ref_links[0], "attach the in-eBPF reference: %s", strerror(errno));
	/* By name the kernel refuses a name twice (ESRCH): by address. */
	f->view_link = attach_in_scope(f->view, f->kv, &opts, &err);
	check(f->view_link, "attach km_entry on ksys_read twice in the view: %s",
	      strerror(err));
	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	diag("ksys_read twice: %u site(s), %u attachment(s)", info.nr_patches,
	     info.nr_attachments);
	check_eq(info.nr_patches, 1);
	resume(f->target);
	check_eq(wait_exit(f->target), 0);
	h = hits(f->view, f->target, 0, ksym("ksys_read"));
	diag("target %d: kview %llu, in-eBPF %llu", f->target,
	     (unsigned long long)h.count, (unsigned long long)ref(f->view, 0));
	check(ref(f->view, 0) >= 3000, "in-eBPF saw only %llu reads",
	      (unsigned long long)ref(f->view, 0));
	check_eq(h.count, ref(f->view, 0));
	release_link(&f->view_link);
	release_link(&f->ref_links[0]);
}

/* A function on the kprobe blacklist: the fprobe takes it, a view not. */
static void dup_blacklisted(struct mu *f)
{
	char *bnames[64];
	const char **bsyms = (const char **)bnames;
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .syms = bsyms, .cnt = 1);
	int err;

	check(traceable("", true, bnames, 64) >= 1,
	      "no function both traceable and on the kprobe blacklist");
	f->global_link = attach_multi(f->view, NULL, false, bsyms, NULL, 1);
	release_link(&f->global_link);
	f->view_link = attach_in_scope(f->view, f->kv, &opts, &err);
	release_link(&f->view_link);
	diag("%s (kprobe blacklist): globally attached, in the view %s",
	     bnames[0], strerror(err));
	check_eq(err, EINVAL);
}

/*
 * A function given twice gets one kprobe (the fprobe's filter holds it
 * once, and its program runs once a call); a function the fprobe takes
 * but kprobes do not (the kprobe blacklist) is refused in a view.
 */
static void test_dup(void *fixture, const void *variant)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=3000", "status=none", NULL };
	struct mu *f = fixture;

	(void)variant;
	f->target = spawn_stopped(dd);
	f->kv = kview__create(f->target, NULL);
	check(f->kv, "kview__create(%d): %s", f->target, strerror(errno));
	f->view = load(f->target);
	dup_twice(f);
	dup_blacklisted(f);
	mu_done(f);
}

/*
 * A link on a function entry and a non-entry (the instruction after
 * ksys_write's ftrace site): refused whole, cleanly, as outside a view.
 */
static void test_bad(void *fixture, const void *variant)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .cnt = 2);
	unsigned long addrs[2] = { ksym("ksys_read"), ksym_site("ksys_write") + 5 };
	struct mu *f = fixture;
	struct kview_info info;
	int gerr, verr;

	(void)variant;
	opts.addrs = addrs;
	f->view = load(0);
	/*
	 * A link that worked, gone with its view: the process joins a new
	 * view at once (the link lets go of its view when it is released,
	 * not a grace period later when it is freed).
	 */
	f->kv = kview__create(getpid(), NULL);
	check(f->kv, "kview__create(self): %s", strerror(errno));
	f->view_link = attach_multi(f->view, f->kv, false, (const char *[]){ "ksys_read" },
				    NULL, 1);
	release_link(&f->view_link);
	release_view(&f->kv);
	f->kv = kview__create(getpid(), NULL);
	check(f->kv, "kview__create(self) again, at once: %s", strerror(errno));
	f->global_link = bpf_program__attach_kprobe_multi_opts(f->view->progs.km_entry,
							       NULL, &opts);
	gerr = f->global_link ? 0 : errno;
	release_link(&f->global_link);
	f->view_link = attach_in_scope(f->view, f->kv, &opts, &verr);
	release_link(&f->view_link);
	diag("ksys_read and ksys_write+%#lx: globally %s, in the view %s",
	     addrs[1] - ksym("ksys_write"), strerror(gerr), strerror(verr));
	check_eq(gerr, EINVAL);
	check_eq(verr, EINVAL);
	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_refused, 0);
	mu_done(f);
}

/*
 * A kernel without CONFIG_FPROBE (Debian's 6.1) has no kprobe_multi links
 * at all: there a view must fail them as the global attach fails them,
 * with EOPNOTSUPP, nothing recorded in the view and nothing left behind
 * (tools fall back to one kprobe per function, as bpftrace does).  Every
 * case checks this on such a kernel.
 */
static void without_fprobe(void *fixture, const void *variant)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=5000", "status=none", NULL };
	const struct mu_variant *v = variant;
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .syms = (const char *[]){ "ksys_read" },
		    .cnt = 1, .retprobe = v->ret);
	struct mu *f = fixture;
	struct kview_info info;
	int err;

	f->view = load(0);
	f->global_link = bpf_program__attach_kprobe_multi_opts(f->view->progs.km_entry,
							       NULL, &opts);
	err = errno;
	check(!f->global_link && err == EOPNOTSUPP,
	      "global kprobe_multi on a kernel without fprobe: %s",
	      f->global_link ? "attached" : strerror(err));
	f->target = spawn_stopped(dd);
	f->kv = kview__create(f->target, NULL);
	check(f->kv, "kview__create(%d): %s", f->target, strerror(errno));
	f->view_link = attach_in_scope(f->view, f->kv, &opts, &err);
	check(!f->view_link && err == EOPNOTSUPP,
	      "kprobe_multi in a view on a kernel without fprobe: %s",
	      f->view_link ? "attached" : strerror(err));
	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_attachments, 0);
	check_view_empty_destroy(f->kv);
	f->kv = NULL;
	kill(f->target, SIGKILL);
	waitpid(f->target, NULL, 0);
	mu_release(f);
	check_stats_clean();
	printf("# no fprobe in this kernel: kprobe_multi fails with EOPNOTSUPP globally and in a view, nothing left\n");
}

/* BPF_TRACE_KPROBE_SESSION (Linux 6.10), which the build's headers lack. */
#define TEST_TRACE_KPROBE_SESSION 56

struct session_counts {
	__u64 n[4];	/* entries, returns, bad cookies, skipped returns */
};

/*
 * A kprobe session link on ksys_read for @skel's program, in @kv's attach
 * scope or globally: BPF_LINK_CREATE by hand (libbpf 1.1 has no sessions).
 */
static int session_link(struct session *skel, struct kview *kv)
{
	const char *syms[] = { "ksys_read" };
	union bpf_attr attr;
	int fd, err;

	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = bpf_program__fd(skel->progs.ks_read);
	attr.link_create.attach_type = TEST_TRACE_KPROBE_SESSION;
	attr.link_create.kprobe_multi.syms = (__u64)(unsigned long)syms;
	attr.link_create.kprobe_multi.cnt = 1;
	if (kv && kview__enter_scope(kv))
		return -1;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	err = fd < 0 ? errno : 0;
	if (kv)
		kview__leave_scope(kv);
	errno = err;
	return fd;
}

static struct session *load_session(pid_t filter)
{
	struct session *skel = session__open();

	check(skel, "open session.bpf.o: %s", strerror(errno));
	skel->rodata->filter_tgid = filter;
	bpf_program__set_expected_attach_type(skel->progs.ks_read,
					      (enum bpf_attach_type)TEST_TRACE_KPROBE_SESSION);
	check(!session__load(skel), "load session.bpf.o: %s", strerror(errno));
	return skel;
}

static struct session_counts session_of(struct session *skel, pid_t tgid)
{
	struct session_counts c = {};
	__u32 k = tgid;

	bpf_map_lookup_elem(bpf_map__fd(skel->maps.sessions), &k, &c);
	return c;
}

/*
 * The in-eBPF reference and a session link on ksys_read in the view, and
 * one globally: the view's copy calls kprobe_view_caller, the global text
 * an fprobe's call.
 */
static void session_attach(struct mu *f)
{
	struct kview_info info;
	unsigned char vb[5], gb[5];

	f->ref_links[0] = bpf_program__attach(f->sview->progs.ref_read);
	check(f->ref_links[0], "attach the in-eBPF reference: %s", strerror(errno));
	f->vfd = session_link(f->sview, f->kv);
	check(f->vfd >= 0, "kprobe session in the view: %s", strerror(errno));
	f->gfd = session_link(f->sglobal, NULL);
	check(f->gfd >= 0, "kprobe session globally: %s", strerror(errno));

	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_attachments, 1);
	check_eq(info.nr_patches, 1);
	check_view_kprobe_insn(f->kv, ksym_site("ksys_read"), true);
	check(!kview__read_text(f->kv, ksym_site("ksys_read"), vb, gb, 5),
	      "read text: %s", strerror(errno));
	check(gb[0] == 0xe8, "the global session did not arm ksys_read");
}

/*
 * The view's session saw the target's entries and one-byte returns as the
 * in-eBPF reference did, with good cookies, and nothing of the decoy; the
 * global one saw both.
 */
static void session_counts(struct mu *f)
{
	struct session_counts vt, vd, gt, gd;
	__u64 entries, ones;
	__u32 k;

	k = 0;
	check(!bpf_map_lookup_elem(bpf_map__fd(f->sview->maps.ref), &k, &entries), "ref");
	k = 1;
	check(!bpf_map_lookup_elem(bpf_map__fd(f->sview->maps.ref), &k, &ones), "ref");
	vt = session_of(f->sview, f->target);
	vd = session_of(f->sview, f->decoy);
	gt = session_of(f->sglobal, f->target);
	gd = session_of(f->sglobal, f->decoy);
	diag("target: in-eBPF %llu read(s), %llu of one byte; view session %llu entries, %llu returns (%llu bad cookie(s), %llu skipped return(s)); global %llu/%llu",
	     (unsigned long long)entries, (unsigned long long)ones,
	     (unsigned long long)vt.n[0], (unsigned long long)vt.n[1],
	     (unsigned long long)vt.n[2], (unsigned long long)vt.n[3],
	     (unsigned long long)gt.n[0], (unsigned long long)gt.n[1]);
	diag("decoy: view session %llu entries; global %llu entries, %llu returns",
	     (unsigned long long)vd.n[0], (unsigned long long)gd.n[0],
	     (unsigned long long)gd.n[1]);
	check(ones >= 5000, "in-eBPF saw only %llu one-byte reads", (unsigned long long)ones);
	check(entries > ones, "no read the session's entry skips the return of");
	check_eq(vt.n[0], entries);
	check_eq(vt.n[1], ones);
	check_eq(vt.n[2], 0);
	check_eq(vt.n[3], 0);
	check_eq(vd.n[0] + vd.n[1] + vd.n[2] + vd.n[3], 0);
	check_eq(gt.n[0], entries);
	check_eq(gt.n[1], ones);
	check(gd.n[1] >= 5000, "the global session missed the decoy: %llu",
	      (unsigned long long)gd.n[1]);
	check_eq(gd.n[2] + gd.n[3], 0);
}

/*
 * A kprobe session (kprobe.session) on ksys_read in a view: a kretprobe per
 * function whose entry handler runs the program and skips the return when
 * it returns non-zero, with a cookie per call.  The program runs its return
 * for reads of one byte only: the view's target must see exactly the
 * in-eBPF reference's entries and one-byte reads, every return with the
 * cookie its entry left, and the decoy nothing; a global session on the
 * same function, the decoy too.  Kernels before 6.10 have no sessions.
 */
static void test_session(void *fixture, const void *variant)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=5000", "status=none", NULL };
	struct mu *f = fixture;

	(void)variant;
	if (!ksym_find("bpf_session_cookie")) {
		printf("# no kprobe sessions in this kernel (they came in 6.10): nothing to scope\n");
		return;
	}
	f->target = spawn_stopped(dd);
	f->decoy = spawn_stopped(dd);
	f->sview = load_session(f->target);
	f->sglobal = load_session(0);
	f->kv = kview__create(f->target, NULL);
	check(f->kv, "kview__create(%d): %s", f->target, strerror(errno));
	session_attach(f);
	run_pair(f);
	session_counts(f);
	release_fd(&f->gfd);
	release_fd(&f->vfd);
	release_link(&f->ref_links[0]);
	mu_done(f);
}

/* The two functions the links of test_links() go on, and their cookies. */
static const char *link_syms[] = { "ksys_read", "ksys_write" };
static const __u64 link_cookies[] = { 0x1111, 0x2222 };

/*
 * After the target and the decoy ran: each function's view program saw
 * the target as often as the in-eBPF reference (and with its cookie), and
 * a global link of the mixed mode saw both.
 */
static void check_counts(struct multi *view, struct multi *global, bool ret,
			 pid_t target, pid_t decoy, const unsigned long *ip)
{
	size_t mine, others;
	int i;

	for (i = 0; i < 2; i++) {
		struct hit h = hits(view, target, ret, ip[i]);
		__u64 want = ret ? ref(view, 2 + i) : ref(view, i);
		__u64 got = ret ? h.ret_one : h.count;

		diag("%s: target %d: kview %llu (cookie %#llx, %llu bad), in-eBPF %llu; decoy %d: kview %llu",
		     link_syms[i], target, (unsigned long long)got,
		     (unsigned long long)h.cookie,
		     (unsigned long long)h.bad_cookie,
		     (unsigned long long)want, decoy,
		     (unsigned long long)hits(view, decoy, ret, ip[i]).count);
		check(want >= READS, "in-eBPF saw only %llu of %d",
		      (unsigned long long)want, READS);
		check_eq(got, want);
		check_eq(h.cookie, link_cookies[i]);
		check_eq(h.bad_cookie, 0);
		if (global) {
			struct hit gt = hits(global, target, ret, ip[i]);
			struct hit gd = hits(global, decoy, ret, ip[i]);

			diag("global link: target %llu, decoy %llu",
			     (unsigned long long)gt.count,
			     (unsigned long long)gd.count);
			check_eq(gt.count, h.count);
			check(gd.count >= READS, "the global link missed the decoy: %llu",
			      (unsigned long long)gd.count);
		}
	}
	mine = keys_of(view, target, &others);
	check_eq(mine, 2);
	check_eq(others, 0);
}

/*
 * The in-eBPF reference (view's object: pid == N on the read and write
 * syscall tracepoints) and the view's link; for mixed the same link
 * globally too.
 */
static void links_attach(struct mu *f, const struct mu_variant *v)
{
	int i;

	f->view = load(f->target);
	f->ref_links[0] = bpf_program__attach(f->view->progs.ref_enter_read);
	f->ref_links[1] = bpf_program__attach(f->view->progs.ref_enter_write);
	f->ref_links[2] = bpf_program__attach(f->view->progs.ref_exit_read);
	f->ref_links[3] = bpf_program__attach(f->view->progs.ref_exit_write);
	for (i = 0; i < 4; i++)
		check(f->ref_links[i], "attach the in-eBPF reference: %s",
		      strerror(errno));
	f->view_link = attach_multi(f->view, f->kv, v->ret, link_syms, link_cookies, 2);
	if (v->mixed) {
		f->global = load(0);
		f->global_link = attach_multi(f->global, NULL, v->ret, link_syms,
					      link_cookies, 2);
	}
}

/*
 * Attached: each function's site in the view calls kprobe_view_caller and
 * the global text is as before (filter: the fprobe arms the global site,
 * for everyone); two attachments.
 */
static void check_links_armed(struct mu *f, const struct mu_variant *v)
{
	unsigned char vbuf[1], gbuf[1];
	struct kview_info info;
	unsigned int nviews;
	int i;

	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	for (i = 0; i < 2; i++) {
		check(!kview__read_text(f->kv, f->site[i], vbuf, gbuf, 1),
		      "read text: %s", strerror(errno));
		diag("%s at %#lx: view %02x, global %02x (before: %02x)",
		     link_syms[i], f->site[i], vbuf[0], gbuf[0], f->gbefore[i]);
		if (v->filter) {
			/* The fprobe arms ftrace's call, for everyone. */
			check(gbuf[0] != f->gbefore[i], "the fprobe did not arm %s",
			      link_syms[i]);
			check_eq(vbuf[0], gbuf[0]);
		} else {
			check_view_kprobe_insn(f->kv, f->site[i], true);
			if (!v->mixed)
				check_eq(gbuf[0], f->gbefore[i]);
		}
	}
	diag("view %u: %u attachment(s), %u site(s), %u page(s)", info.id,
	     info.nr_attachments, info.nr_patches, info.nr_pages);
	check_eq(info.nr_attachments, 2);
	check_eq(info.nr_patches, v->filter ? 0 : 2);
	if (!v->filter)
		check_eq(kview_verify_total(&nviews), 0);
}

/* Detached: nothing in the view, the sites as before, in both texts. */
static void check_links_gone(struct mu *f)
{
	unsigned char vbuf[1], gbuf[1];
	struct kview_info info;
	int i;

	release_link(&f->global_link);
	release_link(&f->view_link);
	for (i = 0; i < 4; i++)
		release_link(&f->ref_links[i]);
	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_attachments, 0);
	check_eq(info.nr_patches, 0);
	check_eq(info.nr_pages, 0);
	for (i = 0; i < 2; i++) {
		check(!kview__read_text(f->kv, f->site[i], vbuf, gbuf, 1),
		      "read text: %s", strerror(errno));
		check_eq(gbuf[0], f->gbefore[i]);
		check_eq(vbuf[0], gbuf[0]);
	}
}

/*
 * entry, return, mixed, filter: a kprobe_multi link on ksys_read and
 * ksys_write in the target's view (a filter view for filter), an in-eBPF
 * reference beside it, and for mixed the same link globally too.
 */
static void test_links(void *fixture, const void *variant)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=5000", "status=none", NULL };
	LIBBPF_OPTS(kview_opts, fopts, .filter = true);
	const struct mu_variant *v = variant;
	struct mu *f = fixture;
	unsigned char vbuf[1];
	int i;

	/* What bpf_get_func_ip() says, and where the views' calls go. */
	f->ip[0] = ksym("ksys_read");
	f->ip[1] = ksym("ksys_write");
	f->site[0] = fentry_site(f->ip[0]);
	f->site[1] = fentry_site(f->ip[1]);
	spawn_pair(f, dd, v->filter ? &fopts : NULL);
	for (i = 0; i < 2; i++)
		check(!kview__read_text(f->kv, f->site[i], vbuf, &f->gbefore[i], 1),
		      "read text: %s", strerror(errno));

	/* The reference and the view's program, from separate objects. */
	links_attach(f, v);
	check_links_armed(f, v);
	run_pair(f);
	check_counts(f->view, f->global, v->ret, f->target, f->decoy, f->ip);
	check_links_gone(f);
	release_view(&f->kv);
	mu_release(f);
	check_stats_clean();
}

static const struct mu_variant entry, ret = { .ret = true },
	mixed = { .mixed = true }, filter = { .filter = true }, other;

/* Not const: without fprobe, every case is without_fprobe() (main()). */
static struct check_case cases[] = {
	{ "entry", test_links, &entry },
	{ "return", test_links, &ret },
	{ "mixed", test_links, &mixed },
	{ "filter", test_links, &filter },
	{ "many", test_many, &other },
	{ "bad", test_bad, &other },
	{ "dup", test_dup, &other },
	{ "session", test_session, &other },
};

static const struct check_suite suite = {
	.fixture_size = sizeof(struct mu),
	.teardown = mu_teardown,
	CHECK_CASES(cases),
};

int main(int argc, char **argv)
{
	size_t i;

	/* fprobe, which kprobe_multi links are built on. */
	if (!ksym_find("register_fprobe"))
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			cases[i].run = without_fprobe;
	return check_main(&suite, argc, argv);
}
