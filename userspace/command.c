// SPDX-License-Identifier: GPL-2.0
/*
 * What kview attach and kview exec are pointed at: the options they share
 * and a command started held (-c): /bin/sh -c CMD is forked at once but
 * blocked before its exec until it is released, so that a view can be
 * made on it, and hooks attached, before its first instruction.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kview-cli.h"

void target_init(struct target *t)
{
	memset(t, 0, sizeof(*t));
	t->opts.sz = sizeof(t->opts);
}

bool target_option(struct target *t, int c, const char *arg)
{
	switch (c) {
	case 'p':
		t->pid = parse_number("--pid", arg, INT_MAX);
		return true;
	case 'c':
		t->command = arg;
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
		json_output = true;
		return true;
	}
	return false;
}

void target_check(const struct target *t, const char *cmd)
{
	if (!t->pid == !t->command)
		die("%s needs either --pid N or -c COMMAND (see kview %s --help)", cmd, cmd);
	if (t->command && !*t->command)
		die("-c wants a command, got an empty one");
}

/*
 * Fork the command's process; it waits until command_release() writes a
 * byte on *@go_fd (on EOF, when kview exits or gives up first, it exits
 * 127 without running anything), then restores @oldmask and execs /bin/sh
 * -c @cmd.  It stays in the terminal's process group, so that it can use
 * the terminal and gets its Ctrl-C as it would without kview.
 */
pid_t command_start_held(const char *cmd, int *go_fd, const sigset_t *oldmask)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
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
	error_note("cannot run /bin/sh: %s", strerror(errno));
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
bool command_release(int *go_fd)
{
	bool ok = write(*go_fd, "g", 1) == 1;

	if (!ok)
		error_note("cannot start the command: %s", strerror(errno));
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
void command_stop(pid_t pid, unsigned int id, int sig, bool quiet, int *status)
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
			note("the command is still running 10 s after %s%s: SIGKILL",
			     sig ? "SIG" : "the terminal's signal",
			     sig ? sigabbrev_np(sig) : "");
		if (!reaped)
			kill(pid, SIGKILL);
		if (id)
			command_signal_members(id, SIGKILL);
	}
	if (!reaped && waitpid(pid, status, 0) != pid)
		*status = -1;
	if (!quiet && !json_output)
		note("the command (pid %d) was stopped: %s", pid,
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
