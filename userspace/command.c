// SPDX-License-Identifier: GPL-2.0
/*
 * A command started held, for kview exec -c and kview attach -c: /bin/sh
 * -c CMD is forked at once but blocked before its exec until it is
 * released, so that a view can be made on it, and hooks attached, before
 * its first instruction.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kview-cli.h"

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
	struct view *views;
	unsigned int alive = 0;
	size_t n, i, j;

	if (views_read(&views, &n))
		return 0;
	for (i = 0; i < n; i++)
		for (j = 0; views[i].id == view_id && j < views[i].nm; j++)
			alive += !kill(views[i].m[j].pid, sig);
	views_free(views, n);
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
