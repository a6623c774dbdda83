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

static struct multi *load(unsigned int filter)
{
	struct multi *skel = multi__open();

	check(skel, "open multi.bpf.o: %s", strerror(errno));
	skel->rodata->filter_tgid = filter;
	check(!multi__load(skel), "load multi.bpf.o: %s", strerror(errno));
	return skel;
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

static int many(void)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=2000", "status=none", NULL };
	static char *names[MAX_FUNCS];
	struct kview_info info;
	unsigned int nviews;
	struct bpf_link *link;
	struct multi *skel;
	size_t n, mine, others;
	pid_t target, decoy;
	struct kview *kv;
	struct hit h;
	double t0, t_attach, t_detach;

	n = traceable("vfs_", false, names, MAX_FUNCS);
	check(n >= 20, "only %zu traceable vfs_* functions", n);

	target = spawn_stopped(dd);
	decoy = spawn_stopped(dd);
	kv = kview__create(target, NULL);
	check(kv, "kview__create(%d): %s", target, strerror(errno));
	skel = load(target);

	t0 = kvtest_now();
	link = attach_multi(skel, kv, false, (const char **)names, NULL, n);
	t_attach = kvtest_now() - t0;
	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	diag("%zu vfs_* functions in one link: %u attachment(s), %u site(s), %u text page(s), %u table page(s); attached in %.3f s",
	     n, info.nr_attachments, info.nr_patches, info.nr_pages,
	     info.nr_pt_pages, t_attach);
	check_eq(info.nr_attachments, n);
	check_eq(info.nr_patches, n);
	check_eq(kview_verify_total(&nviews), 0);

	resume(target);
	resume(decoy);
	check_eq(wait_exit(target), 0);
	check_eq(wait_exit(decoy), 0);

	h = hits(skel, target, 0, ksym("vfs_read"));
	mine = keys_of(skel, target, &others);
	diag("target %d: %llu vfs_read, %zu function(s) hit; other processes: %zu entries",
	     target, (unsigned long long)h.count, mine, others);
	check(h.count >= 2000, "vfs_read seen %llu times for 2000 reads",
	      (unsigned long long)h.count);
	check_eq(others, 0);

	t0 = kvtest_now();
	bpf_link__destroy(link);
	t_detach = kvtest_now() - t0;
	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	diag("detached in %.3f s: %u attachment(s), %u site(s), %u page(s) left",
	     t_detach, info.nr_attachments, info.nr_patches, info.nr_pages);
	check_view_empty_destroy(kv);
	multi__destroy(skel);
	check_stats_clean();
	return 0;
}

/*
 * A function given twice gets one kprobe (the fprobe's filter holds it
 * once, and its program runs once a call); a function the fprobe takes
 * but kprobes do not (the kprobe blacklist) is refused in a view.
 */
static int duplicates(void)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=3000", "status=none", NULL };
	unsigned long twice[2] = { ksym("ksys_read"), ksym("ksys_read") };
	struct bpf_link *link, *ref_link;
	char *bnames[64];
	const char **bsyms = (const char **)bnames;
	struct kview_info info;
	struct multi *skel;
	struct kview *kv;
	struct hit h;
	pid_t target;
	int err;

	target = spawn_stopped(dd);
	kv = kview__create(target, NULL);
	check(kv, "kview__create(%d): %s", target, strerror(errno));
	skel = load(target);
	ref_link = bpf_program__attach(skel->progs.ref_enter_read);
	check(ref_link, "attach the in-eBPF reference: %s", strerror(errno));
	/* By name the kernel refuses a name twice (ESRCH): by address. */
	check(!kview__enter_scope(kv), "enter the view's scope: %s", strerror(errno));
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.km_entry, NULL,
		&(struct bpf_kprobe_multi_opts){ .sz = sizeof(struct bpf_kprobe_multi_opts),
						 .addrs = twice, .cnt = 2 });
	err = errno;
	kview__leave_scope(kv);
	check(link, "attach km_entry on ksys_read twice in the view: %s", strerror(err));
	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	diag("ksys_read twice: %u site(s), %u attachment(s)", info.nr_patches,
	     info.nr_attachments);
	check_eq(info.nr_patches, 1);
	resume(target);
	check_eq(wait_exit(target), 0);
	h = hits(skel, target, 0, ksym("ksys_read"));
	diag("target %d: kview %llu, in-eBPF %llu", target,
	     (unsigned long long)h.count, (unsigned long long)ref(skel, 0));
	check(ref(skel, 0) >= 3000, "in-eBPF saw only %llu reads",
	      (unsigned long long)ref(skel, 0));
	check_eq(h.count, ref(skel, 0));
	bpf_link__destroy(link);
	bpf_link__destroy(ref_link);

	check(traceable("", true, bnames, 64) >= 1,
	      "no function both traceable and on the kprobe blacklist");
	link = attach_multi(skel, NULL, false, bsyms, NULL, 1);
	bpf_link__destroy(link);
	check(!kview__enter_scope(kv), "enter the view's scope: %s", strerror(errno));
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.km_entry, NULL,
		&(struct bpf_kprobe_multi_opts){ .sz = sizeof(struct bpf_kprobe_multi_opts),
						 .syms = bsyms, .cnt = 1 });
	err = link ? 0 : errno;
	kview__leave_scope(kv);
	bpf_link__destroy(link);
	diag("%s (kprobe blacklist): globally attached, in the view %s",
	     bnames[0], strerror(err));
	check_eq(err, EINVAL);
	check_view_empty_destroy(kv);
	multi__destroy(skel);
	check_stats_clean();
	return 0;
}

/*
 * A link on a function entry and a non-entry (the instruction after
 * ksys_write's ftrace site): refused whole, cleanly, as outside a view.
 */
static int bad(void)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .cnt = 2);
	unsigned long addrs[2] = { ksym("ksys_read"), ksym_site("ksys_write") + 5 };
	struct kview_info info;
	struct bpf_link *link;
	struct multi *skel;
	struct kview *kv;
	int gerr, verr;

	opts.addrs = addrs;
	skel = load(0);
	/*
	 * A link that worked, gone with its view: the process joins a new
	 * view at once (the link lets go of its view when it is released,
	 * not a grace period later when it is freed).
	 */
	kv = kview__create(getpid(), NULL);
	check(kv, "kview__create(self): %s", strerror(errno));
	link = attach_multi(skel, kv, false, (const char *[]){ "ksys_read" }, NULL, 1);
	bpf_link__destroy(link);
	kview__destroy(kv);
	kv = kview__create(getpid(), NULL);
	check(kv, "kview__create(self) again, at once: %s", strerror(errno));
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.km_entry, NULL, &opts);
	gerr = link ? 0 : errno;
	bpf_link__destroy(link);
	check(!kview__enter_scope(kv), "enter the view's scope: %s", strerror(errno));
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.km_entry, NULL, &opts);
	verr = link ? 0 : errno;
	kview__leave_scope(kv);
	bpf_link__destroy(link);
	diag("ksys_read and ksys_write+%#lx: globally %s, in the view %s",
	     addrs[1] - ksym("ksys_write"), strerror(gerr), strerror(verr));
	check_eq(gerr, EINVAL);
	check_eq(verr, EINVAL);
	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_refused, 0);
	check_view_empty_destroy(kv);
	multi__destroy(skel);
	check_stats_clean();
	return 0;
}

/*
 * A kernel without CONFIG_FPROBE (Debian's 6.1) has no kprobe_multi links
 * at all: there a view must fail them as the global attach fails them,
 * with EOPNOTSUPP, nothing recorded in the view and nothing left behind
 * (tools fall back to one kprobe per function, as bpftrace does).  Every
 * mode checks this on such a kernel.
 */
static int without_fprobe(const char *mode)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=5000", "status=none", NULL };
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .syms = (const char *[]){ "ksys_read" },
		    .cnt = 1, .retprobe = !strcmp(mode, "return"));
	struct bpf_link *link;
	struct kview_info info;
	struct multi *skel;
	struct kview *kv;
	pid_t target;
	int err;

	skel = load(0);
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.km_entry, NULL, &opts);
	err = errno;
	check(!link && err == EOPNOTSUPP,
	      "global kprobe_multi on a kernel without fprobe: %s", link ? "attached" : strerror(err));
	target = spawn_stopped(dd);
	kv = kview__create(target, NULL);
	check(kv, "kview__create(%d): %s", target, strerror(errno));
	check(!kview__enter_scope(kv), "enter the view's scope: %s", strerror(errno));
	link = bpf_program__attach_kprobe_multi_opts(skel->progs.km_entry, NULL, &opts);
	err = errno;
	kview__leave_scope(kv);
	check(!link && err == EOPNOTSUPP,
	      "kprobe_multi in a view on a kernel without fprobe: %s", link ? "attached" : strerror(err));
	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_attachments, 0);
	check_view_empty_destroy(kv);
	kill(target, SIGKILL);
	waitpid(target, NULL, 0);
	multi__destroy(skel);
	check_stats_clean();
	printf("# no fprobe in this kernel: kprobe_multi fails with EOPNOTSUPP globally and in a view, nothing left\n");
	return 0;
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
 * A kprobe session (kprobe.session) on ksys_read in a view: a kretprobe per
 * function whose entry handler runs the program and skips the return when
 * it returns non-zero, with a cookie per call.  The program runs its return
 * for reads of one byte only: the view's target must see exactly the
 * in-eBPF reference's entries and one-byte reads, every return with the
 * cookie its entry left, and the decoy nothing; a global session on the
 * same function, the decoy too.  Kernels before 6.10 have no sessions.
 */
static int sessions(void)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=5000", "status=none", NULL };
	struct session_counts vt, vd, gt, gd;
	struct session *view, *global;
	struct bpf_link *ref_link;
	struct kview_info info;
	unsigned char vb[5], gb[5];
	pid_t target, decoy;
	__u64 entries, ones;
	struct kview *kv;
	int vfd, gfd;
	__u32 k;

	if (!ksym_find("bpf_session_cookie")) {
		printf("# no kprobe sessions in this kernel (they came in 6.10): nothing to scope\n");
		return 0;
	}
	target = spawn_stopped(dd);
	decoy = spawn_stopped(dd);
	view = load_session(target);
	global = load_session(0);
	kv = kview__create(target, NULL);
	check(kv, "kview__create(%d): %s", target, strerror(errno));

	ref_link = bpf_program__attach(view->progs.ref_read);
	check(ref_link, "attach the in-eBPF reference: %s", strerror(errno));
	vfd = session_link(view, kv);
	check(vfd >= 0, "kprobe session in the view: %s", strerror(errno));
	gfd = session_link(global, NULL);
	check(gfd >= 0, "kprobe session globally: %s", strerror(errno));

	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_attachments, 1);
	check_eq(info.nr_patches, 1);
	check_view_kprobe_insn(kv, ksym_site("ksys_read"), true);
	check(!kview__read_text(kv, ksym_site("ksys_read"), vb, gb, 5),
	      "read text: %s", strerror(errno));
	check(gb[0] == 0xe8, "the global session did not arm ksys_read");

	resume(target);
	resume(decoy);
	check_eq(wait_exit(target), 0);
	check_eq(wait_exit(decoy), 0);

	k = 0;
	check(!bpf_map_lookup_elem(bpf_map__fd(view->maps.ref), &k, &entries), "ref");
	k = 1;
	check(!bpf_map_lookup_elem(bpf_map__fd(view->maps.ref), &k, &ones), "ref");
	vt = session_of(view, target);
	vd = session_of(view, decoy);
	gt = session_of(global, target);
	gd = session_of(global, decoy);
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

	close(gfd);
	close(vfd);
	bpf_link__destroy(ref_link);
	check_view_empty_destroy(kv);
	session__destroy(global);
	session__destroy(view);
	check_stats_clean();
	return 0;
}

/* The two functions the links of links_test() go on, and their cookies. */
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
 * entry, return, mixed, filter: a kprobe_multi link on ksys_read and
 * ksys_write in the target's view (a filter view for filter), an in-eBPF
 * reference beside it, and for mixed the same link globally too.
 */
static int links_test(const char *mode, bool ret, bool filter)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=5000", "status=none", NULL };
	unsigned char gbefore[2][1], vbuf[1], gbuf[1];
	struct multi *view, *global = NULL;
	struct bpf_link *ref_links[4], *view_link, *global_link = NULL;
	LIBBPF_OPTS(kview_opts, fopts, .filter = true);
	unsigned long ip[2], site[2];
	struct kview_info info;
	unsigned int nviews;
	pid_t target, decoy;
	struct kview *kv;
	int i;

	/* What bpf_get_func_ip() says, and where the views' calls go. */
	ip[0] = ksym("ksys_read");
	ip[1] = ksym("ksys_write");
	site[0] = fentry_site(ip[0]);
	site[1] = fentry_site(ip[1]);

	target = spawn_stopped(dd);
	decoy = spawn_stopped(dd);
	kv = kview__create(target, filter ? &fopts : NULL);
	check(kv, "kview__create(%d): %s", target, strerror(errno));
	for (i = 0; i < 2; i++)
		check(!kview__read_text(kv, site[i], vbuf, gbefore[i], 1),
		      "read text: %s", strerror(errno));

	/* The reference and the view's program, from separate objects. */
	view = load(target);
	ref_links[0] = bpf_program__attach(view->progs.ref_enter_read);
	ref_links[1] = bpf_program__attach(view->progs.ref_enter_write);
	ref_links[2] = bpf_program__attach(view->progs.ref_exit_read);
	ref_links[3] = bpf_program__attach(view->progs.ref_exit_write);
	for (i = 0; i < 4; i++)
		check(ref_links[i], "attach the in-eBPF reference: %s",
		      strerror(errno));
	view_link = attach_multi(view, kv, ret, link_syms, link_cookies, 2);
	if (!strcmp(mode, "mixed")) {
		global = load(0);
		global_link = attach_multi(global, NULL, ret, link_syms, link_cookies, 2);
	}

	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	for (i = 0; i < 2; i++) {
		check(!kview__read_text(kv, site[i], vbuf, gbuf, 1),
		      "read text: %s", strerror(errno));
		diag("%s at %#lx: view %02x, global %02x (before: %02x)",
		     link_syms[i], site[i], vbuf[0], gbuf[0], gbefore[i][0]);
		if (filter) {
			/* The fprobe arms ftrace's call, for everyone. */
			check(gbuf[0] != gbefore[i][0], "the fprobe did not arm %s", link_syms[i]);
			check_eq(vbuf[0], gbuf[0]);
		} else {
			check_view_kprobe_insn(kv, site[i], true);
			if (!global)
				check_eq(gbuf[0], gbefore[i][0]);
		}
	}
	diag("view %u: %u attachment(s), %u site(s), %u page(s)", info.id,
	     info.nr_attachments, info.nr_patches, info.nr_pages);
	check_eq(info.nr_attachments, 2);
	check_eq(info.nr_patches, filter ? 0 : 2);
	if (!filter)
		check_eq(kview_verify_total(&nviews), 0);

	resume(target);
	resume(decoy);
	check_eq(wait_exit(target), 0);
	check_eq(wait_exit(decoy), 0);
	check_counts(view, global, ret, target, decoy, ip);

	if (global) {
		bpf_link__destroy(global_link);
		multi__destroy(global);
	}
	bpf_link__destroy(view_link);
	for (i = 0; i < 4; i++)
		bpf_link__destroy(ref_links[i]);
	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_attachments, 0);
	check_eq(info.nr_patches, 0);
	check_eq(info.nr_pages, 0);
	for (i = 0; i < 2; i++) {
		check(!kview__read_text(kv, site[i], vbuf, gbuf, 1),
		      "read text: %s", strerror(errno));
		check_eq(gbuf[0], gbefore[i][0]);
		check_eq(vbuf[0], gbuf[0]);
	}
	kview__destroy(kv);
	multi__destroy(view);
	check_stats_clean();
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	/* fprobe, which kprobe_multi links are built on. */
	if (!ksym_find("register_fprobe"))
		return without_fprobe(mode);
	if (!strcmp(mode, "entry") || !strcmp(mode, "mixed"))
		return links_test(mode, false, false);
	if (!strcmp(mode, "return"))
		return links_test(mode, true, false);
	if (!strcmp(mode, "filter"))
		return links_test(mode, false, true);
	if (!strcmp(mode, "many"))
		return many();
	if (!strcmp(mode, "bad"))
		return bad();
	if (!strcmp(mode, "dup"))
		return duplicates();
	if (!strcmp(mode, "session"))
		return sessions();
	fprintf(stderr, "usage: kview-multi entry|return|mixed|filter|many|bad|dup|session\n");
	return 2;
}
