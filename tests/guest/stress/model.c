// SPDX-License-Identifier: GPL-2.0
/*
 * kview-stress, the driver's model of views, workers, attachments and
 * global text changes, and its locks.  See kview-stress.c for what the
 * stress does and stress.h for what the parts share.
 */
#include "stress.h"

const struct hook_desc hooks[NR_HOOKS] = {
	[H_KP_READ] = { "kp_read", "kprobe:ksys_read", true, NULL },
	[H_KP_READ_OFF] = { "kp_read_off", "kprobe:ksys_read+past-site", true, NULL },
	[H_KRP_READ] = { "krp_read", "kretprobe:ksys_read", true, NULL },
	[H_TP_READ] = { "tp_read", "tracepoint:syscalls:sys_enter_read", true,
			"syscalls/sys_enter_read" },
	[H_TP_READ_EXIT] = { "tp_read_exit", "tracepoint:syscalls:sys_exit_read",
			     true, "syscalls/sys_exit_read" },
	[H_TP_RAW_ENTER] = { "tp_raw_enter", "tracepoint:raw_syscalls:sys_enter",
			     true, "raw_syscalls/sys_enter" },
	[H_RAWTP_ENTER] = { "rawtp_enter", "raw_tp:sys_enter", true, NULL },
	[H_BTF_ENTER] = { "btf_enter", "tp_btf:sys_enter", true, NULL },
	[H_FE_READ] = { "fe_read", "fentry:vfs_read", true, NULL },
	[H_FX_READ] = { "fx_read", "fexit:vfs_read", true, NULL },
	[H_TP_EXIT] = { "tp_exit", "tracepoint:sched:sched_process_exit", false,
			"sched/sched_process_exit" },
	[H_TP_FORK] = { "tp_fork", "tracepoint:sched:sched_process_fork", false,
			"sched/sched_process_fork" },
	[H_KP_GETPPID] = { "kp_getppid", "kprobe:__x64_sys_getppid", false, NULL },
	[H_KRP_GETPPID] = { "krp_getppid", "kretprobe:__x64_sys_getppid", false, NULL },
};

const char *const mode_names[] = { "view", "pre", "global", "ref" };







const char *const op_names[NR_OPS] = {
	"view-create", "view-close", "add-pid", "attach", "detach", "spawn",
	"fork", "thread-add", "thread-del", "exec", "exit", "kill",
	"kill-group", "static-key", "ftrace", "event", "kprobe-event", "perf",
};

const int op_weight[NR_OPS] = {
	[OP_VIEW_CREATE] = 6, [OP_VIEW_CLOSE] = 3, [OP_ADD_PID] = 6,
	[OP_ATTACH] = 16, [OP_DETACH] = 9, [OP_SPAWN] = 6, [OP_FORK] = 6,
	[OP_THREAD_ADD] = 4, [OP_THREAD_DEL] = 3, [OP_EXEC] = 4,
	[OP_EXIT] = 3, [OP_KILL] = 3, [OP_KILL_GROUP] = 1,
	[OP_STATIC_KEY] = 3, [OP_FTRACE] = 2, [OP_EVENT] = 3,
	[OP_KPROBE_EVENT] = 3, [OP_PERF] = 3,
};


struct stress_model G = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

/* Global text changes (tracefs, sysctl, perf), under their own lock. */
struct stress_text T = { .lock = PTHREAD_MUTEX_INITIALIZER };

const char *const events[] = {
	"syscalls/sys_enter_read", "syscalls/sys_exit_read",
	"raw_syscalls/sys_enter", "sched/sched_process_exit",
	"sched/sched_process_fork",
};

const char *const ftrace_funcs[] = {
	"ksys_read", "vfs_read", "__do_sys_getppid", "ksys_write",
	"__x64_sys_read",
};

const char *const kpev_funcs[] = {
	"ksys_read", "vfs_read", "__x64_sys_getppid",
};

const char *const perf_tps[] = {
	"syscalls/sys_enter_read", "syscalls/sys_exit_read",
	"raw_syscalls/sys_enter", "sched/sched_process_exit",
};

int ncpus;
unsigned long etext;
bool global_only;	/* --global-only: no view at all (A/B runs) */
unsigned int pid_max;	/* /proc/sys/kernel/pid_max: counts' size */
size_t page_size;
volatile sig_atomic_t got_signal;

void view_ever_add(struct view *v, pid_t pid)
{
	int i;

	for (i = 0; i < v->never; i++)
		if (v->ever[i] == pid)
			return;
	if (v->never == v->ever_cap) {
		int cap = v->ever_cap ? 2 * v->ever_cap : 16;
		pid_t *n = realloc(v->ever, cap * sizeof(*n));

		if (!n)
			return;
		v->ever = n;
		v->ever_cap = cap;
	}
	v->ever[v->never++] = pid;
}

bool view_ever_has(struct view *v, pid_t pid)
{
	int i;

	for (i = 0; i < v->never; i++)
		if (v->ever[i] == pid)
			return true;
	return false;
}

const char *view_desc(const struct view *v)
{
	static __thread char buf[4][96];
	static __thread unsigned int n;
	char *b = buf[n++ % 4];

	if (!v)
		return "none";
	snprintf(b, sizeof(buf[0]), "view %u (kernel id %u%s%s%s%s)", v->serial,
		 v->kid, v->flags & KVIEW_F_FILTER ? ", filter" : "",
		 v->flags & KVIEW_F_FOLLOW_FORK ? ", follow-fork" : "",
		 v->flags & KVIEW_F_FOLLOW_EXEC ? ", follow-exec" : "",
		 v->kv ? "" : ", closed");
	return b;
}

const char *att_desc(const struct attach *a)
{
	static __thread char buf[4][192];
	static __thread unsigned int n;
	char *b = buf[n++ % 4];

	snprintf(b, sizeof(buf[0]), "attachment #%u %s %s%s%s", a->serial,
		 hooks[a->hook].name, mode_names[a->mode],
		 a->view ? " in " : "", a->view ? view_desc(a->view) : "");
	return b;
}

/* Under G.lock. */
int count_views(void)
{
	int i, n = 0;

	for (i = 0; i < VIEW_SLOTS; i++)
		n += G.views[i].used;
	return n;
}

int count_workers(void)
{
	int i, n = 0;

	for (i = 0; i < WORKER_SLOTS; i++)
		n += G.workers[i].used;
	return n;
}

int count_attach(enum mode mode, bool any)
{
	int i, n = 0;

	for (i = 0; i < ATTACH_SLOTS; i++)
		if (G.attach[i].used && G.attach[i].mode != M_REF &&
		    (any || G.attach[i].mode == mode))
			n++;
	return n;
}

/*
 * A view is alive while its handle is open or attachments hold it; then
 * its members leave it (the kernel frees it from a work item: they may
 * lag a little).  Under G.lock.
 */
void view_maybe_die(struct view *v)
{
	int i;

	if (!v->used || v->kv || v->nattach || v->busy)
		return;
	for (i = 0; i < WORKER_SLOTS; i++) {
		struct worker *w = &G.workers[i];

		if (w->used && w->view == v) {
			w->view = NULL;
			w->left_view = now();
		}
	}
	vlog("  %s dies", view_desc(v));
	free(v->ever);
	memset(v, 0, sizeof(*v));
}


bool view_open_idle(const struct view *v)
{
	return v->used && !v->busy && v->kv;
}

bool worker_idle(const struct worker *w)
{
	return w->used && !w->busy && w->pid > 0;
}

bool worker_idle_viewless(const struct worker *w)
{
	return worker_idle(w) && !w->view;
}

bool worker_idle_viewed(const struct worker *w)
{
	return worker_idle(w) && w->view;
}

bool attach_idle(const struct attach *a)
{
	return a->used && !a->busy && a->link && a->mode != M_REF;
}

bool slot_free_v(const struct view *v)
{
	return !v->used;
}

bool slot_free_w(const struct worker *w)
{
	return !w->used;
}

bool slot_free_a(const struct attach *a)
{
	return !a->used;
}
