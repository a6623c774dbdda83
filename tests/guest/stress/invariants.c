// SPDX-License-Identifier: GPL-2.0
/*
 * kview-stress, the check phases: invariants 1 to 4 of kview-stress.c's
 * header.  See kview-stress.c for what the stress does and stress.h for
 * what the parts share.
 */
#include "stress.h"

struct rng main_rng;
int phase;
bool have_verify = true;

/*
 * The kernel's membership must be ours: every live view lists exactly
 * its live members.  Views we consider dead and exited members may lag
 * (work item, last mm reference): poll for a while.  Returns the views.
 */
struct kview_views *check_membership(void)
{
	char diff[1024];
	struct kview_views *l = NULL;
	double end = now() + 3.0;
	size_t i, k, len;
	int j;

	for (;;) {
		kview__views_free(l);
		l = read_views();
		len = 0;
		diff[0] = '\0';
#define DIFF(...) (len += snprintf(diff + len,				\
				      len < sizeof(diff) ? sizeof(diff) - len : 0, \
				      __VA_ARGS__))
		for (i = 0; i < l->cnt; i++) {
			const struct kview_views_view *e = l->views[i];
			struct view *v = NULL;

			for (j = 0; j < VIEW_SLOTS; j++)
				if (G.views[j].used && G.views[j].kid == e->id)
					v = &G.views[j];
			if (!v) {
				DIFF(" kernel view %u (%u member(s), %u attachment(s)) is not ours or should be dead;",
				     e->id, e->nr_members, e->nr_attachments);
				continue;
			}
			for (k = 0; k < e->members_cnt; k++) {
				pid_t pid = e->members[k].pid;
				struct worker *w = NULL;

				for (j = 0; j < WORKER_SLOTS; j++)
					if (G.workers[j].used &&
					    G.workers[j].pid == pid)
						w = &G.workers[j];
				if (!w || w->view != v)
					DIFF(" pid %d (%s) is in %s, we think in %s;",
					     pid, comm_of(pid),
					     view_desc(v), w ? view_desc(w->view) :
					     "none (not a live worker)");
			}
		}
		for (j = 0; j < WORKER_SLOTS; j++) {
			struct worker *w = &G.workers[j];
			const struct kview_views_view *e;
			bool found = false;

			if (!w->used || !w->view)
				continue;
			e = kview__views_find(l, w->view->kid);
			for (k = 0; e && k < e->members_cnt; k++)
				found |= e->members[k].pid == w->pid;
			if (!found)
				DIFF(" worker %d should be in %s%s;", w->pid,
				     view_desc(w->view), e ? "" : ", which the kernel does not list");
		}
		for (j = 0; j < VIEW_SLOTS; j++)
			if (G.views[j].used && !kview__views_find(l, G.views[j].kid))
				DIFF(" %s is not listed;", view_desc(&G.views[j]));
#undef DIFF
		if (!len || now() > end)
			break;
		usleep(50000);
	}
	if (len)
		violation("check %d: membership differs:%s", phase, diff);
	return l;
}

/* Does one of @e's patches cover @addr? */
bool patched(const struct kview_views_view *e, unsigned long addr)
{
	size_t i;

	for (i = 0; i < e->patches_cnt; i++)
		if (addr >= e->patches[i].addr &&
		    addr < e->patches[i].addr + e->patches[i].len)
			return true;
	return false;
}

/* Invariant 4 for one view; the first mismatch in @why, or 0. */
int check_view_text(struct view *v, const struct kview_views_view *e,
			   char *why, size_t sz)
{
	unsigned char vb[64], gb[64];
	unsigned long lo, hi, page, a;
	size_t i;

	if (e->patches_cnt != e->nr_patches) {
		snprintf(why, sz, "%s: header says %u patch(es), %zu listed",
			 view_desc(v), e->nr_patches, e->patches_cnt);
		return -1;
	}
	if ((v->flags & KVIEW_F_FILTER) &&
	    (e->nr_patches || e->nr_pages || e->nr_pt_pages)) {
		snprintf(why, sz, "filter %s has %u patch(es), %u page(s), %u table page(s)",
			 view_desc(v), e->nr_patches, e->nr_pages, e->nr_pt_pages);
		return -1;
	}
	for (i = 0; i < e->patches_cnt; i++) {
		const struct kview_views_patch *p = &e->patches[i];

		if (kview__read_text(v->kv, p->addr, vb, gb, p->len)) {
			snprintf(why, sz, "%s: KVIEW_IOC_READ_TEXT at %#llx (%s): %s",
				 view_desc(v), p->addr, p->symbol, strerror(errno));
			return -1;
		}
		if (memcmp(vb, p->insn, p->len) || memcmp(gb, p->orig, p->len)) {
			snprintf(why, sz, "%s: %s patch at %#llx (%s): view %s global %s, debugfs insn %s orig %s",
				 view_desc(v), p->kind, p->addr, p->symbol,
				 hexbytes(vb, p->len), hexbytes(gb, p->len),
				 hexbytes(p->insn, p->len), hexbytes(p->orig, p->len));
			return -1;
		}
		page = p->addr & ~4095UL;
		lo = p->addr >= page + 32 ? p->addr - 32 : page;
		hi = lo + 64 < page + 4096 ? lo + 64 : page + 4096;
		if (etext && hi > etext)
			hi = etext;
		if (kview__read_text(v->kv, lo, vb, gb, hi - lo)) {
			snprintf(why, sz, "%s: KVIEW_IOC_READ_TEXT %#lx+%lu: %s",
				 view_desc(v), lo, hi - lo, strerror(errno));
			return -1;
		}
		for (a = lo; a < hi; a++) {
			if (patched(e, a) || vb[a - lo] == gb[a - lo])
				continue;
			snprintf(why, sz, "%s: byte at %#lx (near the %s patch at %s) differs outside its patches: view %02x global %02x; view %s / global %s around %#lx",
				 view_desc(v), a, p->kind, p->symbol, vb[a - lo],
				 gb[a - lo], hexbytes(vb, hi - lo),
				 hexbytes(gb, hi - lo), lo);
			return -1;
		}
	}
	return 0;
}

void check_text(struct kview_views *l)
{
	char why[1024];
	int i, try;

	for (i = 0; i < VIEW_SLOTS; i++) {
		struct view *v = &G.views[i];

		if (!v->used || !v->kv)
			continue;
		for (try = 0; try < 3; try++) {
			const struct kview_views_view *e;

			if (try) {
				/* Something may have moved the global text. */
				usleep(100000);
				kview__views_free(l);
				l = read_views();
			}
			e = kview__views_find(l, v->kid);
			if (!e) {
				snprintf(why, sizeof(why), "%s not in kview/views",
					 view_desc(v));
				continue;
			}
			if (!check_view_text(v, e, why, sizeof(why)))
				break;
		}
		if (try == 3)
			violation("check %d: text: %s", phase, why);
	}
	kview__views_free(l);

	if (!have_verify)
		return;
	for (try = 0; try < 3; try++) {
		char *buf = read_all(KVIEW_DEBUGFS "verify"), *line, *save = NULL;
		bool bad = false;

		if (!buf) {
			note("no %sverify in this kernel: full-copy check skipped",
			     KVIEW_DEBUGFS);
			have_verify = false;
			return;
		}
		why[0] = '\0';
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			struct kview_verify vv;

			if (!kview_verify_parse(line, &vv)) {
				snprintf(why, sizeof(why), "unknown line '%s'", line);
				bad = true;
				break;
			}
			if (kview_verify_bad(&vv)) {
				snprintf(why, sizeof(why), "%s", line);
				bad = true;
			}
		}
		free(buf);
		if (!bad)
			return;
		usleep(100000);
	}
	violation("check %d: kview/verify: %s", phase, why);
}

/* Scope (invariant 1): only tgids that were members were ever counted. */
void check_scope(void)
{
	int i, k, n;

	for (i = 0; i < ATTACH_SLOTS; i++) {
		struct attach *at = &G.attach[i];
		unsigned int keys[512];

		if (!at->used || !at->link || !at->view)
			continue;
		n = inst_counted(at->inst, keys, 512);
		for (k = 0; k < n; k++) {
			int r;
			bool told = false;

			if (view_ever_has(at->view, keys[k]))
				continue;
			for (r = 0; r < at->nreported; r++)
				told |= at->reported[r] == (pid_t)keys[k];
			if (told)
				continue;
			if (at->nreported < MAX_REPORTED)
				at->reported[at->nreported++] = keys[k];
			violation("check %d: scope: %s counted %llu event(s) of tgid %u (%s), never a member%s; its BPF instance served %s before",
				  phase, att_desc(at), inst_count(at->inst, keys[k]),
				  keys[k], comm_of(keys[k]),
				  keys[k] == (unsigned int)getpid() ? " (the driver)" : "",
				  at->inst->last[0] ? at->inst->last : "no attachment");
		}
	}
}

/*
 * Check phase (G.lock held): a worker did not answer as it must.  It is
 * killed and forgotten, so that the phases after this one do not count on
 * it.
 */
void check_lost(struct worker *w, int err, const char *what)
{
	violation("check %d: worker %d (%s) %s: %s", phase, w->pid,
		  comm_of(w->pid), what, err_name(-err));
	kill(w->pid, SIGKILL);
	/* Its exit may not have happened yet: expect no exit event of it. */
	worker_dead(w, w->view, 0);
}

/* Tell every live worker (but one that is gone); collect the answers. */
void workers_all(int type, int arg)
{
	struct wmsg m;
	int i, err;

	for (i = 0; i < WORKER_SLOTS; i++) {
		struct worker *w = &G.workers[i];

		if (!w->used)
			continue;
		err = msg_send(w->sock, type, arg, 0, 0, -1);
		w->pending = !err;
		if (err)
			check_lost(w, err, "cannot be told");
	}
	for (i = 0; i < WORKER_SLOTS; i++) {
		struct worker *w = &G.workers[i];

		if (!w->used || !w->pending)
			continue;
		w->pending = 0;
		err = msg_recv(w->sock, &m, REPLY_MS, NULL);
		if (!err && (m.type != MSG_ACK || m.err))
			err = -EPROTO;
		if (!err && m.arg != w->threads) {
			violation("check %d: worker %d has %d thread(s), we think %d",
				  phase, w->pid, m.arg, w->threads);
			w->threads = m.arg;
		}
		if (err)
			check_lost(w, err, "did not answer");
	}
}

/* Every worker does @r marked reads per thread, a few threads at once. */
void workers_read(int r)
{
	int i, j, inflight = 0, err;
	struct wmsg m;

	for (i = 0; i <= WORKER_SLOTS; i++) {
		struct worker *w = i < WORKER_SLOTS ? &G.workers[i] : NULL;

		if (w && !w->used)
			continue;
		/* Wait for answers while the budget is spent (or at the end). */
		while (inflight && (!w || inflight + w->threads > CHECK_BUDGET)) {
			struct pollfd p[WORKER_SLOTS];
			int idx[WORKER_SLOTS], n = 0;

			for (j = 0; j < WORKER_SLOTS; j++)
				if (G.workers[j].used && G.workers[j].pending) {
					p[n].fd = G.workers[j].sock;
					p[n].events = POLLIN;
					idx[n++] = j;
				}
			if (poll(p, n, REPLY_MS) <= 0) {
				for (j = 0; j < n; j++)
					check_lost(&G.workers[idx[j]], -ETIMEDOUT,
						   "did not finish its reads");
				inflight = 0;
				break;
			}
			for (j = 0; j < n; j++) {
				struct worker *x = &G.workers[idx[j]];

				if (!p[j].revents)
					continue;
				x->pending = 0;
				inflight -= x->threads;
				beat(NULL);
				err = msg_recv(x->sock, &m, 0, NULL);
				if (!err && (m.type != MSG_ACK || m.err))
					err = -EPROTO;
				if (err)
					check_lost(x, err, "reads");
			}
		}
		if (!w)
			break;
		err = msg_send(w->sock, CMD_READS, r, 0, 0, -1);
		if (err) {
			check_lost(w, err, "cannot be told to read");
			continue;
		}
		w->pending = 1;
		inflight += w->threads;
	}
}

/* An extra attachment for this check phase only (G.lock held). */
struct attach *check_attach(enum hook hook, struct attach *pair)
{
	struct bpf_link *link;
	struct attach *at;
	struct inst *in;
	int ai, i, fd;
	unsigned int one = 1;

	for (ai = 0; ai < ATTACH_SLOTS && G.attach[ai].used; ai++)
		;
	if (ai == ATTACH_SLOTS)
		return NULL;
	pthread_mutex_unlock(&G.lock);
	in = inst_get(hook);
	pthread_mutex_lock(&G.lock);
	if (!in)
		return NULL;
	if (pair) {
		/* The in-eBPF reference: pid in the view's members. */
		fd = bpf_map__fd(in->skel->maps.filter);
		for (i = 0; i < WORKER_SLOTS; i++)
			if (G.workers[i].used && G.workers[i].view == pair->view)
				bpf_map_update_elem(fd, &G.workers[i].pid, &one, BPF_ANY);
		in->skel->bss->filter_on = 1;
	}
	link = attach_hook_prog(inst_prog(in));
	if (!link) {
		violation("check %d: attach the reference %s globally: %s", phase,
			  hooks[hook].name, strerror(errno));
		inst_put(in, NULL);
		return NULL;
	}
	at = &G.attach[ai];
	memset(at, 0, sizeof(*at));
	at->used = true;
	at->serial = ++G.serial;
	at->hook = hook;
	at->mode = pair ? M_REF : M_GLOBAL;
	at->inst = in;
	at->link = link;
	at->pair = pair;
	at->created = now();
	at->busy = true;	/* not the actors' */
	return at;
}

/* Sometimes the in-eBPF reference, or a global program, for this phase. */
static void check_extra_attach(struct attach *extra[2])
{
	int i, nc = 0, cand[ATTACH_SLOTS];

	for (i = 0; i < ATTACH_SLOTS; i++) {
		struct attach *at = &G.attach[i];

		if (at->used && at->link && at->view && hooks[at->hook].read)
			cand[nc++] = i;
	}
	if (nc && rnd(&main_rng, 2)) {
		struct attach *pair = &G.attach[cand[rnd(&main_rng, nc)]];

		extra[0] = check_attach(pair->hook, pair);
	}
	if (rnd(&main_rng, 2)) {
		enum hook h = rnd(&main_rng, H_TP_EXIT);	/* read hooks */

		extra[1] = check_attach(h, NULL);
	}
}

/*
 * The counts before the reads: each read program's for each worker, the
 * global perf events'; which tracepoints have a filter-view (@pre_tp) or
 * view (@view_tp) program on them.
 */
static void check_before(bool *pre_tp, bool *view_tp)
{
	int i, j;

	for (i = 0; i < ATTACH_SLOTS; i++) {
		struct attach *at = &G.attach[i];

		if (!at->used || !at->link || !hooks[at->hook].read)
			continue;
		if (at->mode == M_PRE && hooks[at->hook].tp)
			pre_tp[at->hook] = true;
		if (at->mode == M_VIEW && hooks[at->hook].tp)
			view_tp[at->hook] = true;
		for (j = 0; j < WORKER_SLOTS; j++)
			if (G.workers[j].used)
				at->before[j] = inst_count(at->inst, G.workers[j].pid);
	}
	for (i = 0; i <= MAX_PERF; i++)
		if (T.perf[i].used)
			T.perf[i].before = perf_read(&T.perf[i]);
}

/*
 * Invariant 2: after @r marked reads in each thread of each worker, every
 * read program counted them for its members (everybody, for a global one)
 * and nothing for the others; an in-eBPF reference what its pair did.
 */
static void check_equality(int r)
{
	int i, j;

	for (i = 0; i < ATTACH_SLOTS; i++) {
		struct attach *at = &G.attach[i];

		if (!at->used || !at->link || !hooks[at->hook].read)
			continue;
		for (j = 0; j < WORKER_SLOTS; j++) {
			struct worker *w = &G.workers[j];
			unsigned long long got, want;
			bool in;

			if (!w->used)
				continue;
			got = inst_count(at->inst, w->pid) - at->before[j];
			switch (at->mode) {
			case M_GLOBAL:
				in = true;
				break;
			case M_REF:
				in = w->view == at->pair->view;
				break;
			default:
				in = w->view == at->view;
			}
			want = in ? (unsigned long long)r * w->threads : 0;
			if (got != want)
				violation("check %d: equality: %s counted %llu for worker %d (%s, %d thread(s), in %s), expected %llu (R %d)",
					  phase, att_desc(at), got, w->pid,
					  in ? "member" : "not a member", w->threads,
					  view_desc(w->view), want, r);
			if (at->mode == M_REF) {
				unsigned long long pg = inst_count(at->pair->inst, w->pid) -
							at->pair->before[j];

				if (pg != got)
					violation("check %d: equality: %s counted %llu for worker %d, the in-eBPF reference (pid in members, global) %llu",
						  phase, att_desc(at->pair), pg, w->pid, got);
			}
		}
	}
}

/* Invariant 3: global perf counting events saw at least the @sum reads. */
static void check_perf(long long sum, const bool *pre_tp, const bool *view_tp)
{
	int i;

	for (i = 0; i <= MAX_PERF; i++) {
		struct perfev *p = &T.perf[i];
		long long got;
		enum hook h;

		if (!p->used || !p->reads)
			continue;
		got = perf_read(p) - p->before;
		if (got >= sum)
			continue;
		h = !strcmp(p->tp, "syscalls/sys_enter_read") ? H_TP_READ :
		    !strcmp(p->tp, "syscalls/sys_exit_read") ? H_TP_READ_EXIT :
		    H_TP_RAW_ENTER;
		if (pre_tp[h] && !view_tp[h])
			note("check %d: global perf event #%d on %s counted %lld < %lld marked reads, with a filter-view program on it (the pre-eBPF filter suppresses others' samples: design.md §7)",
			     phase, i, p->tp, got, sum);
		else
			violation("check %d: global perf counting event #%d on %s counted %lld, the workers did %lld marked reads%s",
				  phase, i, p->tp, got, sum, view_tp[h] ?
				  " [known: a view program on the tracepoint silences global perf users]" :
				  " (no view program on it)");
	}
}

void check_phase(bool final)
{
	struct attach *extra[2] = { NULL, NULL };
	long long sum = 0;
	bool pre_tp[NR_HOOKS] = { false }, view_tp[NR_HOOKS] = { false };
	struct kview_views *l;
	double t0 = now();
	int r, i, j, nread = 0;

	phase++;
	r = 10 + rnd(&main_rng, 50);
	reap();
	pthread_mutex_lock(&G.lock);
	pthread_mutex_lock(&T.lock);

	/* Workers stop; the kernel's membership is ours. */
	beat("check: pause the workers");
	workers_all(CMD_RUN, 0);
	beat("check: membership");
	l = check_membership();
	beat("check: extra attachments");
	check_extra_attach(extra);
	check_before(pre_tp, view_tp);

	beat("check: reads");
	workers_read(r);
	beat("check: counts");

	/* After: invariants 2 and 3. */
	for (j = 0; j < WORKER_SLOTS; j++)
		if (G.workers[j].used) {
			sum += (long long)r * G.workers[j].threads;
			nread++;
		}
	check_equality(r);
	check_perf(sum, pre_tp, view_tp);

	/* Invariants 1 and 2 (exits), 4. */
	beat("check: scope");
	check_scope();
	for (i = 0; i < ATTACH_SLOTS; i++)
		if (G.attach[i].used && G.attach[i].link && G.attach[i].nexits)
			check_exits(&G.attach[i], "by the check phase");
	beat("check: text");
	check_text(l);

	beat("check: detach the extra attachments");
	for (i = 0; i < 2; i++) {
		if (!extra[i])
			continue;
		bpf_link__destroy(extra[i]->link);
		inst_put(extra[i]->inst, extra[i]);
		memset(extra[i], 0, sizeof(*extra[i]));
	}
	beat("check: resume the workers");
	if (!final)
		workers_all(CMD_RUN, 1);
	beat("running");
	pthread_mutex_unlock(&T.lock);
	vlog("check %d: R %d, %d worker(s), %lld marked reads, %d view(s), %d attachment(s)%s%s, %.0f ms",
	     phase, r, nread, sum, count_views(), count_attach(M_VIEW, true),
	     extra[0] ? ", in-eBPF reference" : "",
	     extra[1] ? ", global program" : "", (now() - t0) * 1000);
	pthread_mutex_unlock(&G.lock);
}
