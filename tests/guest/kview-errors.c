// SPDX-License-Identifier: GPL-2.0
/*
 * kview-errors: bad input to the raw UAPI gets its documented errno, and
 * leaves nothing half-attached behind.
 *
 *   targets     no such pid, zombie, kernel thread, busy, bad flags, the
 *               limit of views; KVIEW_IOC_READ_TEXT's bounds (one page,
 *               KVIEW_TEXT_MAX bytes, kernel text) and kview__read_text()
 *               across a page boundary
 *   privileges  no capabilities; CAP_BPF+CAP_PERFMON without ptrace
 *               rights; CAP_BPF+CAP_PERFMON with them
 *   scope       in a view's attach scope, hooks the view cannot scope are
 *               refused (BPF trampoline, a kprobe in module text, a BPF
 *               program on a tracepoint perf event opened outside the
 *               scope, enabling an event or making a kprobe event in
 *               tracefs), none attaches, and the view names each refusal
 *               (KVIEW_IOC_INFO nr_refused, kview/views "refused" lines);
 *               a uprobe and a program on a sampling event (cpu-clock),
 *               not kernel hooks, pass through as outside; one on a
 *               software event kernel code raises (context switches)
 *               is refused
 *   explicit    a perf event opened in a view by its fd
 *               (PERF_FLAG_PID_KVIEW), outside any attach scope: bad fds,
 *               a cgroup at once, cpu -1, a software event, a uprobe and
 *               a holder of the fd without CAP_BPF get their errno; a
 *               kprobe event so opened is the view's
 *               (its program counts what pid == N counts for the target,
 *               nothing of a decoy) and goes with the event
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kvtest.h"
#include "count.skel.h"

static int create(int dev, pid_t pid, unsigned int flags)
{
	struct kview_create c = { .pid = pid, .flags = flags };
	int fd = ioctl(dev, KVIEW_IOC_CREATE, &c);

	return fd >= 0 ? fd : -errno;
}

static void check_clean(void)
{
	struct kview_stats s = kview_stats_settled(0);

	check_eq(s.views, 0);
	check_eq(s.patches, 0);
	check_eq(s.pages, 0);
}

static int read_text(int fd, unsigned long addr, void *vb, void *gb,
		     unsigned int len)
{
	struct kview_text t;

	memset(&t, 0, sizeof(t));
	t.addr = addr;
	t.view_buf = (uintptr_t)vb;
	t.global_buf = (uintptr_t)gb;
	t.len = len;
	return ioctl(fd, KVIEW_IOC_READ_TEXT, &t) ? -errno : 0;
}

/*
 * The ioctl reads within one page of kernel text; libkview splits a range
 * across a page boundary, so a caller's range need not care where the
 * kernel put a function (the debug kernel's ksys_read starts 32 bytes
 * before a page boundary).
 */
static void test_read_text(void)
{
	unsigned long end = (ksym("ksys_read") | 4095) + 1;
	unsigned char vb[KVIEW_TEXT_MAX + 1], gb[KVIEW_TEXT_MAX + 1];
	unsigned char v1[8], g1[8], v2[8], g2[8];
	struct kview *kv = kview__create(0, NULL);
	int fd;

	check(kv, "kview__create: %s", strerror(errno));
	fd = kview__fd(kv);
	expect_errno(read_text(fd, end - 8, vb, gb, 0), EINVAL);
	expect_errno(read_text(fd, end - 64, vb, gb, KVIEW_TEXT_MAX + 1), EINVAL);
	expect_errno(read_text(fd, end - 8, vb, gb, 16), EINVAL);
	expect_errno(read_text(fd, ksym("jiffies"), vb, gb, 8), EINVAL);
	expect_errno(read_text(fd, end - 8, NULL, gb, 8), EFAULT);
	expect_errno(kview__read_text(kv, end - 8, vb, gb, KVIEW_TEXT_MAX + 1),
		     EINVAL);

	/* Across the boundary: the same bytes as one read on each side. */
	check(!kview__read_text(kv, end - 8, vb, gb, 16), "read text across %#lx: %s",
	      end, strerror(errno));
	check(!read_text(fd, end - 8, v1, g1, 8) && !read_text(fd, end, v2, g2, 8),
	      "read text on each side of %#lx: %s", end, strerror(errno));
	check(!memcmp(vb, v1, 8) && !memcmp(vb + 8, v2, 8) &&
	      !memcmp(gb, g1, 8) && !memcmp(gb + 8, g2, 8),
	      "kview__read_text across %#lx differs from a read on each side", end);
	check(!memcmp(vb, gb, 16), "an empty view's text differs from the global text");
	kview__destroy(kv);
}

static void test_targets(void)
{
	int dev = open("/dev/kview", O_RDWR), fd;
	struct kview_create c;
	pid_t zombie, live;
	char *spin[] = { "sleep", "60", NULL };

	check(dev >= 0, "/dev/kview: %s", strerror(errno));
	expect_errno(create(dev, 999999, 0), ESRCH);
	expect_errno(create(dev, 2, 0), EOPNOTSUPP);	/* kthreadd */
	zombie = fork();
	if (!zombie)
		_exit(0);
	{	/* Until it is a zombie, without reaping it. */
		siginfo_t si;

		check(!waitid(P_PID, zombie, &si, WEXITED | WNOWAIT),
		      "waitid: %s", strerror(errno));
	}
	expect_errno(create(dev, zombie, 0), ESRCH);
	wait_exit(zombie);

	live = spawn_stopped(spin);
	resume(live);
	expect_errno(create(dev, live, 0x80), EINVAL);
	memset(&c, 0, sizeof(c));
	c.pid = live;
	c.reserved[1] = 1;
	expect_errno(ioctl(dev, KVIEW_IOC_CREATE, &c) < 0 ? -errno : 0, EINVAL);
	fd = create(dev, live, 0);
	check(fd >= 0, "create on %d: %s", live, strerror(-fd));
	expect_errno(create(dev, live, 0), EBUSY);
	expect_errno(ioctl(fd, 0x1234) < 0 ? -errno : 0, ENOTTY);
	close(fd);
	kill(live, SIGKILL);
	wait_exit(live);

	/* 64 views at most (views without members are allowed). */
	{
		int fds[64], i;

		for (i = 0; i < 64; i++) {
			fds[i] = create(dev, 0, 0);
			check(fds[i] >= 0, "view %d: %s", i, strerror(-fds[i]));
		}
		expect_errno(create(dev, 0, 0), ENOSPC);
		for (i = 0; i < 64; i++)
			close(fds[i]);
	}
	close(dev);
	check_clean();
	test_read_text();
}

/* The bit of capability @c (32..63) in the second capability word. */
#define CAP_HIGH(c)	(1U << ((c) - 32))

/*
 * Run @fn(@arg) in a child that has become nobody with only the
 * capabilities @high (CAP_HIGH() bits; 0: none): 0, or the -errno @fn
 * returned.
 */
static int as_nobody(unsigned int high, int (*fn)(void *), void *arg)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	pid_t pid = fork();
	int st;

	check(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		int r;

		if (high)
			prctl(PR_SET_KEEPCAPS, 1);
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(100);
		memset(data, 0, sizeof(data));
		data[1].effective = data[1].permitted = high;
		if (high && syscall(SYS_capset, &hdr, data))
			_exit(101);
		r = fn(arg);
		_exit(r >= 0 ? 0 : -r);
	}
	check(waitpid(pid, &st, 0) == pid && WIFEXITED(st), "child failed");
	check(WEXITSTATUS(st) < 100, "child could not drop privileges (%d)",
	      WEXITSTATUS(st));
	return WEXITSTATUS(st) ? -WEXITSTATUS(st) : 0;
}

struct create_arg {
	int dev;
	pid_t target;		/* 0: the child itself */
};

static int create_as(void *p)
{
	struct create_arg *a = p;

	return create(a->dev, a->target ? a->target : getpid(), 0);
}

/* KVIEW_IOC_CREATE as nobody, with CAP_BPF and CAP_PERFMON or none. */
static int child_errno(int dev, pid_t target, bool keep_caps)
{
	struct create_arg a = { dev, target };

	return as_nobody(keep_caps ? CAP_HIGH(CAP_BPF) | CAP_HIGH(CAP_PERFMON) : 0,
			 create_as, &a);
}

static void test_privileges(void)
{
	int dev = open("/dev/kview", O_RDWR);

	check(dev >= 0, "/dev/kview: %s", strerror(errno));
	/* nobody, no capabilities, the fd opened by root: EPERM. */
	expect_errno(child_errno(dev, 0, false), EPERM);
	/* CAP_BPF + CAP_PERFMON, but no ptrace rights over root's process. */
	expect_errno(child_errno(dev, getpid(), true), EPERM);
	/* CAP_BPF + CAP_PERFMON on its own process: allowed. */
	expect_errno(child_errno(dev, 0, true), 0);
	close(dev);
	check_clean();
}

static unsigned long module_function(void)
{
	char line[512], sym[256], mod[256], t;
	unsigned long addr;
	FILE *f;

	check(!system("modprobe -d \"$KVIEW_MODROOT\" trace-events-sample"),
	      "cannot load trace-events-sample");
	f = fopen("/proc/kallsyms", "r");
	check(f, "kallsyms: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %255s %255s", &addr, &t, sym, mod) == 4 &&
		    (t == 't' || t == 'T') && !strcmp(mod, "[trace_events_sample]") &&
		    strstr(sym, "thread")) {
			fclose(f);
			diag("module function %s %s at %#lx", sym, mod, addr);
			return addr;
		}
	}
	fclose(f);
	fail("no function of trace_events_sample in kallsyms");
}

/* Write @s to tracefs file @name: 0 or -errno. */
static int tracefs_write(const char *name, const char *s)
{
	char path[256];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	check(fd >= 0, "%s: %s", path, strerror(errno));
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* A perf event on tracepoint @name (tracefs events/@name), all tasks, CPU 0. */
static int tracepoint_event(const char *name)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_TRACEPOINT,
		.sample_period = 1,
		.wakeup_events = 1,
	};
	char path[256];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/id", name);
	f = fopen(path, "r");
	check(f, "%s: %s", path, strerror(errno));
	check(fscanf(f, "%llu", &attr.config) == 1, "%s: no id", path);
	fclose(f);
	fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	check(fd >= 0, "perf_event_open %s: %s", name, strerror(errno));
	return fd;
}

/* A software event @config on CPU 0, all tasks (cpu-clock: bpftrace's
 * interval, every 10 ms). */
static int software_event(unsigned long long config)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = config,
		.sample_period = config == PERF_COUNT_SW_CPU_CLOCK ? 10000000 : 1000,
	};
	int fd;

	fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	check(fd >= 0, "perf_event_open software %llu: %s", config, strerror(errno));
	return fd;
}

static void test_scope(void)
{
	LIBBPF_OPTS(bpf_kprobe_opts, kopts);
	LIBBPF_OPTS(bpf_uprobe_opts, uopts, .func_name = "main");
	char *spin[] = { "sleep", "60", NULL };
	struct count *skel = count__open_and_load();
	struct kview_info info;
	struct bpf_link *link;
	struct kview *kv;
	unsigned long mod;
	int pfd, spfd;
	pid_t t;

	check(skel, "load count.bpf.o: %s", strerror(errno));
	t = spawn_stopped(spin);
	resume(t);
	kv = kview__create(t, NULL);
	check(kv, "kview__create: %s", strerror(errno));
	mod = module_function();

	/* A tracepoint event opened before entering the scope is global. */
	pfd = tracepoint_event("syscalls/sys_enter_read");

	check(!kview__enter_scope(kv), "enter scope: %s", strerror(errno));
	link = bpf_program__attach_perf_event(skel->progs.tp_enter, pfd);
	expect_errno(link ? 0 : -errno, EOPNOTSUPP);
	/* A BPF trampoline on a core function is scoped (kview-trampoline). */
	link = bpf_program__attach(skel->progs.fe_read);
	expect_errno(link ? 0 : -errno, 0);
	bpf_link__destroy(link);
	kopts.offset = mod;
	link = bpf_program__attach_kprobe_opts(skel->progs.kp_offset, "", &kopts);
	expect_errno(link ? 0 : -errno, EOPNOTSUPP);
	link = bpf_program__attach_kprobe_opts(skel->progs.kp_offset,
					       "no_such_function_kview", NULL);
	expect_errno(link ? 0 : -errno, ENOENT);
	/* tracefs hooks every task: refused in the scope. */
	expect_errno(tracefs_write("events/sched/sched_switch/enable", "1"), EOPNOTSUPP);
	expect_errno(tracefs_write("set_event", "sched:sched_switch"), EOPNOTSUPP);
	expect_errno(tracefs_write("kprobe_events", "p:kview_refused ksys_read"), EOPNOTSUPP);
	/* Disabling and removing are not hooks: allowed. */
	expect_errno(tracefs_write("events/sched/sched_switch/enable", "0"), 0);
	expect_errno(tracefs_write("set_event", "!sched:sched_switch"), 0);
	expect_errno(tracefs_write("kprobe_events", "-:kview_no_such_event"), ENOENT);
	/* A uprobe is not a kernel hook: it passes, as outside the scope. */
	link = bpf_program__attach_uprobe_opts(skel->progs.up_any, -1,
					       "/proc/self/exe", 0, &uopts);
	expect_errno(link ? 0 : -errno, 0);
	bpf_link__destroy(link);
	/* Nor is a sampling event (bpftrace's interval, profile). */
	spfd = software_event(PERF_COUNT_SW_CPU_CLOCK);
	link = bpf_program__attach_perf_event(skel->progs.pe_any, spfd);
	expect_errno(link ? 0 : -errno, 0);
	bpf_link__destroy(link);
	close(spfd);
	/* A software event kernel code raises is, for every task: refused. */
	spfd = software_event(PERF_COUNT_SW_CONTEXT_SWITCHES);
	link = bpf_program__attach_perf_event(skel->progs.pe_any, spfd);
	expect_errno(link ? 0 : -errno, EOPNOTSUPP);
	close(spfd);
	check(!kview__leave_scope(kv), "leave scope: %s", strerror(errno));

	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	diag("view %u: %u attachment(s), %u refused", info.id, info.nr_attachments,
	     info.nr_refused);
	check_eq(info.nr_refused, 6);
	check(view_refused(info.id, "bpf_perf_event tp_enter"), "no record of the perf event program");
	check(view_refused(info.id, "bpf_perf_event pe_any"), "no record of the context-switch program");
	check(view_refused(info.id, "[trace_events_sample]"), "no record of the module kprobe");
	check(view_refused(info.id, "tracefs sched/sched_switch/enable"), "no record of the enable");
	check(view_refused(info.id, "tracefs set_event"), "no record of set_event");
	check(view_refused(info.id, "tracefs kprobe_events"), "no record of kprobe_events");
	check(access("/sys/kernel/tracing/events/kprobes/kview_refused", F_OK),
	      "the refused kprobe event exists");
	check_eq(info.nr_attachments, 0);
	check_eq(info.nr_patches, 0);
	check_eq(info.nr_pages, 0);
	check_eq(kview_stats().patches, 0);
	close(pfd);

	kill(t, SIGKILL);
	wait_exit(t);
	kview__destroy(kv);
	count__destroy(skel);
	check_clean();
	system("rmmod trace_events_sample");
}

#ifndef PERF_FLAG_PID_KVIEW
#define PERF_FLAG_PID_KVIEW	(1UL << 4)
#endif

/* perf_event_open(@attr) in view fd @vfd on @cpu with @flags: fd or -errno. */
static int open_in_view(struct perf_event_attr *attr, int vfd, int cpu,
			unsigned long flags)
{
	int fd = syscall(__NR_perf_event_open, attr, vfd, cpu, -1,
			 PERF_FLAG_PID_KVIEW | PERF_FLAG_FD_CLOEXEC | flags);

	return fd >= 0 ? fd : -errno;
}

/* The type of PMU @name (/sys/bus/event_source/devices/@name/type). */
static unsigned int pmu_type(const char *name)
{
	char path[128];
	unsigned int type;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", name);
	f = fopen(path, "r");
	check(f, "%s: %s", path, strerror(errno));
	check(fscanf(f, "%u", &type) == 1, "%s: no type", path);
	fclose(f);
	return type;
}

struct open_arg {
	struct perf_event_attr *attr;
	int vfd;
};

static int open_as(void *p)
{
	struct open_arg *a = p;

	return open_in_view(a->attr, a->vfd, 0, 0);
}

/* open_in_view() as nobody with CAP_PERFMON only. */
static int perfmon_only_errno(struct perf_event_attr *attr, int vfd)
{
	struct open_arg a = { attr, vfd };

	return as_nobody(CAP_HIGH(CAP_PERFMON), open_as, &a);
}

static void test_explicit(void)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=20000", "status=none", NULL };
	struct perf_event_attr kp = {
		.size = sizeof(kp), .type = pmu_type("kprobe"),
		.config1 = (unsigned long)"ksys_read",
	};
	struct perf_event_attr up = {
		.size = sizeof(up), .type = pmu_type("uprobe"),
		.config1 = (unsigned long)"/proc/self/exe",
	};
	struct perf_event_attr sw = {
		.size = sizeof(sw), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 10000000,
	};
	struct count *view = count__open(), *in = count__open();
	struct bpf_link *view_link, *in_link;
	unsigned long long want;
	struct kview_info info;
	pid_t target, decoy;
	struct kview *kv;
	int vfd, nfd, pfd;

	check(view && in, "open count.bpf.o: %s", strerror(errno));
	target = spawn_stopped(dd);
	decoy = spawn_stopped(dd);
	kv = kview__create(target, NULL);
	check(kv, "kview__create: %s", strerror(errno));
	vfd = kview__fd(kv);
	nfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	check(nfd >= 0, "/dev/null: %s", strerror(errno));

	expect_errno(open_in_view(&kp, 1000, 0, 0), EBADF);
	expect_errno(open_in_view(&kp, nfd, 0, 0), EINVAL);
	expect_errno(open_in_view(&kp, -1, 0, 0), EINVAL);
	expect_errno(open_in_view(&kp, vfd, -1, 0), EINVAL);
	expect_errno(open_in_view(&kp, vfd, 0, PERF_FLAG_PID_CGROUP), EINVAL);
	expect_errno(open_in_view(&sw, vfd, 0, 0), EINVAL);
	expect_errno(open_in_view(&up, vfd, 0, 0), EOPNOTSUPP);
	/* The fd alone is not enough: nobody with CAP_PERFMON, not CAP_BPF. */
	expect_errno(perfmon_only_errno(&kp, vfd), EPERM);
	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_attachments, 0);
	check_eq(info.nr_refused, 0);

	/* This task never enters the view's scope. */
	pfd = open_in_view(&kp, vfd, 0, 0);
	check(pfd >= 0, "kprobe event in the view: %s", strerror(-pfd));
	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	diag("view %u: %u attachment(s), %u patch(es)", info.id, info.nr_attachments,
	     info.nr_patches);
	check_eq(info.nr_attachments, 1);
	check_eq(info.nr_patches, 1);

	in->rodata->filter_tgid = target;
	only_program(in->obj, "tp_enter");
	only_program(view->obj, "kp_entry");
	check(!count__load(in) && !count__load(view), "load count.bpf.o: %s", strerror(errno));
	view_link = bpf_program__attach_perf_event(view->progs.kp_entry, pfd);
	check(view_link, "attach to the view's event: %s", strerror(errno));
	in_link = bpf_program__attach(in->progs.tp_enter);
	check(in_link, "attach in-eBPF: %s", strerror(errno));
	resume(decoy);
	resume(target);
	check_eq(wait_exit(decoy), 0);
	check_eq(wait_exit(target), 0);
	want = check_counts_equal(bpf_map__fd(view->maps.counts),
				  bpf_map__fd(in->maps.counts), target, decoy);
	check(want >= 20000, "in-eBPF saw only %llu reads of the target", want);

	/* The link owns the event: the hook goes with it. */
	bpf_link__destroy(view_link);
	bpf_link__destroy(in_link);
	close(pfd);
	check_view_empty_destroy(kv);
	close(nfd);
	count__destroy(view);
	count__destroy(in);
	check_stats_clean();
	check_eq(kview_stats().out_of_scope, 0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "targets"))
		test_targets();
	else if (!strcmp(mode, "privileges"))
		test_privileges();
	else if (!strcmp(mode, "scope"))
		test_scope();
	else if (!strcmp(mode, "explicit"))
		test_explicit();
	else {
		fprintf(stderr, "usage: kview-errors targets|privileges|scope|explicit\n");
		return 2;
	}
	return check_status();
}
