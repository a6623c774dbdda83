// SPDX-License-Identifier: GPL-2.0
/*
 * kview-stress, the watchdog: a hang is a finding, it says where everybody
 * is stuck.  See kview-stress.c for what the stress does and stress.h for
 * what the parts share.
 */
#include "stress.h"

volatile double heartbeat;
const char *volatile stage = "start";
struct actor *watch_actors;
int watch_nactors;

void beat(const char *what)
{
	heartbeat = now();
	if (what)
		stage = what;
}

/* The kernel stacks of every thread of @pid, as "#" lines. */
void dump_stacks(pid_t pid)
{
	char path[320], *stack, *comm, *wchan, *line, *save;
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", pid, d->d_name);
		comm = read_all(path);
		snprintf(path, sizeof(path), "/proc/%d/task/%s/wchan", pid, d->d_name);
		wchan = read_all(path);
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stack", pid, d->d_name);
		stack = read_all(path);
		if (comm)
			comm[strcspn(comm, "\n")] = '\0';
		note("  task %d/%s (%s) wchan %s:", pid, d->d_name,
		     comm ? comm : "?", wchan ? wchan : "?");
		save = NULL;
		for (line = stack ? strtok_r(stack, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save))
			note("    %s", line);
		free(comm);
		free(wchan);
		free(stack);
	}
	closedir(dir);
}

void *watchdog_main(void *arg)
{
	bool told = false;
	double t;
	int i;

	(void)arg;
	for (;;) {
		sleep(1);
		t = now() - heartbeat;
		if (t < HANG_S) {
			if (told)
				note("watchdog: progress again after the hang");
			told = false;
			continue;
		}
		if (told)
			continue;
		told = true;
		violation("hang: no progress for %.0f s; main: %s", t, stage);
		for (i = 0; i < watch_nactors; i++) {
			struct actor *a = &watch_actors[i];

			if (a->cur >= 0)
				note("  actor %d: op %ld %s for %.0f s", i, a->op,
				     op_names[a->cur], now() - a->cur_start);
		}
		note("kernel stacks of the driver:");
		dump_stacks(getpid());
		/* No G.lock: it may be held by the stuck thread. */
		for (i = 0; i < WORKER_SLOTS; i++)
			if (G.workers[i].used && G.workers[i].pid > 0)
				dump_stacks(G.workers[i].pid);
		/* And the kernel's own view of it, in its log. */
		write_file("/proc/sysrq-trigger", "w", false);
		write_file("/proc/sysrq-trigger", "l", false);
	}
	return NULL;
}
