// SPDX-License-Identifier: GPL-2.0
/*
 * --container NAME|ID: the cgroup of a container, as its OCI runtime
 * knows it.  kview asks the runtime (crun by default; runc answers the
 * same), never guesses a path: `RUNTIME [--root DIR] list --format json`
 * for the ids (an exact id, else a unique id prefix), `RUNTIME [--root
 * DIR] state ID` for its status and init pid, then /proc/PID/cgroup's
 * cgroup v2 line.  Then the target is that cgroup, as with --cgroup.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "container.h"
#include "kview-cli.h"

/* How many ambiguous ids a message names. */
#define AMBIGUOUS_SHOWN 8

int container_match(const struct jr_value *list, const char *name, const char *runtime,
		    const char **id, char *why, size_t whysz)
{
	size_t i, nprefix = 0, len = strlen(name), at;
	const char *s, *first = NULL;
	int n;

	*id = NULL;
	if (list->type != JR_NULL && list->type != JR_ARRAY) {
		snprintf(why, whysz, "%s list --format json: not a list of containers (%s)",
			 runtime, jr_type_name(list));
		return -1;
	}
	for (i = 0; list->type == JR_ARRAY && i < list->n; i++) {
		s = jr_string(jr_member(&list->items[i], "id"));
		if (!s) {
			snprintf(why, whysz, "%s list --format json: container %zu of the list has no id",
				 runtime, i + 1);
			return -1;
		}
		if (!strcmp(s, name)) {
			*id = s;
			return 0;
		}
		if (!strncmp(s, name, len) && !nprefix++)
			first = s;
	}
	if (nprefix == 1) {
		*id = first;
		return 0;
	}
	if (!nprefix && (list->type == JR_NULL || !list->n)) {
		snprintf(why, whysz, "no container '%s': %s lists no container at all", name, runtime);
		return -1;
	}
	if (!nprefix) {
		snprintf(why, whysz, "no container '%s': none of the %zu container(s) %s lists has that id or one beginning with it",
			 name, list->n, runtime);
		return -1;
	}
	n = snprintf(why, whysz, "container id prefix '%s' is ambiguous, %zu of %s's containers begin with it:",
		     name, nprefix, runtime);
	at = n < 0 ? whysz : (size_t)n;
	for (i = 0, nprefix = 0; i < list->n && at < whysz; i++) {
		s = jr_string(jr_member(&list->items[i], "id"));
		if (strncmp(s, name, len))
			continue;
		if (++nprefix > AMBIGUOUS_SHOWN)
			break;
		n = snprintf(why + at, whysz - at, "%s %s", nprefix > 1 ? "," : "", s);
		at = n < 0 ? whysz : at + n;
	}
	if (nprefix > AMBIGUOUS_SHOWN && at < whysz)
		snprintf(why + at, whysz - at, ", ...");
	return -1;
}

int container_pid(const struct jr_value *state, const char *id, const char *runtime,
		  pid_t *pid, char *why, size_t whysz)
{
	const char *status = jr_string(jr_member(state, "status"));
	const char *sid = jr_string(jr_member(state, "id"));
	long long p;

	if (state->type != JR_OBJECT || !status) {
		snprintf(why, whysz, "%s state %s: not a container's state (%s%s)", runtime, id,
			 jr_type_name(state), state->type == JR_OBJECT ? " without a status" : "");
		return -1;
	}
	if (sid && strcmp(sid, id)) {
		snprintf(why, whysz, "%s state %s: the state of another container, '%s'",
			 runtime, id, sid);
		return -1;
	}
	if (!strcmp(status, "stopped")) {
		snprintf(why, whysz, "container %s is stopped: it has no process to trace (%s state %s)",
			 id, runtime, id);
		return -1;
	}
	if (strcmp(status, "running") && strcmp(status, "paused") && strcmp(status, "created")) {
		snprintf(why, whysz, "container %s is not running: %s state %s says '%s'",
			 id, runtime, id, status);
		return -1;
	}
	if (!jr_int(jr_member(state, "pid"), &p) || p <= 0 || p > INT_MAX) {
		snprintf(why, whysz, "container %s is %s but %s state %s gives no init pid",
			 id, status, runtime, id);
		return -1;
	}
	*pid = p;
	return 0;
}

int cgroup_v2_path(const char *proc_cgroup, const char *mount, char **path,
		   char *why, size_t whysz)
{
	static const char deleted[] = " (deleted)";
	const char *line = proc_cgroup, *end;
	size_t len;

	*path = NULL;
	while (line && strncmp(line, "0::", 3)) {
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	if (!line) {
		snprintf(why, whysz, "no cgroup v2 line (0::) in its /proc/PID/cgroup: cgroup v1 only?");
		return -1;
	}
	line += 3;
	end = strchrnul(line, '\n');
	len = end - line;
	if (len > strlen(deleted) && !memcmp(end - strlen(deleted), deleted, strlen(deleted))) {
		snprintf(why, whysz, "its cgroup %.*s was removed",
			 (int)(len - strlen(deleted)), line);
		return -1;
	}
	if (line[0] != '/' || !strncmp(line, "/..", 3) || memmem(line, len, "/../", 4) ||
	    (len >= 3 && !memcmp(end - 3, "/..", 3))) {
		snprintf(why, whysz, "its cgroup (%.*s) is outside kview's cgroup namespace",
			 (int)len, line);
		return -1;
	}
	if (len == 1)
		len = 0;	/* "/": the mount itself, the root cgroup */
	if (asprintf(path, "%s%.*s", mount, (int)len, line) < 0) {
		*path = NULL;
		snprintf(why, whysz, "out of memory");
		return -1;
	}
	return 0;
}

/* The runtime, as the options name it, and how it is said in messages. */
struct runtime {
	const char *path;	/* --runtime, $KVIEW_OCI_RUNTIME or crun */
	const char *root;	/* --runtime-root: the runtime's --root */
	const struct output *out;	/* where kview's messages go */
};

#define RUNTIME_TIMEOUT_MS 30000
#define RUNTIME_OUT_MAX (16 << 20)

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* "crun --root DIR state ID": the command line, for messages. */
static const char *runtime_command(char *const argv[])
{
	static char buf[1024];
	size_t at = 0;
	int i, n;

	buf[0] = '\0';
	for (i = 0; argv[i] && at < sizeof(buf); i++) {
		n = snprintf(buf + at, sizeof(buf) - at, "%s%s", i ? " " : "", argv[i]);
		at = n < 0 ? sizeof(buf) : at + n;
	}
	return buf;
}

/* The runtime's process: exec it with stdout and stderr on pipes. */
static void runtime_child(char *const argv[], int out, int err, int report)
{
	int nul = open("/dev/null", O_RDONLY | O_CLOEXEC), e;

	if (nul < 0 || dup2(nul, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) {
		e = errno;
		goto fail;
	}
	execvp(argv[0], argv);
	e = errno;
fail:
	if (write(report, &e, sizeof(e)) < 0)
		_exit(126);
	_exit(127);
}

/* A failed exec of the runtime, as the child reported it: die. */
static void __attribute__((noreturn)) runtime_missing(const struct runtime *rt, int err)
{
	if (err == ENOENT && !strchr(rt->path, '/'))
		out_die(rt->out, "the OCI runtime %s is not installed (not found in PATH): install crun or runc, or name the runtime with --runtime PATH or KVIEW_OCI_RUNTIME",
			rt->path);
	out_die(rt->out, "cannot run the OCI runtime %s: %s", rt->path, strerror(err));
}

/* Collect the runtime's stdout (in @out) and stderr until both end, or die at the timeout. */
static void runtime_collect(const struct runtime *rt, pid_t pid, const char *cmd, int fds[2],
			    char **out, size_t *len, char *err, size_t errsz)
{
	struct pollfd pfd[2] = { { .fd = fds[0], .events = POLLIN }, { .fd = fds[1], .events = POLLIN } };
	long long deadline = now_ms() + RUNTIME_TIMEOUT_MS;
	size_t cap = 0, elen = 0;
	char chunk[4096], *p;
	ssize_t n;
	int i;

	*out = NULL;
	*len = 0;
	while (pfd[0].fd >= 0 || pfd[1].fd >= 0) {
		int left = deadline - now_ms();

		pfd[0].revents = pfd[1].revents = 0;
		if (left <= 0 || (poll(pfd, 2, left) < 0 && errno != EINTR)) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			out_die(rt->out, "%s did not answer in %d s", cmd, RUNTIME_TIMEOUT_MS / 1000);
		}
		for (i = 0; i < 2; i++) {
			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			n = read(pfd[i].fd, chunk, sizeof(chunk));
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				continue;
			}
			if (i == 1) {
				size_t k = (size_t)n < errsz - 1 - elen ? (size_t)n : errsz - 1 - elen;

				memcpy(err + elen, chunk, k);
				elen += k;
				continue;
			}
			if (*len + n > RUNTIME_OUT_MAX) {
				kill(pid, SIGKILL);
				waitpid(pid, NULL, 0);
				out_die(rt->out, "%s: more than %d MiB of output", cmd, RUNTIME_OUT_MAX >> 20);
			}
			if (*len + n + 1 > cap) {
				cap = (*len + n + 1) * 2;
				p = realloc(*out, cap);
				if (!p)
					out_die(rt->out, "out of memory");
				*out = p;
			}
			memcpy(*out + *len, chunk, n);
			*len += n;
			(*out)[*len] = '\0';
		}
	}
	err[elen] = '\0';
}

/*
 * Run the runtime with @args (after its --root), its stdout parsed as
 * JSON; die with one line if it cannot be run, fails, hangs or does not
 * print JSON.
 */
static struct jr_value *runtime_json(const struct runtime *rt, const char *const args[])
{
	char *argv[8], *out, err[512], why[256], *nl;
	int p_out[2], p_err[2], p_rep[2], fds[2], e = 0, status, i, n = 0;
	struct jr_value *v;
	const char *cmd;
	size_t len;
	pid_t pid;

	argv[n++] = (char *)rt->path;
	if (rt->root) {
		argv[n++] = "--root";
		argv[n++] = (char *)rt->root;
	}
	for (i = 0; args[i]; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	cmd = runtime_command(argv);

	if (pipe2(p_out, O_CLOEXEC) || pipe2(p_err, O_CLOEXEC) || pipe2(p_rep, O_CLOEXEC))
		out_die(rt->out, "pipe: %s", strerror(errno));
	signal(SIGCHLD, SIG_DFL);	/* waited for, whatever kview inherited */
	pid = fork();
	if (pid < 0)
		out_die(rt->out, "fork: %s", strerror(errno));
	if (!pid)
		runtime_child(argv, p_out[1], p_err[1], p_rep[1]);
	close(p_out[1]);
	close(p_err[1]);
	close(p_rep[1]);
	/* EOF at the exec (close-on-exec), an errno if it failed. */
	while ((n = read(p_rep[0], &e, sizeof(e))) < 0 && errno == EINTR)
		;
	close(p_rep[0]);
	if (n == sizeof(e)) {
		waitpid(pid, NULL, 0);
		runtime_missing(rt, e);
	}
	fds[0] = p_out[0];
	fds[1] = p_err[0];
	runtime_collect(rt, pid, cmd, fds, &out, &len, err, sizeof(err));
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		nl = strchr(err, '\n');
		if (nl)
			*nl = '\0';
		out_die(rt->out, "%s failed (%s)%s%s", cmd, describe_status(status), *err ? ": " : "", err);
	}
	if (jr_parse(out ? out : "", len, &v, why, sizeof(why)))
		out_die(rt->out, "%s: not the JSON expected (%s)", cmd, why);
	free(out);
	return v;
}

/* The pid's cgroup v2 directory; the pidfd checks it was that process's. */
static char *container_cgroup(const struct output *o, const char *id, pid_t pid)
{
	char file[64], text[65536], why[PATH_MAX + 64], *path;
	size_t len = 0;
	int fd, pidfd;
	ssize_t n;

	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0 && errno == ESRCH)
		out_die(o, "container %s: its init process (pid %d) is gone: has the container stopped?", id, pid);
	snprintf(file, sizeof(file), "/proc/%d/cgroup", pid);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		out_die(o, "container %s: its init process (pid %d) is gone: has the container stopped?", id, pid);
	if (fd < 0)
		out_die(o, "container %s: cannot read %s: %s", id, file, strerror(errno));
	while (len < sizeof(text) - 1 && (n = read(fd, text + len, sizeof(text) - 1 - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			out_die(o, "container %s: cannot read %s: %s", id, file, strerror(errno));
		len += n;
	}
	close(fd);
	text[len] = '\0';
	/* Read from the init process still: the pid was not reused meanwhile. */
	if (pidfd >= 0 && syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) && errno == ESRCH)
		out_die(o, "container %s: its init process (pid %d) is gone: has the container stopped?", id, pid);
	if (pidfd >= 0)
		close(pidfd);
	if (cgroup_v2_path(text, CGROUP_MOUNT, &path, why, sizeof(why)))
		out_die(o, "container %s (init pid %d): %s", id, pid, why);
	return path;
}

void target_container(struct target *t)
{
	static const char *const list_args[] = { "list", "--format", "json", NULL };
	const char *env = getenv("KVIEW_OCI_RUNTIME"), *state_args[3], *id;
	struct runtime rt = { .path = t->runtime, .root = t->runtime_root, .out = t->out };
	struct jr_value *list, *state;
	char why[2048];
	pid_t pid;

	if (!rt.path)
		rt.path = env && *env ? env : OCI_RUNTIME_DEFAULT;
	list = runtime_json(&rt, list_args);
	if (container_match(list, t->container, rt.path, &id, why, sizeof(why)))
		out_die(t->out, "%s", why);
	t->container_id = strdup(id);
	jr_free(list);
	if (!t->container_id)
		out_die(t->out, "out of memory");

	state_args[0] = "state";
	state_args[1] = t->container_id;
	state_args[2] = NULL;
	state = runtime_json(&rt, state_args);
	if (container_pid(state, t->container_id, rt.path, &pid, why, sizeof(why)))
		out_die(t->out, "%s", why);
	if (t->out->verbose)
		out_note(t->out, "container %s: %s, init pid %d (%s state %s)", t->container_id,
			 jr_string(jr_member(state, "status")), pid, rt.path, t->container_id);
	jr_free(state);
	free(t->cgroup);
	t->cgroup = container_cgroup(t->out, t->container_id, pid);
	if (t->out->verbose)
		out_note(t->out, "container %s: cgroup %s (/proc/%d/cgroup)", t->container_id, t->cgroup, pid);
}
