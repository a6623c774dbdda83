// SPDX-License-Identifier: GPL-2.0
/*
 * The programs of the memcached experiment (eval/guest/memcached.c):
 * kprobe and tracepoint programs attached to the hooks of the experiment's
 * hook list; the attach cookie is the attachment's index.  What a program does depends on the filtering mode, fixed at load
 * time (read-only data, so the verifier removes the other branches):
 *
 *   in       filter_tgid = N: "pid == N" first thing, then count the hook
 *            (bpftrace's /pid == N/), attached globally;
 *   post     post = 1: every event, whatever its process, goes to a ring
 *            buffer with its pid; user space filters (and counts);
 *   pre, kview, census
 *            count the hook; the kernel decides who reaches the program
 *            (pre: a filter view, kview: a kernel view, census: everyone).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "memcached_hooks.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 filter_tgid;
const volatile bool post;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MC_MAX_HOOKS);
	__type(key, u32);
	__type(value, u64);
} counts SEC(".maps");

/* Events the ring buffer had no room for (post mode). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u64);
} drops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");

static __always_inline void add(void *map, u32 key)
{
	u64 *n = bpf_map_lookup_elem(map, &key);

	if (n)
		__sync_fetch_and_add(n, 1);
}

static __always_inline int hit(void *ctx)
{
	u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct mc_event *e;

	if (filter_tgid && tgid != filter_tgid)
		return 0;
	if (post) {
		e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
		if (!e) {
			add(&drops, 0);
			return 0;
		}
		e->tgid = tgid;
		e->hook = bpf_get_attach_cookie(ctx);
		e->ts = bpf_ktime_get_ns();
		bpf_ringbuf_submit(e, 0);
		return 0;
	}
	add(&counts, bpf_get_attach_cookie(ctx));
	return 0;
}

/*
 * A program can be attached to a hook once (the kernel refuses the same
 * program twice on one event), so N = 64 on 16 hooks needs four copies of
 * each; attachment i uses copy i / 16.
 */
#define COPY(i)							\
	SEC("kprobe") int on_kprobe##i(struct pt_regs *ctx)	\
	{							\
		return hit(ctx);				\
	}							\
	SEC("tracepoint") int on_tracepoint##i(void *ctx)	\
	{							\
		return hit(ctx);				\
	}

COPY(0)
COPY(1)
COPY(2)
COPY(3)

/*
 * The fentry hook set (memcached --fentry): the kprobe hooks as fentry
 * programs.  A trampoline program is loaded for one function, so there is
 * one per (function, copy): on_fentry<f * MC_COPIES + copy> (f: the
 * function's place among the kprobe hooks, MC_FENTRY_PROGS in all), whose target
 * the driver sets before load (and leaves the unused ones unloaded).
 */
#define FENTRY(i)						\
	SEC("fentry") int on_fentry##i(void *ctx)		\
	{							\
		return hit(ctx);				\
	}
FENTRY(0) FENTRY(1) FENTRY(2) FENTRY(3) FENTRY(4) FENTRY(5) FENTRY(6) FENTRY(7)
FENTRY(8) FENTRY(9) FENTRY(10) FENTRY(11) FENTRY(12) FENTRY(13) FENTRY(14) FENTRY(15)
FENTRY(16) FENTRY(17) FENTRY(18) FENTRY(19) FENTRY(20) FENTRY(21) FENTRY(22) FENTRY(23)
FENTRY(24) FENTRY(25) FENTRY(26) FENTRY(27) FENTRY(28) FENTRY(29) FENTRY(30) FENTRY(31)
