// SPDX-License-Identifier: GPL-2.0
/*
 * What kview attach and kview exec are pointed at: the options they share,
 * a cgroup (--cgroup, or a container's, --container: container.c), and a
 * command started held (-c): /bin/sh -c CMD is forked at once but blocked
 * before its exec until it is released, so that a view can be made on it,
 * and hooks attached, before its first instruction.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kview-cli.h"

void target_init(struct target *t, struct output *out)
{
	memset(t, 0, sizeof(*t));
	t->out = out;
	t->opts.sz = sizeof(t->opts);
}

/* --cgroup's @arg as an absolute path: under CGROUP_MOUNT if relative. */
static char *cgroup_path(const struct output *o, const char *arg)
{
	char *path;

	if (!*arg)
		out_die(o, "--cgroup wants a cgroup directory, got an empty path");
	if (asprintf(&path, "%s%s", *arg == '/' ? "" : CGROUP_MOUNT "/", arg) < 0)
		out_die(o, "out of memory");
	return path;
}

bool target_option(struct target *t, int c, const char *arg)
{
	switch (c) {
	case 'p':
		t->pid = parse_number(t->out, "--pid", arg, INT_MAX);
		return true;
	case 'c':
		t->command = arg;
		return true;
	case TARGET_OPT_CGROUP:
		free(t->cgroup);
		t->cgroup = cgroup_path(t->out, arg);
		return true;
	case TARGET_OPT_CONTAINER:
		if (!*arg)
			out_die(t->out, "--container wants a container id or the beginning of one, got an empty one");
		t->container = arg;
		return true;
	case TARGET_OPT_RUNTIME:
		if (!*arg)
			out_die(t->out, "--runtime wants an OCI runtime (crun, runc or a path), got an empty one");
		t->runtime = arg;
		return true;
	case TARGET_OPT_RUNTIME_ROOT:
		if (!*arg)
			out_die(t->out, "--runtime-root wants a directory, got an empty one");
		t->runtime_root = arg;
		return true;
	case 'f':
		t->opts.follow_fork = true;
		return true;
	case 'e':
		t->opts.follow_exec = true;
		return true;
	case 'q':
		t->quiet = true;
		return true;
	case 'j':
		t->out->json = true;
		return true;
	}
	return false;
}

void target_check(struct target *t, const char *cmd)
{
	if (!!t->pid + !!t->command + !!t->cgroup + !!t->container != 1)
		out_die(t->out, "%s needs one of --pid N, -c COMMAND, --cgroup PATH or --container ID (see kview %s --help)",
			cmd, cmd);
	if (t->command && !*t->command)
		out_die(t->out, "-c wants a command, got an empty one");
	if (t->cgroup && (t->opts.follow_fork || t->opts.follow_exec))
		out_die(t->out, "--follow-fork and --follow-exec do not go with --cgroup: the view follows the processes of %s, their forks, execs and moves included",
			t->cgroup);
	if (t->container && (t->opts.follow_fork || t->opts.follow_exec))
		out_die(t->out, "--follow-fork and --follow-exec do not go with --container: the view follows the processes of the container's cgroup, their forks, execs and moves included");
	if (!t->container && (t->runtime || t->runtime_root))
		out_die(t->out, "--runtime and --runtime-root go with --container (see kview %s --help)", cmd);
	if (t->container)
		target_container(t);
}

void target_free(struct target *t)
{
	free(t->cgroup);
	free(t->container_id);
	t->cgroup = t->container_id = NULL;
}

const char *target_name(const struct target *t)
{
	static char buf[2 * PATH_MAX + 32];

	if (t->container_id)
		snprintf(buf, sizeof(buf), "container %s in cgroup %s", t->container_id, t->cgroup);
	else if (t->cgroup)
		snprintf(buf, sizeof(buf), "cgroup %s", t->cgroup);
	else
		snprintf(buf, sizeof(buf), "pid %d", t->pid);
	return buf;
}

int cgroup_open(const struct output *o, const char *path)
{
	struct statfs sfs;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 && errno == ENOTDIR)
		out_die(o, "%s is not a cgroup v2 directory (not a directory)", path);
	if (fd < 0)
		out_die(o, "cgroup %s: %s", path, strerror(errno));
	if (fstatfs(fd, &sfs) == 0 && sfs.f_type != CGROUP2_SUPER_MAGIC)
		out_die(o, "%s is not a cgroup v2 directory (not on a cgroup2 file system)", path);
	return fd;
}

/*
 * The one-line message for kview__create_cgroup()'s errno @err on @path
 * (the kernel's rules: Documentation/userspace-api/kview.rst, "Cgroup
 * views").
 */
static const char *cgroup_error(int err, const char *path)
{
	static char buf[PATH_MAX + 192];

	switch (err) {
	case EBADF:
		snprintf(buf, sizeof(buf), "%s is not a cgroup v2 directory", path);
		break;
	case EOPNOTSUPP:
		snprintf(buf, sizeof(buf), "%s is a threaded cgroup: a view takes whole processes, whose threads may sit in different cgroups there (trace its threaded domain)", path);
		break;
	case EBUSY:
		snprintf(buf, sizeof(buf), "%s is, or is within or above, the cgroup of another cgroup view: cgroup views do not nest (kview list shows them)", path);
		break;
	case EPERM:
	case EACCES:
		snprintf(buf, sizeof(buf), "permission denied: a view on cgroup %s needs CAP_SYS_ADMIN", path);
		break;
	case EINVAL:
		snprintf(buf, sizeof(buf), "%s is the root cgroup, every process: it cannot have a view (attach globally instead)", path);
		break;
	case ENOSPC:
	case ENOENT:
	case ENODEV:
	case ENXIO:
		return create_error(err, 0);
	default:
		snprintf(buf, sizeof(buf), "cannot create a kernel view on cgroup %s: %s", path, strerror(err));
	}
	return buf;
}

struct kview *target_cgroup_view(struct target *t)
{
	struct kview_info info;
	struct kview *kv;
	int fd = cgroup_open(t->out, t->cgroup), err;

	kv = kview__create_cgroup(fd, &t->opts);
	err = errno;
	close(fd);
	if (!kv)
		out_die(t->out, "%s", cgroup_error(err, t->cgroup));
	if (kview__info(kv, &info) == 0)
		t->cgroup_id = info.cgroup_id;
	return kv;
}

/*
 * Fork the command's process; it waits until command_release() writes a
 * byte on *@go_fd (on EOF, when kview exits or gives up first, it exits
 * 127 without running anything), then restores @oldmask and execs /bin/sh
 * -c @cmd.  It stays in the terminal's process group, so that it can use
 * the terminal and gets its Ctrl-C as it would without kview.
 */
pid_t command_start_held(const struct output *o, const char *cmd, int *go_fd,
			 const sigset_t *oldmask)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC))
		out_die(o, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		out_die(o, "fork: %s", strerror(errno));
	if (pid) {
		close(p[0]);
		*go_fd = p[1];
		return pid;
	}
	close(p[1]);
	sigprocmask(SIG_SETMASK, oldmask, NULL);
	if (read(p[0], &c, 1) != 1)
		_exit(127);
	close(p[0]);
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	out_error(o, "cannot run /bin/sh: %s", strerror(errno));
	_exit(127);
}

/*
 * The command is the shell's process and what it started: the processes
 * of its view (which follows forks and execs), as debugfs kview/views
 * lists them.  Signal them all (@sig 0: count them); how many there
 * were.  Without debugfs, none (the caller signals the shell's process
 * itself).
 */
unsigned int command_signal_members(unsigned int view_id, int sig)
{
	const struct kview_views_view *v;
	struct kview_views *views;
	unsigned int alive = 0;
	size_t j;

	if (kview__views_read(NULL, &views))
		return 0;
	v = kview__views_find(views, view_id);
	for (j = 0; v && j < v->members_cnt; j++)
		alive += !kill(v->members[j].pid, sig);
	kview__views_free(views);
	return alive;
}

/* Let the held command run (true), or say why it cannot; *@go_fd is closed. */
bool command_release(const struct output *o, int *go_fd)
{
	bool ok = write(*go_fd, "g", 1) == 1;

	if (!ok)
		out_error(o, "cannot start the command: %s", strerror(errno));
	close(*go_fd);
	*go_fd = -1;
	return ok;
}

/*
 * The held command will not run (kview failed before releasing it): it
 * sees EOF and exits 127 without running anything; wait for that, so that
 * nothing of it outlives kview.
 */
void command_abandon(pid_t pid, int *go_fd)
{
	if (*go_fd < 0)
		return;
	close(*go_fd);
	*go_fd = -1;
	waitpid(pid, NULL, 0);
}

/*
 * kview attach stops before the command has exited (Ctrl-C, SIGTERM, the
 * duration).  The command is the shell and what it started: the members
 * of view @id (0 for --mode global: the shell alone).  @sig goes to all of
 * them (0: they had it already, from the terminal); whatever is left of
 * them 10 s later gets SIGKILL.  Then kview reaps the shell and says how
 * the command ended (in @status).
 */
void command_stop(const struct output *o, pid_t pid, unsigned int id, int sig,
		  bool quiet, int *status)
{
	bool reaped = false;
	int i;

	if (sig) {
		kill(pid, sig);
		if (id)
			command_signal_members(id, sig);
	}
	for (i = 0; i < 100; i++) {
		if (!reaped)
			reaped = waitpid(pid, status, WNOHANG) == pid;
		if (reaped && (!id || !command_signal_members(id, 0)))
			break;
		usleep(100000);
	}
	if (i == 100) {
		if (!quiet)
			out_note(o, "the command is still running 10 s after %s%s: SIGKILL",
				 sig ? "SIG" : "the terminal's signal",
				 sig ? sigabbrev_np(sig) : "");
		if (!reaped)
			kill(pid, SIGKILL);
		if (id)
			command_signal_members(id, SIGKILL);
	}
	if (!reaped && waitpid(pid, status, 0) != pid)
		*status = -1;
	if (!quiet && !o->json)
		out_note(o, "the command (pid %d) was stopped: %s", pid,
			 describe_status(*status));
}

/*
 * "exit N" or "killed by signal N (NAME)", for a wait status; "status
 * unknown" for -1 (the process was not reaped).
 */
const char *describe_status(int status)
{
	static char buf[64];

	if (status == -1)
		return "status unknown";
	if (WIFSIGNALED(status))
		snprintf(buf, sizeof(buf), "killed by signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, sizeof(buf), "exit %d", WEXITSTATUS(status));
	return buf;
}
