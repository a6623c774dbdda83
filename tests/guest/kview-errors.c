// SPDX-License-Identifier: GPL-2.0
/*
 * kview-errors: bad input to the raw UAPI gets its documented errno, and
 * leaves nothing half-attached behind.
 *
 *   targets     no such pid, zombie, kernel thread, busy, bad flags, the
 *               limit of views; a process on another's mm (a vfork()
 *               child before its exec, with CLONE_PARENT too, either
 *               side of clone(CLONE_VM)) refused with EBUSY by create
 *               and add-pid, the vfork() child taken once it exec'd,
 *               its parent at any time;
 *               KVIEW_IOC_READ_TEXT's bounds (one page,
 *               KVIEW_TEXT_MAX bytes, kernel text) and kview__read_text()
 *               across a page boundary
 *   privileges  no capabilities; CAP_BPF+CAP_PERFMON without ptrace
 *               rights; CAP_BPF+CAP_PERFMON with them
 *   scope       in a view's attach scope, hooks the view cannot scope are
 *               refused (BPF trampoline, a kprobe in module text, a BPF
 *               program on a tracepoint perf event opened outside the
 *               scope, a BPF_LSM_CGROUP program, whose shim hooks every
 *               task, enabling an event or making a kprobe event in
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
 *
 * One suite (tests/lib/harness.h): the fixture is what a case makes (fds,
 * processes, the view, objects, links, the sample module), released by
 * its teardown if a check failed first.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kvtest.h"
#include "count.skel.h"
#include "lsmcg.skel.h"

#define PERF_PARANOID "/proc/sys/kernel/perf_event_paranoid"

/* KVIEW_MAX_VIEWS, include/linux/kview.h (a kernel constant, not ABI) */
#define MAX_VIEWS 4096

/* What the case made; NULL or 0 is what it did not, or released. */
struct errs {
	int dev, nfd, pfd, spfd;	/* /dev/kview, /dev/null, perf events */
	int cgfd;			/* the cgroup v2 root */
	int fds[MAX_VIEWS];		/* views made by the raw ioctl */
	pid_t zombie, live, t, target, decoy;
	pid_t shared, shared_child;	/* spawn_shared()'s processes */
	int go;				/* its child's pipe */
	struct kview *kv;
	struct count *skel, *view, *in;
	struct lsmcg *lsmcg;
	struct bpf_link *view_link, *in_link;
	struct bpf_link *lsm_link;	/* global, made outside the scope */
	bool module;			/* trace-events-sample loaded */
	char paranoid[16];		/* perf_event_paranoid to put back */
};

static void errs_teardown(void *fixture, const void *variant)
{
	struct errs *f = fixture;
	int i;

	(void)variant;
	reap_child(f->zombie);
	reap_child(f->live);
	reap_child(f->t);
	reap_child(f->target);
	reap_child(f->decoy);
	reap_child(f->shared);
	reap_child(f->shared_child);
	release_fd(&f->go);
	release_link(&f->view_link);
	release_link(&f->in_link);
	release_link(&f->lsm_link);
	release_fd(&f->pfd);
	release_fd(&f->spfd);
	release_fd(&f->nfd);
	release_fd(&f->cgfd);
	for (i = 0; i < MAX_VIEWS; i++)
		release_fd(&f->fds[i]);
	release_fd(&f->dev);
	release_view(&f->kv);
	count__destroy(f->skel);
	count__destroy(f->view);
	count__destroy(f->in);
	lsmcg__destroy(f->lsmcg);
	if (f->paranoid[0])
		put_back(PERF_PARANOID, f->paranoid, false);
	if (f->module && system("rmmod trace_events_sample"))
		diag("rmmod trace_events_sample failed");
}

static void open_dev(struct errs *f)
{
	f->dev = open("/dev/kview", O_RDWR);
	check(f->dev >= 0, "/dev/kview: %s", strerror(errno));
}

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
static void test_read_text(struct errs *f)
{
	unsigned long end = (ksym("ksys_read") | 4095) + 1;
	unsigned char vb[KVIEW_TEXT_MAX + 1], gb[KVIEW_TEXT_MAX + 1];
	unsigned char v1[8], g1[8], v2[8], g2[8];
	struct kview *kv;
	int fd;

	f->kv = kv = kview__create(0, NULL);
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
	release_view(&f->kv);
}

/* No such pid, a kernel thread, a zombie. */
static void targets_not_there(struct errs *f)
{
	int dev = f->dev;
	siginfo_t si;
	pid_t zombie;

	expect_errno(create(dev, 999999, 0), ESRCH);
	expect_errno(create(dev, 2, 0), EOPNOTSUPP);	/* kthreadd */
	f->zombie = zombie = fork();
	check(zombie >= 0, "fork: %s", strerror(errno));
	if (!zombie)
		_exit(0);
	/* Until it is a zombie, without reaping it. */
	check(!waitid(P_PID, zombie, &si, WEXITED | WNOWAIT),
	      "waitid: %s", strerror(errno));
	expect_errno(create(dev, zombie, 0), ESRCH);
	wait_exit(zombie);
}

/* A live process: bad flags, a reserved field, busy, an unknown ioctl. */
static void targets_live(struct errs *f)
{
	char *spin[] = { "sleep", "60", NULL };
	struct kview_create c;
	int dev = f->dev, fd;
	pid_t live;

	f->live = live = spawn_stopped(spin);
	resume(live);
	expect_errno(create(dev, live, 0x80), EINVAL);
	memset(&c, 0, sizeof(c));
	c.pid = live;
	c.reserved[1] = 1;
	expect_errno(ioctl(dev, KVIEW_IOC_CREATE, &c) < 0 ? -errno : 0, EINVAL);
	f->fds[0] = fd = create(dev, live, 0);
	check(fd >= 0, "create on %d: %s", live, strerror(-fd));
	expect_errno(create(dev, live, 0), EBUSY);
	expect_errno(ioctl(fd, 0x1234) < 0 ? -errno : 0, ENOTTY);
	release_fd(&f->fds[0]);
	kill(live, SIGKILL);
	wait_exit(live);
}

/* What spawn_shared()'s child needs: pipe ends, and whether to exec. */
struct shared {
	int report, go;
	bool exec;
};

/*
 * The child on its parent's mm: it reports its pid, waits for a byte,
 * then execs sleep (@exec) or waits on.  Nothing but write(), read(),
 * exec and pause(), as a vfork() child may.
 */
static int on_parent_mm(void *p)
{
	const struct shared *s = p;
	char *argv[] = { "sleep", "60", NULL };
	pid_t self = getpid();
	char c;

	if (write(s->report, &self, sizeof(self)) != sizeof(self))
		_exit(1);
	if (read(s->go, &c, 1) == 1 && s->exec)
		execvp("sleep", argv);
	for (;;)
		pause();
	return 0;
}

/*
 * A process, in a process group of its own, whose child runs on its mm:
 * clone(@flags) with CLONE_VM, and CLONE_VFORK for a vfork() child (the
 * parent waits in clone() until the child execs).  With CLONE_PARENT the
 * child is ours, not the process's.  The child's pid goes to *@child; a
 * byte written to f->go lets it go on.
 */
static pid_t spawn_shared(struct errs *f, int flags, bool exec, pid_t *child)
{
	int rp[2], gp[2];
	pid_t h;

	check(!pipe(rp) && !pipe(gp), "pipe: %s", strerror(errno));
	h = fork();
	check(h >= 0, "fork: %s", strerror(errno));
	if (!h) {
		static char stack[64 * 1024];
		struct shared s = { rp[1], gp[0], exec };

		setpgid(0, 0);
		if (clone(on_parent_mm, stack + sizeof(stack), flags | SIGCHLD, &s) < 0)
			_exit(1);
		for (;;)
			pause();
	}
	f->shared = h;
	close(rp[1]);
	close(gp[0]);
	check(read(rp[0], child, sizeof(*child)) == sizeof(*child),
	      "the pid of %d's child on its mm", h);
	if (flags & CLONE_PARENT)
		f->shared_child = *child;
	close(rp[0]);
	f->go = gp[1];
	return h;
}

/* Kill spawn_shared()'s processes (one process group) and reap them. */
static void stop_shared(struct errs *f)
{
	reap_child(f->shared);
	reap_child(f->shared_child);
	f->shared = f->shared_child = 0;
	release_fd(&f->go);
}

/* The members of @kv (kview__info()). */
static __u32 nr_members(struct kview *kv)
{
	struct kview_info info;

	check(!kview__info(kv, &info), "kview__info: %s", strerror(errno));
	return info.nr_members;
}

/* /proc/@pid/comm is @comm. */
static bool comm_is(pid_t pid, const char *comm)
{
	char path[64], buf[32];
	bool same = false;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fp = fopen(path, "r");
	if (fp) {
		same = fgets(buf, sizeof(buf), fp) && !strncmp(buf, comm, strlen(comm)) &&
		       buf[strlen(comm)] == '\n';
		fclose(fp);
	}
	return same;
}

/*
 * Membership is per mm: a process on another's mm would bring the other
 * in with it.  A vfork() child (on its parent's mm until it execs; also
 * one made with CLONE_PARENT, whose parent is a sibling: only its vfork
 * says so) and either side of clone(CLONE_VM) without CLONE_THREAD get
 * EBUSY, from create and from add-pid, and nothing joins; the vfork()
 * child is taken once it exec'd, and its parent at any time (the child is
 * in with it until its exec, the documented rule).
 */
static void targets_shared(struct errs *f)
{
	int dev = f->dev;
	pid_t h, c;

	h = spawn_shared(f, CLONE_VM | CLONE_VFORK, true, &c);
	expect_errno(create(dev, c, 0), EBUSY);
	f->kv = kview__create(h, NULL);
	check(f->kv, "a view on %d, parent of a vfork() child: %s", h, strerror(errno));
	check_eq(nr_members(f->kv), 1);
	release_view(&f->kv);
	f->kv = kview__create(0, NULL);
	check(f->kv, "an empty view: %s", strerror(errno));
	expect_errno(kview__add_pid(f->kv, c), EBUSY);
	check_eq(nr_members(f->kv), 0);
	check(write(f->go, "x", 1) == 1, "write: %s", strerror(errno));
	check(WAIT_FOR(comm_is(c, "sleep"), 30), "%d's vfork() child %d did not exec sleep",
	      h, c);
	expect_errno(kview__add_pid(f->kv, c), 0);
	check_eq(nr_members(f->kv), 1);
	release_view(&f->kv);
	f->kv = kview__create(h, NULL);
	check(f->kv, "a view on %d after its child's exec: %s", h, strerror(errno));
	release_view(&f->kv);
	stop_shared(f);

	h = spawn_shared(f, CLONE_VM | CLONE_VFORK | CLONE_PARENT, false, &c);
	expect_errno(create(dev, c, 0), EBUSY);
	stop_shared(f);

	h = spawn_shared(f, CLONE_VM, false, &c);
	expect_errno(create(dev, c, 0), EBUSY);
	expect_errno(create(dev, h, 0), EBUSY);
	f->kv = kview__create(0, NULL);
	check(f->kv, "an empty view: %s", strerror(errno));
	expect_errno(kview__add_pid(f->kv, h), EBUSY);
	expect_errno(kview__add_pid(f->kv, c), EBUSY);
	check_eq(nr_members(f->kv), 0);
	release_view(&f->kv);
	stop_shared(f);
}

/*
 * MAX_VIEWS views at most (views without members are allowed), each an
 * open fd: the file limit is raised for them first.
 */
static void targets_limit(struct errs *f)
{
	struct rlimit rl = { MAX_VIEWS + 64, MAX_VIEWS + 64 };
	int dev = f->dev, i;

	check(!setrlimit(RLIMIT_NOFILE, &rl), "setrlimit(RLIMIT_NOFILE, %d): %s",
	      MAX_VIEWS + 64, strerror(errno));
	for (i = 0; i < MAX_VIEWS; i++) {
		f->fds[i] = create(dev, 0, 0);
		check(f->fds[i] >= 0, "view %d: %s", i, strerror(-f->fds[i]));
	}
	expect_errno(create(dev, 0, 0), ENOSPC);
	for (i = 0; i < MAX_VIEWS; i++)
		release_fd(&f->fds[i]);
}

static void test_targets(void *fixture, const void *variant)
{
	struct errs *f = fixture;

	(void)variant;
	open_dev(f);
	targets_not_there(f);
	targets_live(f);
	targets_shared(f);
	targets_limit(f);
	release_fd(&f->dev);
	check_clean();
	test_read_text(f);
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

static void test_privileges(void *fixture, const void *variant)
{
	struct errs *f = fixture;
	int dev;

	(void)variant;
	open_dev(f);
	dev = f->dev;
	/* nobody, no capabilities, the fd opened by root: EPERM. */
	expect_errno(child_errno(dev, 0, false), EPERM);
	/* CAP_BPF + CAP_PERFMON, but no ptrace rights over root's process. */
	expect_errno(child_errno(dev, getpid(), true), EPERM);
	/* CAP_BPF + CAP_PERFMON on its own process: allowed. */
	expect_errno(child_errno(dev, 0, true), 0);
	release_fd(&f->dev);
	check_clean();
}

static unsigned long module_function(struct errs *fix)
{
	char line[512], sym[256], mod[256], t;
	unsigned long addr;
	FILE *f;

	check(!system("modprobe -d \"$KVIEW_MODROOT\" trace-events-sample"),
	      "cannot load trace-events-sample");
	fix->module = true;
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

/*
 * In the scope: a program on a perf event opened outside it (@pfd), a
 * kprobe in module text (at @mod) and on no function, a BPF_LSM_CGROUP
 * program on the cgroup root, or put in a link made outside the scope; a
 * trampoline on a core function is scoped.
 */
static void scope_bpf_hooks(struct errs *f, unsigned long mod)
{
	LIBBPF_OPTS(bpf_kprobe_opts, kopts);
	struct bpf_link *link;

	link = bpf_program__attach_perf_event(f->skel->progs.tp_enter, f->pfd);
	expect_errno(link ? 0 : -errno, EOPNOTSUPP);
	/* A BPF trampoline on a core function is scoped (kview-trampoline). */
	link = bpf_program__attach(f->skel->progs.fe_read);
	expect_errno(link ? 0 : -errno, 0);
	bpf_link__destroy(link);
	kopts.offset = mod;
	link = bpf_program__attach_kprobe_opts(f->skel->progs.kp_offset, "", &kopts);
	expect_errno(link ? 0 : -errno, EOPNOTSUPP);
	link = bpf_program__attach_kprobe_opts(f->skel->progs.kp_offset,
					       "no_such_function_kview", NULL);
	expect_errno(link ? 0 : -errno, ENOENT);
	/*
	 * A BPF_LSM_CGROUP program runs from a shim trampoline on the LSM
	 * hook, for every task: refused, as a link, as an attachment, and
	 * put in the link made before the scope was entered.
	 */
	link = bpf_program__attach_cgroup(f->lsmcg->progs.lsmcg_open, f->cgfd);
	expect_errno(link ? 0 : -errno, EOPNOTSUPP);
	/* A second program, and the link's flag: the cgroup takes it. */
	expect_errno(bpf_prog_attach(bpf_program__fd(f->lsmcg->progs.lsmcg_attach),
				     f->cgfd, BPF_LSM_CGROUP, BPF_F_ALLOW_MULTI) ? -errno : 0,
		     EOPNOTSUPP);
	expect_errno(bpf_link_update(bpf_link__fd(f->lsm_link),
				     bpf_program__fd(f->lsmcg->progs.lsmcg_open), NULL) ? -errno : 0,
		     EOPNOTSUPP);
}

/* In the scope: tracefs's hooks are refused, what is no hook passes. */
static void scope_tracefs(void)
{
	/* tracefs hooks every task: refused in the scope. */
	expect_errno(tracefs_write("events/sched/sched_switch/enable", "1"), EOPNOTSUPP);
	expect_errno(tracefs_write("set_event", "sched:sched_switch"), EOPNOTSUPP);
	expect_errno(tracefs_write("kprobe_events", "p:kview_refused ksys_read"), EOPNOTSUPP);
	/* Disabling and removing are not hooks: allowed. */
	expect_errno(tracefs_write("events/sched/sched_switch/enable", "0"), 0);
	expect_errno(tracefs_write("set_event", "!sched:sched_switch"), 0);
	expect_errno(tracefs_write("kprobe_events", "-:kview_no_such_event"), ENOENT);
}

/*
 * In the scope: a uprobe and a sampling event pass through, a software
 * event kernel code raises is refused.
 */
static void scope_user_and_sampling(struct errs *f)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uopts, .func_name = "main");
	struct bpf_link *link;

	/* A uprobe is not a kernel hook: it passes, as outside the scope. */
	link = bpf_program__attach_uprobe_opts(f->skel->progs.up_any, -1,
					       "/proc/self/exe", 0, &uopts);
	expect_errno(link ? 0 : -errno, 0);
	bpf_link__destroy(link);
	/* Nor is a sampling event (bpftrace's interval, profile). */
	f->spfd = software_event(PERF_COUNT_SW_CPU_CLOCK);
	link = bpf_program__attach_perf_event(f->skel->progs.pe_any, f->spfd);
	expect_errno(link ? 0 : -errno, 0);
	bpf_link__destroy(link);
	release_fd(&f->spfd);
	/* A software event kernel code raises is, for every task: refused. */
	f->spfd = software_event(PERF_COUNT_SW_CONTEXT_SWITCHES);
	link = bpf_program__attach_perf_event(f->skel->progs.pe_any, f->spfd);
	expect_errno(link ? 0 : -errno, EOPNOTSUPP);
	release_fd(&f->spfd);
}

/* The view names each of the nine refusals, and holds nothing. */
static void scope_records(struct errs *f)
{
	struct kview_info info;

	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	diag("view %u: %u attachment(s), %u refused", info.id, info.nr_attachments,
	     info.nr_refused);
	check_eq(info.nr_refused, 9);
	check(view_refused(info.id, "lsm_cgroup bpf_lsm_file_open"), "no record of the BPF_LSM_CGROUP program");
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
}

static void test_scope(void *fixture, const void *variant)
{
	char *spin[] = { "sleep", "60", NULL };
	struct errs *f = fixture;
	unsigned long mod;

	(void)variant;
	f->skel = count__open_and_load();
	check(f->skel, "load count.bpf.o: %s", strerror(errno));
	f->lsmcg = lsmcg__open_and_load();
	check(f->lsmcg, "load lsmcg.bpf.o: %s", strerror(errno));
	f->cgfd = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	check(f->cgfd >= 0, "/sys/fs/cgroup: %s", strerror(errno));
	/* Outside any scope, a BPF_LSM_CGROUP link is global, as in mainline. */
	f->lsm_link = bpf_program__attach_cgroup(f->lsmcg->progs.lsmcg_open, f->cgfd);
	check(f->lsm_link, "BPF_LSM_CGROUP link outside the scope: %s", strerror(errno));
	f->t = spawn_stopped(spin);
	resume(f->t);
	f->kv = kview__create(f->t, NULL);
	check(f->kv, "kview__create: %s", strerror(errno));
	mod = module_function(f);

	/* A tracepoint event opened before entering the scope is global. */
	f->pfd = tracepoint_event("syscalls/sys_enter_read");

	check(!kview__enter_scope(f->kv), "enter scope: %s", strerror(errno));
	scope_bpf_hooks(f, mod);
	scope_tracefs();
	scope_user_and_sampling(f);
	check(!kview__leave_scope(f->kv), "leave scope: %s", strerror(errno));
	release_link(&f->lsm_link);

	scope_records(f);
	release_fd(&f->pfd);

	kill(f->t, SIGKILL);
	wait_exit(f->t);
	release_view(&f->kv);
	count__destroy(f->skel);
	f->skel = NULL;
	check_clean();
	system("rmmod trace_events_sample");
	f->module = false;
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
/*
 * Debian's kernels (CONFIG_SECURITY_PERF_EVENTS_RESTRICT) start at
 * perf_event_paranoid 3, where perf_event_open() refuses whoever lacks
 * CAP_SYS_ADMIN with EACCES before it looks at a view: the call is made
 * at 2, mainline's highest level, and the level put back after it.
 */
static int perfmon_only_errno(struct errs *f, struct perf_event_attr *attr, int vfd)
{
	struct open_arg a = { attr, vfd };
	char *level = kvtest_slurp(PERF_PARANOID);
	int r;

	if (atoi(level) > 2) {
		snprintf(f->paranoid, sizeof(f->paranoid), "%s", level);
		put_back(PERF_PARANOID, "2", false);
	}
	free(level);
	r = as_nobody(CAP_HIGH(CAP_PERFMON), open_as, &a);
	if (f->paranoid[0]) {
		put_back(PERF_PARANOID, f->paranoid, false);
		f->paranoid[0] = '\0';
	}
	return r;
}

/* The perf events of the explicit case: a kprobe, a uprobe, cpu-clock. */
struct ev_attrs {
	struct perf_event_attr kp, up, sw;
};

static void explicit_attrs(struct ev_attrs *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->kp.size = sizeof(ev->kp);
	ev->kp.type = pmu_type("kprobe");
	ev->kp.config1 = (unsigned long)"ksys_read";
	ev->up.size = sizeof(ev->up);
	ev->up.type = pmu_type("uprobe");
	ev->up.config1 = (unsigned long)"/proc/self/exe";
	ev->sw.size = sizeof(ev->sw);
	ev->sw.type = PERF_TYPE_SOFTWARE;
	ev->sw.config = PERF_COUNT_SW_CPU_CLOCK;
	ev->sw.sample_period = 10000000;
}

/* What cannot be opened in the view: each with its errno, none attached. */
static void explicit_errnos(struct errs *f, const struct ev_attrs *ev)
{
	struct perf_event_attr kp = ev->kp, up = ev->up, sw = ev->sw;
	int vfd = kview__fd(f->kv), nfd = f->nfd;
	struct kview_info info;

	expect_errno(open_in_view(&kp, 1000, 0, 0), EBADF);
	expect_errno(open_in_view(&kp, nfd, 0, 0), EINVAL);
	expect_errno(open_in_view(&kp, -1, 0, 0), EINVAL);
	expect_errno(open_in_view(&kp, vfd, -1, 0), EINVAL);
	expect_errno(open_in_view(&kp, vfd, 0, PERF_FLAG_PID_CGROUP), EINVAL);
	expect_errno(open_in_view(&sw, vfd, 0, 0), EINVAL);
	expect_errno(open_in_view(&up, vfd, 0, 0), EOPNOTSUPP);
	/* The fd alone is not enough: nobody with CAP_PERFMON, not CAP_BPF. */
	expect_errno(perfmon_only_errno(f, &kp, vfd), EPERM);
	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_attachments, 0);
	check_eq(info.nr_refused, 0);
}

/*
 * The kprobe event in the view, opened by this task, which never enters
 * its scope: the view's attachment.  The view's program on it and the
 * in-eBPF one, attached.
 */
static void explicit_event(struct errs *f, struct perf_event_attr *kp)
{
	struct kview_info info;

	f->pfd = open_in_view(kp, kview__fd(f->kv), 0, 0);
	check(f->pfd >= 0, "kprobe event in the view: %s", strerror(-f->pfd));
	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	diag("view %u: %u attachment(s), %u patch(es)", info.id, info.nr_attachments,
	     info.nr_patches);
	check_eq(info.nr_attachments, 1);
	check_eq(info.nr_patches, 1);

	f->in->rodata->filter_tgid = f->target;
	only_program(f->in->obj, "tp_enter");
	only_program(f->view->obj, "kp_entry");
	check(!count__load(f->in) && !count__load(f->view), "load count.bpf.o: %s",
	      strerror(errno));
	f->view_link = bpf_program__attach_perf_event(f->view->progs.kp_entry, f->pfd);
	check(f->view_link, "attach to the view's event: %s", strerror(errno));
	f->in_link = bpf_program__attach(f->in->progs.tp_enter);
	check(f->in_link, "attach in-eBPF: %s", strerror(errno));
}

static void test_explicit(void *fixture, const void *variant)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=20000", "status=none", NULL };
	struct ev_attrs ev;
	struct errs *f = fixture;
	unsigned long long want;

	(void)variant;
	explicit_attrs(&ev);
	f->view = count__open();
	f->in = count__open();
	check(f->view && f->in, "open count.bpf.o: %s", strerror(errno));
	f->target = spawn_stopped(dd);
	f->decoy = spawn_stopped(dd);
	f->kv = kview__create(f->target, NULL);
	check(f->kv, "kview__create: %s", strerror(errno));
	f->nfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	check(f->nfd >= 0, "/dev/null: %s", strerror(errno));
	explicit_errnos(f, &ev);
	explicit_event(f, &ev.kp);

	resume(f->decoy);
	resume(f->target);
	check_eq(wait_exit(f->decoy), 0);
	check_eq(wait_exit(f->target), 0);
	want = check_counts_equal(bpf_map__fd(f->view->maps.counts),
				  bpf_map__fd(f->in->maps.counts), f->target, f->decoy);
	check(want >= 20000, "in-eBPF saw only %llu reads of the target", want);

	/* The link owns the event: the hook goes with it. */
	release_link(&f->view_link);
	release_link(&f->in_link);
	release_fd(&f->pfd);
	check_view_empty_destroy(f->kv);
	f->kv = NULL;
	release_fd(&f->nfd);
	count__destroy(f->view);
	count__destroy(f->in);
	f->view = f->in = NULL;
	check_stats_clean();
	check_eq(kview_stats().out_of_scope, 0);
}

static const struct check_case cases[] = {
	{ "targets", test_targets, NULL },
	{ "privileges", test_privileges, NULL },
	{ "scope", test_scope, NULL },
	{ "explicit", test_explicit, NULL },
};

static const struct check_suite suite = {
	.fixture_size = sizeof(struct errs),
	.teardown = errs_teardown,
	CHECK_CASES(cases),
};

int main(int argc, char **argv)
{
	return check_main(&suite, argc, argv);
}
