// SPDX-License-Identifier: GPL-2.0
/*
 * kview exec: run an unmodified tracing tool in the attach scope of one
 * process's kernel view, so that every kernel hook the tool creates through
 * the ordinary APIs is scoped to that process (or refused), and no other
 * process pays for it.
 *
 * The kernel does the scoping: a task that entered a view's attach scope
 * (KVIEW_IOC_SCOPE_ENTER) passes it on to its children and keeps it across
 * exec, and the perf events, BPF links and raw tracepoints it opens are
 * scoped to the view (docs/design.md §2).  kview exec creates the view,
 * forks, enters the scope in the child and execs the tool there; the view
 * goes when the tool and its hooks are gone.
 *
 * With -c, the command to trace is started by kview exec too: a child
 * that waits on a pipe, whose exec of /bin/sh -c COMMAND the view follows.
 * It is let go once the tool's hooks in the view have stopped changing
 * (the kernel counts them: KVIEW_IOC_INFO), so the tool sees the command
 * from its first instruction; when the command exits, the tool gets SIGINT
 * (tools print their summaries on it) and kview exec ends with the tool.
 *
 * With --cgroup, the view follows a cgroup v2 subtree (the kernel keeps
 * its members in step as processes fork, exec and move in and out), and
 * kview exec runs until the tool exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <kview/kview.h>

#include "container.h"
#include "kview-cli.h"

static const char exec_usage[] =
"Usage: kview exec --pid N [options] -- TOOL [ARGS...]\n"
"       kview exec -c COMMAND [options] -- TOOL [ARGS...]\n"
"       kview exec --cgroup PATH [options] -- TOOL [ARGS...]\n"
"       kview exec --container NAME|ID [--runtime PATH] [--runtime-root DIR]\n"
"                  [options] -- TOOL [ARGS...]\n"
"\n"
"Run an unmodified tracing tool (bpftrace, bcc's libbpf-tools, any libbpf\n"
"program) in the kernel view of process N (or of a cgroup's processes,\n"
"--cgroup, or a container's, --container): every kernel hook TOOL creates\n"
"with the ordinary APIs (kprobes, kretprobes, kprobe_multi, tracepoints,\n"
"syscall and raw tracepoints, BPF trampolines: fentry/fexit/fmod_ret,\n"
"bpftrace kfunc:) is written into N's view only, so only N runs it and no\n"
"other process pays for it.  What a view cannot scope is refused with\n"
"EOPNOTSUPP, which TOOL reports, and kview exec names: it is never\n"
"attached for every process: hooks in modules (tracepoints, trampolines),\n"
"LSM and extension programs, tracefs kprobe_events and event enabling.\n"
"kview exec then says whether TOOL went on without the hook (libbpf-tools\n"
"probe for fentry and fall back to kprobes) or ended in a failure.\n"
"Uprobes (bpftrace BEGIN/END too) are not kernel hooks: they work as\n"
"without a view.  TOOL's children are in the scope too, and TOOL dies\n"
"with kview.  The view goes when TOOL exits;\n"
"kview exits with TOOL's status (128+N if signal N ended it; 127: no such\n"
"TOOL; 125: kview exec failed after starting it).\n"
"\n"
"Events are N's when N's task raises them, exactly as a `pid == N` filter\n"
"sees them: what other tasks, interrupts or softirqs do on N's behalf\n"
"(waking N up, completing its block I/O, receiving its packets) is not;\n"
"kview exec says so when TOOL attaches such a hook.\n"
"\n"
"Options:\n"
"  -p, --pid N          the process to trace\n"
"  -c, --command CMD    instead of --pid: start /bin/sh -c CMD, held before\n"
"                       its exec until TOOL's hooks are attached (they stop\n"
"                       changing for --settle ms), then traced from its\n"
"                       first instruction, its children and execs too; when\n"
"                       it exits TOOL gets SIGINT; if TOOL exits first, CMD\n"
"                       and what it started get SIGTERM (then, as for TOOL,\n"
"                       SIGTERM/SIGKILL 10 s apart until gone)\n"
"      --cgroup PATH    instead of --pid: the processes of cgroup v2\n"
"                       directory PATH (relative to " CGROUP_MOUNT " unless\n"
"                       it starts with '/') and of its descendants, as\n"
"                       bpf_current_task_under_cgroup() sees them: those\n"
"                       forked, started or moved in later join, those\n"
"                       moved out leave (no --follow-*); refused: the root\n"
"                       cgroup, a threaded cgroup, one within or above\n"
"                       another cgroup view's; processes already in a pid\n"
"                       view stay there (kview list counts them as\n"
"                       skipped).  Runs until TOOL exits\n"
"      --container NAME|ID\n"
"                       instead of --pid: the processes of an OCI\n"
"                       container, as --cgroup on its cgroup: kview asks\n"
"                       the runtime (RUNTIME list --format json) for the\n"
"                       container whose id is NAME|ID, or else the only\n"
"                       one whose id begins with it, then (RUNTIME state\n"
"                       ID) for its init pid, whose cgroup v2 directory\n"
"                       (/proc/PID/cgroup) the view follows; refused: a\n"
"                       stopped container.  Runs until TOOL exits\n"
"      --runtime PATH   with --container: the OCI runtime to ask, crun or\n"
"                       runc or a path (default: $KVIEW_OCI_RUNTIME, else\n"
"                       " OCI_RUNTIME_DEFAULT ")\n"
"      --runtime-root DIR\n"
"                       with --container: the runtime's state directory,\n"
"                       passed as its --root (where a container engine\n"
"                       keeps it elsewhere than the runtime's default)\n"
"  -f, --follow-fork    also trace N's children forked from now on\n"
"  -e, --follow-exec    keep tracing N (and children) across exec\n"
"  -m, --mode MODE      kview (default): N's kernel view; pre: TOOL's hooks\n"
"                       are armed for every process and the kernel skips\n"
"                       its programs for the others (the pre-eBPF filter,\n"
"                       for comparison)\n"
"  -s, --settle MS      how long TOOL's hooks must stay unchanged before CMD\n"
"                       starts (with -c), or before TOOL is said to have\n"
"                       gone on after a refusal (default 1000)\n"
"  -w, --wait S         with -c: start CMD after S seconds even if TOOL has\n"
"                       attached nothing in the view (default 60)\n"
"  -q, --quiet          no messages but errors\n"
"  -j, --json           kview's messages as JSON lines on stderr\n"
"                       ({\"type\":\"note\"|\"error\",\"message\":...}, a\n"
"                       refused hook {\"type\":\"refused\",\"tool\":...,\n"
"                       \"hook\":...,\"why\":...}, then\n"
"                       {\"type\":\"refusal_outcome\",\"tool\":...,\n"
"                       \"went_on\":true|false,...}); stdout is TOOL's\n"
"  -h, --help           this help\n"
"\n"
"Examples:\n"
"  kview exec --pid 1234 -- opensnoop          files opened by 1234 only\n"
"  kview exec -p 1234 -- bpftrace -e 'tracepoint:syscalls:sys_enter_read\n"
"      { @[comm] = count(); }'                  1234's reads\n"
"  kview exec -c 'memcached -U 0' -- syscount  memcached's syscalls from\n"
"                                              its first one\n"
"  kview exec --cgroup system.slice/foo.service -- bpftrace -e\n"
"      'tracepoint:syscalls:sys_enter_openat { @[comm] = count(); }'\n"
"                                              the service's opens\n"
"  kview exec --container web -- opensnoop     files opened in container\n"
"                                              web (crun's)\n"
"\n"
"Needs CAP_SYS_ADMIN (or CAP_BPF and CAP_PERFMON) and ptrace rights over N;\n"
"CAP_SYS_ADMIN with --cgroup and --container.\n";

/*
 * Hooks whose events a task runs on another task's behalf: in a view they
 * fire only when the traced process itself does the work, as with
 * `pid == N`.  Matched against the names the kernel records for the view's
 * attachments (kview/views): "system:event" for tracepoints, the event for
 * raw tracepoints, "symbol+off/size" for kprobes.
 */
static const struct {
	const char *prefix;	/* an attachment name that starts so */
	const char *why;
	int group;		/* one note per group */
} on_behalf[] = {
	{ "sched:sched_wakeup",	"runs in the task that wakes a task up", 0 },
	{ "sched:sched_waking",	"runs in the task that wakes a task up", 0 },
	{ "sched_wakeup",	"runs in the task that wakes a task up", 0 },
	{ "sched_waking",	"runs in the task that wakes a task up", 0 },
	{ "try_to_wake_up+",	"runs in the task that wakes a task up", 0 },
	{ "ttwu_do_wakeup+",	"runs in the task that wakes a task up", 0 },
	{ "wake_up_new_task+",	"runs in the parent that forks", 0 },
	{ "block:",		"block I/O is often issued, and always completed, by other tasks and interrupts", 1 },
	{ "block_rq_",		"block I/O is often issued, and always completed, by other tasks and interrupts", 1 },
	{ "blk_account_io_",	"block I/O is often issued, and always completed, by other tasks and interrupts", 1 },
	{ "__blk_account_io_",	"block I/O is often issued, and always completed, by other tasks and interrupts", 1 },
	{ "blk_mq_complete_request+", "block I/O is often issued, and always completed, by other tasks and interrupts", 1 },
	{ "blk_mq_end_request+", "block I/O is often issued, and always completed, by other tasks and interrupts", 1 },
	{ "net:netif_receive_skb", "packets are received in softirq context, in whatever task is running", 2 },
	{ "net:netif_rx",	"packets are received in softirq context, in whatever task is running", 2 },
	{ "net:napi_gro_",	"packets are received in softirq context, in whatever task is running", 2 },
	{ "netif_receive_skb",	"packets are received in softirq context, in whatever task is running", 2 },
	{ "__netif_receive_skb", "packets are received in softirq context, in whatever task is running", 2 },
	{ "netif_rx",		"packets are received in softirq context, in whatever task is running", 2 },
	{ "napi_gro_",		"packets are received in softirq context, in whatever task is running", 2 },
	{ "tcp_v4_rcv+",	"packets are received in softirq context, in whatever task is running", 2 },
	{ "tcp_v6_rcv+",	"packets are received in softirq context, in whatever task is running", 2 },
	{ "tcp_rcv_state_process+", "packets are received in softirq context, in whatever task is running", 2 },
	{ "sock:inet_sock_set_state", "TCP state changes often happen in softirq context", 2 },
	{ "inet_sock_set_state", "TCP state changes often happen in softirq context", 2 },
	{ "tcp:tcp_retransmit", "retransmits run from timers", 2 },
	{ "irq:",		"interrupts run in whatever task is running", 3 },
	{ "irq_handler_",	"interrupts run in whatever task is running", 3 },
	{ "softirq_",		"interrupts run in whatever task is running", 3 },
	{ "timer:",		"timers expire in whatever task is running", 4 },
	{ "hrtimer_",		"timers expire in whatever task is running", 4 },
	{ "workqueue:",		"work items run in kernel worker threads", 5 },
	{ "workqueue_",		"work items run in kernel worker threads", 5 },
};
#define ON_BEHALF_GROUPS 6

struct exec_state {
	const struct output *out;
	struct kview *kv;
	unsigned int view_id;
	const char *tool;
	bool quiet;
	bool cgroup;			/* a view on --cgroup */
	bool noted[ON_BEHALF_GROUPS];
	unsigned int refused;		/* the view's nr_refused, last seen */
	char **said;			/* the refusals reported */
	size_t nsaid;
	long long refused_at;		/* a refusal not judged yet: when */
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static unsigned int nr_attachments(struct exec_state *st, unsigned int *refused)
{
	struct kview_info info;

	if (kview__info(st->kv, &info))
		return 0;
	*refused = info.nr_refused;
	return info.nr_attachments;
}

/* kview exec's own failures, as env(1) and timeout(1) report theirs. */
#define EXIT_KVIEW_FAILED 125

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_KVIEW_FAILED;
}

/* Why the view refuses a kind of hook (the kernel says it for the rest). */
static const struct {
	const char *kind;
	const char *why;
} refusal_why[] = {
	{ "fentry ", "a view's BPF trampolines are on core kernel functions with an ftrace site" },
	{ "fexit ", "a view's BPF trampolines are on core kernel functions with an ftrace site" },
	{ "fmod_ret ", "a view's BPF trampolines are on core kernel functions with an ftrace site" },
	{ "freplace ", "BPF extensions replace a BPF program's function for every caller" },
	{ "lsm ", "LSM programs run for every process" },
	{ "lsm_cgroup ", "a BPF_LSM_CGROUP program's shim runs for every process, then looks its cgroup up" },
	{ "trace_event ", "kprobe events made in tracefs are armed in the global text" },
	{ "tracefs ", "what tracefs enables or makes hooks every process" },
};

/*
 * Name each hook the view refused TOOL (debugfs kview/views keeps them;
 * KVIEW_IOC_INFO counts them), once: TOOL only got EOPNOTSUPP, and may
 * not say which hook, or go on without it.  Shown with -q too.  With -j,
 * {"type":"refused","tool":...,"hook":...,"why":...}: not an "error",
 * since tools that probe for a hook (libbpf-tools try fentry, then fall
 * back to kprobes) carry on.
 */
static void note_refused(struct exec_state *st)
{
	const struct kview_views_view *v;
	struct kview_views *views;
	size_t j, k;

	if (kview__views_read(NULL, &views)) {
		out_error(st->out, "the view refused %s %u hook(s) (EOPNOTSUPP); debugfs kview/views, which names them, cannot be read",
			  st->tool, st->refused);
		return;
	}
	v = kview__views_find(views, st->view_id);
	for (j = 0; v && j < v->refused_cnt; j++) {
		const char *what = v->refused[j].what, *why = NULL;
		char **said;

		for (k = 0; k < st->nsaid && strcmp(st->said[k], what); k++)
			;
		if (k < st->nsaid)
			continue;
		said = realloc(st->said, (st->nsaid + 1) * sizeof(*said));
		if (!said || !(said[st->nsaid] = strdup(what))) {
			st->said = said ? said : st->said;
			break;
		}
		st->said = said;
		st->nsaid++;
		for (k = 0; k < sizeof(refusal_why) / sizeof(refusal_why[0]); k++)
			if (!strncmp(what, refusal_why[k].kind, strlen(refusal_why[k].kind)))
				why = refusal_why[k].why;
		if (st->out->json) {
			struct json_writer w;

			jw_begin_record(&w, stderr, "refused");
			jw_key_string(&w, "tool", st->tool);
			jw_key_string(&w, "hook", what);
			jw_key_string(&w, "why", why ? why : "");
			jw_end_object(&w);
		} else {
			fprintf(stderr, "kview: the view refused %s's hook %s%s%s (%s got EOPNOTSUPP)\n",
				st->tool, what, why ? ": " : "", why ? why : "", st->tool);
		}
	}
	kview__views_free(views);
}

/*
 * Whether TOOL went on after the view refused it a hook: a refusal alone
 * does not say, since tools that probe for a hook carry on without it
 * (libbpf-tools' fentry_can_attach() attaches a test program; refused, the
 * tool falls back to kprobes) while others give up (bpftrace ends on a
 * probe it cannot attach).  Judged once per refusal (or burst of them):
 *
 *   SETTLED  after the refusal, TOOL has hooks in the view and they have
 *            not changed for the settle time, and it still runs
 *   EXITED   TOOL exited 0 first, with hooks in the view until then
 *   GAVE_UP  TOOL ended with a failure first
 *   UNJUDGED TOOL was stopped by a signal (or exited 0 without hooks)
 *            before any of the above could be seen
 *
 * Shown with -q too; with -j, {"type":"refusal_outcome","tool":...,
 * "went_on":true,"hooks":N} (SETTLED, EXITED), "went_on":false (GAVE_UP)
 * or null (UNJUDGED) with "status":"exit 1".
 */
enum refusal_outcome { SETTLED, EXITED, GAVE_UP, UNJUDGED };

static void note_refusal_outcome(struct exec_state *st, enum refusal_outcome o,
				 unsigned int hooks, int status)
{
	st->refused_at = 0;
	if (st->out->json) {
		struct json_writer w;

		jw_begin_record(&w, stderr, "refusal_outcome");
		jw_key_string(&w, "tool", st->tool);
		jw_key(&w, "went_on");
		if (o == SETTLED || o == EXITED) {
			jw_bool(&w, true);
			jw_key_uint(&w, "hooks", hooks);
		} else {
			if (o == GAVE_UP)
				jw_bool(&w, false);
			else
				jw_null(&w);
			jw_key_string(&w, "status", describe_status(status));
		}
		jw_end_object(&w);
		return;
	}
	switch (o) {
	case SETTLED:
		fprintf(stderr, "kview: %s went on without the refused hook(s): %u hook(s) in the view\n",
			st->tool, hooks);
		break;
	case EXITED:
		fprintf(stderr, "kview: %s went on without the refused hook(s) until it exited: %u hook(s) in the view\n",
			st->tool, hooks);
		break;
	case GAVE_UP:
		fprintf(stderr, "kview: %s did not go on without the refused hook(s): it ended with %s\n",
			st->tool, describe_status(status));
		break;
	case UNJUDGED:
		fprintf(stderr, "kview: %s ended (%s) before it could be seen to go on without the refused hook(s)\n",
			st->tool, describe_status(status));
		break;
	}
}

/* A tool's end that is a failure: not exit 0, nor a stop by signal. */
static bool tool_failed(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status) != 0;
	switch (WTERMSIG(status)) {
	case SIGPIPE:	/* its reader went: TOOL | head */
	case SIGINT:
	case SIGTERM:
	case SIGHUP:
	case SIGKILL:
		return false;
	}
	return true;
}

/*
 * Say once per kind when TOOL's hooks in the view are of the kind whose
 * events other tasks raise.  Needs debugfs (kview/views); without it there
 * is nothing to say.  Every hook is looked at each time (the kernel's list
 * changes in the middle when hooks go); noted[] says each kind once.
 */
static void note_on_behalf(struct exec_state *st)
{
	const struct kview_views_view *v;
	struct kview_views *views;
	size_t j, k;

	if (st->quiet || kview__views_read(NULL, &views))
		return;
	v = kview__views_find(views, st->view_id);
	for (j = 0; v && j < v->hooks_cnt; j++) {
		for (k = 0; k < sizeof(on_behalf) / sizeof(on_behalf[0]); k++) {
			const char *sym = v->hooks[j].name;

			if (strncmp(sym, on_behalf[k].prefix, strlen(on_behalf[k].prefix)) ||
			    st->noted[on_behalf[k].group])
				continue;
			st->noted[on_behalf[k].group] = true;
			out_note(st->out, "note: %s's hook on %s: %s, so the view sees only what the traced process does itself (as %s would)",
				 st->tool, sym, on_behalf[k].why,
				 st->cgroup ? "bpf_current_task_under_cgroup()" : "pid == N");
		}
	}
	kview__views_free(views);
}

/*
 * A child being stopped: SIGINT or SIGTERM first, then every 10 s the next
 * of SIGTERM and SIGKILL until it is gone.
 */
struct stopping {
	pid_t pid;
	const char *name;
	int sig;		/* the last signal sent; 0: not being stopped */
	long long at;		/* when */
	bool members;		/* the view's processes too */
	bool done;		/* reaped */
};

/* One kview exec, from its options to its end. */
struct exec {
	struct target t;
	struct exec_state st;
	long long settle, wait_s;
	struct stopping tool, cmd;
	int tool_status;
	int go_fd;		/* -c: the held command's pipe */
	bool cmd_started;
	int sfd, tool_pidfd, cmd_pidfd;
	struct pollfd pfd[3];	/* sfd, TOOL's pidfd, the command's */
	sigset_t oldmask;
	unsigned int seen;	/* TOOL's hooks in the view, last seen */
	long long started, changed;
};

/* For fail(): the children to take down. */
static struct exec *running;

/*
 * out_die() after the children exist: the tool's hooks must not outlive kview
 * exec, and a held command must not run.
 */
static void __attribute__((format(printf, 2, 3), noreturn))
fail(const struct output *o, const char *fmt, ...)
{
	struct exec *e = running;
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (e && e->go_fd >= 0)
		close(e->go_fd);
	if (e && e->tool.pid > 0 && !e->tool.done) {
		kill(e->tool.pid, SIGKILL);
		waitpid(e->tool.pid, NULL, 0);
	}
	if (e && e->cmd.pid > 0 && !e->cmd.done)
		waitpid(e->cmd.pid, NULL, WNOHANG);
	out_error(o, "%s", msg);
	exit(EXIT_KVIEW_FAILED);
}

/* Child: enter the view's attach scope, then become TOOL. */
static pid_t start_tool(const struct output *o, struct kview *kv, char **argv,
			const sigset_t *oldmask)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid < 0)
		fail(o, "fork: %s", strerror(errno));
	if (pid)
		return pid;
	/* If kview exec dies, so does TOOL (and its hooks with it). */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
		_exit(EXIT_KVIEW_FAILED);
	sigprocmask(SIG_SETMASK, oldmask, NULL);
	if (kview__enter_scope(kv)) {
		out_error(o, "cannot enter the view's attach scope: %s", strerror(errno));
		_exit(EXIT_KVIEW_FAILED);
	}
	/* The view fd is close-on-exec: TOOL holds the view by its scope. */
	execvp(argv[0], argv);
	out_error(o, "cannot run %s: %s", argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

/* The command, held until TOOL's hooks are in (command.c). */
static pid_t start_command_held(struct exec *e, int *pidfd)
{
	pid_t pid = command_start_held(e->t.out, e->t.command, &e->go_fd, &e->oldmask);

	*pidfd = pidfd_open_compat(pid);
	if (*pidfd < 0) {
		command_abandon(pid, &e->go_fd);
		out_die(e->t.out, "cannot wait for the command: %s", strerror(errno));
	}
	return pid;
}

static void reap(const struct output *o, pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR)
			fail(o, "waitpid: %s", strerror(errno));
	}
}

static void stop_child(const struct exec_state *st, struct stopping *c, int sig,
		       long long t)
{
	if (!st->quiet || sig == SIGKILL)
		out_note(st->out, "stopping %s (pid %d) with %s", c->name, c->pid,
			 sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGKILL");
	kill(c->pid, sig);
	if (c->members)
		command_signal_members(st->view_id, sig);
	c->sig = sig;
	c->at = t;
}

static void stop_escalate(const struct exec_state *st, struct stopping *c, long long t)
{
	if (c->sig && c->sig != SIGKILL && t - c->at > 10000)
		stop_child(st, c, c->sig == SIGINT ? SIGTERM : SIGKILL, t);
}

/* Options, and where TOOL's arguments start; false: --help was printed. */
static bool exec_options(struct exec *e, int argc, char **argv, int *tool_arg)
{
	static const struct option longopts[] = {
		TARGET_LONGOPTS,
		{ "mode", required_argument, NULL, 'm' },
		{ "settle", required_argument, NULL, 's' },
		{ "wait", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+" TARGET_SHORTOPTS "m:s:w:h", longopts, NULL)) != -1) {
		if (target_option(&e->t, c, optarg))
			continue;
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "pre"))
				e->t.opts.filter = true;
			else if (strcmp(optarg, "kview"))
				out_die(e->t.out, "--mode wants kview or pre, got '%s'", optarg);
			break;
		case 's':
			e->settle = parse_number(e->t.out, "--settle", optarg, 3600000);
			break;
		case 'w':
			e->wait_s = parse_number(e->t.out, "--wait", optarg, 86400);
			break;
		case 'h':
			fputs(exec_usage, stdout);
			return false;
		default:
			out_die(e->t.out, "bad arguments (see kview exec --help)");
		}
	}
	target_check(&e->t, "exec");
	if (optind >= argc)
		out_die(e->t.out, "exec needs a tool to run after the options: kview exec ... -- TOOL [ARGS] (see kview exec --help)");
	e->st.quiet = e->t.quiet;
	e->st.cgroup = e->t.cgroup != NULL;
	e->st.tool = e->tool.name = argv[optind];
	*tool_arg = optind;
	return true;
}

/*
 * Signals for kview exec itself come through a signalfd.  SIGPIPE is
 * blocked too (a write on the command's pipe after it died must fail with
 * EPIPE, not end kview exec); blocked, not ignored, so that the children,
 * which restore the old mask, get the default.  Children are waited for,
 * whatever disposition of SIGCHLD kview exec inherited.
 */
static void exec_signals(struct exec *e)
{
	sigset_t sigs;

	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGQUIT);
	sigaddset(&sigs, SIGPIPE);
	sigprocmask(SIG_BLOCK, &sigs, &e->oldmask);
	sigdelset(&sigs, SIGPIPE);
	e->sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	if (e->sfd < 0)
		out_die(e->t.out, "signalfd: %s", strerror(errno));
}

/*
 * The command (held) and the view on it, or the view on --pid or on
 * --cgroup (whose processes are the command: there is none to start).
 */
static void exec_view(struct exec *e)
{
	struct kview_info info;
	pid_t pid = e->t.pid;
	int err;

	if (e->t.command) {
		/* The command's children and execs are what it runs. */
		e->t.opts.follow_fork = e->t.opts.follow_exec = true;
		e->cmd.pid = pid = start_command_held(e, &e->cmd_pidfd);
	} else {
		e->cmd.done = true;
	}
	if (e->t.cgroup)
		e->st.kv = target_cgroup_view(&e->t);
	else
		e->st.kv = kview__create(pid, &e->t.opts);
	err = errno;
	if (!e->st.kv && e->t.command)
		fail(e->t.out, "cannot create a kernel view on the command: %s", strerror(err));
	if (!e->st.kv)
		out_die(e->t.out, "%s", create_error(err, pid));
	if (kview__info(e->st.kv, &info))
		fail(e->t.out, "cannot read the view: %s", strerror(errno));
	e->st.view_id = info.id;
}

/*
 * TOOL runs: in which view, on what.  With -j, a view on a cgroup adds
 * the cgroup, its id and the container's id to the note.
 */
static void exec_note_started(const struct exec *e)
{
	char on[2 * PATH_MAX + 64], msg[2 * PATH_MAX + 256];
	struct json_writer w;

	if (e->st.quiet)
		return;
	if (e->t.command)
		snprintf(on, sizeof(on), "the command, held as pid %d", e->cmd.pid);
	else if (e->t.cgroup)
		snprintf(on, sizeof(on), "%s (id %llu)", target_name(&e->t), e->t.cgroup_id);
	else
		snprintf(on, sizeof(on), "%s", target_name(&e->t));
	snprintf(msg, sizeof(msg), "%s (pid %d) runs in the attach scope of %s %u on %s%s%s",
		 e->st.tool, e->tool.pid, e->t.opts.filter ? "filter view" : "view",
		 e->st.view_id, on, e->t.opts.follow_fork ? ", following forks" : "",
		 e->t.opts.follow_exec ? ", following execs" : "");
	if (!e->t.out->json || !e->t.cgroup) {
		out_note(e->t.out, "%s", msg);
		return;
	}
	out_message(&w, "note", msg);
	jw_key_uint(&w, "view", e->st.view_id);
	jw_key_string(&w, "cgroup", e->t.cgroup);
	jw_key_uint(&w, "cgroup_id", e->t.cgroup_id);
	if (e->t.container_id)
		jw_key_string(&w, "container", e->t.container_id);
	jw_end_object(&w);
}

/* The view (and the command, held), TOOL in its scope. */
static void exec_start(struct exec *e, char **tool_argv)
{
	exec_view(e);
	e->tool.pid = start_tool(e->t.out, e->st.kv, tool_argv, &e->oldmask);
	e->tool_pidfd = pidfd_open_compat(e->tool.pid);
	if (e->tool_pidfd < 0)
		fail(e->t.out, "cannot wait for %s: %s", e->st.tool, strerror(errno));
	exec_note_started(e);

	e->started = e->changed = now_ms();
	e->pfd[0] = (struct pollfd){ .fd = e->sfd, .events = POLLIN };
	e->pfd[1] = (struct pollfd){ .fd = e->tool_pidfd, .events = POLLIN };
	e->pfd[2] = (struct pollfd){ .fd = e->cmd_pidfd, .events = POLLIN };
}

/* A held command that will not run now. */
static void exec_drop_held(struct exec *e)
{
	if (e->go_fd >= 0) {
		close(e->go_fd);
		e->go_fd = -1;
	}
}

static void exec_on_signals(struct exec *e)
{
	struct signalfd_siginfo si;

	while (read(e->sfd, &si, sizeof(si)) == sizeof(si)) {
		/*
		 * A terminal's Ctrl-C reaches TOOL and the command already
		 * (one process group); pass on what was sent to kview exec
		 * alone.  (A signal sent to the whole group, kill -INT
		 * -PGID, reaches them twice.)
		 */
		if ((int)si.ssi_code != SI_KERNEL) {
			if (!e->tool.done)
				kill(e->tool.pid, si.ssi_signo);
			if (!e->cmd.done && e->cmd_started)
				kill(e->cmd.pid, si.ssi_signo);
		}
		/* Not started: it never will be. */
		exec_drop_held(e);
	}
}

/* The view's refusals since last time, named. */
static void exec_check_refused(struct exec *e, unsigned int refused, long long t)
{
	if (refused == e->st.refused)
		return;
	e->st.refused = refused;
	e->st.refused_at = t;
	note_refused(&e->st);
}

static void exec_on_tool_exit(struct exec *e, long long t)
{
	struct exec_state *st = &e->st;
	unsigned int refused = st->refused;

	reap(e->t.out, e->tool.pid, &e->tool_status);
	e->tool.done = true;
	e->pfd[1].fd = -1;
	/* What was refused just before TOOL gave up. */
	nr_attachments(st, &refused);
	exec_check_refused(e, refused, t);
	if (st->refused_at && tool_failed(e->tool_status))
		note_refusal_outcome(st, GAVE_UP, 0, e->tool_status);
	else if (st->refused_at && WIFEXITED(e->tool_status) && e->seen)
		note_refusal_outcome(st, EXITED, e->seen, e->tool_status);
	else if (st->refused_at)
		note_refusal_outcome(st, UNJUDGED, 0, e->tool_status);
	if (!st->quiet)
		out_note(st->out, "%s exited: %s", st->tool, describe_status(e->tool_status));
	if (e->go_fd >= 0) {
		if (!st->quiet)
			out_note(st->out, "the command was not started");
		exec_drop_held(e);
	} else if (!e->cmd.done && e->cmd_started) {
		stop_child(st, &e->cmd, SIGTERM, t);
	}
}

static void exec_on_command_exit(struct exec *e, long long t)
{
	int status;

	reap(e->t.out, e->cmd.pid, &status);
	e->cmd.done = true;
	e->pfd[2].fd = -1;
	exec_drop_held(e);
	if (!e->st.quiet)
		out_note(e->t.out, "the command %s: %s",
			 e->cmd_started ? "exited" : "died before it was started",
			 describe_status(status));
	/* Nothing left to trace: TOOL prints its summary. */
	if (!e->tool.done)
		stop_child(&e->st, &e->tool, SIGINT, t);
}

/*
 * TOOL's hooks in the view: refusals named, hooks of the on-behalf kinds
 * noted, whether TOOL went on after a refusal, and the held command let go
 * once they have settled (or after --wait).
 */
static void exec_watch_hooks(struct exec *e, long long t)
{
	struct exec_state *st = &e->st;
	unsigned int cur, refused = st->refused;

	cur = nr_attachments(st, &refused);
	exec_check_refused(e, refused, t);
	if (cur != e->seen) {
		if (cur > e->seen)
			note_on_behalf(st);
		e->seen = cur;
		e->changed = t;
	}
	if (st->refused_at && e->seen && t - e->changed >= e->settle &&
	    t - st->refused_at >= e->settle)
		note_refusal_outcome(st, SETTLED, e->seen, 0);
	if (e->go_fd < 0 ||
	    !((e->seen && t - e->changed >= e->settle) || t - e->started >= e->wait_s * 1000))
		return;
	if (!st->quiet && !e->seen)
		out_note(st->out, "%s has attached no hook in the view after %lld s; starting the command anyway",
			 st->tool, e->wait_s);
	else if (!st->quiet)
		out_note(st->out, "%s has %u hook(s) in the view; starting the command (pid %d)",
			 st->tool, e->seen, e->cmd.pid);
	e->cmd_started = command_release(st->out, &e->go_fd);
}

int cmd_exec(struct output *o, int argc, char **argv)
{
	struct exec e = {
		.settle = 1000, .wait_s = 60, .go_fd = -1,
		.sfd = -1, .tool_pidfd = -1, .cmd_pidfd = -1,
		.cmd = { .name = "the command", .members = true },
	};
	int tool_arg;

	target_init(&e.t, o);
	e.st.out = o;
	if (!exec_options(&e, argc, argv, &tool_arg))
		return 0;
	running = &e;
	exec_signals(&e);
	exec_start(&e, argv + tool_arg);

	while (!e.tool.done || !e.cmd.done) {
		long long t;

		if (poll(e.pfd, 3, 200) < 0 && errno != EINTR)
			fail(o, "poll: %s", strerror(errno));
		t = now_ms();
		exec_on_signals(&e);
		if (!e.tool.done && e.pfd[1].revents & POLLIN)
			exec_on_tool_exit(&e, t);
		if (!e.cmd.done && e.pfd[2].revents & POLLIN)
			exec_on_command_exit(&e, t);
		if (!e.tool.done)
			stop_escalate(&e.st, &e.tool, t);
		if (!e.cmd.done)
			stop_escalate(&e.st, &e.cmd, t);
		if (!e.tool.done)
			exec_watch_hooks(&e, t);
	}
	running = NULL;
	kview__destroy(e.st.kv);
	while (e.st.nsaid)
		free(e.st.said[--e.st.nsaid]);
	free(e.st.said);
	close(e.tool_pidfd);
	if (e.cmd_pidfd >= 0)
		close(e.cmd_pidfd);
	close(e.sfd);
	target_free(&e.t);
	return exit_code(e.tool_status);
}
