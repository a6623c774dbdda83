// SPDX-License-Identifier: GPL-2.0
/*
 * tools: what real tracing tools cost memcached, which they do not trace,
 * while they trace one other process: each tool with its own process
 * filter, and the same tool unmodified under `kview exec`.  Runs in the
 * guest (eval/bench-tools boots it).
 *
 * Per run: a traced process starts (traced_loop(): it opens a file, makes
 * a TCP connection over loopback and a round trip on it, and reads
 * /dev/zero, ten times a second), the run's tool starts in the run's mode
 * with its output in a file, the driver waits for the line the tool prints
 * once its hooks are attached, the guest rests a second, memcached starts,
 * memcaslap drives it for SECONDS of guest time, memcached stops, the tool
 * gets SIGINT (again every 10 s, as a user presses Ctrl-C again: bpftrace
 * 0.17 can lose one) and must exit 0, and its output must hold the traced
 * process's events and no other process's.  Modes:
 *
 *   none    no tool
 *   filter  the tool's own filter: libbpf-tools' -p PID, bpftrace's
 *           /pid == PID/ predicate (in-eBPF: hooks armed for every process)
 *   pre     `kview exec -m pre --pid PID -- TOOL`: hooks armed for every
 *           process, the kernel skips the programs for the others
 *   kview   `kview exec --pid PID -- TOOL`: the traced process's view
 *   idle    a control for kview: `kview exec --pid IDLE -- TOOL`, the view
 *           of a process that only sleeps: the tool, kview exec and a
 *           view with the tool's hooks are there, but no process runs the
 *           hooks (the tool must see no event at all)
 *
 * Tools (Debian's bpftrace and libbpf-tools, as installed):
 *
 *   bpftrace-wild   kprobe:tcp_* (every traceable tcp_ function)
 *   bpftrace-tp     tracepoint:syscalls:sys_enter_read
 *   opensnoop       (libbpf-tools) openat/open tracepoints
 *   tcpconnect      (libbpf-tools) kprobes on tcp_v4/v6_connect
 *   syscount        (libbpf-tools) raw_syscalls tracepoints, -P
 *
 * Round 0 (one run of each tool in each mode, and one none) is a warm-up;
 * then each round runs every (tool, mode) pair and one none, in an order
 * that rotates with the round.
 *
 * Containers (--containers DIR, eval/bench-containers through
 * eval/guest/containers.sh, which makes the bundles with tests/lib/oci.sh):
 * the same runs, but the traced process is the only process of container
 * B (kview-eval-b, its bundle DIR/b, its /tmp DIR/b-tmp) and memcached the
 * only process of container A (kview-eval-a, DIR/a): real OCI containers
 * that the runtime $KVIEW_OCI_RUNTIME (runc or crun) starts afresh for each
 * run, in cgroups of their own, on the host's network (memcaslap, outside
 * both, drives memcached over loopback).  Their processes are this program
 * (--in-container traced|memcached) and the runtime leaves them to it (a
 * child subreaper), which reaps them as in a plain run; memcached's CPU
 * time is A's cgroup's (cpu.stat) from when memcached listens to its exit,
 * without the runtime's code that ran in its process before.  The
 * target is B's cgroup: filter is the tool's own cgroup filter (bpftrace's
 * /cgroup == cgroupid("B's cgroup")/, libbpf-tools' -c B's cgroup; "all"
 * is the tools that have one), pre and kview are `kview exec [-m pre]
 * --container kview-eval-b -- TOOL`; no idle.  The tool must have seen B's
 * process and no other (not A's memcached).
 *
 *   tools [--containers DIR] ROUNDS SECONDS TOOLS MODES OUT.csv
 *     ROUNDS: measured rounds after the warm-up (0: the warm-up alone)
 *     TOOLS: comma-separated, of the tools above (or "all")
 *     MODES: comma-separated, of filter,pre,kview,idle (none is always run)
 *   tools --in-container traced|memcached   (a container's process)
 *   tools --list-containers    the tools "all" is with --containers: name,
 *                              what it runs, its filter (tab-separated)
 */
#include <fcntl.h>
#include <limits.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include "evalutil.h"
#include "mcload.h"

#define TRACED_COMM "kv-traced"
#define TRACED_NAME "kview-eval-traced-open"
#define TRACED_FILE "/tmp/" TRACED_NAME
/* Container B's iteration counter, a page: DIR/b-tmp/ITERS_NAME outside. */
#define ITERS_NAME "kview-eval-iters"
#define CTR_A "kview-eval-a"
#define CTR_B "kview-eval-b"
#define TOOL_OUT "/tmp/kview-eval-tool.out"
#define READY_TIMEOUT_S 600
#define MAX_RUNS 64

enum mode { NONE, FILTER, PRE, KVIEW, IDLE };
static const char *const mode_names[] = { "none", "filter", "pre", "kview", "idle" };

/*
 * How a tool's output shows whose events it saw: bpftrace's maps keyed by
 * pid ("@name[PID]: COUNT"), or the libbpf-tools' lines that begin with a
 * PID.
 */
enum output { BPFTRACE_MAP, PID_LINES };

static const struct tool {
	const char *name;
	const char *what;	/* for the report */
	const char *ready;	/* start of the line printed once attached */
	enum output output;
	const char *mark;	/* in a line of the traced process's (PID_LINES) */
	bool cgroup_filter;	/* filters by cgroup itself (bpftrace, -c PATH) */
} tools[] = {
	{ "bpftrace-wild", "bpftrace kprobe:tcp_* { @[pid] = count() }",
	  "kview-eval: attached", BPFTRACE_MAP, NULL, true },
	{ "bpftrace-tp", "bpftrace tracepoint:syscalls:sys_enter_read { @[pid] = count() }",
	  "kview-eval: attached", BPFTRACE_MAP, NULL, true },
	{ "opensnoop", "opensnoop (libbpf-tools)", "PID", PID_LINES, TRACED_FILE, false },
	{ "tcpconnect", "tcpconnect (libbpf-tools)", "PID", PID_LINES, TRACED_COMM, false },
	{ "syscount", "syscount -P (libbpf-tools)", "Tracing syscalls", PID_LINES, TRACED_COMM, true },
};
#define NTOOLS (int)(sizeof(tools) / sizeof(tools[0]))

/* --containers DIR: the bundles' directory; NULL: plain processes. */
static const char *ctr_dir;
static const char *runtime;	/* $KVIEW_OCI_RUNTIME */
static char b_cgroup[PATH_MAX];	/* B's cgroup, /sys/fs/cgroup/... */

/* ---- the traced process ---------------------------------------------- */

/*
 * Ten times a second (a 100 ms epoll_wait on an empty set paces it): an
 * open and close of TRACED_FILE (opensnoop), a new TCP connection over
 * loopback (tcpconnect, the tcp_ functions) with a 64-byte round trip on
 * it, and a read of /dev/zero (the read tracepoint; every tool's syscalls).
 * @iters counts iterations (shared memory).
 */
static void __attribute__((noreturn)) traced_loop(volatile unsigned long *iters)
{
	struct sockaddr_in a;
	int lfd, c, s, fd, zero, idle;
	struct epoll_event out;
	char buf[64] = { 0 };

	prctl(PR_SET_NAME, TRACED_COMM);
	lfd = loopback_listen(&a);
	zero = open("/dev/zero", O_RDONLY);
	idle = epoll_create1(0);
	check(zero >= 0 && idle >= 0, "traced: %s", strerror(errno));
	for (;;) {
		fd = open(TRACED_FILE, O_RDONLY);
		check(fd >= 0, "traced: open %s: %s", TRACED_FILE, strerror(errno));
		close(fd);
		loopback_connect(lfd, &a, &c, &s);
		check(write(c, buf, sizeof(buf)) == sizeof(buf), "traced: write");
		check(read(s, buf, sizeof(buf)) == sizeof(buf), "traced: read");
		check(write(s, buf, sizeof(buf)) == sizeof(buf), "traced: write back");
		check(read(c, buf, sizeof(buf)) == sizeof(buf), "traced: read back");
		close(c);
		close(s);
		check(read(zero, buf, sizeof(buf)) == sizeof(buf), "traced: read /dev/zero");
		epoll_wait(idle, &out, 1, 100);
		(*iters)++;
	}
}

/* ---- the containers ------------------------------------------------------ */

/*
 * Run the OCI runtime with @args (NULL-terminated), its output appended
 * to DIR/runtime.log: it must exit 0.
 */
static void runtime_run(const char *const *args)
{
	char log[PATH_MAX], tail[256] = "";
	const char *argv[16];
	int n = 0, fd, st;
	off_t size;
	ssize_t len;
	pid_t p;

	snprintf(log, sizeof(log), "%s/runtime.log", ctr_dir);
	argv[n++] = runtime;
	while (*args && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	p = fork();
	check(p >= 0, "fork: %s", strerror(errno));
	if (!p) {
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		close(0);
		open("/dev/null", O_RDONLY);
		execvp(argv[0], (char **)argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	check(waitpid(p, &st, 0) == p, "wait for %s: %s", runtime, strerror(errno));
	if (WIFEXITED(st) && !WEXITSTATUS(st))
		return;
	fd = open(log, O_RDONLY);
	if (fd >= 0) {
		size = lseek(fd, 0, SEEK_END);
		len = pread(fd, tail, sizeof(tail) - 1, size > (off_t)sizeof(tail) - 1 ?
			    size - (off_t)sizeof(tail) + 1 : 0);
		tail[len > 0 ? len : 0] = '\0';
		close(fd);
	}
	/* Its last line. */
	for (len = strlen(tail); len > 0 && tail[len - 1] == '\n'; len--)
		tail[len - 1] = '\0';
	fail("%s %s %s failed (status %#x); the last line of %s: %s", runtime, argv[1],
	     argv[n - 1], st, log, strrchr(tail, '\n') ? strrchr(tail, '\n') + 1 : tail);
}

/* Start container @id of bundle DIR/@bundle, detached: its process. */
static pid_t ctr_start(const char *id, const char *bundle)
{
	char pidfile[PATH_MAX], dir[PATH_MAX], buf[32] = "";
	ssize_t n;
	int fd;

	snprintf(pidfile, sizeof(pidfile), "%s/%s.pid", ctr_dir, id);
	snprintf(dir, sizeof(dir), "%s/%s", ctr_dir, bundle);
	unlink(pidfile);
	runtime_run((const char *const[]){ "run", "-d", "--pid-file", pidfile, "--bundle",
					   dir, id, NULL });
	fd = open(pidfile, O_RDONLY);
	check(fd >= 0, "%s run %s wrote no %s: %s", runtime, id, pidfile, strerror(errno));
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	check(atoi(buf) > 0, "%s: no pid in it ('%s')", pidfile, buf);
	return atoi(buf);
}

/* The cgroup v2 directory of @pid. */
static void cgroup_of(pid_t pid, char *path, size_t size)
{
	char file[64], line[PATH_MAX - 32] = "";
	FILE *f;

	snprintf(file, sizeof(file), "/proc/%d/cgroup", pid);
	f = fopen(file, "r");
	check(f, "%s: %s", file, strerror(errno));
	while (fgets(line, sizeof(line), f) && strncmp(line, "0::", 3))
		;
	fclose(f);
	check(!strncmp(line, "0::/", 4), "%s has no cgroup v2 line", file);
	line[strcspn(line, "\n")] = '\0';
	snprintf(path, size, "/sys/fs/cgroup%s", line + 3);
}

/*
 * The CPU time of the processes of cgroup @path, the living and the
 * exited (cpu.stat's usage_usec: the scheduler's, at 1 us resolution).
 */
static long long cgroup_cpu_ns(const char *path)
{
	char file[PATH_MAX + 16], line[128];
	long long usec = -1;
	FILE *f;

	snprintf(file, sizeof(file), "%s/cpu.stat", path);
	f = fopen(file, "r");
	check(f, "%s: %s", file, strerror(errno));
	while (fgets(line, sizeof(line), f) && sscanf(line, "usage_usec %lld", &usec) != 1)
		;
	fclose(f);
	check(usec >= 0, "%s has no usage_usec", file);
	return usec * 1000;
}

/*
 * A container's process: the traced loop (container B, its counter in
 * the page shared with the driver through B's /tmp) or memcached
 * (container A).
 */
static void __attribute__((noreturn)) in_container(const char *what)
{
	char *mc_argv[] = MEMCACHED_ARGV;
	void *iters;
	int fd;

	if (!strcmp(what, "memcached")) {
		execvp(mc_argv[0], mc_argv);
		fail("exec memcached: %s", strerror(errno));
	}
	check(!strcmp(what, "traced"), "--in-container: traced or memcached, not '%s'", what);
	fd = open("/tmp/" ITERS_NAME, O_RDWR);
	check(fd >= 0, "/tmp/" ITERS_NAME ": %s", strerror(errno));
	iters = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	check(iters != MAP_FAILED, "mmap /tmp/" ITERS_NAME ": %s", strerror(errno));
	traced_loop(iters);
}

/* ---- the tool ------------------------------------------------------------ */

/*
 * Start @t in mode @m for @traced, its stdout and stderr in TOOL_OUT.
 * stdbuf -oL makes its lines reach the file as it prints them, so that the
 * driver sees the line that says it has attached.
 */
static pid_t start_tool(const struct tool *t, enum mode m, pid_t traced)
{
	char pid[16], script[PATH_MAX + 256], kview[64];
	const char *argv[24];
	int n = 0, fd;
	pid_t p;

	snprintf(pid, sizeof(pid), "%d", traced);
	snprintf(kview, sizeof(kview), "%s/userspace/kview", getenv("KVIEW_BUILD") ?: "build");
	if (m == PRE || m == KVIEW || m == IDLE) {
		argv[n++] = kview;
		argv[n++] = "exec";
		if (m == PRE) {
			argv[n++] = "-m";
			argv[n++] = "pre";
		}
		argv[n++] = ctr_dir ? "--container" : "--pid";
		argv[n++] = ctr_dir ? CTR_B : pid;
		argv[n++] = "--";
	}
	argv[n++] = "stdbuf";
	argv[n++] = "-oL";
	if (!strncmp(t->name, "bpftrace", 8)) {
		const char *probe = !strcmp(t->name, "bpftrace-wild") ?
			"kprobe:tcp_*" : "tracepoint:syscalls:sys_enter_read";
		char pred[PATH_MAX + 64] = "";

		if (m == FILTER && ctr_dir)
			snprintf(pred, sizeof(pred), "/cgroup == cgroupid(\"%s\")/ ", b_cgroup);
		else if (m == FILTER)
			snprintf(pred, sizeof(pred), "/pid == %d/ ", traced);
		snprintf(script, sizeof(script),
			 "BEGIN { printf(\"%s\\n\"); } %s %s{ @[pid] = count(); }",
			 t->ready, probe, pred);
		argv[n++] = "bpftrace";
		argv[n++] = "-e";
		argv[n++] = script;
	} else {
		argv[n++] = t->name;
		if (!strcmp(t->name, "syscount"))
			argv[n++] = "-P";
		if (m == FILTER) {
			argv[n++] = ctr_dir ? "-c" : "-p";
			argv[n++] = ctr_dir ? b_cgroup : pid;
		}
	}
	argv[n] = NULL;

	/* Empty before the fork: the last run's "attached" line must not count. */
	fd = open(TOOL_OUT, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	check(fd >= 0, "%s: %s", TOOL_OUT, strerror(errno));
	close(fd);
	p = fork();
	check(p >= 0, "fork: %s", strerror(errno));
	if (!p) {
		fd = open(TOOL_OUT, O_WRONLY | O_APPEND);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execvp(argv[0], (char **)argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return p;
}

/* The tool's output so far (at most @size - 1 bytes, NUL-terminated). */
static size_t read_output(char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(TOOL_OUT, O_RDONLY);
	if (fd < 0)
		return buf[0] = '\0', 0;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	return n;
}

static bool has_line(const char *out, const char *start)
{
	const char *p = out;

	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, start, strlen(start)))
			return true;
	return false;
}

/* Wait until the tool says it has attached; how long it took (ns). */
static long long wait_ready(const struct tool *t, pid_t tool)
{
	static char out[1 << 16];
	long long t0 = now_ns();
	int st;

	for (;;) {
		read_output(out, sizeof(out));
		if (has_line(out, t->ready))
			return now_ns() - t0;
		if (waitpid(tool, &st, WNOHANG) == tool)
			fail("%s exited (status %#x) before it attached:\n%s", t->name, st, out);
		if (now_ns() - t0 > READY_TIMEOUT_S * 1000000000LL)
			fail("%s did not attach in %d s:\n%s", t->name, READY_TIMEOUT_S, out);
		usleep(20000);
	}
}

/*
 * SIGINT the tool, again every 10 s up to five times, then reap it: it
 * must exit 0.  Its CPU time (kview exec's and the tool's together).
 */
static long long stop_tool(const struct tool *t, pid_t tool)
{
	struct rusage ru;
	int st, i, j;

	for (i = 0; i < 6; i++) {
		kill(tool, SIGINT);
		for (j = 0; j < 500; j++) {
			if (wait4(tool, &st, WNOHANG, &ru) == tool) {
				check(WIFEXITED(st) && !WEXITSTATUS(st),
				      "%s ended with status %#x", t->name, st);
				return ru_cpu_ns(&ru);
			}
			usleep(20000);
		}
		progress("%s: still running 10 s after SIGINT: SIGINT again", t->name);
	}
	kill(tool, SIGKILL);
	fail("%s did not exit in a minute of SIGINTs", t->name);
}

/*
 * Whose events the tool saw: @mine counts the traced process's (bpftrace:
 * its map entries' counts; PID_LINES: its lines with the tool's mark),
 * @others the lines of any other process.  The tool must have seen the
 * traced process and no other; in the idle control (@traced is the
 * sleeping process), nothing at all.
 */
static void check_output(const struct tool *t, enum mode m, pid_t traced,
			 unsigned long long *mine, unsigned long long *others)
{
	static char out[1 << 20];
	unsigned long long count;
	char *line, *save = NULL;
	int pid, pos;

	*mine = *others = 0;
	read_output(out, sizeof(out));
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (t->output == BPFTRACE_MAP) {
			if (sscanf(line, "@[%d]: %llu", &pid, &count) != 2)
				continue;
			if (pid == traced)
				*mine += count;
			else
				*others += 1;
		} else {
			if (sscanf(line, " %d %n", &pid, &pos) != 1 || pos < 2)
				continue;
			if (pid != traced)
				*others += 1;
			else if (strstr(line, t->mark))
				*mine += 1;
		}
	}
	if ((m == IDLE ? !*mine : *mine > 0) && !*others)
		return;
	read_output(out, sizeof(out));	/* whole again: strtok_r() cut it up */
	fail("%s (%s): %llu event(s) of the traced process %d, %llu line(s) of others:\n%s",
	     t->name, mode_names[m], *mine, traced, *others, out);
}

/* ---- one run ------------------------------------------------------------ */

struct run {
	const struct tool *tool;	/* NULL: none */
	enum mode mode;
	int round;
	bool warmup;
	int seconds;
	/* results */
	unsigned long long ops, tps, mine, others;
	long long memcached_cpu, memcaslap_cpu, traced_cpu, tool_cpu, ready_ns;
	unsigned long traced_iters;
};

static void do_run(struct run *r, volatile unsigned long *iters)
{
	char a_cgroup[PATH_MAX];
	pid_t traced, tool = 0, mc, idle = 0;
	long long mc_cpu0 = 0;

	*iters = 0;
	if (ctr_dir) {
		traced = ctr_start(CTR_B, "b");
	} else {
		traced = fork();
		check(traced >= 0, "fork: %s", strerror(errno));
		if (!traced)
			traced_loop(iters);
	}
	/* The traced process is running (and named) before the tool starts. */
	check(WAIT_FOR(*iters > 0, 60), "the traced process did not start");
	if (ctr_dir)
		cgroup_of(traced, b_cgroup, sizeof(b_cgroup));

	if (r->mode == IDLE) {
		idle = fork();
		check(idle >= 0, "fork: %s", strerror(errno));
		if (!idle) {
			prctl(PR_SET_NAME, "kv-idle");
			for (;;)
				pause();
		}
	}
	if (r->tool) {
		tool = start_tool(r->tool, r->mode, idle ?: traced);
		r->ready_ns = wait_ready(r->tool, tool);
	}
	/* Let deferred work of the attach and of the previous run finish. */
	sleep(1);
	if (ctr_dir) {
		mc = ctr_start(CTR_A, "a");
		memcached_wait_listening(mc);
		/* Two containers, two cgroups: the tool's target is B's only. */
		cgroup_of(mc, a_cgroup, sizeof(a_cgroup));
		check(strcmp(a_cgroup, b_cgroup), "containers %s and %s share the cgroup %s",
		      CTR_A, CTR_B, a_cgroup);
		/*
		 * memcached's CPU time from here: not the runtime's code
		 * that ran in its process before it executed memcached.
		 */
		mc_cpu0 = cgroup_cpu_ns(a_cgroup);
	} else {
		mc = start_memcached();
	}
	run_memcaslap(r->seconds, &r->ops, &r->tps, &r->memcaslap_cpu);
	kill(mc, SIGTERM);
	r->memcached_cpu = reap_cpu_ns(mc, SIGTERM, "memcached");
	if (ctr_dir) {
		/* A's cgroup had memcached alone. */
		r->memcached_cpu = cgroup_cpu_ns(a_cgroup) - mc_cpu0;
		runtime_run((const char *const[]){ "delete", CTR_A, NULL });
	}
	if (r->tool) {
		r->tool_cpu = stop_tool(r->tool, tool);
		check_output(r->tool, r->mode, idle ?: traced, &r->mine, &r->others);
	}
	if (idle) {
		kill(idle, SIGKILL);
		reap_cpu_ns(idle, SIGKILL, "idle process");
	}
	kill(traced, SIGKILL);
	r->traced_cpu = reap_cpu_ns(traced, SIGKILL, "traced process");
	r->traced_iters = *iters;
	if (ctr_dir) {
		runtime_run((const char *const[]){ "delete", CTR_B, NULL });
		/* What else the runtime left to this subreaper. */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
}

static void emit(FILE *out, const struct run *r)
{
	fprintf(out, "%s,%s,%s,%s,%d,%d,%llu,%llu,%.1f,%lld,%lld,%lu,%lld,%lld,%lld,%llu\n",
		ctr_dir ? "containers" : "tools", clock_name(), r->tool ? r->tool->name : "*",
		mode_names[r->mode],
		r->round, r->warmup, r->tps, r->ops, (double)r->memcached_cpu / r->ops,
		r->memcached_cpu, r->memcaslap_cpu, r->traced_iters, r->traced_cpu,
		r->tool_cpu, r->ready_ns, r->mine);
	fflush(out);
}

static void usage_fail(const char *what)
{
	fprintf(stderr, "tools: %s\nusage: tools [--containers DIR] ROUNDS SECONDS TOOLS MODES OUT.csv\n",
		what);
	exit(2);
}

int main(int argc, char **argv)
{
	struct run runs[MAX_RUNS], run;
	int rounds, seconds, nruns, r, i, j, fd;
	bool use_tool[NTOOLS] = { 0 }, use_mode[IDLE + 1] = { 0 };
	volatile unsigned long *iters;
	char *tok, *save = NULL, path[PATH_MAX];
	FILE *out;

	if (argc == 3 && !strcmp(argv[1], "--in-container"))
		in_container(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "--list-containers")) {
		for (i = 0; i < NTOOLS; i++)
			if (tools[i].cgroup_filter)
				printf("%s\t%s\t%s\n", tools[i].name, tools[i].what,
				       tools[i].output == BPFTRACE_MAP ?
				       "/cgroup == cgroupid(\"B's cgroup\")/ before the action" :
				       "-c B's cgroup");
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "--containers")) {
		ctr_dir = argv[2];
		runtime = getenv("KVIEW_OCI_RUNTIME");
		if (!runtime || !*runtime)
			usage_fail("--containers: KVIEW_OCI_RUNTIME names no OCI runtime (runc or crun)");
		argc -= 2;
		argv += 2;
	}
	if (argc != 6)
		usage_fail("wrong number of arguments");
	rounds = atoi(argv[1]);
	seconds = atoi(argv[2]);
	/* ROUNDS 0: the warm-up round alone (tests/guest/eval-smoke.sh). */
	if (rounds < 0 || seconds < 1)
		usage_fail("ROUNDS must be >= 0 and SECONDS >= 1");
	for (tok = strtok_r(argv[3], ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < NTOOLS && strcmp(tok, "all") && strcmp(tok, tools[i].name); i++)
			;
		if (!strcmp(tok, "all"))
			for (j = 0; j < NTOOLS; j++)
				use_tool[j] = !ctr_dir || tools[j].cgroup_filter;
		else if (i < NTOOLS)
			use_tool[i] = true;
		else
			usage_fail("unknown tool (bpftrace-wild, bpftrace-tp, opensnoop, tcpconnect, syscount, all)");
	}
	save = NULL;
	for (tok = strtok_r(argv[4], ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = FILTER; i <= IDLE && strcmp(tok, mode_names[i]); i++)
			;
		if (i > IDLE)
			usage_fail("unknown mode (filter, pre, kview, idle)");
		if (i == IDLE && ctr_dir)
			usage_fail("--containers: no idle mode (filter, pre, kview)");
		use_mode[i] = true;
	}
	for (i = 0; i < NTOOLS && ctr_dir; i++)
		if (use_tool[i] && use_mode[FILTER] && !tools[i].cgroup_filter) {
			fprintf(stderr, "tools: --containers: %s has no cgroup filter (filter mode)\n",
				tools[i].name);
			exit(2);
		}

	/* One round's runs: none, then each tool in each mode. */
	nruns = 0;
	runs[nruns++] = (struct run){ .tool = NULL, .mode = NONE };
	for (i = 0; i < NTOOLS; i++)
		for (j = FILTER; j <= IDLE; j++)
			if (use_tool[i] && use_mode[j])
				runs[nruns++] = (struct run){ .tool = &tools[i], .mode = j };
	if (nruns == 1)
		usage_fail("no tool and mode to run");

	/* Container B's /tmp is DIR/b-tmp. */
	if (ctr_dir)
		snprintf(path, sizeof(path), "%s/b-tmp/" TRACED_NAME, ctr_dir);
	else
		snprintf(path, sizeof(path), "%s", TRACED_FILE);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	check(fd >= 0, "%s: %s", path, strerror(errno));
	close(fd);
	out = fopen(argv[5], "w");
	check(out, "%s: %s", argv[5], strerror(errno));
	fprintf(out, "bench,clock,tool,mode,round,warmup,tps,ops,memcached_ns_per_op,memcached_cpu_ns,memcaslap_cpu_ns,traced_iters,traced_cpu_ns,tool_cpu_ns,ready_ns,traced_events\n");
	if (ctr_dir) {
		/* The page container B's process counts in (in_container()). */
		snprintf(path, sizeof(path), "%s/b-tmp/" ITERS_NAME, ctr_dir);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		check(fd >= 0 && !ftruncate(fd, 4096), "%s: %s", path, strerror(errno));
		iters = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		/* The containers' processes become this one's when the runtime exits. */
		check(!prctl(PR_SET_CHILD_SUBREAPER, 1), "PR_SET_CHILD_SUBREAPER: %s",
		      strerror(errno));
	} else {
		iters = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	}
	check(iters != MAP_FAILED, "mmap: %s", strerror(errno));
	signal(SIGPIPE, SIG_IGN);

	for (r = 0; r <= rounds; r++) {
		for (i = 0; i < nruns; i++) {
			run = runs[(i + r) % nruns];
			run.round = r;
			run.warmup = !r;
			run.seconds = seconds;
			do_run(&run, iters);
			emit(out, &run);
			progress("round %d/%d %-13s %-6s %7llu ops/s  memcached %6.0f ns/op  attached after %5.1f s  traced events %llu%s",
				 r, rounds, run.tool ? run.tool->name : "-", mode_names[run.mode],
				 run.tps, (double)run.memcached_cpu / run.ops, run.ready_ns / 1e9,
				 run.mine, run.warmup ? "  (warm-up)" : "");
		}
	}
	fclose(out);
	unlink(path);	/* TRACED_FILE, or B's counter (containers.sh removes DIR) */
	return 0;
}
