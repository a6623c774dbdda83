/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-process event counts, shared by the test BPF objects.  The same
 * object serves the kview attachment (filter_tgid == 0: count every task
 * that reaches the program) and the in-eBPF baseline (filter_tgid == N:
 * the bpftrace-style "pid == N" check first thing in the program, attached
 * globally).  mark_size != 0: the programs count only the marked reads
 * (size mark_size) and say so with count_event()'s @marked.
 */
#ifndef KVIEW_TESTS_PIDCOUNT_H
#define KVIEW_TESTS_PIDCOUNT_H

const volatile __u32 filter_tgid;
const volatile __u64 mark_size;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, u32);
	__type(value, u64);
} counts SEC(".maps");

/* One more event of the current process in @map (a tgid -> u64 hash). */
static __always_inline void count_in(void *map)
{
	u32 tgid = bpf_get_current_pid_tgid() >> 32;
	u64 one = 1, *n;

	n = bpf_map_lookup_elem(map, &tgid);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(map, &tgid, &one, BPF_NOEXIST);
}

static __always_inline int count_event(bool marked)
{
	u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (filter_tgid && tgid != filter_tgid)
		return 0;
	if (marked)
		count_in(&counts);
	return 0;
}

#endif
