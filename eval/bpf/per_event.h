/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by per_event.bpf.c and its driver, eval/guest/per-event.c. */
#ifndef KVIEW_EVAL_PER_EVENT_H
#define KVIEW_EVAL_PER_EVENT_H

#define PE_HIST_SLOTS 64

/* Script 18's printf("%d bytes\n", arg2), sent to user space. */
struct pe_event {
	__u64 len;
};

#endif
