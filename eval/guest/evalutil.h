/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the evaluation's guest drivers: clocks, CPU time out
 * of rusage, whether ftrace can hook a function, attaching one program to
 * a named hook (globally or inside a view's scope), and a progress line.
 */
#ifndef KVIEW_EVAL_EVALUTIL_H
#define KVIEW_EVAL_EVALUTIL_H

#include <sched.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "kvtest.h"

static inline int eval_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Whether ftrace can hook the function @name (so kprobes can): a name of
 * available_filter_functions, a module's without its "[module]".  The
 * list is read and sorted on the first call.
 */
static inline bool ftrace_traceable(const char *name)
{
	const char *path = "/sys/kernel/tracing/available_filter_functions";
	static char **names;
	static size_t n;
	size_t cap = 0;
	char line[512];
	FILE *f;

	if (!names) {
		f = fopen(path, "r");
		check(f, "%s: %s", path, strerror(errno));
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, " \t\n[")] = '\0';
			if (n == cap) {
				cap = cap ? 2 * cap : 65536;
				names = realloc(names, cap * sizeof(*names));
				check(names, "out of memory");
			}
			names[n] = strdup(line);
			check(names[n++], "out of memory");
		}
		fclose(f);
		check(names, "%s is empty", path);
		qsort(names, n, sizeof(*names), eval_cmp_str);
	}
	return bsearch(&name, names, n, sizeof(*names), eval_cmp_str);
}

static inline long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* utime + stime: the scheduler's sum_exec_runtime, at 1 us resolution. */
static inline long long ru_cpu_ns(const struct rusage *ru)
{
	return (ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000000000LL +
	       (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) * 1000LL;
}

/*
 * Wait for @pid, which must exit 0 (or die of @sig when @sig != 0); its
 * CPU time, and its whole rusage in @ru.
 */
static inline long long reap_rusage(pid_t pid, int sig, const char *what,
				    struct rusage *ru)
{
	int st;

	check(wait4(pid, &st, 0, ru) == pid, "wait4 %s: %s", what, strerror(errno));
	if (sig)
		check((WIFSIGNALED(st) && WTERMSIG(st) == sig) ||
		      (WIFEXITED(st) && !WEXITSTATUS(st)),
		      "%s ended with status %#x", what, st);
	else
		check(WIFEXITED(st) && !WEXITSTATUS(st), "%s failed: status %#x",
		      what, st);
	return ru_cpu_ns(ru);
}

static inline long long reap_cpu_ns(pid_t pid, int sig, const char *what)
{
	struct rusage ru;

	return reap_rusage(pid, sig, what, &ru);
}

/*
 * Attach @prog to hook @name: "cat/event" for a tracepoint program, a
 * function name for a kprobe or kretprobe program; @cookie is what
 * bpf_get_attach_cookie() returns in it.  NULL with errno on failure.
 */
static inline struct bpf_link *attach_hook(struct bpf_program *prog,
					   const char *name, bool retprobe,
					   unsigned long long cookie)
{
	enum bpf_prog_type type = bpf_program__type(prog);
	char cat[64];
	const char *slash;

	if (type == BPF_PROG_TYPE_KPROBE) {
		LIBBPF_OPTS(bpf_kprobe_opts, ko, .bpf_cookie = cookie,
			    .retprobe = retprobe);

		return bpf_program__attach_kprobe_opts(prog, name, &ko);
	}
	if (type == BPF_PROG_TYPE_TRACEPOINT) {
		LIBBPF_OPTS(bpf_tracepoint_opts, to, .bpf_cookie = cookie);

		slash = strchr(name, '/');
		check(slash && slash - name < (long)sizeof(cat), "bad tracepoint %s", name);
		snprintf(cat, sizeof(cat), "%.*s", (int)(slash - name), name);
		return bpf_program__attach_tracepoint_opts(prog, cat, slash + 1, &to);
	}
	if (type == BPF_PROG_TYPE_TRACING) {
		/* fentry/fexit: the function was set before load. */
		LIBBPF_OPTS(bpf_trace_opts, fo, .cookie = cookie);

		return bpf_program__attach_trace_opts(prog, &fo);
	}
	errno = EINVAL;
	return NULL;
}

/* Which clock guest time is: "icount" (instructions) or "wall" ($EVAL_CLOCK). */
static inline const char *clock_name(void)
{
	const char *c = getenv("EVAL_CLOCK");

	return c && *c ? c : "icount";
}

/* A progress line on stdout ("[eval] " is added by the host script). */
static inline void progress(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/*
 * Pipe ping-pong between two processes (eval/guest/switch.c, scale.c):
 * one byte each way per round trip, every switch a blocking read's.
 */
static inline void pingpong_put(int fd)
{
	char c = 'x';

	check(write(fd, &c, 1) == 1, "pipe write: %s", strerror(errno));
}

static inline void pingpong_get(int fd)
{
	char c;

	check(read(fd, &c, 1) == 1, "pipe read: %s", strerror(errno));
}

/*
 * Round trips before the measured ones: the faults of a freshly forked
 * process (copy-on-write of its stack and data, the pipes' first pages)
 * stay out of the measurement.
 */
#define PINGPONG_WARM_ROUNDTRIPS 1000

/*
 * SCHED_BATCH: CFS as SCHED_OTHER, but a wakeup never preempts (the woken
 * task waits for the next scheduling point).  Each switch is then the one
 * the blocking read makes, in every configuration: under SCHED_OTHER, CFS
 * preempts the writer now and then on the wakeup, depending on how far
 * the two processes' vruntimes drift apart, which a member's extra cost
 * at each switch changes, and a preempted round trip takes another path
 * through the kernel, tens of instructions shorter or longer.
 */
static inline void pingpong_batch(void)
{
	struct sched_param sp = { 0 };

	check(!sched_setscheduler(0, SCHED_BATCH, &sp), "SCHED_BATCH: %s", strerror(errno));
}

/* B: answer @n bytes (and the warm-up's), then exit. */
static inline void __attribute__((noreturn)) pingpong_answer(int in, int out, long n)
{
	long i;

	pingpong_batch();
	for (i = 0; i < n + PINGPONG_WARM_ROUNDTRIPS; i++) {
		pingpong_get(in);
		pingpong_put(out);
	}
	_exit(0);
}

#endif
