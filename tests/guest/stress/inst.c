// SPDX-License-Identifier: GPL-2.0
/*
 * kview-stress, BPF instances, one per attachment, reused.  See
 * kview-stress.c for what the stress does and stress.h for what the parts
 * share.
 */
#include "stress.h"

/* Under G.lock: a spawn is between fork() and exec() (see struct inst). */
unsigned int fork_begin(void)
{
	unsigned int seq = ++G.fork_seq;

	if (G.nforking < 16)
		G.forking[G.nforking++] = seq;
	return seq;
}

void fork_end(unsigned int seq)
{
	int i;

	for (i = 0; i < G.nforking; i++)
		if (G.forking[i] == seq) {
			G.forking[i] = G.forking[--G.nforking];
			break;
		}
}

unsigned int fork_max(void)
{
	unsigned int max = 0;
	int i;

	for (i = 0; i < G.nforking; i++)
		if (G.forking[i] > max)
			max = G.forking[i];
	return max;
}

/* No child that may hold a copy of @in's old link is left. */
bool inst_reusable(const struct inst *in)
{
	int i;

	for (i = 0; i < G.nforking; i++)
		if (G.forking[i] <= in->hold_seq)
			return false;
	return true;
}

/* Unload an instance that is off the pool and attached nowhere. */
void inst_free(struct inst *in)
{
	if (in->counts)
		munmap((void *)in->counts, in->counts_size);
	stress__destroy(in->skel);
	free(in);
}

/* Under G.lock: take a reusable instance of @hook off the pool. */
struct inst *pool_take(enum hook hook)
{
	struct inst **pp, *in;

	for (pp = &G.pool[hook]; (in = *pp); pp = &in->next)
		if (inst_reusable(in)) {
			*pp = in->next;
			return in;
		}
	return NULL;
}

struct inst *inst_get(enum hook hook)
{
	struct inst *in, *victim = NULL;
	int err, h;

	pthread_mutex_lock(&G.lock);
	in = pool_take(hook);
	if (in) {
		/* reused: cleared below */
	} else if (G.ninst < MAX_INST) {
		G.ninst++;
	} else {
		/* Unload an idle instance of another hook instead. */
		for (h = 0; h < NR_HOOKS && !victim; h++)
			victim = pool_take(h);
		if (!victim) {
			pthread_mutex_unlock(&G.lock);
			return NULL;
		}
	}
	pthread_mutex_unlock(&G.lock);
	if (victim)
		inst_free(victim);

	if (in) {
		if (in->dirty) {
			int fd = bpf_map__fd(in->skel->maps.filter);
			unsigned int key;

			/*
			 * Its link is gone, but a run of the program that
			 * began before may still be going on another CPU
			 * (an unregistered tracepoint probe or an unlinked
			 * trampoline does not wait for it) and would count
			 * into the cleared map: an event of a process the
			 * next attachment never had.  Each such run is an
			 * RCU read-side critical section (preemption off,
			 * or rcu_read_lock() in the trampoline): wait for a
			 * grace period, which MEMBARRIER_CMD_GLOBAL is.
			 */
			if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
				violation("membarrier(MEMBARRIER_CMD_GLOBAL) before reusing %s's instance: %s",
					  hooks[hook].name, strerror(errno));
			/* Detached and quiet: nothing counts into it now. */
			memset((void *)in->counts, 0, in->counts_size);
			while (!bpf_map_get_next_key(fd, NULL, &key))
				bpf_map_delete_elem(fd, &key);
		}
		in->skel->bss->filter_on = 0;
		return in;
	}
	in = calloc(1, sizeof(*in));
	if (!in)
		goto fail;
	in->hook = hook;
	in->skel = stress__open();
	if (!in->skel) {
		violation("open stress.bpf.o: %s", strerror(errno));
		goto fail;
	}
	only_program(in->skel->obj, hooks[hook].prog);
	in->skel->rodata->nr_pids = pid_max;
	err = bpf_map__set_max_entries(in->skel->maps.counts, pid_max);
	if (!err)
		err = stress__load(in->skel);
	if (err) {
		violation("load %s: %s", hooks[hook].prog, strerror(-err));
		stress__destroy(in->skel);
		goto fail;
	}
	in->counts_size = (pid_max * sizeof(*in->counts) + page_size - 1) & ~(page_size - 1);
	in->counts = mmap(NULL, in->counts_size, PROT_READ | PROT_WRITE, MAP_SHARED,
			  bpf_map__fd(in->skel->maps.counts), 0);
	if (in->counts == MAP_FAILED) {
		violation("mmap the counts of %s: %s", hooks[hook].prog, strerror(errno));
		stress__destroy(in->skel);
		goto fail;
	}
	return in;
fail:
	free(in);
	pthread_mutex_lock(&G.lock);
	G.ninst--;
	pthread_mutex_unlock(&G.lock);
	return NULL;
}

/*
 * Under G.lock, after the link of @at (which it served) was destroyed, or
 * with @at NULL after an attach that failed.
 */
void inst_put(struct inst *in, const struct attach *at)
{
	if (at)
		snprintf(in->last, sizeof(in->last), "%s", att_desc(at));
	in->dirty = true;
	in->hold_seq = fork_max();
	in->next = G.pool[in->hook];
	G.pool[in->hook] = in;
}

struct bpf_program *inst_prog(struct inst *in)
{
	return bpf_object__find_program_by_name(in->skel->obj,
						hooks[in->hook].prog);
}

unsigned long long inst_count(struct inst *in, pid_t pid)
{
	return (unsigned int)pid < pid_max ? in->counts[pid] : 0;
}

/* The tgids 'in' counted events of (0 also for a tgid past pid_max). */
int inst_counted(struct inst *in, unsigned int *tgids, int max)
{
	unsigned int t;
	int n = 0;

	for (t = 0; t < pid_max && n < max; t++)
		if (in->counts[t])
			tgids[n++] = t;
	return n;
}
