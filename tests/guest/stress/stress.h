/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kview-stress's shared declarations: bounds, the driver's model (views,
 * workers, attachments, BPF instances, actors), the global state and
 * every function one part calls in another.
 */
#ifndef KVIEW_STRESS_H
#define KVIEW_STRESS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <linux/perf_event.h>

#include "kvtest.h"
#include "stress.skel.h"

#define TRACING		"/sys/kernel/tracing/"
#define KVIEW_DEBUGFS	"/sys/kernel/debug/kview/"
#define BPF_STATS	"/proc/sys/kernel/bpf_stats_enabled"

/* Bounds (the kernel allows 64 views, 1024 copied pages a view). */
#define MAX_VIEWS	6	/* live views */
#define MAX_ATTACH	14	/* live attachments of the actors */
#define MAX_GLOBAL	4	/* of which global */
#define MAX_PROCS	8	/* live worker processes */
#define MAX_XTHREADS	3	/* extra threads per worker */
#define MAX_INST	40	/* loaded BPF instances */
#define MAX_KPEVENTS	3	/* tracefs kprobe events */
#define MAX_PERF	3	/* extra global perf counting events */
#define VIEW_SLOTS	16
#define WORKER_SLOTS	48
#define ATTACH_SLOTS	(MAX_ATTACH + 4)
#define MAX_CPUS	64
#define CHECK_BUDGET	6	/* threads doing their R reads at once */
#define REPLY_MS	30000	/* a worker's answer (TCG is slow) */
#define EBUSY_GRACE	5.0	/* a dead view's members may lag its death */
#define BOGUS_PID	0x3fffffff

/* The first violations, told again at the end (the runner shows a tail). */
#define RECAP 16

struct rng {
	uint64_t s;
};

enum {
	MSG_READY = 1,		/* worker: started (pid), after exec too */
	MSG_ACK,		/* worker: command done (arg, pid, err) */
	CMD_RUN,		/* arg 1: marked reads in a loop; 0: stop all */
	CMD_READS,		/* exactly arg marked reads in every thread */
	CMD_THREAD_ADD,		/* one more thread; ack arg: threads */
	CMD_THREAD_DEL,		/* one thread less; ack arg: threads */
	CMD_FORK,		/* fork; ack pid: child, with its socket */
	CMD_EXEC,		/* exec this program again (READY follows) */
	CMD_EXIT,		/* exit at once */
};

struct wmsg {
	int32_t type;
	int32_t arg;
	int32_t pid;
	int32_t err;
};

struct stress_worker_side {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool run;
	bool exit_one;
	unsigned int gen, count, done, parked, nthreads;
	int zero_fd, sock;
};

enum hook {
	H_KP_READ, H_KP_READ_OFF, H_KRP_READ, H_TP_READ, H_TP_READ_EXIT,
	H_TP_RAW_ENTER, H_RAWTP_ENTER, H_BTF_ENTER, H_FE_READ, H_FX_READ,
	H_TP_EXIT, H_TP_FORK, H_KP_GETPPID, H_KRP_GETPPID,
	NR_HOOKS
};

struct hook_desc {
	const char *prog;
	const char *name;
	bool read;		/* counts marked reads: the equality holds */
	const char *tp;		/* the trace event its program is on */
};

enum mode { M_VIEW, M_PRE, M_GLOBAL, M_REF };

struct view {
	bool used;
	bool busy;		/* an actor works on it */
	unsigned int serial;
	unsigned int kid;	/* the kernel's id */
	unsigned int flags;	/* KVIEW_F_* */
	struct kview *kv;	/* NULL once closed */
	int nattach;		/* live attachments scoped to it */
	pid_t *ever;		/* every tgid that was ever a member */
	int never, ever_cap;
};

struct worker {
	bool used;
	bool busy;
	unsigned int serial;
	pid_t pid;
	pid_t pgid;
	int sock;
	int threads;		/* threads doing reads: 1 + extra */
	struct view *view;	/* the view its mm is in, or NULL */
	double left_view;	/* when its view died under it */
	int pending;		/* check phase: a command is out */
};

struct inst {
	struct stress *skel;
	/* The instance's `counts` array (events by tgid), mapped. */
	volatile unsigned long long *counts;
	size_t counts_size;
	enum hook hook;
	bool dirty;
	/*
	 * The last spawn that was between fork() and exec() when its link
	 * was destroyed: that child holds a copy of the link's fds until its
	 * exec, so the program stays attached (EEXIST on a new attach).
	 */
	unsigned int hold_seq;
	/* The attachment it served last (att_desc()), for the reports. */
	char last[192];
	struct inst *next;
};

#define MAX_EXITS 16

#define MAX_REPORTED 8

struct attach {
	bool used;
	bool busy;
	unsigned int serial;
	enum hook hook;
	enum mode mode;
	struct view *view;	/* M_VIEW, M_PRE */
	struct inst *inst;
	struct bpf_link *link;
	double created;
	struct attach *pair;	/* M_REF: the attachment it checks */
	unsigned long long before[WORKER_SLOTS];
	pid_t exits[MAX_EXITS];	/* processes whose exit it must have seen */
	int nexits;
	pid_t reported[MAX_REPORTED];	/* scope violations already told */
	int nreported;
};

enum op {
	OP_VIEW_CREATE, OP_VIEW_CLOSE, OP_ADD_PID, OP_ATTACH, OP_DETACH,
	OP_SPAWN, OP_FORK, OP_THREAD_ADD, OP_THREAD_DEL, OP_EXEC, OP_EXIT,
	OP_KILL, OP_KILL_GROUP, OP_STATIC_KEY, OP_FTRACE, OP_EVENT,
	OP_KPROBE_EVENT, OP_PERF,
	NR_OPS
};

struct perfev {
	const char *tp;		/* "syscalls/sys_enter_read" */
	int fds[MAX_CPUS];
	bool reads;		/* counts every marked read at least */
	bool used;
	long long before;
};

struct stress_model {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct view views[VIEW_SLOTS];
	struct worker workers[WORKER_SLOTS];
	struct attach attach[ATTACH_SLOTS];
	struct inst *pool[NR_HOOKS];
	int ninst;
	unsigned int serial;
	long nops, next_ticket, done, next_check;
	int inflight;
	bool stop;
	pid_t pgids[256];	/* every group of workers, for the teardown */
	int npgids;
	unsigned int fork_seq;	/* spawns started */
	unsigned int forking[16];	/* spawns between fork() and exec() */
	int nforking;
	unsigned long refused[NR_HOOKS];	/* EOPNOTSUPP in a view */
	unsigned long attached[NR_HOOKS][4];	/* by mode */
	unsigned long op_count[NR_OPS];
};

struct stress_text {
	pthread_mutex_t lock;
	bool ftrace_on;
	long bpf_stats_orig;
	bool bpf_stats;
	bool event_on[5];
	struct {
		bool used;
		char name[32];
	} kpev[MAX_KPEVENTS];
	unsigned int kpev_serial;
	struct perfev perf[MAX_PERF + 1];	/* [0]: the persistent one */
};

/* Pick a random slot satisfying @ok among @n, under G.lock; -1 if none. */
#define PICK(rng, arr, n, ok) ({					\
	int __c[n], __k = 0, __i;					\
	for (__i = 0; __i < (n); __i++)					\
		if (ok(&(arr)[__i]))					\
			__c[__k++] = __i;				\
	__k ? __c[rnd(rng, __k)] : -1;					\
})

struct actor {
	int idx;
	struct rng rng;
	long op;
	volatile int cur;	/* the op running, or -1 */
	volatile double cur_start;
	pthread_t thread;
	char log[512];
	size_t loglen;
};

enum end_how { END_EXIT, END_KILL, END_KILL_GROUP };

#define HANG_S 90

/* Lines of kview/stats read (it has about 20). */
#define STAT_LINES 48

struct stat_line {
	char name[32];
	long value;
};

/* Global state (defined in the part that owns it) */
extern pthread_mutex_t out_lock;
extern bool verbose;
extern long violations;
extern double t_start;
extern char *recap[RECAP];
extern char self_exe[PATH_MAX];
extern struct stress_worker_side ws;
extern const struct hook_desc hooks[NR_HOOKS];
extern const char *const mode_names[];
extern const char *const op_names[NR_OPS];
extern const int op_weight[NR_OPS];
extern struct stress_model G;
extern struct stress_text T;
extern const char *const events[];
extern const char *const ftrace_funcs[];
extern const char *const kpev_funcs[];
extern const char *const perf_tps[];
extern int ncpus;
extern unsigned long etext;
extern bool global_only;
extern unsigned int pid_max;
extern size_t page_size;
extern volatile sig_atomic_t got_signal;
extern unsigned long past_off;
extern volatile double heartbeat;
extern const char *volatile stage;
extern struct actor *watch_actors;
extern int watch_nactors;
extern bool duration_mode;
extern double deadline;
extern struct rng main_rng;
extern int phase;
extern bool have_verify;
extern char *kprobes_before;
extern bool syscall_work_before;

/* output.c */
double now (void);
void vsay (FILE *f, const char *prefix, const char *fmt, va_list ap);
__attribute__((format(printf, 1, 2)))
void say (const char *fmt, ...);
__attribute__((format(printf, 1, 2)))
void note (const char *fmt, ...);
__attribute__((format(printf, 1, 2)))
void vlog (const char *fmt, ...);
__attribute__((format(printf, 1, 2)))
void violation (const char *fmt, ...);
const char *err_name (int err);
const char *comm_of (pid_t pid);

/* util.c */
uint64_t rng_next (struct rng *r);
unsigned int rnd (struct rng *r, unsigned int n);
void rng_seed (struct rng *r, uint64_t seed, unsigned int idx);
int write_file (const char *path, const char *s, _Bool append);
char *read_all (const char *path);
long int read_long (const char *path, long int def);

/* worker.c */
int msg_send (int sock, int type, int arg, int pid, int err, int fd);
int msg_recv (int sock, struct wmsg *m, int timeout_ms, int *fd);
void w_reads (long int n);
void w_batch (void);
void *w_thread (void *arg);
void w_reply (int arg, int pid, int err, int fd);
void w_init (int sock, _Bool run);
void w_command (struct wmsg *m);
int worker_main (int sock, _Bool run);

/* model.c */
void view_ever_add (struct view *v, pid_t pid);
_Bool view_ever_has (struct view *v, pid_t pid);
const char *view_desc (const struct view *v);
const char *att_desc (const struct attach *a);
int count_views (void);
int count_workers (void);
int count_attach (enum mode mode, _Bool any);
void view_maybe_die (struct view *v);
_Bool view_open_idle (const struct view *v);
_Bool worker_idle (const struct worker *w);
_Bool worker_idle_viewless (const struct worker *w);
_Bool worker_idle_viewed (const struct worker *w);
_Bool attach_idle (const struct attach *a);
_Bool slot_free_v (const struct view *v);
_Bool slot_free_w (const struct worker *w);
_Bool slot_free_a (const struct attach *a);

/* inst.c */
unsigned int fork_begin (void);
void fork_end (unsigned int seq);
unsigned int fork_max (void);
_Bool inst_reusable (const struct inst *in);
void inst_free (struct inst *in);
struct inst *pool_take (enum hook hook);
struct inst *inst_get (enum hook hook);
void inst_put (struct inst *in, const struct attach *at);
struct bpf_program *inst_prog (struct inst *in);
long long unsigned int inst_count (struct inst *in, pid_t pid);
int inst_counted (struct inst *in, unsigned int *tgids, int max);

/* actors.c */
__attribute__((format(printf, 2, 3)))
void alog (struct actor *a, const char *fmt, ...);
__attribute__((format(printf, 3, 4)))
void unexpected (struct actor *a, int err, const char *fmt, ...);
int op_view_create (struct actor *a);
int op_view_close (struct actor *a);
int op_add_pid (struct actor *a);
_Bool past_site_prog (const struct bpf_program *prog);
struct bpf_link *attach_hook_prog (struct bpf_program *prog);
struct bpf_link *attach_scoped (struct kview *kv, struct bpf_program *prog, _Bool raw, struct kview *first);
void attach_release (struct attach *at);
int op_attach (struct actor *a);
void check_exits (struct attach *at, const char *when);
int op_detach (struct actor *a);

/* actors-procs.c */
int wcall (struct worker *w, int type, int arg, struct wmsg *reply, int *fd);
void reap (void);
void worker_dead (struct worker *w, struct view *was_in, double t_death);
int wait_gone (struct worker *w, int timeout_ms);
void worker_lost (struct actor *a, struct worker *w, int err, const char *what);
int op_spawn (struct actor *a);
int op_fork (struct actor *a);
int op_thread (struct actor *a, _Bool add);
int op_exec (struct actor *a);
int op_end (struct actor *a, enum end_how how);
int op_static_key (struct actor *a);
void ftrace_off (void);
int op_ftrace (struct actor *a);
int op_event (struct actor *a);
int kpev_remove (int i);
int op_kprobe_event (struct actor *a);
int tp_id (const char *tp);
int perf_open (struct perfev *p, const char *tp);
void perf_close (struct perfev *p);
long long int perf_read (struct perfev *p);
int op_perf (struct actor *a);
int run_op (struct actor *a, enum op op);
enum op pick_op (struct rng *rng);

/* watchdog.c */
void beat (const char *what);
void dump_stacks (pid_t pid);
void *watchdog_main (void *arg);

/* schedule.c */
long int take_ticket (void);
void progress (long int done);
void finish_ticket (void);
void *actor_main (void *arg);
struct kview_views *read_views (void);

/* invariants.c */
struct kview_views *check_membership (void);
_Bool patched (const struct kview_views_view *e, long unsigned int addr);
int check_view_text (struct view *v, const struct kview_views_view *e, char *why, size_t sz);
void check_text (struct kview_views *l);
void check_scope (void);
void check_lost (struct worker *w, int err, const char *what);
void workers_all (int type, int arg);
void workers_read (int r);
struct attach *check_attach (enum hook hook, struct attach *pair);
void check_phase (_Bool final);

/* teardown.c */
int read_stats (struct stat_line *s, int max);
long int stat_get (struct stat_line *s, int n, const char *name);
void teardown (void);
void check_clean (long int oos_before);

#endif
