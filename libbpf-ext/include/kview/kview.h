/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libkview: attach libbpf programs to one process's kernel view.
 *
 * A kernel view gives a set of processes a private view of the kernel text;
 * tracing hooks (kprobes) attached in a view are written into that view's
 * copy of the text only, so every other process runs the kernel exactly as
 * if nothing were attached.  This library drives the kernel's /dev/kview
 * interface (<linux/kview.h>) on top of libbpf:
 *
 *	LIBBPF_OPTS(kview_opts, opts, .follow_fork = true);
 *	struct kview *kv = kview__create(pid, &opts);
 *	struct kview_links *links = kview__attach_object(kv, obj);
 *	...
 *	kview_links__destroy(links);
 *	kview__destroy(kv);
 *
 * Attaching enters the view's attach scope around libbpf's ordinary
 * bpf_program__attach() (which opens kprobe perf events and BPF links), so
 * that the kernel scopes what libbpf creates to the view.  The scope is per
 * thread: other threads of the caller are not affected.
 *
 * Conventions follow libbpf's: functions that return a pointer return NULL
 * and set errno on error; functions that return int return 0 or a negative
 * errno (and set errno).  Option structs carry their size in ->sz and are
 * declared with LIBBPF_OPTS() from <bpf/libbpf_common.h>, under libbpf's
 * rules: a struct whose ->sz is smaller than a size_t, or that is larger
 * than this library's and has a non-zero byte beyond the fields it knows,
 * fails with EINVAL (and a line on stderr); the fields of an older,
 * smaller struct that it lacks take their defaults.
 */
#ifndef KVIEW_LIBKVIEW_H
#define KVIEW_LIBKVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/kview.h>
#include <bpf/libbpf.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KVIEW_DEVICE "/dev/kview"

struct kview;
struct kview_links;

struct kview_opts {
	/* size of this struct, for forward/backward compatibility */
	size_t sz;
	/* children of the view's processes join it (default: they do not) */
	bool follow_fork;
	/* a process of the view stays in it across exec (default: it leaves) */
	bool follow_exec;
	/*
	 * A filter view: no kernel text of its own.  Hooks attached in it are
	 * armed for every process, as without views, and its programs are
	 * skipped, before they run, for processes outside it: the kernel-side
	 * ("pre-eBPF") process filter kernel views are compared with.
	 */
	bool filter;
	size_t :0;
};
#define kview_opts__last_field filter

/*
 * Create a kernel view with process @pid in it (0: no process yet).
 * Needs CAP_SYS_ADMIN (or CAP_BPF and CAP_PERFMON) and ptrace rights over
 * @pid.  errno: ESRCH (no such process, or exiting), EOPNOTSUPP (a kernel
 * thread), EPERM, EBUSY (already in a view, or on another process's mm:
 * a vfork() child before its exec, clone(CLONE_VM)), ENOSPC (too many views),
 * ENOENT/ENODEV (the kernel has no kernel views), EINVAL (bad options).
 */
struct kview *kview__create(pid_t pid, const struct kview_opts *opts);

/*
 * Create a kernel view that follows a cgroup v2 subtree (@cgroup_fd, an
 * open cgroup directory): its members are the processes in the cgroup and
 * its descendants, kept in step as they fork, exec, are moved in or out,
 * and exit, as bpf_current_task_under_cgroup() sees them.  @opts may ask
 * for a filter view; follow_fork and follow_exec do not apply (EINVAL).
 * Needs CAP_SYS_ADMIN.  errno: EBADF (not a cgroup v2 directory), EINVAL
 * (the root cgroup, bad options), EOPNOTSUPP (a threaded cgroup), EBUSY
 * (within or above another cgroup view's cgroup), EPERM, ENOSPC, and
 * ENOENT/ENODEV as kview__create().  Processes of the cgroup already in
 * another view stay there.
 */
struct kview *kview__create_cgroup(int cgroup_fd, const struct kview_opts *opts);

/* Put process @pid in the view too (same rules and errors as create). */
int kview__add_pid(struct kview *kv, pid_t pid);

/*
 * Close the handle.  The view itself lives on while programs attached in
 * it (their links) or a thread in its attach scope hold it.
 */
void kview__destroy(struct kview *kv);

/* The view's file descriptor (owned by the handle). */
int kview__fd(const struct kview *kv);

/* Counters of the view: members, attachments, copied pages, bytes. */
int kview__info(struct kview *kv, struct kview_info *info);

/*
 * Read @len (<= KVIEW_TEXT_MAX) bytes of kernel text at @addr as the
 * view's processes execute them (@view_buf) and as every other process
 * does (@global_buf).  The range may cross a page boundary (it is read a
 * page at a time).  Needs CAP_SYS_ADMIN.
 */
int kview__read_text(struct kview *kv, unsigned long addr, void *view_buf,
		     void *global_buf, size_t len);

/*
 * The calling thread enters (leaves) the view's attach scope: the kprobe
 * perf events it opens are scoped to the view, and what the view cannot
 * scope is refused with EOPNOTSUPP rather than attached globally.
 */
int kview__enter_scope(struct kview *kv);
int kview__leave_scope(struct kview *kv);

/*
 * Can the hook of @prog (its SEC()) be scoped to a view?  Returns 0, or
 * -EOPNOTSUPP and sets *@why (if non-NULL) to a static one-line reason.
 */
int kview_program__scopable(const struct bpf_program *prog, const char **why);

/*
 * Attach @prog by its SEC() inside the view (see bpf_program__attach()).
 * kprobe/, kretprobe/ and tracepoint/ (tp/) programs go on a perf event
 * opened in the view explicitly (perf_event_open()'s PERF_FLAG_PID_KVIEW,
 * the view fd as its pid); the others are attached by libbpf in the
 * view's attach scope (kview__enter_scope()).
 */
struct bpf_link *kview__attach_program(struct kview *kv,
				       struct bpf_program *prog);

struct kview_attach_opts {
	/* size of this struct, for forward/backward compatibility */
	size_t sz;
	/*
	 * If non-NULL, set to the program that could not be scoped or
	 * attached when the attach fails, to NULL otherwise.
	 */
	const struct bpf_program **failed_prog;
	size_t :0;
};
#define kview_attach_opts__last_field failed_prog

/*
 * Attach every program of the loaded @obj inside the view, all or nothing:
 * if one cannot be scoped or attached, the ones attached so far are
 * detached and NULL is returned (errno set, @opts->failed_prog names the
 * program).  What bpf_object__attach_skeleton() skips is skipped: programs
 * marked not to autoload or not to autoattach (bpf_program__set_autoattach()),
 * sections without a target (a bare SEC("kprobe")) and types libbpf does
 * not attach (XDP, sockets, ...).  With @kv NULL, the programs are attached
 * globally (for every process), all or nothing too: for comparisons with
 * the view.  @opts may be NULL.
 */
struct kview_links *kview__attach_object_opts(struct kview *kv,
					      struct bpf_object *obj,
					      const struct kview_attach_opts *opts);
/* kview__attach_object_opts() without options. */
struct kview_links *kview__attach_object(struct kview *kv,
					 struct bpf_object *obj);
/*
 * Attach the programs of a loaded libbpf skeleton (bpftool gen skeleton:
 * kview__attach_skeleton(kv, skel->skeleton, NULL)) inside the view, as
 * bpf_object__attach_skeleton() attaches them globally: each program's
 * link goes into the skeleton (skel->links.NAME); programs not loaded or
 * marked not to autoattach, sections without a target (a bare
 * SEC("kprobe"), attached by hand) and types libbpf does not attach (XDP,
 * sockets, ...) are skipped, and so is a program whose link the caller has
 * set already.  All or nothing: if one program cannot be scoped or
 * attached, the links this call made are destroyed and set to NULL again,
 * and a negative errno is returned (EOPNOTSUPP for a hook the view cannot
 * scope; @opts->failed_prog names the program).  Detach with libbpf's
 * bpf_object__detach_skeleton() or the skeleton's __destroy().
 */
int kview__attach_skeleton(struct kview *kv, struct bpf_object_skeleton *s,
			   const struct kview_attach_opts *opts);

size_t kview_links__count(const struct kview_links *links);
struct bpf_link *kview_links__link(const struct kview_links *links, size_t i);
struct bpf_program *kview_links__program(const struct kview_links *links,
					 size_t i);
/* Detach every program (destroy the links) and free @links. */
void kview_links__destroy(struct kview_links *links);

/*
 * debugfs kview/views, parsed: every view with its member processes, the
 * hooks attached in it, the hooks its attach scope refused and the patches
 * in its text.  The file is the kernel's diagnostic view of every view on
 * the machine (root, debugfs mounted), not the view handle's: a snapshot,
 * read once.  Arrays are in the kernel's order; the element structs of
 * the arrays keep their layout for soname libkview.so.0, and a view
 * (struct kview_views_view) may grow at its end.
 */
#define KVIEW_VIEWS_FILE "/sys/kernel/debug/kview/views"
#define KVIEW_VIEWS_INSN_MAX 16

struct kview_views_member {
	int pid;			/* the process (its tgid) */
	char comm[64];
};

/* A hook attached in the view: "kprobe", "tracepoint", "fentry", ... */
struct kview_views_hook {
	char kind[16];
	unsigned long long addr;
	char name[128];			/* symbol+off/size, or system:event */
};

/* A hook the view's attach scope refused ("fentry vfs_read"), how often. */
struct kview_views_refusal {
	unsigned int count;
	char what[192];
};

/* Bytes of the view's text that differ from the global text. */
struct kview_views_patch {
	char kind[16];			/* "kprobe", "jump", "trampoline", "call" */
	unsigned long long addr;
	char symbol[128];		/* symbol+off/size */
	unsigned int len;
	unsigned char insn[KVIEW_VIEWS_INSN_MAX];	/* the view's bytes */
	unsigned char orig[KVIEW_VIEWS_INSN_MAX];	/* the global bytes */
};

struct kview_views_view {
	unsigned int id;
	unsigned int flags;		/* KVIEW_F_* */
	/* The kernel's counts (struct kview_info's) */
	unsigned int nr_members;
	unsigned int nr_attachments;
	unsigned int nr_patches;
	unsigned int nr_pages;
	unsigned int nr_pt_pages;
	unsigned long long bytes;
	/* Hooks of the view reached through its text by a task outside it */
	unsigned long long out_of_scope;
	struct kview_views_member *members;
	size_t members_cnt;
	struct kview_views_hook *hooks;
	size_t hooks_cnt;
	struct kview_views_refusal *refused;
	size_t refused_cnt;
	struct kview_views_patch *patches;
	size_t patches_cnt;
	/*
	 * A cgroup view's cgroup id (0 for others), and how many times a
	 * process of its cgroup was found in another view (0.6; 0 from a
	 * kernel without cgroup views)
	 */
	unsigned long long cgroup_id;
	unsigned int nr_skipped;
};

struct kview_views {
	unsigned int version;		/* the format's */
	size_t cnt;
	struct kview_views_view **views;
};

/*
 * Read @path (NULL: KVIEW_VIEWS_FILE) into a new *@views, which
 * kview__views_free() frees.  Returns 0 or a negative errno: ENOENT (no
 * such file: debugfs not mounted, or a kernel without kernel views),
 * EACCES, EPROTO (a line that is not in a format this library knows: a
 * newer kernel's "version" line, say), ENOMEM.
 */
int kview__views_read(const char *path, struct kview_views **views);
void kview__views_free(struct kview_views *views);
/* The view with id @id in @views, or NULL (errno ENOENT). */
const struct kview_views_view *
kview__views_find(const struct kview_views *views, unsigned int id);

#ifdef __cplusplus
}
#endif

#endif /* KVIEW_LIBKVIEW_H */
