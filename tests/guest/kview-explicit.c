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
 * A link of program @name made in a view of a target by its fd, from
 * inside the attach scope of a decoy's view if @in_other_scope: the
 * target's reads only, as pid == N counts them.
 */
static void one_link(const char *name, bool in_other_scope)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=20000", "status=none", NULL };
	struct explicit *view = load_one(name, 0), *in;
	struct bpf_program *prog = program(view, name);
	struct kview *kv, *other = NULL;
	unsigned long long want;
	struct kview_info info;
	struct bpf_link *in_link;
	pid_t target, decoy;
	int link;

	diag("%s%s", name, in_other_scope ? ", from another view's scope" : "");
	target = spawn_stopped(dd);
	decoy = spawn_stopped(dd);
	in = load_one("tp_enter", target);
	kv = kview__create(target, NULL);
	check(kv, "kview__create: %s", strerror(errno));
	if (in_other_scope) {
		other = kview__create(decoy, NULL);
		check(other, "kview__create (decoy): %s", strerror(errno));
		check(!ioctl(kview__fd(other), KVIEW_IOC_SCOPE_ENTER),
		      "scope enter: %s", strerror(errno));
	}

	if (!strcmp(name, "rt_enter"))
		link = raw_tp_in_view(prog, BPF_F_KVIEW_FD, kview__fd(kv));
	else
		link = link_in_view(prog, BPF_F_KVIEW_FD, kview__fd(kv));
	check(link >= 0, "%s link in the view: %s", name, strerror(-link));
	if (other) {
		check(!ioctl(kview__fd(other), KVIEW_IOC_SCOPE_LEAVE),
		      "scope leave: %s", strerror(errno));
		check(!kview__info(other, &info), "info: %s", strerror(errno));
		check_eq(info.nr_attachments, 0);
	}
	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	diag("view %u: %u attachment(s), %u patch(es)", info.id,
	     info.nr_attachments, info.nr_patches);
	check_eq(info.nr_attachments, 1);
	check_eq(info.nr_refused, 0);

	in_link = bpf_program__attach(in->progs.tp_enter);
	check(in_link, "attach in-eBPF: %s", strerror(errno));
	resume(decoy);
	resume(target);
	check_eq(wait_exit(decoy), 0);
	check_eq(wait_exit(target), 0);
	want = check_counts_equal(bpf_map__fd(view->maps.counts),
				  bpf_map__fd(in->maps.counts), target, decoy);
	check(want >= 20000, "in-eBPF saw only %llu reads of the target", want);

	/* The hook goes with the link. */
	close(link);
	bpf_link__destroy(in_link);
	check(WAIT_FOR(!kview__info(kv, &info) && !info.nr_attachments, 10),
	      "the view keeps %u attachment(s) after the link's close",
	      info.nr_attachments);
	check_view_empty_destroy(kv);
	if (other)
		kview__destroy(other);
	explicit__destroy(view);
	explicit__destroy(in);
	check_stats_clean();
	check_eq(kview_stats().out_of_scope, 0);
}

static void test_links(void)
{
	one_link("km_read", true);
	one_link("fe_read", false);
	one_link("rt_enter", true);
	one_link("btf_enter", false);
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

static void test_errors(void)
{
	struct explicit *skel = explicit__open();
	struct kview_info info;
	struct bpf_program *p;
	int vfd, nfd;
	struct kview *kv;

	check(skel, "open explicit.bpf.o: %s", strerror(errno));
	check(!bpf_program__set_expected_attach_type(skel->progs.um_any,
						      BPF_TRACE_UPROBE_MULTI),
	      "uprobe_multi attach type: %s", strerror(errno));
	check(!explicit__load(skel), "load explicit.bpf.o: %s", strerror(errno));
	kv = kview__create(0, NULL);
	check(kv, "kview__create: %s", strerror(errno));
	vfd = kview__fd(kv);
	nfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	check(nfd >= 0, "/dev/null: %s", strerror(errno));

	bpf_object__for_each_program(p, skel->obj) {
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
	}

	/*
	 * A uprobe_multi link's code ignores link_create.flags: without the
	 * flag the call makes a link (the control), with it no view would
	 * hold it, and it is refused.
	 */
	{
		int fd = uprobe_multi_link(skel->progs.um_any, 0);

		check(fd >= 0, "uprobe_multi link: %s", strerror(-fd));
		close(fd);
		expect_errno(uprobe_multi_link(skel->progs.um_any, BPF_F_KVIEW_FD),
			     EINVAL);
	}

	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_attachments, 0);
	check_eq(info.nr_refused, 0);
	close(nfd);
	check_view_empty_destroy(kv);
	explicit__destroy(skel);
	check_stats_clean();
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "links"))
		test_links();
	else if (!strcmp(mode, "errors"))
		test_errors();
	else {
		fprintf(stderr, "usage: kview-explicit links|errors\n");
		return 2;
	}
	return check_status();
}
