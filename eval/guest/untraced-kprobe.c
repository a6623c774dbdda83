// SPDX-License-Identifier: GPL-2.0
/*
 * untraced-kprobe: the cost a kprobe traced for one process leaves on
 * another, untraced, process.  Runs in the guest (kvm/run --icount).
 *
 * An idle process (sleep) is "traced": a kprobe program on ksys_read is
 * attached for it, by mode:
 *
 *   none     nothing attached
 *   kview    in the idle process's kernel view
 *   in-ebpf  globally, with the pid == N test first thing in the program
 *
 * and the untraced process, `dd if=/dev/zero of=/dev/null bs=1 count=C`,
 * is measured by the CPU time the scheduler charged it (wait4()'s utime +
 * stime, whose sum is sum_exec_runtime at microsecond resolution) and by
 * the wall time from its start to its exit.  In icount mode guest time counts
 * instructions (1 ns each), so dd's CPU time is the instructions it
 * executed, user and kernel, probes included.  Before each run the guest
 * rests for a second so that work deferred by the previous detach (RCU
 * callbacks, freeing) does not run while dd does.  Modes are interleaved
 * round by round, in a rotating order; round 0 is a warm-up and is marked.
 *
 *   untraced-kprobe ROUNDS COUNT OUT.csv
 * CSV: bench,mode,round,warmup,cpu_ns,wall_ns,events
 */
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kvtest.h"
#include "kprobe_count.skel.h"

static const char *const modes[] = { "none", "kview", "in-ebpf" };
#define NMODES 3

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Run dd; return its CPU time and (in *wall) its wall time, in ns. */
static long long run_dd(const char *count, long long *wall)
{
	char arg[64];
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1", arg,
		       "status=none", NULL };
	struct rusage ru;
	long long t0;
	int st;
	pid_t pid;

	snprintf(arg, sizeof(arg), "count=%s", count);
	pid = spawn_stopped(dd);
	t0 = now_ns();
	resume(pid);
	check(wait4(pid, &st, 0, &ru) == pid, "wait4: %s", strerror(errno));
	*wall = now_ns() - t0;
	check(WIFEXITED(st) && !WEXITSTATUS(st), "dd failed: %#x", st);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

int main(int argc, char **argv)
{
	char *sleeper[] = { "sleep", "100000", NULL };
	struct kprobe_count *skel = NULL;
	struct bpf_link *link;
	struct kview *kv = NULL;
	int rounds, r, i, m;
	long long ns, wall;
	unsigned long long events;
	pid_t traced;
	FILE *out;

	if (argc != 4) {
		fprintf(stderr, "usage: untraced-kprobe ROUNDS COUNT OUT.csv\n");
		return 2;
	}
	rounds = atoi(argv[1]);
	out = fopen(argv[3], "w");
	check(out, "%s: %s", argv[3], strerror(errno));
	fprintf(out, "bench,mode,round,warmup,cpu_ns,wall_ns,events\n");

	traced = spawn_stopped(sleeper);
	resume(traced);

	for (r = 0; r <= rounds; r++) {
		for (i = 0; i < NMODES; i++) {
			m = (i + r) % NMODES;
			link = NULL;
			skel = kprobe_count__open();
			check(skel, "open: %s", strerror(errno));
			if (m == 2)
				skel->rodata->filter_tgid = traced;
			check(!kprobe_count__load(skel), "load: %s", strerror(errno));
			if (m == 1) {
				kv = kview__create(traced, NULL);
				check(kv, "kview__create: %s", strerror(errno));
				link = kview__attach_program(kv, skel->progs.count_read);
			} else if (m == 2) {
				link = bpf_program__attach(skel->progs.count_read);
			}
			check(m == 0 || link, "attach (%s): %s", modes[m], strerror(errno));

			/* Let deferred work of the previous round finish. */
			sleep(1);
			ns = run_dd(argv[2], &wall);

			events = map_u32_count(bpf_map__fd(skel->maps.counts), traced);
			bpf_link__destroy(link);
			kview__destroy(kv);
			kv = NULL;
			kprobe_count__destroy(skel);
			fprintf(out, "untraced-dd,%s,%d,%d,%lld,%lld,%llu\n", modes[m],
				r, r == 0, ns, wall, events);
			fflush(out);
			printf("round %d/%d %-8s dd cpu %12lld ns, wall %12lld ns\n",
			       r, rounds, modes[m], ns, wall);
			fflush(stdout);
		}
	}
	kill(traced, SIGKILL);
	wait_exit(traced);
	fclose(out);
	return 0;
}
