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

#include "kview-cli.h"

static const char exec_usage[] =
"Usage: kview exec --pid N [options] -- TOOL [ARGS...]\n"
"       kview exec -c COMMAND [options] -- TOOL [ARGS...]\n"
"\n"
"Run an unmodified tracing tool (bpftrace, bcc's libbpf-tools, any libbpf\n"
"program) in the kernel view of process N: every kernel hook TOOL creates\n"
"with the ordinary APIs (kprobes, kretprobes, kprobe_multi, tracepoints,\n"
"syscall and raw tracepoints, BPF trampolines: fentry/fexit/fmod_ret,\n"
"bpftrace kfunc:) is written into N's view only, so only N runs it and\n"
"no other process pays for it.  What a view cannot scope is refused with\n"
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
"\n"
"Needs CAP_SYS_ADMIN (or CAP_BPF and CAP_PERFMON) and ptrace rights over N.\n";

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
	struct kview *kv;
	unsigned int view_id;
	const char *tool;
	bool quiet;
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
	struct view *views, *v;
	size_t n, j, k;

	if (views_read(&views, &n)) {
		error_note("the view refused %s %u hook(s) (EOPNOTSUPP); debugfs kview/views, which names them, cannot be read",
			   st->tool, st->refused);
		return;
	}
	v = view_by_id(views, n, st->view_id);
	for (j = 0; v && j < v->nr; j++) {
		const char *what = v->r[j].what, *why = NULL;
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
		if (json_output) {
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
	views_free(views, n);
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
	if (json_output) {
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
	struct view *views, *v;
	size_t n, j, k;

	if (st->quiet || views_read(&views, &n))
		return;
	v = view_by_id(views, n, st->view_id);
	for (j = 0; v && j < v->na; j++) {
		for (k = 0; k < sizeof(on_behalf) / sizeof(on_behalf[0]); k++) {
			const char *sym = v->a[j].symbol;

			if (strncmp(sym, on_behalf[k].prefix, strlen(on_behalf[k].prefix)) ||
			    st->noted[on_behalf[k].group])
				continue;
			st->noted[on_behalf[k].group] = true;
			note("note: %s's hook on %s: %s, so the view sees only what the traced process does itself (as pid == N would)",
			     st->tool, sym, on_behalf[k].why);
		}
	}
	views_free(views, n);
}

/* The children, for the way out on an error after they were started. */
static pid_t tool_pid, cmd_pid;
static int go_fd = -1;

/*
 * die() after the children exist: the tool's hooks must not outlive kview
 * exec, and a held command must not run.
 */
static void __attribute__((format(printf, 1, 2), noreturn)) fail(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (go_fd >= 0)
		close(go_fd);
	if (tool_pid > 0) {
		kill(tool_pid, SIGKILL);
		waitpid(tool_pid, NULL, 0);
	}
	if (cmd_pid > 0)
		waitpid(cmd_pid, NULL, WNOHANG);
	error_note("%s", msg);
	exit(EXIT_KVIEW_FAILED);
}

/* Child: enter the view's attach scope, then become TOOL. */
static pid_t start_tool(struct kview *kv, char **argv, const sigset_t *oldmask)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid)
		return pid;
	/* If kview exec dies, so does TOOL (and its hooks with it). */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
		_exit(EXIT_KVIEW_FAILED);
	sigprocmask(SIG_SETMASK, oldmask, NULL);
	if (kview__enter_scope(kv)) {
		error_note("cannot enter the view's attach scope: %s", strerror(errno));
		_exit(EXIT_KVIEW_FAILED);
	}
	/* The view fd is close-on-exec: TOOL holds the view by its scope. */
	execvp(argv[0], argv);
	error_note("cannot run %s: %s", argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

/* The command, held until TOOL's hooks are in (command.c). */
static pid_t start_command_held(const char *cmd, int *pidfd, const sigset_t *oldmask)
{
	pid_t pid = command_start_held(cmd, &go_fd, oldmask);

	*pidfd = pidfd_open_compat(pid);
	if (*pidfd < 0) {
		close(go_fd);
		waitpid(pid, NULL, 0);
		die("cannot wait for the command: %s", strerror(errno));
	}
	return pid;
}

static void reap(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR)
			fail("waitpid: %s", strerror(errno));
	}
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
};

static void stop_child(const struct exec_state *st, struct stopping *c, int sig,
		       long long t)
{
	if (!st->quiet || sig == SIGKILL)
		note("stopping %s (pid %d) with %s", c->name, c->pid,
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

int cmd_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "command", required_argument, NULL, 'c' },
		{ "follow-fork", no_argument, NULL, 'f' },
		{ "follow-exec", no_argument, NULL, 'e' },
		{ "mode", required_argument, NULL, 'm' },
		{ "settle", required_argument, NULL, 's' },
		{ "wait", required_argument, NULL, 'w' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	LIBBPF_OPTS(kview_opts, opts);
	struct exec_state st = { 0 };
	struct stopping tool = { .name = NULL }, cmd = { .name = "the command", .members = true };
	const char *command = NULL;
	long long settle = 1000, wait_s = 60, started, changed;
	unsigned int seen = 0, cur, refused = 0;
	int c, sfd, tool_pidfd, cmd_pidfd = -1, status, tool_status = 0;
	bool tool_done = false, cmd_done = true, cmd_started = false;
	struct kview_info info;
	struct pollfd pfd[3];
	sigset_t sigs, oldmask;
	pid_t pid = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:c:fem:s:w:qjh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pid = parse_number("--pid", optarg, INT_MAX);
			break;
		case 'c':
			command = optarg;
			break;
		case 'f':
			opts.follow_fork = true;
			break;
		case 'e':
			opts.follow_exec = true;
			break;
		case 'm':
			if (!strcmp(optarg, "pre"))
				opts.filter = true;
			else if (strcmp(optarg, "kview"))
				die("--mode wants kview or pre, got '%s'", optarg);
			break;
		case 's':
			settle = parse_number("--settle", optarg, 3600000);
			break;
		case 'w':
			wait_s = parse_number("--wait", optarg, 86400);
			break;
		case 'q':
			st.quiet = true;
			break;
		case 'j':
			json_output = true;
			break;
		case 'h':
			fputs(exec_usage, stdout);
			return 0;
		default:
			die("bad arguments (see kview exec --help)");
		}
	}
	if (!pid == !command)
		die("exec needs either --pid N or -c COMMAND (see kview exec --help)");
	if (command && !*command)
		die("-c wants a command, got an empty one");
	if (optind >= argc)
		die("exec needs a tool to run after the options: kview exec ... -- TOOL [ARGS] (see kview exec --help)");
	st.tool = tool.name = argv[optind];

	/*
	 * Signals for kview exec itself come through a signalfd.  SIGPIPE is
	 * blocked too (a write on the command's pipe after it died must fail
	 * with EPIPE, not end kview exec); blocked, not ignored, so that the
	 * children, which restore the old mask, get the default.  Children are
	 * waited for, whatever disposition of SIGCHLD kview exec inherited.
	 */
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGQUIT);
	sigaddset(&sigs, SIGPIPE);
	sigprocmask(SIG_BLOCK, &sigs, &oldmask);
	sigdelset(&sigs, SIGPIPE);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		die("signalfd: %s", strerror(errno));

	if (command) {
		/* The command's children and execs are what it runs. */
		opts.follow_fork = opts.follow_exec = true;
		cmd.pid = cmd_pid = start_command_held(command, &cmd_pidfd, &oldmask);
		cmd_done = false;
		pid = cmd.pid;
	}
	st.kv = kview__create(pid, &opts);
	if (!st.kv) {
		int err = errno;

		if (command)
			fail("cannot create a kernel view on the command: %s", strerror(err));
		die("%s", create_error(err, pid));
	}
	if (kview__info(st.kv, &info))
		fail("cannot read the view: %s", strerror(errno));
	st.view_id = info.id;

	tool.pid = tool_pid = start_tool(st.kv, argv + optind, &oldmask);
	tool_pidfd = pidfd_open_compat(tool.pid);
	if (tool_pidfd < 0)
		fail("cannot wait for %s: %s", st.tool, strerror(errno));
	if (!st.quiet)
		note("%s (pid %d) runs in the attach scope of %s %u on %s %d%s%s",
		     st.tool, tool.pid, opts.filter ? "filter view" : "view", st.view_id,
		     command ? "the command, held as pid" : "pid", pid,
		     opts.follow_fork ? ", following forks" : "",
		     opts.follow_exec ? ", following execs" : "");

	started = changed = now_ms();
	pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = tool_pidfd, .events = POLLIN };
	pfd[2] = (struct pollfd){ .fd = cmd_pidfd, .events = POLLIN };
	while (!tool_done || !cmd_done) {
		struct signalfd_siginfo si;
		long long t;

		if (poll(pfd, 3, 200) < 0 && errno != EINTR)
			fail("poll: %s", strerror(errno));
		t = now_ms();

		while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
			/*
			 * A terminal's Ctrl-C reaches TOOL and the command
			 * already (one process group); pass on what was sent
			 * to kview exec alone.  (A signal sent to the whole
			 * group, kill -INT -PGID, reaches them twice.)
			 */
			if ((int)si.ssi_code != SI_KERNEL) {
				if (!tool_done)
					kill(tool.pid, si.ssi_signo);
				if (!cmd_done && cmd_started)
					kill(cmd.pid, si.ssi_signo);
			}
			if (go_fd >= 0) {
				/* Not started: it never will be. */
				close(go_fd);
				go_fd = -1;
			}
		}

		if (!tool_done && pfd[1].revents & POLLIN) {
			reap(tool.pid, &tool_status);
			tool_done = true;
			tool_pid = 0;
			pfd[1].fd = -1;
			/* What was refused just before TOOL gave up. */
			nr_attachments(&st, &refused);
			if (refused != st.refused) {
				st.refused = refused;
				st.refused_at = t;
				note_refused(&st);
			}
			if (st.refused_at && tool_failed(tool_status))
				note_refusal_outcome(&st, GAVE_UP, 0, tool_status);
			else if (st.refused_at && WIFEXITED(tool_status) && seen)
				note_refusal_outcome(&st, EXITED, seen, tool_status);
			else if (st.refused_at)
				note_refusal_outcome(&st, UNJUDGED, 0, tool_status);
			if (!st.quiet)
				note("%s exited: %s", st.tool, describe_status(tool_status));
			if (go_fd >= 0) {
				if (!st.quiet)
					note("the command was not started");
				close(go_fd);
				go_fd = -1;
			} else if (!cmd_done && cmd_started) {
				stop_child(&st, &cmd, SIGTERM, t);
			}
		}

		if (!cmd_done && pfd[2].revents & POLLIN) {
			reap(cmd.pid, &status);
			cmd_done = true;
			cmd_pid = 0;
			pfd[2].fd = -1;
			if (go_fd >= 0) {
				close(go_fd);
				go_fd = -1;
			}
			if (!st.quiet)
				note("the command %s: %s", cmd_started ? "exited" : "died before it was started",
				     describe_status(status));
			/* Nothing left to trace: TOOL prints its summary. */
			if (!tool_done)
				stop_child(&st, &tool, SIGINT, t);
		}

		if (!tool_done)
			stop_escalate(&st, &tool, t);
		if (!cmd_done)
			stop_escalate(&st, &cmd, t);
		if (tool_done)
			continue;

		cur = nr_attachments(&st, &refused);
		if (refused != st.refused) {
			st.refused = refused;
			st.refused_at = t;
			note_refused(&st);
		}
		if (cur != seen) {
			if (cur > seen)
				note_on_behalf(&st);
			seen = cur;
			changed = t;
		}
		if (st.refused_at && seen && t - changed >= settle && t - st.refused_at >= settle)
			note_refusal_outcome(&st, SETTLED, seen, 0);
		if (go_fd >= 0 && ((seen && t - changed >= settle) || t - started >= wait_s * 1000)) {
			if (!st.quiet && !seen)
				note("%s has attached no hook in the view after %lld s; starting the command anyway",
				     st.tool, wait_s);
			else if (!st.quiet)
				note("%s has %u hook(s) in the view; starting the command (pid %d)",
				     st.tool, seen, cmd.pid);
			cmd_started = command_release(&go_fd);
		}
	}
	kview__destroy(st.kv);
	while (st.nsaid)
		free(st.said[--st.nsaid]);
	free(st.said);
	close(tool_pidfd);
	if (cmd_pidfd >= 0)
		close(cmd_pidfd);
	close(sfd);
	return exit_code(tool_status);
}
