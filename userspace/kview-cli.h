/* SPDX-License-Identifier: GPL-2.0 */
/* kview command line tool: shared declarations. */
#ifndef KVIEW_CLI_H
#define KVIEW_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <kview/kview.h>

#include "dump.h"
#include "json.h"
#include "output.h"

#define KVIEW_VERSION "0.6.0"

/* The commands, speaking through @o (which their -j sets). */
int cmd_attach(struct output *o, int argc, char **argv);
int cmd_list(struct output *o, int argc, char **argv);
int cmd_exec(struct output *o, int argc, char **argv);

/* A positive number from option @what, at most @max, or die. */
long parse_number(const struct output *o, const char *what, const char *s, long max);
/* The one-line message for kview__create()'s errno @err on @pid. */
const char *create_error(int err, pid_t pid);

/*
 * What kview attach and kview exec are pointed at, from the options they
 * share: -p/--pid N, -c/--command CMD, --cgroup PATH or --container
 * NAME|ID (with --runtime PATH, --runtime-root DIR), -f/--follow-fork,
 * -e/--follow-exec, -q/--quiet, -j/--json.  kview_opts' filter is -m pre.
 * @out: where the messages go (main()'s; -j sets its json).
 */
struct target {
	struct output *out;
	pid_t pid;
	const char *command;
	/* --cgroup's directory, made absolute; --container's, found */
	char *cgroup;
	unsigned long long cgroup_id;	/* its view's (KVIEW_IOC_INFO) */
	const char *container;	/* --container: an id or the start of one */
	char *container_id;	/* the runtime's whole id for it */
	const char *runtime;	/* --runtime */
	const char *runtime_root;	/* --runtime-root */
	struct kview_opts opts;
	bool quiet;
};
#define TARGET_SHORTOPTS "p:c:feqj"
#define TARGET_OPT_CGROUP 256
#define TARGET_OPT_CONTAINER 257
#define TARGET_OPT_RUNTIME 258
#define TARGET_OPT_RUNTIME_ROOT 259
#define TARGET_LONGOPTS \
	{ "pid", required_argument, NULL, 'p' }, \
	{ "command", required_argument, NULL, 'c' }, \
	{ "cgroup", required_argument, NULL, TARGET_OPT_CGROUP }, \
	{ "container", required_argument, NULL, TARGET_OPT_CONTAINER }, \
	{ "runtime", required_argument, NULL, TARGET_OPT_RUNTIME }, \
	{ "runtime-root", required_argument, NULL, TARGET_OPT_RUNTIME_ROOT }, \
	{ "follow-fork", no_argument, NULL, 'f' }, \
	{ "follow-exec", no_argument, NULL, 'e' }, \
	{ "quiet", no_argument, NULL, 'q' }, \
	{ "json", no_argument, NULL, 'j' }
/* --cgroup PATH: relative to this unless it starts with '/'. */
#define CGROUP_MOUNT "/sys/fs/cgroup"
void target_init(struct target *t, struct output *out);
/* Take option @c (with @arg) if it is one of the shared ones. */
bool target_option(struct target *t, int c, const char *arg);
/*
 * After the options: exactly one of --pid, -c, --cgroup and --container,
 * no follow flags with --cgroup or --container, --runtime and
 * --runtime-root only with --container, or die (@cmd: "attach").  Then
 * --container's cgroup, from the runtime (target_container()).
 */
void target_check(struct target *t, const char *cmd);
/*
 * --container: ask the OCI runtime for the container (an exact id, else
 * a unique id prefix), its init pid and that process's cgroup v2
 * directory: @t->container_id and @t->cgroup; or die with one line
 * (container.c).
 */
void target_container(struct target *t);
/* Free what the target's options allocated. */
void target_free(struct target *t);
/*
 * --cgroup: the view on the cgroup's subtree (@t's opts: -m pre makes it
 * a filter view), its cgroup id in @t; or die with a line naming the
 * cgroup.  @t->cgroup is checked to be a cgroup v2 directory first.
 */
struct kview *target_cgroup_view(struct target *t);
/* @path opened as a cgroup v2 directory, or die with a line naming it. */
int cgroup_open(const struct output *o, const char *path);
/*
 * "pid N", "cgroup PATH", "container ID in cgroup PATH": the target in
 * kview's messages.
 */
const char *target_name(const struct target *t);

/* pidfd_open(2), which glibc 2.36 has no wrapper for. */
int pidfd_open_compat(pid_t pid);
/* command.c: a command held before its exec (exec -c, attach -c). */
pid_t command_start_held(const struct output *o, const char *cmd, int *go_fd,
			 const sigset_t *oldmask);
bool command_release(const struct output *o, int *go_fd);
/* The held command @pid will not run: let it go (it exits 127) and reap it. */
void command_abandon(pid_t pid, int *go_fd);
/*
 * Stop the command @pid and the members of its view @id (0: none) with
 * @sig (0: the terminal's reached them), SIGKILL 10 s later, and reap it.
 */
void command_stop(const struct output *o, pid_t pid, unsigned int id, int sig,
		  bool quiet, int *status);
unsigned int command_signal_members(unsigned int view_id, int sig);
const char *describe_status(int status);

#endif
