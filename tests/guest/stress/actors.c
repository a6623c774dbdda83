// SPDX-License-Identifier: GPL-2.0
/*
 * kview-stress, the actors' random operations on views and attachments.
 * See kview-stress.c for what the stress does and stress.h for what the
 * parts share.
 */
#include "stress.h"

__attribute__((format(printf, 2, 3)))
void alog(struct actor *a, const char *fmt, ...)
{
	va_list ap;

	if (a->loglen >= sizeof(a->log) - 1)
		return;
	va_start(ap, fmt);
	a->loglen += vsnprintf(a->log + a->loglen, sizeof(a->log) - a->loglen,
			       fmt, ap);
	va_end(ap);
	if (a->loglen > sizeof(a->log) - 1)
		a->loglen = sizeof(a->log) - 1;
}

/* An error from the kernel nothing explains: a violation. */
__attribute__((format(printf, 3, 4)))
void unexpected(struct actor *a, int err, const char *fmt, ...)
{
	char buf[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	violation("op %ld (actor %d): %s: unexpected %s", a ? a->op : -1L,
		  a ? a->idx : -1, buf, err_name(err));
}

/* -------- views -------- */

int op_view_create(struct actor *a)
{
	LIBBPF_OPTS(kview_opts, opts);
	struct worker *w = NULL;
	struct view *v;
	struct kview_info info;
	struct kview *kv;
	int vi, wi = -1, r, err;
	bool in_view = false, recent = false;

	opts.follow_fork = rnd(&a->rng, 2);
	opts.follow_exec = rnd(&a->rng, 2);
	opts.filter = !rnd(&a->rng, 4);
	r = rnd(&a->rng, 10);

	pthread_mutex_lock(&G.lock);
	if (count_views() >= MAX_VIEWS || global_only) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	vi = PICK(&a->rng, G.views, VIEW_SLOTS, slot_free_v);
	v = &G.views[vi];
	v->used = v->busy = true;
	v->serial = ++G.serial;
	if (r >= 4 && r < 9)
		wi = PICK(&a->rng, G.workers, WORKER_SLOTS, worker_idle_viewless);
	else if (r == 9)
		wi = PICK(&a->rng, G.workers, WORKER_SLOTS, worker_idle_viewed);
	if (wi >= 0) {
		w = &G.workers[wi];
		w->busy = true;
		in_view = w->view;
		recent = now() - w->left_view < EBUSY_GRACE;
	}
	pthread_mutex_unlock(&G.lock);

	kv = kview__create(w ? w->pid : 0, &opts);
	err = kv ? 0 : errno;
	alog(a, "create %s%s%s view on %d%s -> %s",
	     opts.filter ? "filter" : "kernel",
	     opts.follow_fork ? " follow-fork" : "",
	     opts.follow_exec ? " follow-exec" : "", w ? w->pid : 0,
	     in_view ? " (in a view)" : "", err_name(err));
	if (kv && kview__info(kv, &info)) {
		unexpected(a, errno, "KVIEW_IOC_INFO");
		memset(&info, 0, sizeof(info));
	}

	pthread_mutex_lock(&G.lock);
	if (kv) {
		v->kv = kv;
		v->kid = info.id;
		v->flags = info.flags;
		if (v->flags != ((opts.follow_fork ? KVIEW_F_FOLLOW_FORK : 0) |
				 (opts.follow_exec ? KVIEW_F_FOLLOW_EXEC : 0) |
				 (opts.filter ? KVIEW_F_FILTER : 0)))
			violation("view %u: flags %#x do not match the request",
				  v->kid, v->flags);
		if (w && in_view) {
			violation("op %ld: view created on pid %d, which is in %s already",
				  a->op, w->pid, view_desc(w->view));
		} else if (w) {
			w->view = v;
			view_ever_add(v, w->pid);
		}
		alog(a, " [%s]", view_desc(v));
		v->busy = false;
	} else {
		if (!(err == EBUSY && w && (in_view || recent)))
			unexpected(a, err, "create a view on %d", w ? w->pid : 0);
		memset(v, 0, sizeof(*v));
	}
	if (w)
		w->busy = false;
	pthread_mutex_unlock(&G.lock);
	return 1;
}


int op_view_close(struct actor *a)
{
	struct attach *ats[ATTACH_SLOTS];
	bool detach_all = rnd(&a->rng, 2);
	int vi, i, n = 0;
	struct view *v;
	struct kview *kv;

	pthread_mutex_lock(&G.lock);
	vi = PICK(&a->rng, G.views, VIEW_SLOTS, view_open_idle);
	if (vi < 0) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	v = &G.views[vi];
	v->busy = true;
	if (detach_all) {
		for (i = 0; i < ATTACH_SLOTS; i++)
			if (attach_idle(&G.attach[i]) && G.attach[i].view == v) {
				G.attach[i].busy = true;
				ats[n++] = &G.attach[i];
			}
	}
	pthread_mutex_unlock(&G.lock);

	alog(a, "close %s (%d attachment(s), detaching %d first)",
	     view_desc(v), v->nattach, n);
	for (i = 0; i < n; i++) {
		check_exits(ats[i], "detach");
		bpf_link__destroy(ats[i]->link);
		pthread_mutex_lock(&G.lock);
		attach_release(ats[i]);
		pthread_mutex_unlock(&G.lock);
	}
	kv = v->kv;
	kview__destroy(kv);
	pthread_mutex_lock(&G.lock);
	v->kv = NULL;
	v->busy = false;
	view_maybe_die(v);
	pthread_mutex_unlock(&G.lock);
	return 1;
}

int op_add_pid(struct actor *a)
{
	unsigned int r = rnd(&a->rng, 10);
	struct worker *w = NULL;
	struct view *v, *wv = NULL;
	pid_t pid = BOGUS_PID;
	int vi, wi = -1, err;
	bool recent = false, expect_ok;

	pthread_mutex_lock(&G.lock);
	vi = PICK(&a->rng, G.views, VIEW_SLOTS, view_open_idle);
	if (vi < 0) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	if (r < 8)
		wi = PICK(&a->rng, G.workers, WORKER_SLOTS, worker_idle_viewless);
	else if (r == 8)
		wi = PICK(&a->rng, G.workers, WORKER_SLOTS, worker_idle_viewed);
	if (r < 9 && wi < 0) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	v = &G.views[vi];
	v->busy = true;
	if (wi >= 0) {
		w = &G.workers[wi];
		w->busy = true;
		pid = w->pid;
		wv = w->view;
		recent = now() - w->left_view < EBUSY_GRACE;
	}
	pthread_mutex_unlock(&G.lock);

	err = -kview__add_pid(v->kv, pid);
	alog(a, "add pid %d to %s (it is in %s) -> %s", pid, view_desc(v),
	     w ? view_desc(wv) : "nothing: no such process", err_name(err));
	if (!w)
		expect_ok = false;
	else
		expect_ok = !wv || wv == v;
	if (!w && err != ESRCH)
		unexpected(a, err, "add pid %d (no such process) to %s", pid,
			   view_desc(v));
	else if (w && expect_ok && err && !(err == EBUSY && recent))
		unexpected(a, err, "add pid %d to %s", pid, view_desc(v));
	else if (w && !expect_ok && err != EBUSY)
		unexpected(a, err, "add pid %d of %s to %s (EBUSY expected)",
			   pid, view_desc(wv), view_desc(v));

	pthread_mutex_lock(&G.lock);
	if (w && !err && !wv) {
		w->view = v;
		view_ever_add(v, w->pid);
	}
	if (w)
		w->busy = false;
	v->busy = false;
	pthread_mutex_unlock(&G.lock);
	return 1;
}

/* -------- attachments -------- */

/* ksys_read's first instruction past its ftrace site (main() reads it). */
unsigned long past_off;

/* kp_read_off has no target in its section: ksys_read past its site. */
bool past_site_prog(const struct bpf_program *prog)
{
	return !strcmp(bpf_program__name(prog), "kp_read_off");
}

/* bpf_program__attach(), in the current scope. */
struct bpf_link *attach_hook_prog(struct bpf_program *prog)
{
	if (past_site_prog(prog))
		return attach_kprobe_off(NULL, prog, "ksys_read", past_off);
	return bpf_program__attach(prog);
}

/*
 * Attach @prog inside @kv's scope: libkview's, or the raw ioctls; with
 * @first, enter @first's scope before, so that entering @kv's switches.
 */
struct bpf_link *attach_scoped(struct kview *kv, struct bpf_program *prog,
				      bool raw, struct kview *first)
{
	struct bpf_link *link;
	int err;

	if (!raw)
		return past_site_prog(prog) ?
		       attach_kprobe_off(kv, prog, "ksys_read", past_off) :
		       kview__attach_program(kv, prog);
	if (first && ioctl(kview__fd(first), KVIEW_IOC_SCOPE_ENTER))
		return NULL;
	if (ioctl(kview__fd(kv), KVIEW_IOC_SCOPE_ENTER)) {
		err = errno;
		if (first)
			ioctl(kview__fd(first), KVIEW_IOC_SCOPE_LEAVE);
		errno = err;
		return NULL;
	}
	link = attach_hook_prog(prog);
	err = link ? 0 : errno;
	if (ioctl(kview__fd(kv), KVIEW_IOC_SCOPE_LEAVE))
		violation("KVIEW_IOC_SCOPE_LEAVE: %s", strerror(errno));
	errno = err;
	return link;
}

/* Under G.lock: the attachment is gone (link destroyed). */
void attach_release(struct attach *at)
{
	struct view *v = at->view;

	if (at->inst)
		inst_put(at->inst, at);
	memset(at, 0, sizeof(*at));
	if (v) {
		v->nattach--;
		view_maybe_die(v);
	}
}

int op_attach(struct actor *a)
{
	enum hook hook = rnd(&a->rng, NR_HOOKS);
	bool global = !rnd(&a->rng, 4), raw = rnd(&a->rng, 2);
	bool switch_ = raw && !rnd(&a->rng, 3);
	struct bpf_link *link = NULL;
	struct view *v = NULL, *first = NULL;
	struct attach *at;
	struct inst *in;
	int ai, vi = -1, err;

	pthread_mutex_lock(&G.lock);
	if (count_attach(M_VIEW, true) >= MAX_ATTACH) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	if (global_only)
		global = true;
	if (global && count_attach(M_GLOBAL, false) >= MAX_GLOBAL) {
		if (global_only) {
			pthread_mutex_unlock(&G.lock);
			return 0;
		}
		global = false;
	}
	if (!global) {
		vi = PICK(&a->rng, G.views, VIEW_SLOTS, view_open_idle);
		if (vi < 0) {
			pthread_mutex_unlock(&G.lock);
			return 0;
		}
		v = &G.views[vi];
		v->busy = true;
		v->nattach++;
		if (switch_) {
			vi = PICK(&a->rng, G.views, VIEW_SLOTS, view_open_idle);
			if (vi >= 0) {
				first = &G.views[vi];
				first->busy = true;
			}
		}
	}
	ai = PICK(&a->rng, G.attach, ATTACH_SLOTS, slot_free_a);
	at = &G.attach[ai];
	at->used = at->busy = true;
	at->serial = ++G.serial;
	at->hook = hook;
	at->view = v;
	at->mode = !v ? M_GLOBAL : v->flags & KVIEW_F_FILTER ? M_PRE : M_VIEW;
	pthread_mutex_unlock(&G.lock);

	in = inst_get(hook);
	if (in) {
		if (v)
			link = attach_scoped(v->kv, inst_prog(in), raw,
					     first ? first->kv : NULL);
		else
			link = attach_hook_prog(inst_prog(in));
	}
	err = link ? 0 : in ? errno : ENOMEM;
	alog(a, "attach %s%s%s%s -> %s", att_desc(at),
	     v ? (raw ? " (raw scope ioctls" : " (libkview") : "",
	     first ? ", switching from the scope of " : "",
	     first ? view_desc(first) : "", err_name(err));
	if (v)
		alog(a, ")");

	pthread_mutex_lock(&G.lock);
	if (link) {
		at->inst = in;
		at->link = link;
		at->created = now();
		at->busy = false;
		G.attached[hook][at->mode]++;
	} else {
		if (in && v && err == EOPNOTSUPP)
			G.refused[hook]++;	/* a hook the view refuses */
		else if (in)
			unexpected(a, err, "attach %s", att_desc(at));
		at->inst = in;
		attach_release(at);
	}
	if (v) {
		v->busy = false;
		view_maybe_die(v);
	}
	if (first)
		first->busy = false;
	pthread_mutex_unlock(&G.lock);
	return 1;
}

/*
 * sched_process_exit programs: the processes that died in their scope
 * while they were attached must have been counted.
 */
void check_exits(struct attach *at, const char *when)
{
	int i;

	for (i = 0; i < at->nexits; i++) {
		if (inst_count(at->inst, at->exits[i]))
			continue;
		violation("exit event: %s did not count the exit of pid %d (%s)%s",
			  att_desc(at), at->exits[i], when,
			  at->mode == M_GLOBAL ? "" :
			  " [known: events after exit_mm() are lost in views]");
	}
	at->nexits = 0;
}

int op_detach(struct actor *a)
{
	struct attach *at;
	int ai;

	pthread_mutex_lock(&G.lock);
	ai = PICK(&a->rng, G.attach, ATTACH_SLOTS, attach_idle);
	if (ai < 0) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	at = &G.attach[ai];
	at->busy = true;
	pthread_mutex_unlock(&G.lock);

	alog(a, "detach %s", att_desc(at));
	check_exits(at, "at its detach");
	bpf_link__destroy(at->link);
	pthread_mutex_lock(&G.lock);
	attach_release(at);
	pthread_mutex_unlock(&G.lock);
	return 1;
}
