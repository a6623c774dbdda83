// SPDX-License-Identifier: GPL-2.0
/*
 * kview-stress, the actors' random operations on member processes and on
 * the global text.  See kview-stress.c for what the stress does and
 * stress.h for what the parts share.
 */
#include "stress.h"

int wcall(struct worker *w, int type, int arg, struct wmsg *reply, int *fd)
{
	int err = msg_send(w->sock, type, arg, 0, 0, -1);

	if (err)
		return err == -ECONNRESET ? -EPIPE : err;
	err = msg_recv(w->sock, reply, REPLY_MS, fd);
	if (!err && reply->type != MSG_ACK)
		err = -EPROTO;
	return err;
}

/* Reap what died (our workers, and orphans we are the subreaper of). */
void reap(void)
{
	int st;
	pid_t p;

	while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
		if (WIFEXITED(st) && WEXITSTATUS(st))
			violation("worker %d exited with status %d", p,
				  WEXITSTATUS(st));
		else if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL)
			violation("worker %d died of signal %d", p, WTERMSIG(st));
	}
}

/*
 * Under G.lock: @w is dead (its socket is closed: it passed exit_mm() and
 * sched_process_exit).  Attachments on sched_process_exit that had its
 * exit in scope must have counted it.
 */
void worker_dead(struct worker *w, struct view *was_in, double t_death)
{
	int i;

	for (i = 0; i < ATTACH_SLOTS; i++) {
		struct attach *at = &G.attach[i];

		/* (A busy one is being detached: check_exits() reads it.) */
		if (!at->used || at->busy || !at->link || at->hook != H_TP_EXIT ||
		    at->created >= t_death || at->nexits >= MAX_EXITS)
			continue;
		if (at->mode == M_GLOBAL || (at->view && at->view == was_in))
			at->exits[at->nexits++] = w->pid;
	}
	close(w->sock);
	memset(w, 0, sizeof(*w));
}

/* Wait until the worker's socket closes: it is gone. */
int wait_gone(struct worker *w, int timeout_ms)
{
	double end = now() + timeout_ms / 1000.0;
	struct wmsg m;
	int err, fd;

	do {
		err = msg_recv(w->sock, &m, timeout_ms, &fd);
		if (fd >= 0)
			close(fd);
	} while (!err && now() < end);
	return err == -EPIPE ? 0 : err ? err : -ETIMEDOUT;
}

/* A worker did not answer as it should: say so, kill it, forget it. */
void worker_lost(struct actor *a, struct worker *w, int err, const char *what)
{
	struct view *v;
	double t = now();

	violation("op %ld: worker %d (%s): %s: %s", a ? a->op : -1L, w->pid,
		  comm_of(w->pid), what, err_name(-err));
	kill(w->pid, SIGKILL);
	if (wait_gone(w, 5000))
		t = 0;		/* not gone: expect no exit event of it */
	pthread_mutex_lock(&G.lock);
	v = w->view;
	worker_dead(w, v, t);
	pthread_mutex_unlock(&G.lock);
	reap();
}

int op_spawn(struct actor *a)
{
	unsigned int with_view = rnd(&a->rng, 3);
	char fdstr[16], *argv[] = { "kview-stress", "--worker", fdstr, "0", NULL };
	struct worker *w;
	struct view *v = NULL;
	struct wmsg m;
	int wi, vi, sv[2], err;
	unsigned int seq;
	pid_t pid;

	pthread_mutex_lock(&G.lock);
	if (count_workers() >= MAX_PROCS) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	wi = PICK(&a->rng, G.workers, WORKER_SLOTS, slot_free_w);
	w = &G.workers[wi];
	w->used = w->busy = true;
	w->serial = ++G.serial;
	w->sock = -1;
	pthread_mutex_unlock(&G.lock);

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		unexpected(a, errno, "socketpair");
		goto undo;
	}
	snprintf(fdstr, sizeof(fdstr), "%d", sv[1]);
	pthread_mutex_lock(&G.lock);
	seq = fork_begin();
	pthread_mutex_unlock(&G.lock);
	pid = fork();
	if (pid < 0) {
		unexpected(a, errno, "fork");
		close(sv[0]);
		close(sv[1]);
		pthread_mutex_lock(&G.lock);
		fork_end(seq);
		pthread_mutex_unlock(&G.lock);
		goto undo;
	}
	if (!pid) {
		/* A copy of a threaded process: exec at once. */
		setpgid(0, 0);
		fcntl(sv[1], F_SETFD, 0);
		execv(self_exe, argv);
		_exit(127);
	}
	setpgid(pid, pid);	/* either of us may be first */
	close(sv[1]);
	w->sock = sv[0];
	w->pid = pid;
	w->pgid = pid;
	w->threads = 1;
	err = msg_recv(w->sock, &m, REPLY_MS, NULL);
	if (!err && (m.type != MSG_READY || m.pid != pid))
		err = -EPROTO;
	if (err) {
		worker_lost(a, w, err, "start");
		/* Gone: it holds no copy of our fds any more. */
		pthread_mutex_lock(&G.lock);
		fork_end(seq);
		pthread_mutex_unlock(&G.lock);
		return 1;
	}

	pthread_mutex_lock(&G.lock);
	/* It exec'd (READY): our close-on-exec fds are closed in it. */
	fork_end(seq);
	if (G.npgids < (int)(sizeof(G.pgids) / sizeof(G.pgids[0])))
		G.pgids[G.npgids++] = pid;
	if (with_view) {
		vi = PICK(&a->rng, G.views, VIEW_SLOTS, view_open_idle);
		if (vi >= 0) {
			v = &G.views[vi];
			v->busy = true;
		}
	}
	pthread_mutex_unlock(&G.lock);

	alog(a, "spawn worker %d", pid);
	if (v) {
		err = -kview__add_pid(v->kv, pid);
		alog(a, ", add to %s -> %s", view_desc(v), err_name(err));
		if (err)
			unexpected(a, err, "add new worker %d to %s", pid,
				   view_desc(v));
		pthread_mutex_lock(&G.lock);
		if (!err) {
			w->view = v;
			view_ever_add(v, pid);
		}
		v->busy = false;
		pthread_mutex_unlock(&G.lock);
	}
	/* Go. */
	err = wcall(w, CMD_RUN, 1, &m, NULL);
	if (err) {
		worker_lost(a, w, err, "go");
		return 1;
	}
	pthread_mutex_lock(&G.lock);
	w->busy = false;
	pthread_mutex_unlock(&G.lock);
	return 1;
undo:
	pthread_mutex_lock(&G.lock);
	memset(w, 0, sizeof(*w));
	pthread_mutex_unlock(&G.lock);
	return 1;
}

int op_fork(struct actor *a)
{
	struct worker *w, *c;
	struct view *v;
	struct wmsg m;
	int wi, ci, err, fd;

	pthread_mutex_lock(&G.lock);
	if (count_workers() >= MAX_PROCS) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	wi = PICK(&a->rng, G.workers, WORKER_SLOTS, worker_idle);
	if (wi < 0) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	w = &G.workers[wi];
	w->busy = true;
	ci = PICK(&a->rng, G.workers, WORKER_SLOTS, slot_free_w);
	c = &G.workers[ci];
	c->used = c->busy = true;
	c->serial = ++G.serial;
	c->sock = -1;
	pthread_mutex_unlock(&G.lock);

	err = wcall(w, CMD_FORK, 0, &m, &fd);
	if (!err && (m.err || fd < 0))
		err = -(m.err ? m.err : EPROTO);
	if (err) {
		if (fd >= 0)
			close(fd);
		pthread_mutex_lock(&G.lock);
		memset(c, 0, sizeof(*c));
		pthread_mutex_unlock(&G.lock);
		worker_lost(a, w, err, "fork");
		return 1;
	}
	c->sock = fd;
	c->pid = m.pid;
	c->pgid = w->pgid;
	c->threads = 1;
	err = msg_recv(c->sock, &m, REPLY_MS, NULL);
	if (!err && (m.type != MSG_READY || m.pid != c->pid))
		err = -EPROTO;

	pthread_mutex_lock(&G.lock);
	v = w->view;
	if (v && (v->flags & KVIEW_F_FOLLOW_FORK)) {
		c->view = v;
		view_ever_add(v, c->pid);
	}
	alog(a, "worker %d forks %d (parent in %s) -> child in %s", w->pid,
	     c->pid, view_desc(v), view_desc(c->view));
	w->busy = false;
	pthread_mutex_unlock(&G.lock);
	if (err) {
		worker_lost(a, c, err, "start of a forked child");
		return 1;
	}
	pthread_mutex_lock(&G.lock);
	c->busy = false;
	pthread_mutex_unlock(&G.lock);
	return 1;
}

int op_thread(struct actor *a, bool add)
{
	struct worker *w;
	struct wmsg m;
	int wi, err;

	pthread_mutex_lock(&G.lock);
	wi = PICK(&a->rng, G.workers, WORKER_SLOTS, worker_idle);
	if (wi < 0 || (add && G.workers[wi].threads > MAX_XTHREADS) ||
	    (!add && G.workers[wi].threads == 1)) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	w = &G.workers[wi];
	w->busy = true;
	pthread_mutex_unlock(&G.lock);

	err = wcall(w, add ? CMD_THREAD_ADD : CMD_THREAD_DEL, 0, &m, NULL);
	if (!err && m.err)
		err = -m.err;
	alog(a, "worker %d: %s thread -> %s, %d thread(s)", w->pid,
	     add ? "new" : "end a", err_name(-err), err ? w->threads : m.arg);
	if (err) {
		worker_lost(a, w, err, add ? "new thread" : "end a thread");
		return 1;
	}
	pthread_mutex_lock(&G.lock);
	w->threads = m.arg;
	w->busy = false;
	pthread_mutex_unlock(&G.lock);
	return 1;
}

int op_exec(struct actor *a)
{
	struct worker *w;
	struct view *v;
	struct wmsg m;
	int wi, err;

	pthread_mutex_lock(&G.lock);
	wi = PICK(&a->rng, G.workers, WORKER_SLOTS, worker_idle);
	if (wi < 0) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	w = &G.workers[wi];
	w->busy = true;
	pthread_mutex_unlock(&G.lock);

	err = msg_send(w->sock, CMD_EXEC, 0, 0, 0, -1);
	if (!err)
		err = msg_recv(w->sock, &m, REPLY_MS, NULL);
	if (!err && m.type != MSG_READY)
		err = -(m.err ? m.err : EPROTO);
	if (err) {
		worker_lost(a, w, err, "exec");
		return 1;
	}
	pthread_mutex_lock(&G.lock);
	v = w->view;
	w->threads = 1;
	if (v && !(v->flags & KVIEW_F_FOLLOW_EXEC))
		w->view = NULL;
	alog(a, "worker %d execs (was in %s) -> in %s", w->pid, view_desc(v),
	     view_desc(w->view));
	w->busy = false;
	pthread_mutex_unlock(&G.lock);
	return 1;
}


int op_end(struct actor *a, enum end_how how)
{
	struct worker *ws_[WORKER_SLOTS];
	struct view *was[WORKER_SLOTS];
	int wi, i, n = 0, err;
	pid_t pgid = 0;
	double t;

	pthread_mutex_lock(&G.lock);
	wi = PICK(&a->rng, G.workers, WORKER_SLOTS, worker_idle);
	if (wi < 0) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	if (how == END_KILL_GROUP) {
		/* Every process of the group, and none may be busy. */
		pgid = G.workers[wi].pgid;
		for (i = 0; i < WORKER_SLOTS; i++) {
			struct worker *w = &G.workers[i];

			if (!w->used || w->pgid != pgid)
				continue;
			if (w->busy) {
				pthread_mutex_unlock(&G.lock);
				return 0;
			}
			ws_[n++] = w;
		}
	} else {
		ws_[n++] = &G.workers[wi];
	}
	for (i = 0; i < n; i++) {
		ws_[i]->busy = true;
		was[i] = ws_[i]->view;
	}
	pthread_mutex_unlock(&G.lock);

	t = now();
	if (how == END_EXIT) {
		alog(a, "worker %d exits (in %s)", ws_[0]->pid, view_desc(was[0]));
		msg_send(ws_[0]->sock, CMD_EXIT, 0, 0, 0, -1);
	} else if (how == END_KILL) {
		alog(a, "SIGKILL worker %d (in %s)", ws_[0]->pid, view_desc(was[0]));
		kill(ws_[0]->pid, SIGKILL);
	} else {
		alog(a, "SIGKILL group %d (%d known process(es))", pgid, n);
		if (kill(-pgid, SIGKILL))
			unexpected(a, errno, "kill(-%d)", pgid);
	}
	for (i = 0; i < n; i++) {
		err = wait_gone(ws_[i], REPLY_MS);
		if (err)
			violation("op %ld: worker %d did not go away: %s", a->op,
				  ws_[i]->pid, err_name(-err));
		pthread_mutex_lock(&G.lock);
		worker_dead(ws_[i], was[i], err ? 0 : t);
		pthread_mutex_unlock(&G.lock);
	}
	reap();
	return 1;
}

/* -------- global text changes -------- */

int op_static_key(struct actor *a)
{
	int err;

	pthread_mutex_lock(&T.lock);
	T.bpf_stats = !T.bpf_stats;
	err = -write_file(BPF_STATS, T.bpf_stats ? "1" : "0", false);
	alog(a, "sysctl kernel.bpf_stats_enabled=%d -> %s", T.bpf_stats,
	     err_name(err));
	if (err)
		unexpected(a, err, "bpf_stats_enabled=%d", T.bpf_stats);
	pthread_mutex_unlock(&T.lock);
	return 1;
}

void ftrace_off(void)
{
	int err = -write_file(TRACING "current_tracer", "nop\n", false);

	if (err)
		violation("current_tracer nop: %s", err_name(err));
	write_file(TRACING "set_ftrace_filter", "\n", false);
	T.ftrace_on = false;
}

int op_ftrace(struct actor *a)
{
	char filter[256] = "", *got;
	unsigned int i, mask;
	int err = 0;

	pthread_mutex_lock(&T.lock);
	if (T.ftrace_on) {
		ftrace_off();
		alog(a, "function tracer off");
		pthread_mutex_unlock(&T.lock);
		return 1;
	}
	mask = 1 + rnd(&a->rng, (1 << 5) - 1);
	/* One function a write: tracefs takes one token per write. */
	for (i = 0; i < 5 && !err; i++)
		if (mask & (1 << i)) {
			err = -write_file(TRACING "set_ftrace_filter", ftrace_funcs[i],
					  filter[0]);
			strcat(filter, ftrace_funcs[i]);
			strcat(filter, " ");
		}
	strcat(filter, "\n");
	got = read_all(TRACING "set_ftrace_filter");
	/* Never the function tracer on every function: TCG would crawl. */
	if (!err && got && got[0] && got[0] != '#') {
		err = -write_file(TRACING "current_tracer", "function\n", false);
		T.ftrace_on = !err;
	} else if (!err) {
		err = ENOENT;
	}
	free(got);
	filter[strlen(filter) - 1] = '\0';
	alog(a, "function tracer on %s-> %s", filter, err_name(err));
	if (err) {
		unexpected(a, err, "function tracer on %s", filter);
		write_file(TRACING "set_ftrace_filter", "\n", false);
	}
	pthread_mutex_unlock(&T.lock);
	return 1;
}

int op_event(struct actor *a)
{
	unsigned int e = rnd(&a->rng, 5);
	char path[256];
	int err;

	pthread_mutex_lock(&T.lock);
	T.event_on[e] = !T.event_on[e];
	snprintf(path, sizeof(path), TRACING "events/%s/enable", events[e]);
	err = -write_file(path, T.event_on[e] ? "1" : "0", false);
	alog(a, "tracefs %s enable=%d -> %s", events[e], T.event_on[e],
	     err_name(err));
	if (err)
		unexpected(a, err, "%s enable=%d", events[e], T.event_on[e]);
	pthread_mutex_unlock(&T.lock);
	return 1;
}

/* Under T.lock. */
int kpev_remove(int i)
{
	char path[256], cmd[64];
	int err;

	snprintf(path, sizeof(path), TRACING "events/kvstress/%s/enable",
		 T.kpev[i].name);
	write_file(path, "0", false);
	snprintf(cmd, sizeof(cmd), "-:kvstress/%s\n", T.kpev[i].name);
	err = -write_file(TRACING "kprobe_events", cmd, true);
	T.kpev[i].used = false;
	return err;
}

int op_kprobe_event(struct actor *a)
{
	unsigned int f = rnd(&a->rng, 3), off = rnd(&a->rng, 3) ?
		rnd(&a->rng, 0x28) : 0, i, n = 0, slot = MAX_KPEVENTS;
	bool add = rnd(&a->rng, 2);
	char cmd[128], path[256];
	int err;

	pthread_mutex_lock(&T.lock);
	for (i = 0; i < MAX_KPEVENTS; i++) {
		if (T.kpev[i].used)
			n++;
		else if (slot == MAX_KPEVENTS)
			slot = i;
	}
	if (!n || (add && n < MAX_KPEVENTS)) {
		snprintf(T.kpev[slot].name, sizeof(T.kpev[slot].name), "e%u",
			 ++T.kpev_serial);
		snprintf(cmd, sizeof(cmd), "p:kvstress/%s %s+%u\n",
			 T.kpev[slot].name, kpev_funcs[f], off);
		err = -write_file(TRACING "kprobe_events", cmd, true);
		if (!err) {
			T.kpev[slot].used = true;
			snprintf(path, sizeof(path),
				 TRACING "events/kvstress/%s/enable",
				 T.kpev[slot].name);
			err = -write_file(path, "1", false);
			if (err)
				unexpected(a, err, "enable kprobe event %s", cmd);
		}
		cmd[strlen(cmd) - 1] = '\0';
		alog(a, "tracefs kprobe event %s -> %s", cmd, err_name(err));
		/*
		 * At an offset: not an instruction boundary (EILSEQ), past the
		 * function (EINVAL), a jump label or static call site (EBUSY).
		 */
		if (err && !(off && (err == EILSEQ || err == EINVAL ||
				     err == EBUSY)) && !T.kpev[slot].used)
			unexpected(a, err, "kprobe event %s", cmd);
	} else {
		unsigned int k = rnd(&a->rng, n);

		for (i = 0; i < MAX_KPEVENTS; i++)
			if (T.kpev[i].used && !k--)
				break;
		alog(a, "remove tracefs kprobe event %s", T.kpev[i].name);
		err = kpev_remove(i);
		if (err)
			unexpected(a, err, "remove kprobe event %s", T.kpev[i].name);
	}
	pthread_mutex_unlock(&T.lock);
	return 1;
}

int tp_id(const char *tp)
{
	char path[256];

	snprintf(path, sizeof(path), TRACING "events/%s/id", tp);
	return read_long(path, -1);
}

/* A global counting perf event on @tp on every CPU.  0 or -errno. */
int perf_open(struct perfev *p, const char *tp)
{
	struct perf_event_attr attr;
	int cpu, id = tp_id(tp);

	if (id < 0)
		return -ENOENT;
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.size = sizeof(attr);
	attr.config = id;
	for (cpu = 0; cpu < ncpus; cpu++) {
		p->fds[cpu] = syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
				      PERF_FLAG_FD_CLOEXEC);
		if (p->fds[cpu] < 0) {
			int err = -errno;

			while (cpu--)
				close(p->fds[cpu]);
			return err;
		}
	}
	p->tp = tp;
	p->reads = strstr(tp, "sys_enter") || strstr(tp, "sys_exit_read");
	p->used = true;
	return 0;
}

void perf_close(struct perfev *p)
{
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++)
		close(p->fds[cpu]);
	p->used = false;
}

long long perf_read(struct perfev *p)
{
	long long sum = 0, v;
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++)
		if (read(p->fds[cpu], &v, sizeof(v)) == sizeof(v))
			sum += v;
	return sum;
}

int op_perf(struct actor *a)
{
	unsigned int t = rnd(&a->rng, 4), i, n = 0, slot = 0;
	bool open_ = rnd(&a->rng, 2);
	int err;

	pthread_mutex_lock(&T.lock);
	for (i = 1; i <= MAX_PERF; i++) {
		if (T.perf[i].used)
			n++;
		else if (!slot)
			slot = i;
	}
	if (!n || (open_ && n < MAX_PERF)) {
		err = -perf_open(&T.perf[slot], perf_tps[t]);
		alog(a, "perf counting event on %s -> %s", perf_tps[t],
		     err_name(err));
		if (err)
			unexpected(a, err, "perf_event_open %s", perf_tps[t]);
	} else {
		unsigned int k = rnd(&a->rng, n);

		for (i = 1; i <= MAX_PERF; i++)
			if (T.perf[i].used && !k--)
				break;
		alog(a, "close perf event on %s", T.perf[i].tp);
		perf_close(&T.perf[i]);
	}
	pthread_mutex_unlock(&T.lock);
	return 1;
}

int run_op(struct actor *a, enum op op)
{
	switch (op) {
	case OP_VIEW_CREATE: return op_view_create(a);
	case OP_VIEW_CLOSE: return op_view_close(a);
	case OP_ADD_PID: return op_add_pid(a);
	case OP_ATTACH: return op_attach(a);
	case OP_DETACH: return op_detach(a);
	case OP_SPAWN: return op_spawn(a);
	case OP_FORK: return op_fork(a);
	case OP_THREAD_ADD: return op_thread(a, true);
	case OP_THREAD_DEL: return op_thread(a, false);
	case OP_EXEC: return op_exec(a);
	case OP_EXIT: return op_end(a, END_EXIT);
	case OP_KILL: return op_end(a, END_KILL);
	case OP_KILL_GROUP: return op_end(a, END_KILL_GROUP);
	case OP_STATIC_KEY: return op_static_key(a);
	case OP_FTRACE: return op_ftrace(a);
	case OP_EVENT: return op_event(a);
	case OP_KPROBE_EVENT: return op_kprobe_event(a);
	case OP_PERF: return op_perf(a);
	case NR_OPS: break;
	}
	return 0;
}

enum op pick_op(struct rng *rng)
{
	int total = 0, i, r;

	for (i = 0; i < NR_OPS; i++)
		total += op_weight[i];
	r = rnd(rng, total);
	for (i = 0; i < NR_OPS; i++) {
		r -= op_weight[i];
		if (r < 0)
			break;
	}
	return i;
}
