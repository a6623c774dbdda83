/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Kernel views: per-process views of the kernel text for scoped tracing.
 *
 * A view is created on /dev/kview with KVIEW_IOC_CREATE, which returns a
 * file descriptor for it.  The processes (mms) in a view execute the
 * view's copy of the kernel text; tracing hooks scoped to the view are
 * written into that copy only.  A hook is created in a view by naming the
 * view's fd: perf_event_open() with PERF_FLAG_PID_KVIEW (kprobe and
 * tracepoint events), bpf() with BPF_F_KVIEW_FD (raw tracepoint,
 * kprobe_multi and tracing links).  A task that enters a view's attach
 * scope (KVIEW_IOC_SCOPE_ENTER) creates its hooks in the view through the
 * same APIs without naming it, so that unmodified tools can be scoped.
 *
 * A filter view (KVIEW_F_FILTER) has no text of its own: hooks attached
 * in its scope are armed in the global text, for every task, as without
 * views, and their BPF programs are skipped, before they run, for tasks
 * outside the view.  It is the kernel-side ("pre-eBPF") process filter
 * that kernel views are measured against.
 *
 * A cgroup view (KVIEW_F_CGROUP) follows a cgroup v2 subtree: its members
 * are the processes in the cgroup and its descendants, kept in step as
 * they fork, exec, are moved in or out, and exit, as
 * bpf_current_task_under_cgroup() sees them.  See
 * Documentation/userspace-api/kview.rst for the rules.
 *
 * A view lives while a file descriptor, an attach scope or a scoped hook
 * holds it.  Errors of KVIEW_IOC_CREATE and KVIEW_IOC_ADD_PID:
 *
 *   ESRCH      no such process, or it is exiting (it has no mm any more)
 *   EOPNOTSUPP the process is a kernel thread
 *   EPERM      no CAP_SYS_ADMIN (or CAP_BPF and CAP_PERFMON), or no ptrace
 *              attach rights over the process
 *   EBUSY      the process is in a view already, or it runs on the memory
 *              of another process too (a vfork() child until it execs,
 *              clone(CLONE_VM) without CLONE_THREAD)
 *   ENOSPC     too many views
 *   EINVAL     unknown flags or non-zero reserved fields
 *   ENODEV     kernel views are not available on this machine
 *
 * and for a cgroup view (KVIEW_F_CGROUP, pid is a cgroup directory fd):
 *
 *   EBADF      not an open cgroup v2 directory
 *   EINVAL     the root cgroup, KVIEW_F_FOLLOW_*, or KVIEW_IOC_ADD_PID
 *   EOPNOTSUPP a threaded cgroup (its processes' threads may sit apart)
 *   EBUSY      the cgroup is, or is within or above, another view's
 *   EPERM      no CAP_SYS_ADMIN
 */
#ifndef _UAPI_LINUX_KVIEW_H
#define _UAPI_LINUX_KVIEW_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* struct kview_create.flags */
#define KVIEW_F_FOLLOW_FORK	(1U << 0)	/* children of members join */
#define KVIEW_F_FOLLOW_EXEC	(1U << 1)	/* a member's exec stays in */
#define KVIEW_F_FILTER		(1U << 2)	/* global hooks, programs filtered */
#define KVIEW_F_CGROUP		(1U << 3)	/* pid is a cgroup v2 directory fd */
#define KVIEW_F_ALL		(KVIEW_F_FOLLOW_FORK | KVIEW_F_FOLLOW_EXEC | \
				 KVIEW_F_FILTER | KVIEW_F_CGROUP)

struct kview_create {
	__u32 pid;		/* first member (its mm), 0 for none; or
				 * a cgroup directory fd (KVIEW_F_CGROUP)
				 */
	__u32 flags;		/* KVIEW_F_* */
	__u64 reserved[2];	/* must be zero */
};

struct kview_info {
	__u32 id;
	__u32 flags;
	__u32 nr_members;	/* mms in the view */
	__u32 nr_attachments;	/* hooks scoped to the view */
	__u32 nr_patches;	/* patched sites in the view's text */
	__u32 nr_pages;		/* private copies of text pages */
	__u32 nr_pt_pages;	/* private page-table pages */
	__u32 nr_refused;	/* hooks its attach scope refused */
	__u64 bytes;		/* memory of copies and tables */
	__u64 cgroup_id;	/* a cgroup view's cgroup, else 0 */
	__u64 reserved[3];
};

#define KVIEW_TEXT_MAX		64

/* Read kernel text as the view's members and as everybody else see it. */
struct kview_text {
	__u64 addr;		/* core kernel text, within one page */
	__u64 view_buf;		/* out: the view's bytes */
	__u64 global_buf;	/* out: the global bytes */
	__u32 len;		/* at most KVIEW_TEXT_MAX */
	__u32 reserved;		/* must be zero */
};

#define KVIEW_IOC_MAGIC		0xB9

/* On /dev/kview: create a view; returns a new (close-on-exec) view fd. */
#define KVIEW_IOC_CREATE	_IOW(KVIEW_IOC_MAGIC, 0x00, struct kview_create)
/* On a view fd: */
#define KVIEW_IOC_ADD_PID	_IOW(KVIEW_IOC_MAGIC, 0x01, __u32)
#define KVIEW_IOC_SCOPE_ENTER	_IO(KVIEW_IOC_MAGIC, 0x02)
#define KVIEW_IOC_SCOPE_LEAVE	_IO(KVIEW_IOC_MAGIC, 0x03)
#define KVIEW_IOC_INFO		_IOR(KVIEW_IOC_MAGIC, 0x04, struct kview_info)
#define KVIEW_IOC_READ_TEXT	_IOW(KVIEW_IOC_MAGIC, 0x05, struct kview_text)

#endif /* _UAPI_LINUX_KVIEW_H */
