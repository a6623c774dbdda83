// SPDX-License-Identifier: GPL-2.0
/*
 * kview-stress, the teardown, on every exit path, and the final invariants
 * (5).  See kview-stress.c for what the stress does and stress.h for what
 * the parts share.
 */
#include "stress.h"

int read_stats(struct stat_line *s, int max)
{
	char *buf = read_all(KVIEW_DEBUGFS "stats"), *line, *save = NULL;
	int n = 0;

	if (!buf)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%31s %ld", s[n].name, &s[n].value) == 2)
			n++;
	free(buf);
	return n;
}

long stat_get(struct stat_line *s, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s[i].name, name))
			return s[i].value;
	return -1;
}

void teardown(void)
{
	double end;
	int i, st;

	/* Workers: every group we made, then every process we know. */
	beat("teardown: kill the workers");
	for (i = 0; i < G.npgids; i++)
		kill(-G.pgids[i], SIGKILL);
	for (i = 0; i < WORKER_SLOTS; i++)
		if (G.workers[i].used && G.workers[i].pid > 0)
			kill(G.workers[i].pid, SIGKILL);
	for (i = 0; i < WORKER_SLOTS; i++) {
		struct worker *w = &G.workers[i];

		if (!w->used)
			continue;
		if (w->sock >= 0 && w->pid > 0 && wait_gone(w, 10000))
			violation("teardown: worker %d did not go away", w->pid);
		if (w->sock >= 0)
			close(w->sock);
		memset(w, 0, sizeof(*w));
	}
	beat("teardown: reap");
	end = now() + 10;
	while (now() < end) {
		pid_t p = waitpid(-1, &st, WNOHANG);

		if (p < 0)
			break;
		if (!p)
			usleep(10000);
	}

	beat("teardown: destroy the links");
	for (i = 0; i < ATTACH_SLOTS; i++) {
		struct attach *at = &G.attach[i];

		if (!at->used)
			continue;
		beat(NULL);
		if (at->link) {
			if (at->nexits)
				check_exits(at, "at the teardown");
			bpf_link__destroy(at->link);
		}
		at->link = NULL;
		attach_release(at);
	}
	beat("teardown: close the views");
	for (i = 0; i < VIEW_SLOTS; i++) {
		struct view *v = &G.views[i];

		if (!v->used)
			continue;
		kview__destroy(v->kv);
		v->kv = NULL;
		v->busy = false;
		view_maybe_die(v);
	}
	beat("teardown: unload the BPF objects");
	for (i = 0; i < NR_HOOKS; i++)
		while (G.pool[i]) {
			struct inst *in = G.pool[i];

			G.pool[i] = in->next;
			inst_free(in);
		}

	beat("teardown: close the perf events");
	for (i = 0; i <= MAX_PERF; i++)
		if (T.perf[i].used)
			perf_close(&T.perf[i]);
	beat("teardown: remove the kprobe events");
	for (i = 0; i < MAX_KPEVENTS; i++)
		if (T.kpev[i].used && kpev_remove(i))
			violation("teardown: remove kprobe event %s", T.kpev[i].name);
	beat("teardown: disable the tracefs events");
	for (i = 0; i < 5; i++)
		if (T.event_on[i]) {
			char path[256];

			snprintf(path, sizeof(path), TRACING "events/%s/enable", events[i]);
			if (write_file(path, "0", false))
				violation("teardown: disable %s", events[i]);
			T.event_on[i] = false;
		}
	beat("teardown: function tracer off");
	if (T.ftrace_on)
		ftrace_off();
	beat("teardown: bpf_stats_enabled");
	if (T.bpf_stats_orig >= 0) {
		char v[24];

		snprintf(v, sizeof(v), "%ld", T.bpf_stats_orig);
		write_file(BPF_STATS, v, false);
	}
}

char *kprobes_before;
bool syscall_work_before;

/* Invariant 5: nothing is left. */
void check_clean(long oos_before)
{
	static const char *const must_be_0[] = { "views", "patches", "pages", "pt_pages" };
	struct stat_line s[STAT_LINES];
	char *after, *line, *save = NULL, buf[1024];
	int n = 0, i, tids[64];
	size_t nt = 0;
	double end = now() + 3.0;
	bool dirty;

	beat("final checks");
	do {
		n = read_stats(s, STAT_LINES);
		dirty = false;
		for (i = 0; i < 4; i++)
			dirty |= stat_get(s, n, must_be_0[i]) != 0;
		nt = syscall_work_tids(tids, 64);
		dirty |= nt > 0 && !syscall_work_before;
		if (dirty)
			usleep(50000);
	} while (dirty && now() < end);

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%.31s %ld",
			 i ? ", " : "", s[i].name, s[i].value);
	say("kview-stress: kview/stats after the teardown: %s", buf);
	for (i = 0; i < 4; i++)
		if (stat_get(s, n, must_be_0[i]) != 0)
			violation("teardown: kview/stats %s is %ld, not 0",
				  must_be_0[i], stat_get(s, n, must_be_0[i]));
	/*
	 * Nothing here adopts a member's mm (kthread_use_mm()), the one way
	 * left for a task outside a view to run its text.
	 */
	if (stat_get(s, n, "out_of_scope") >= 0 && oos_before >= 0) {
		long oos = stat_get(s, n, "out_of_scope") - oos_before;

		say("kview-stress: out_of_scope went up by %ld", oos);
		if (oos)
			violation("kview/stats out_of_scope went up by %ld: tasks outside a view reached its hooks through its text",
				  oos);
	}
	for (i = 0; i < (int)nt && !syscall_work_before; i++)
		violation("teardown: task %d (%s) still has the syscall-work flag",
			  tids[i], comm_of(tids[i]));

	after = read_all("/sys/kernel/debug/kprobes/list");
	for (line = after ? strtok_r(after, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		if (!kprobes_before || !strstr(kprobes_before, line))
			violation("teardown: kprobe left: %s", line);
	free(after);
}
