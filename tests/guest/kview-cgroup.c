// SPDX-License-Identifier: GPL-2.0
/*
 * kview-cgroup: a kernel view that follows a cgroup v2 subtree
 * (kview__create_cgroup(), KVIEW_F_CGROUP) sees exactly what the in-eBPF
 * cgroup filter sees: a program attached globally that first checks
 * bpf_current_task_under_cgroup() on the same cgroup, as libbpf-tools'
 * --cgroup and bpftrace's cgroup filter do.  Both count getppid() calls
 * per process, in the same run, while worker processes call it in and
 * out of the cgroup:
 *
 *   kview-cgroup follow   a process of the cgroup when the view is made;
 *                         one of another cgroup; a child forked inside
 *                         after the attach; one started into the cgroup
 *                         by clone3(CLONE_INTO_CGROUP); the first moved
 *                         out and the other moved in (cgroup.procs);
 *                         an exec inside: each count the same in both,
 *                         and what the rules say it must be
 *   kview-cgroup errors   the root cgroup, a non-cgroup fd, follow
 *                         flags, a threaded cgroup, making a view's
 *                         cgroup threaded, nested cgroup views and
 *                         KVIEW_IOC_ADD_PID are refused; a process in
 *                         a pid view moved into the cgroup stays in its
 *                         view and is counted as skipped
 *
 * One suite (tests/lib/harness.h): the fixture is two cgroups, A (traced)
 * and B, each with a worker process, and what a case makes on them.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kvtest.h"
#include "cgcount.skel.h"

#define CG_ROOT "/sys/fs/cgroup"
#define CG_A CG_ROOT "/kview-cg-a"
#define CG_B CG_ROOT "/kview-cg-b"
#define CALLS 5000

/* A child that does what its parent writes on its pipe, one byte each. */
struct worker {
	pid_t pid;
	int cmd, done;		/* our ends */
};

struct cgt {
	int a, b;		/* the cgroups' directories */
	struct worker a1, b1, a2;
	struct kview *kv, *kv2;
	struct cgcount *view, *ref;
	struct bpf_link *view_link, *ref_link;
};

static void getppid_n(int n)
{
	while (n-- > 0)
		syscall(SYS_getppid);
}

/*
 * The worker's loop: 'g' calls getppid() CALLS times, 'f' forks a child
 * that does and reports the child's pid, 'e' execs this program, which
 * does (exec_child()); each answers with an int on its pipe.
 */
static void __attribute__((noreturn)) worker_loop(int cmd, int done)
{
	char c, fd[16];
	int r;

	while (read(cmd, &c, 1) == 1) {
		r = 0;
		if (c == 'g') {
			getppid_n(CALLS);
		} else if (c == 'f') {
			r = fork();
			if (r == 0) {
				getppid_n(CALLS);
				_exit(0);
			}
			waitpid(r, NULL, 0);
		} else if (c == 'e') {
			snprintf(fd, sizeof(fd), "%d", done);
			execl("/proc/self/exe", "kview-cgroup", "exec-child", fd,
			      (char *)NULL);
			_exit(127);
		}
		if (write(done, &r, sizeof(r)) != sizeof(r))
			_exit(1);
	}
	_exit(0);
}

/* After the worker's exec: getppid() CALLS times, answer, exit. */
static int exec_child(const char *done)
{
	int r = 0;

	getppid_n(CALLS);
	return write(atoi(done), &r, sizeof(r)) == sizeof(r) ? 0 : 1;
}

/* Write @s to @path: 0, or -1 with errno. */
static int cg_write(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	err = errno;
	close(fd);
	errno = err;
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

static void cg_move(const char *dir, pid_t pid)
{
	char path[128], s[16];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(s, sizeof(s), "%d", pid);
	check(!cg_write(path, s), "move %d to %s: %s", pid, dir,
	      strerror(errno));
}

/*
 * Start @w in the cgroup @dir (@dfd): forked and moved there, or with
 * @into started there by clone3(CLONE_INTO_CGROUP).
 */
static void worker_start(struct worker *w, const char *dir, int dfd, bool into)
{
	struct clone_args args = { .exit_signal = SIGCHLD };
	int cmd[2], done[2];
	pid_t pid;

	check(!pipe2(cmd, O_CLOEXEC) && !pipe(done), "pipe: %s", strerror(errno));
	if (into) {
		args.flags = CLONE_INTO_CGROUP;
		args.cgroup = dfd;
		pid = syscall(SYS_clone3, &args, sizeof(args));
	} else {
		pid = fork();
	}
	check(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(cmd[1]);
		close(done[0]);
		worker_loop(cmd[0], done[1]);
	}
	close(cmd[0]);
	close(done[1]);
	w->pid = pid;
	w->cmd = cmd[1];
	w->done = done[0];
	if (!into)
		cg_move(dir, pid);
}

static int worker_do(struct worker *w, char c)
{
	int r;

	check(write(w->cmd, &c, 1) == 1, "to worker %d: %s", w->pid,
	      strerror(errno));
	check(read(w->done, &r, sizeof(r)) == sizeof(r),
	      "worker %d did not answer '%c'", w->pid, c);
	return r;
}

static void worker_stop(struct worker *w)
{
	if (w->pid <= 0)
		return;
	close(w->cmd);
	close(w->done);
	reap_child(w->pid);
	w->pid = 0;
}

static int cg_open(const char *dir)
{
	int fd;

	rmdir(dir);
	check(!mkdir(dir, 0755), "mkdir %s: %s", dir, strerror(errno));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	check(fd >= 0, "open %s: %s", dir, strerror(errno));
	return fd;
}

static void cg_setup(void *fixture, const void *variant)
{
	struct cgt *f = fixture;

	(void)variant;
	f->a = cg_open(CG_A);
	f->b = cg_open(CG_B);
	worker_start(&f->a1, CG_A, f->a, false);
	worker_start(&f->b1, CG_B, f->b, false);
}

static void cg_teardown(void *fixture, const void *variant)
{
	struct cgt *f = fixture;

	(void)variant;
	release_link(&f->view_link);
	release_link(&f->ref_link);
	cgcount__destroy(f->view);
	cgcount__destroy(f->ref);
	f->view = f->ref = NULL;
	release_view(&f->kv);
	release_view(&f->kv2);
	worker_stop(&f->a1);
	worker_stop(&f->b1);
	worker_stop(&f->a2);
	release_fd(&f->a);
	release_fd(&f->b);
	rmdir(CG_A "/td/t");
	rmdir(CG_A "/td");
	rmdir(CG_A "/tx");
	rmdir(CG_A);
	rmdir(CG_B);
}

/* The cgroup's id, as the kernel reports it: its directory's inode. */
static unsigned long long cg_id(int fd)
{
	struct stat st;

	check(!fstat(fd, &st), "fstat: %s", strerror(errno));
	return st.st_ino;
}

/* The view's program, and the in-eBPF reference on cgroup A. */
static void attach_both(struct cgt *f)
{
	__u32 zero = 0, fd = f->a;

	f->view = cgcount__open_and_load();
	check(f->view, "load the view's program: %s", strerror(errno));
	f->view_link = kview__attach_program(f->kv, f->view->progs.kp_getppid);
	check(f->view_link, "attach in the cgroup view: %s", strerror(errno));

	f->ref = cgcount__open();
	check(f->ref, "open the reference: %s", strerror(errno));
	f->ref->rodata->filter_cgroup = true;
	check(!cgcount__load(f->ref), "load the reference: %s", strerror(errno));
	check(!bpf_map_update_elem(bpf_map__fd(f->ref->maps.cgroups), &zero,
				   &fd, BPF_ANY), "cgroup array: %s",
	      strerror(errno));
	f->ref_link = bpf_program__attach(f->ref->progs.kp_getppid);
	check(f->ref_link, "attach the reference: %s", strerror(errno));
}

/* @pid's count in the view and in the reference: equal, and @want. */
static void expect_calls(struct cgt *f, const char *who, pid_t pid,
			 unsigned long long want)
{
	unsigned long long v = map_u32_count(bpf_map__fd(f->view->maps.counts), pid);
	unsigned long long r = map_u32_count(bpf_map__fd(f->ref->maps.counts), pid);

	diag("%s (pid %d): view %llu, in-eBPF cgroup filter %llu, want %llu",
	     who, pid, v, r, want);
	expect(v == r, "%s: the view and the reference differ", who);
	expect(v == want, "%s: %llu calls seen, want %llu", who, v, want);
}

static void cg_follow(void *fixture, const void *variant)
{
	struct cgt *f = fixture;
	struct kview_info info;
	pid_t child;

	(void)variant;
	f->kv = kview__create_cgroup(f->a, NULL);
	check(f->kv, "kview__create_cgroup(%s): %s", CG_A, strerror(errno));
	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	check_eq(info.cgroup_id, cg_id(f->a));
	check_eq(info.nr_members, 1);
	attach_both(f);

	worker_do(&f->a1, 'g');			/* in A when the view came */
	worker_do(&f->b1, 'g');			/* in B */
	child = worker_do(&f->a1, 'f');		/* forked inside A */
	worker_start(&f->a2, CG_A, f->a, true);	/* clone3 into A */
	worker_do(&f->a2, 'g');
	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_members, 2);
	cg_move(CG_B, f->a1.pid);		/* out of A: not any more */
	worker_do(&f->a1, 'g');
	cg_move(CG_A, f->b1.pid);		/* into A: from now on */
	worker_do(&f->b1, 'g');
	worker_do(&f->a2, 'e');			/* exec inside A */
	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_members, 2);

	expect_calls(f, "the member from the start, then moved out",
		     f->a1.pid, CALLS);
	expect_calls(f, "the process moved in", f->b1.pid, CALLS);
	expect_calls(f, "the child forked inside", child, CALLS);
	expect_calls(f, "the process cloned into A, then exec'd",
		     f->a2.pid, 2 * CALLS);
	check_eq(kview_stats().out_of_scope, 0);
}

/* kview__create_cgroup(@fd, @opts) fails with @err. */
static void expect_refused(const char *what, int fd,
			   const struct kview_opts *opts, int err)
{
	struct kview *kv = kview__create_cgroup(fd, opts);
	int got = kv ? 0 : errno;

	kview__destroy(kv);
	expect(got == err, "%s: %s, want %s", what, got ? strerror(got) : "made",
	       strerror(err));
}

/*
 * kview/views (libkview's parser) shows view @kv on cgroup @id, with @n
 * of the cgroup's processes skipped.
 */
static bool views_skipped(struct kview *kv, unsigned long long id,
			  unsigned int n)
{
	const struct kview_views_view *v;
	struct kview_views *views;
	struct kview_info info;
	bool found;

	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	views = views_read();
	v = kview__views_find(views, info.id);
	found = v && v->cgroup_id == id && v->nr_skipped == n;
	kview__views_free(views);
	return found;
}

static void cg_errors(void *fixture, const void *variant)
{
	LIBBPF_OPTS(kview_opts, follow, .follow_fork = true);
	struct cgt *f = fixture;
	int root, file, td, t, tx;

	(void)variant;
	root = open(CG_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	file = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	check(root >= 0 && file >= 0, "open: %s", strerror(errno));
	expect_refused("the root cgroup", root, NULL, EINVAL);
	expect_refused("a file that is no cgroup", file, NULL, EBADF);
	expect_refused("follow_fork", f->a, &follow, EINVAL);
	close(root);
	close(file);

	td = cg_open(CG_A "/td");
	t = cg_open(CG_A "/td/t");
	check(!cg_write(CG_A "/td/t/cgroup.type", "threaded"),
	      "make td/t threaded: %s", strerror(errno));
	expect_refused("a threaded cgroup", t, NULL, EOPNOTSUPP);

	tx = cg_open(CG_A "/tx");
	f->kv = kview__create_cgroup(tx, NULL);
	check(f->kv, "kview__create_cgroup(tx): %s", strerror(errno));
	expect(cg_write(CG_A "/tx/cgroup.type", "threaded") && errno == EBUSY,
	       "a cgroup with a view made threaded: %s", strerror(errno));
	release_view(&f->kv);
	close(tx);

	f->kv = kview__create_cgroup(f->a, NULL);
	check(f->kv, "kview__create_cgroup(%s): %s", CG_A, strerror(errno));
	expect_refused("a cgroup within a cgroup view's", td, NULL, EBUSY);
	expect(kview__add_pid(f->kv, f->b1.pid) == -EINVAL,
	       "KVIEW_IOC_ADD_PID on a cgroup view");
	release_view(&f->kv);
	f->kv = kview__create_cgroup(td, NULL);
	check(f->kv, "kview__create_cgroup(td): %s", strerror(errno));
	expect_refused("a cgroup above a cgroup view's", f->a, NULL, EBUSY);
	release_view(&f->kv);
	close(td);
	close(t);

	/* A pid view's member moved into the cgroup stays in its view. */
	f->kv2 = kview__create(f->b1.pid, NULL);
	check(f->kv2, "kview__create(%d): %s", f->b1.pid, strerror(errno));
	f->kv = kview__create_cgroup(f->a, NULL);
	check(f->kv, "kview__create_cgroup(%s): %s", CG_A, strerror(errno));
	cg_move(CG_A, f->b1.pid);
	expect(views_skipped(f->kv, cg_id(f->a), 1),
	       "kview/views does not count the pid view's member as skipped");
}

static const struct check_case cases[] = {
	{ "follow", cg_follow, NULL },
	{ "errors", cg_errors, NULL },
};

static const struct check_suite suite = {
	.fixture_size = sizeof(struct cgt),
	.setup = cg_setup,
	.teardown = cg_teardown,
	CHECK_CASES(cases),
};

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "exec-child"))
		return exec_child(argv[2]);
	return check_main(&suite, argc, argv);
}
