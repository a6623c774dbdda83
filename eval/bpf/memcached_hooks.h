/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by memcached_hooks.bpf.c and its driver, eval/guest/memcached.c. */
#ifndef KVIEW_EVAL_MEMCACHED_HOOKS_H
#define KVIEW_EVAL_MEMCACHED_HOOKS_H

#define MC_MAX_HOOKS 64	/* attachments */
#define MC_COPIES 4	/* copies of each program in the object */
#define MC_FENTRY_PROGS 32	/* fentry programs: 8 functions x MC_COPIES */

/* One event of the post mode's ring buffer. */
struct mc_event {
	__u32 tgid;
	__u32 hook;
	__u64 ts;
};

#endif
