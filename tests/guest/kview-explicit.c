// SPDX-License-Identifier: GPL-2.0
/*
 * kview-explicit: BPF links created in a kernel view by naming its fd
 * (BPF_F_KVIEW_FD), outside any attach scope, through the raw bpf()
 * commands (libbpf 1.1 does not know the flag).  Built against the
 * series' UAPI headers (build/khdr).
 *
 *   links   for each kind of link a view can be named in (kprobe_multi,
 *           fentry and tp_btf through BPF_LINK_CREATE, a raw tracepoint
 *           through BPF_RAW_TRACEPOINT_OPEN): the link is the view's (one
 *           attachment), its program counts what pid == N counts for the
 *           target and nothing of a decoy, and the hook goes with the
 *           link, whatever attach scope its creator is in
 *           (the kprobe_multi and raw tracepoint links are made from
 *           inside the decoy's view's scope, the others from none)
 *   errors  a bad fd, a non-view fd, kview_fd without the flag, unknown
 *           BPF_RAW_TRACEPOINT_OPEN flags, and the flag on a link a view
 *           cannot hold whose code ignores link_create.flags (a
 *           uprobe_multi link, which the same call without the flag
 *           makes): their errno, and nothing attached
 *
 * One suite (tests/lib/harness.h): the fixture is what a case makes (the
 * processes, the views, the objects, the link and fds), released by its
 * teardown if a check failed first.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kvtest.h"
#include "explicit.skel.h"

/* What the case made; NULL or 0 is what it did not, or released. */
struct ex {
	struct explicit *view, *in;	/* the view's program, the in-eBPF one */
	struct kview *kv, *other;	/* the target's view, the decoy's */
	struct bpf_link *in_link;
	pid_t target, decoy;
	int link, nfd;			/* the view's link, /dev/null */
};

/* Detach, close the views, the fds and the objects. */
static void ex_release(struct ex *f)
{
	release_fd(&f->link);
	release_fd(&f->nfd);
	release_link(&f->in_link);
	release_view(&f->kv);
	release_view(&f->other);
	explicit__destroy(f->view);
	explicit__destroy(f->in);
	f->view = f->in = NULL;
}

static void ex_teardown(void *fixture, const void *variant)
{
	struct ex *f = fixture;

	(void)variant;
	reap_child(f->target);
	reap_child(f->decoy);
	ex_release(f);
}

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	int fd = syscall(__NR_bpf, cmd, attr, sizeof(*attr));

	return fd >= 0 ? fd : -errno;
}

/* BPF_LINK_CREATE of @prog (its expected attach type) in view fd @vfd. */
static int link_in_view(struct bpf_program *prog, __u32 flags, int vfd)
{
	static const char *syms[] = { "ksys_read" };
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = bpf_program__fd(prog);
	attr.link_create.attach_type = bpf_program__expected_attach_type(prog);
	attr.link_create.flags = flags;
	if (attr.link_create.attach_type == BPF_TRACE_KPROBE_MULTI) {
		attr.link_create.kprobe_multi.syms = (__u64)(unsigned long)syms;
		attr.link_create.kprobe_multi.cnt = 1;
		attr.link_create.kprobe_multi.kview_fd = vfd;
	} else {
		attr.link_create.tracing.kview_fd = vfd;
	}
	return sys_bpf(BPF_LINK_CREATE, &attr);
}

/* BPF_RAW_TRACEPOINT_OPEN of @prog on sys_enter in view fd @vfd. */
static int raw_tp_in_view(struct bpf_program *prog, __u32 flags, int vfd)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.name = (__u64)(unsigned long)"sys_enter";
	attr.raw_tracepoint.prog_fd = bpf_program__fd(prog);
	attr.raw_tracepoint.flags = flags;
	attr.raw_tracepoint.kview_fd = vfd;
	return sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
}

/* One program of explicit.bpf.o, loaded alone; @tgid: in-eBPF filter. */
static struct explicit *load_one(const char *name, pid_t tgid)
{
	struct explicit *skel = explicit__open();

	check(skel, "open explicit.bpf.o: %s", strerror(errno));
	skel->rodata->filter_tgid = tgid;
	only_program(skel->obj, name);
	check(!explicit__load(skel), "load %s: %s", name, strerror(errno));
	return skel;
}

static struct bpf_program *program(struct explicit *skel, const char *name)
{
	struct bpf_program *prog;

	prog = bpf_object__find_program_by_name(skel->obj, name);
	check(prog, "no program %s", name);
	return prog;
}

/*
 * The target's view, and (@in_other_scope) the decoy's, whose attach
 * scope this task enters.
 */
static void make_views(struct ex *f, bool in_other_scope)
{
	f->kv = kview__create(f->target, NULL);
	check(f->kv, "kview__create: %s", strerror(errno));
	if (!in_other_scope)
		return;
	f->other = kview__create(f->decoy, NULL);
	check(f->other, "kview__create (decoy): %s", strerror(errno));
	check(!ioctl(kview__fd(f->other), KVIEW_IOC_SCOPE_ENTER),
	      "scope enter: %s", strerror(errno));
}

/*
 * The link of program @name in the target's view by its fd (from the
 * decoy's view's scope if there is one): the target's view's, only.
 */
static void make_link(struct ex *f, const char *name)
{
	struct bpf_program *prog = program(f->view, name);
	struct kview_info info;

	if (!strcmp(name, "rt_enter"))
		f->link = raw_tp_in_view(prog, BPF_F_KVIEW_FD, kview__fd(f->kv));
	else
		f->link = link_in_view(prog, BPF_F_KVIEW_FD, kview__fd(f->kv));
	check(f->link >= 0, "%s link in the view: %s", name, strerror(-f->link));
	if (f->other) {
		check(!ioctl(kview__fd(f->other), KVIEW_IOC_SCOPE_LEAVE),
		      "scope leave: %s", strerror(errno));
		check(!kview__info(f->other, &info), "info: %s", strerror(errno));
		check_eq(info.nr_attachments, 0);
	}
	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	diag("view %u: %u attachment(s), %u patch(es)", info.id,
	     info.nr_attachments, info.nr_patches);
	check_eq(info.nr_attachments, 1);
	check_eq(info.nr_refused, 0);
}

/*
 * A link of program @name made in a view of a target by its fd, from
 * inside the attach scope of a decoy's view if @in_other_scope: the
 * target's reads only, as pid == N counts them.
 */
static void one_link(struct ex *f, const char *name, bool in_other_scope)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=20000", "status=none", NULL };
	unsigned long long want;
	struct kview_info info;

	f->view = load_one(name, 0);
	diag("%s%s", name, in_other_scope ? ", from another view's scope" : "");
	f->target = spawn_stopped(dd);
	f->decoy = spawn_stopped(dd);
	f->in = load_one("tp_enter", f->target);
	make_views(f, in_other_scope);
	make_link(f, name);

	f->in_link = bpf_program__attach(f->in->progs.tp_enter);
	check(f->in_link, "attach in-eBPF: %s", strerror(errno));
	resume(f->decoy);
	resume(f->target);
	check_eq(wait_exit(f->decoy), 0);
	check_eq(wait_exit(f->target), 0);
	want = check_counts_equal(bpf_map__fd(f->view->maps.counts),
				  bpf_map__fd(f->in->maps.counts), f->target, f->decoy);
	check(want >= 20000, "in-eBPF saw only %llu reads of the target", want);

	/* The hook goes with the link. */
	release_fd(&f->link);
	release_link(&f->in_link);
	check(WAIT_FOR(!kview__info(f->kv, &info) && !info.nr_attachments, 10),
	      "the view keeps %u attachment(s) after the link's close",
	      info.nr_attachments);
	check_view_empty_destroy(f->kv);
	f->kv = NULL;
	ex_release(f);
	check_stats_clean();
	check_eq(kview_stats().out_of_scope, 0);
}

static void test_links(void *fixture, const void *variant)
{
	(void)variant;
	one_link(fixture, "km_read", true);
	one_link(fixture, "fe_read", false);
	one_link(fixture, "rt_enter", true);
	one_link(fixture, "btf_enter", false);
}

/* The uprobe of the errors test: never called once it is attached. */
static __attribute__((noinline)) void uprobe_target(void)
{
	asm volatile("");
}

/* The offset of uprobe_target() in this program's file. */
static unsigned long uprobe_target_offset(void)
{
	unsigned long addr = (unsigned long)uprobe_target, start, end, off;
	char line[512], perms[8];
	FILE *f = fopen("/proc/self/maps", "r");

	check(f, "/proc/self/maps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx", &start, &end, perms, &off) == 4 &&
		    addr >= start && addr < end && perms[2] == 'x') {
			fclose(f);
			return addr - start + off;
		}
	}
	fclose(f);
	check(0, "uprobe_target at %#lx is in no executable mapping", addr);
	return 0;
}

/* A uprobe_multi link of @prog on uprobe_target(), with @flags. */
static int uprobe_multi_link(struct bpf_program *prog, __u32 flags)
{
	unsigned long offset = uprobe_target_offset();
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = bpf_program__fd(prog);
	attr.link_create.attach_type = BPF_TRACE_UPROBE_MULTI;
	attr.link_create.flags = flags;
	attr.link_create.uprobe_multi.path = (__u64)(unsigned long)"/proc/self/exe";
	attr.link_create.uprobe_multi.offsets = (__u64)(unsigned long)&offset;
	attr.link_create.uprobe_multi.cnt = 1;
	return sys_bpf(BPF_LINK_CREATE, &attr);
}

/*
 * Each link kind but the uprobe_multi one: a bad fd, a non-view fd, the
 * view's fd without the flag, and the flag with another (which mainline
 * ignores on tracing links, and a link given a view does not).
 */
static void expect_link_errnos(struct ex *f)
{
	int vfd = kview__fd(f->kv), nfd = f->nfd;
	struct bpf_program *p;

	bpf_object__for_each_program(p, f->view->obj) {
		const char *name = bpf_program__name(p);

		if (!strcmp(name, "tp_enter") || !strcmp(name, "um_any"))
			continue;
		diag("%s", name);
		if (!strcmp(name, "rt_enter")) {
			expect_errno(raw_tp_in_view(p, BPF_F_KVIEW_FD, 1000), EBADF);
			expect_errno(raw_tp_in_view(p, BPF_F_KVIEW_FD, nfd), EINVAL);
			expect_errno(raw_tp_in_view(p, 0, vfd), EINVAL);
			expect_errno(raw_tp_in_view(p, BPF_F_KVIEW_FD | 1, vfd), EINVAL);
			continue;
		}
		expect_errno(link_in_view(p, BPF_F_KVIEW_FD, 1000), EBADF);
		expect_errno(link_in_view(p, BPF_F_KVIEW_FD, nfd), EINVAL);
		expect_errno(link_in_view(p, 0, vfd), EINVAL);
		expect_errno(link_in_view(p, BPF_F_KVIEW_FD | 1, vfd), EINVAL);
	}
}

static void test_errors(void *fixture, const void *variant)
{
	struct ex *f = fixture;
	struct explicit *skel;
	struct kview_info info;
	int fd;

	(void)variant;
	f->view = skel = explicit__open();
	check(skel, "open explicit.bpf.o: %s", strerror(errno));
	check(!bpf_program__set_expected_attach_type(skel->progs.um_any,
						      BPF_TRACE_UPROBE_MULTI),
	      "uprobe_multi attach type: %s", strerror(errno));
	check(!explicit__load(skel), "load explicit.bpf.o: %s", strerror(errno));
	f->kv = kview__create(0, NULL);
	check(f->kv, "kview__create: %s", strerror(errno));
	f->nfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	check(f->nfd >= 0, "/dev/null: %s", strerror(errno));
	expect_link_errnos(f);

	/*
	 * A uprobe_multi link's code ignores link_create.flags: without the
	 * flag the call makes a link (the control), with it no view would
	 * hold it, and it is refused.
	 */
	fd = uprobe_multi_link(skel->progs.um_any, 0);
	check(fd >= 0, "uprobe_multi link: %s", strerror(-fd));
	close(fd);
	expect_errno(uprobe_multi_link(skel->progs.um_any, BPF_F_KVIEW_FD),
		     EINVAL);

	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_attachments, 0);
	check_eq(info.nr_refused, 0);
	release_fd(&f->nfd);
	check_view_empty_destroy(f->kv);
	f->kv = NULL;
	ex_release(f);
	check_stats_clean();
}

static const struct check_case cases[] = {
	{ "links", test_links, NULL },
	{ "errors", test_errors, NULL },
};

static const struct check_suite suite = {
	.fixture_size = sizeof(struct ex),
	.teardown = ex_teardown,
	CHECK_CASES(cases),
};

int main(int argc, char **argv)
{
	return check_main(&suite, argc, argv);
}
