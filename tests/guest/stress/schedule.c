// SPDX-License-Identifier: GPL-2.0
/*
 * kview-stress, scheduling: operation tickets, check phases; debugfs
 * kview/views.  See kview-stress.c for what the stress does and stress.h
 * for what the parts share.
 */
#include "stress.h"

bool duration_mode;
double deadline;

long take_ticket(void)
{
	long t = -1;

	pthread_mutex_lock(&G.lock);
	while (!G.stop && G.next_ticket < G.nops &&
	       G.next_ticket >= G.next_check)
		pthread_cond_wait(&G.cond, &G.lock);
	if (!G.stop && G.next_ticket < G.nops) {
		t = G.next_ticket++;
		G.inflight++;
	}
	pthread_mutex_unlock(&G.lock);
	return t;
}

void progress(long done)
{
	int i, threads = 0, procs = 0;

	pthread_mutex_lock(&G.lock);
	for (i = 0; i < WORKER_SLOTS; i++)
		if (G.workers[i].used) {
			procs++;
			threads += G.workers[i].threads;
		}
	say("kview-stress: %ld ops, %.1f s: %d view(s), %d attachment(s), %d worker(s) with %d thread(s), %ld violation(s)",
	    done, now() - t_start, count_views(), count_attach(M_VIEW, true),
	    procs, threads, violations);
	pthread_mutex_unlock(&G.lock);
}

void finish_ticket(void)
{
	long done;
	bool tell;

	beat(NULL);
	pthread_mutex_lock(&G.lock);
	G.inflight--;
	done = ++G.done;
	tell = !duration_mode && G.nops >= 10 && done % (G.nops / 10) == 0 &&
	       done < G.nops;
	pthread_cond_broadcast(&G.cond);
	pthread_mutex_unlock(&G.lock);
	if (tell)
		progress(done);
}

void *actor_main(void *arg)
{
	struct actor *a = arg;
	long t;
	int tries;
	double t0;

	while ((t = take_ticket()) >= 0) {
		a->op = t;
		for (tries = 0; tries < 8; tries++) {
			enum op op = pick_op(&a->rng);

			a->loglen = 0;
			a->log[0] = '\0';
			t0 = now();
			a->cur_start = t0;
			a->cur = op;
			if (run_op(a, op)) {
				a->cur = -1;
				pthread_mutex_lock(&G.lock);
				G.op_count[op]++;
				pthread_mutex_unlock(&G.lock);
				break;
			}
			a->cur = -1;
		}
		if (tries == 8)
			alog(a, "nothing to do");
		vlog("op %ld a%d: %s (%.0f ms)", t, a->idx, a->log,
		     (now() - t0) * 1000);
		finish_ticket();
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* debugfs kview/views                                                 */

/* The views as the kernel lists them (libkview's parser of the format). */
struct kview_views *read_views(void)
{
	struct kview_views *l;
	int err = kview__views_read(NULL, &l);

	if (!err)
		return l;
	violation("read %sviews: %s", KVIEW_DEBUGFS, strerror(-err));
	/* No views, for the checks to go on with. */
	l = calloc(1, sizeof(*l));
	if (!l) {
		perror("kview-stress: calloc");
		exit(2);
	}
	return l;
}
