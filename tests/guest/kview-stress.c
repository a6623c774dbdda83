// SPDX-License-Identifier: GPL-2.0
/*
 * kview-stress: a randomized, reproducible stress of kernel views.
 *
 *   kview-stress [--seed S] [--ops N] [--actors A] [--duration SEC] [-v]
 *                [--global-only]
 *
 * A actor threads pick random operations from their own RNG (splitmix64,
 * seeded from (S, actor index)), all at once on the guest's vCPUs:
 *
 *  - views: create (kernel views and filter views, random follow-fork and
 *    follow-exec, with a first member or empty), close, add a pid (also
 *    ones that must fail: a member of another view, no such process);
 *  - attachments in views (libkview, or the raw scope ioctls around
 *    libbpf's attach), in filter views ("pre"), and globally, mixed on the
 *    same sites: kprobes on ksys_read's ftrace site and at +5, kretprobes,
 *    syscall, raw_syscalls and sched tracepoints, raw and BTF tracepoints,
 *    fentry and fexit programs on vfs_read (BPF trampolines); detach;
 *  - member processes ("workers", this program with --worker, started by
 *    fork+exec and waiting for the go): marked reads (read(2) of
 *    MARK_SIZE bytes of /dev/zero) in a loop, fork (with and without
 *    follow-fork), threads, exec (with and without follow-exec), exit,
 *    SIGKILL of one process or of a whole process group;
 *  - global text changes meanwhile: the bpf_stats_enabled static key, the
 *    function tracer on functions next to the probe sites, tracefs event
 *    enables, tracefs kprobe events (at offsets: optimized), and global
 *    perf counting events on the same tracepoints.
 *
 * Every K operations (random) the actors pause for a check phase: every
 * worker does exactly R marked reads in each of its threads, and
 *
 *  1. scope: a view's program never counted a process that was never a
 *     member of the view (the driver knows membership: it makes every
 *     worker, and workers report their children);
 *  2. equality: a view's or filter view's program on a read hook counted
 *     R x threads for each member and 0 for the others, as a global
 *     in-eBPF reference (pid in a map of the members) on the same hook
 *     does, attached for some check phases; sched_process_exit programs
 *     saw the exit of every process that died in their scope;
 *  3. global consumers: global programs counted exactly R x threads for
 *     every worker, global perf counting events on the read syscall
 *     tracepoints at least the sum;
 *  4. text: at each patch site debugfs lists, the view executes the
 *     patch's bytes and the global text has the saved ones, and the bytes
 *     around it are the global ones; debugfs kview/verify (if the kernel
 *     has it) reports no bad byte; the kernel's membership equals ours.
 *
 * After the teardown (on every exit path): kview/stats is back to no view,
 * patch, page or table page, and its out_of_scope count did not move (no
 * task outside a view reached a hook through the view's text); no kprobe
 * and no syscall-work flag is left.
 *
 * Each violation is one "# VIOLATION: ..." line (the first ones are told
 * again before the last line); the last line counts them, and the exit
 * status is 0 iff there was none.  The same seed replays the same random
 * choices (the interleaving of the actors is the scheduler's).  -v logs
 * every operation and check phase.
 *
 * A watchdog reports a hang (no progress for HANG_S seconds) as a
 * violation, with what each actor was doing and the kernel stacks of the
 * driver and the workers, and asks the kernel for sysrq w and l.
 *
 * --global-only makes no view at all (every attachment global, the same
 * churn otherwise): an A/B run to tell a kview bug from a platform one.
 */
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

/* ------------------------------------------------------------------ */
/* Output                                                              */

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static bool verbose;
static long violations;
static double t_start;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void vsay(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
	pthread_mutex_lock(&out_lock);
	fputs(prefix, f);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	fflush(f);
	pthread_mutex_unlock(&out_lock);
}

__attribute__((format(printf, 1, 2)))
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(stdout, "", fmt, ap);
	va_end(ap);
}

/* A note (stderr, TAP's "# "). */
__attribute__((format(printf, 1, 2)))
static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(stderr, "# ", fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 1, 2)))
static void vlog(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	vsay(stdout, "", fmt, ap);
	va_end(ap);
}

/* The first violations, told again at the end (the runner shows a tail). */
#define RECAP 16
static char *recap[RECAP];

__attribute__((format(printf, 1, 2)))
static void violation(const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	pthread_mutex_lock(&out_lock);
	if (violations < RECAP && msg)
		recap[violations] = strdup(msg);
	violations++;
	printf("# VIOLATION: %s\n", msg ? msg : fmt);
	fflush(stdout);
	pthread_mutex_unlock(&out_lock);
	free(msg);
}

static const char *err_name(int err)
{
	static __thread char buf[32];

	switch (err) {
	case 0: return "ok";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EINVAL: return "EINVAL";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENOSPC: return "ENOSPC";
	case ENOMEM: return "ENOMEM";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EILSEQ: return "EILSEQ";
	case ENODEV: return "ENODEV";
	case EPIPE: return "EPIPE";
	case ETIMEDOUT: return "ETIMEDOUT";
	case E2BIG: return "E2BIG";
	}
	snprintf(buf, sizeof(buf), "errno %d", err);
	return buf;
}

/* The command name of @pid, for the violation lines. */
static const char *comm_of(pid_t pid)
{
	static __thread char buf[64];
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return "(gone)";
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return "(?)";
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* ------------------------------------------------------------------ */
/* Random numbers: splitmix64, one state per actor                     */

struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int rnd(struct rng *r, unsigned int n)
{
	return n ? rng_next(r) % n : 0;
}

static void rng_seed(struct rng *r, uint64_t seed, unsigned int idx)
{
	r->s = seed ^ (0xd1b54a32d192ed03ULL * (idx + 1));
	rng_next(r);
}

/* ------------------------------------------------------------------ */
/* Files                                                               */

static int write_file(const char *path, const char *s, bool append)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -EIO;
}

/* The whole of a (small) file, malloc'ed, or NULL. */
static char *read_all(const char *path)
{
	size_t len = 0, cap = 8192;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
}

static long read_long(const char *path, long def)
{
	char *s = read_all(path);
	long v = def;

	if (s && sscanf(s, "%ld", &v) != 1)
		v = def;
	free(s);
	return v;
}

/* ------------------------------------------------------------------ */
/* Worker processes                                                    */

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

static char self_exe[PATH_MAX];

static int msg_send(int sock, int type, int arg, int pid, int err, int fd)
{
	struct wmsg m = { type, arg, pid, err };
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &m, sizeof(m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (fd >= 0) {
		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == sizeof(m) ? 0 : -errno;
}

/* 0, -ETIMEDOUT, -EPIPE (the peer is gone) or another -errno. */
static int msg_recv(int sock, struct wmsg *m, int timeout_ms, int *fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { m, sizeof(*m) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct pollfd p = { sock, POLLIN, 0 };
	struct cmsghdr *c;
	ssize_t n;
	int r;

	if (fd)
		*fd = -1;
	do
		r = poll(&p, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (!r)
		return -ETIMEDOUT;
	if (r < 0)
		return -errno;
	n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	if (!n || (n < 0 && errno == ECONNRESET))
		return -EPIPE;
	if (n < 0)
		return -errno;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			int got;

			memcpy(&got, CMSG_DATA(c), sizeof(int));
			if (fd)
				*fd = got;
			else
				close(got);
		}
	}
	return n == sizeof(*m) ? 0 : -EPROTO;
}

/* The worker's side: its threads and the state they share. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool run;
	bool exit_one;
	unsigned int gen, count, done, parked, nthreads;
	int zero_fd, sock;
} ws;

static void w_reads(long n)
{
	char buf[MARK_SIZE];

	while (n-- > 0)
		if (read(ws.zero_fd, buf, MARK_SIZE) != MARK_SIZE)
			_exit(3);
}

/* What a worker does in a loop: a batch of marked reads, a getppid(). */
static void w_batch(void)
{
	w_reads(10);
	syscall(SYS_getppid);
	usleep(2000);
}

static void *w_thread(void *arg)
{
	unsigned int gen = (uintptr_t)arg;

	pthread_mutex_lock(&ws.lock);
	for (;;) {
		if (ws.exit_one) {
			ws.exit_one = false;
			ws.nthreads--;
			pthread_cond_broadcast(&ws.cond);
			pthread_mutex_unlock(&ws.lock);
			return NULL;
		}
		if (gen != ws.gen) {
			unsigned int n = ws.count;

			gen = ws.gen;
			pthread_mutex_unlock(&ws.lock);
			w_reads(n);
			pthread_mutex_lock(&ws.lock);
			ws.done++;
			pthread_cond_broadcast(&ws.cond);
			continue;
		}
		if (ws.run) {
			pthread_mutex_unlock(&ws.lock);
			w_batch();
			pthread_mutex_lock(&ws.lock);
			continue;
		}
		ws.parked++;
		pthread_cond_broadcast(&ws.cond);
		pthread_cond_wait(&ws.cond, &ws.lock);
		ws.parked--;
	}
}

static void w_reply(int arg, int pid, int err, int fd)
{
	if (msg_send(ws.sock, MSG_ACK, arg, pid, err, fd))
		_exit(4);
}

static void w_init(int sock, bool run)
{
	pthread_mutex_init(&ws.lock, NULL);
	pthread_cond_init(&ws.cond, NULL);
	ws.sock = sock;
	ws.run = run;
	ws.exit_one = false;
	ws.gen = ws.count = ws.done = ws.parked = ws.nthreads = 0;
	if (msg_send(sock, MSG_READY, 0, getpid(), 0, -1))
		_exit(4);
}

static void w_command(struct wmsg *m)
{
	char fdstr[16];
	pthread_t tid;
	int sv[2];
	pid_t pid;

	switch (m->type) {
	case CMD_RUN:
		pthread_mutex_lock(&ws.lock);
		ws.run = m->arg;
		pthread_cond_broadcast(&ws.cond);
		while (!ws.run && ws.parked < ws.nthreads)
			pthread_cond_wait(&ws.cond, &ws.lock);
		pthread_mutex_unlock(&ws.lock);
		w_reply(ws.nthreads + 1, 0, 0, -1);
		break;
	case CMD_READS:
		pthread_mutex_lock(&ws.lock);
		ws.count = m->arg;
		ws.done = 0;
		ws.gen++;
		pthread_cond_broadcast(&ws.cond);
		pthread_mutex_unlock(&ws.lock);
		w_reads(m->arg);
		pthread_mutex_lock(&ws.lock);
		while (ws.done < ws.nthreads)
			pthread_cond_wait(&ws.cond, &ws.lock);
		pthread_mutex_unlock(&ws.lock);
		w_reply(ws.nthreads + 1, 0, 0, -1);
		break;
	case CMD_THREAD_ADD:
		pthread_mutex_lock(&ws.lock);
		ws.nthreads++;
		if (pthread_create(&tid, NULL, w_thread, (void *)(uintptr_t)ws.gen)) {
			ws.nthreads--;
			pthread_mutex_unlock(&ws.lock);
			w_reply(ws.nthreads + 1, 0, EAGAIN, -1);
			break;
		}
		pthread_detach(tid);
		/* Paused: wait until it parked, so that a pause holds. */
		while (!ws.run && ws.parked < ws.nthreads)
			pthread_cond_wait(&ws.cond, &ws.lock);
		pthread_mutex_unlock(&ws.lock);
		w_reply(ws.nthreads + 1, 0, 0, -1);
		break;
	case CMD_THREAD_DEL:
		pthread_mutex_lock(&ws.lock);
		if (!ws.nthreads) {
			pthread_mutex_unlock(&ws.lock);
			w_reply(1, 0, ENOENT, -1);
			break;
		}
		ws.exit_one = true;
		pthread_cond_broadcast(&ws.cond);
		while (ws.exit_one)
			pthread_cond_wait(&ws.cond, &ws.lock);
		pthread_mutex_unlock(&ws.lock);
		w_reply(ws.nthreads + 1, 0, 0, -1);
		break;
	case CMD_FORK:
		if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv)) {
			w_reply(0, 0, errno, -1);
			break;
		}
		pid = fork();
		if (pid < 0) {
			w_reply(0, 0, errno, -1);
			close(sv[0]);
			close(sv[1]);
			break;
		}
		if (!pid) {
			/* Only this thread came along: a fresh worker. */
			close(sv[0]);
			close(ws.sock);
			w_init(sv[1], ws.run);
			break;
		}
		close(sv[1]);
		w_reply(0, pid, 0, sv[0]);
		close(sv[0]);
		break;
	case CMD_EXEC: {
		char *argv[] = { "kview-stress", "--worker", fdstr,
				 ws.run ? "1" : "0", NULL };

		snprintf(fdstr, sizeof(fdstr), "%d", ws.sock);
		execv(self_exe, argv);
		w_reply(0, 0, errno, -1);
		break;
	}
	case CMD_EXIT:
		_exit(0);
	default:
		w_reply(0, 0, EINVAL, -1);
	}
}

static int worker_main(int sock, bool run)
{
	struct pollfd p = { sock, POLLIN, 0 };
	struct wmsg m;
	ssize_t n;

	/* Our children are reaped for us; the driver reaps orphans. */
	signal(SIGCHLD, SIG_IGN);
	if (readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1) < 0)
		_exit(5);
	ws.zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	if (ws.zero_fd < 0)
		_exit(5);
	w_init(sock, run);
	for (;;) {
		p.fd = ws.sock;
		if (poll(&p, 1, ws.run ? 0 : -1) > 0) {
			n = recv(ws.sock, &m, sizeof(m), 0);
			if (n <= 0)
				_exit(0);	/* the driver is gone */
			if (n == sizeof(m))
				w_command(&m);
			continue;
		}
		if (ws.run)
			w_batch();
	}
}

/* ------------------------------------------------------------------ */
/* The driver's model                                                  */

enum hook {
	H_KP_READ, H_KP_READ_OFF, H_KRP_READ, H_TP_READ, H_TP_READ_EXIT,
	H_TP_RAW_ENTER, H_RAWTP_ENTER, H_BTF_ENTER, H_FE_READ, H_FX_READ,
	H_TP_EXIT, H_TP_FORK, H_KP_GETPPID, H_KRP_GETPPID,
	NR_HOOKS
};

static const struct {
	const char *prog;
	const char *name;
	bool read;		/* counts marked reads: the equality holds */
	const char *tp;		/* the trace event its program is on */
} hooks[NR_HOOKS] = {
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

enum mode { M_VIEW, M_PRE, M_GLOBAL, M_REF };
static const char *const mode_names[] = { "view", "pre", "global", "ref" };

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

static const char *const op_names[NR_OPS] = {
	"view-create", "view-close", "add-pid", "attach", "detach", "spawn",
	"fork", "thread-add", "thread-del", "exec", "exit", "kill",
	"kill-group", "static-key", "ftrace", "event", "kprobe-event", "perf",
};

static const int op_weight[NR_OPS] = {
	[OP_VIEW_CREATE] = 6, [OP_VIEW_CLOSE] = 3, [OP_ADD_PID] = 6,
	[OP_ATTACH] = 16, [OP_DETACH] = 9, [OP_SPAWN] = 6, [OP_FORK] = 6,
	[OP_THREAD_ADD] = 4, [OP_THREAD_DEL] = 3, [OP_EXEC] = 4,
	[OP_EXIT] = 3, [OP_KILL] = 3, [OP_KILL_GROUP] = 1,
	[OP_STATIC_KEY] = 3, [OP_FTRACE] = 2, [OP_EVENT] = 3,
	[OP_KPROBE_EVENT] = 3, [OP_PERF] = 3,
};

struct perfev {
	const char *tp;		/* "syscalls/sys_enter_read" */
	int fds[MAX_CPUS];
	bool reads;		/* counts every marked read at least */
	bool used;
	long long before;
};

static struct {
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
} G = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

/* Global text changes (tracefs, sysctl, perf), under their own lock. */
static struct {
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
} T = { .lock = PTHREAD_MUTEX_INITIALIZER };

static const char *const events[] = {
	"syscalls/sys_enter_read", "syscalls/sys_exit_read",
	"raw_syscalls/sys_enter", "sched/sched_process_exit",
	"sched/sched_process_fork",
};

static const char *const ftrace_funcs[] = {
	"ksys_read", "vfs_read", "__do_sys_getppid", "ksys_write",
	"__x64_sys_read",
};

static const char *const kpev_funcs[] = {
	"ksys_read", "vfs_read", "__x64_sys_getppid",
};

static const char *const perf_tps[] = {
	"syscalls/sys_enter_read", "syscalls/sys_exit_read",
	"raw_syscalls/sys_enter", "sched/sched_process_exit",
};

static int ncpus;
static unsigned long etext;
static bool global_only;	/* --global-only: no view at all (A/B runs) */
static unsigned int pid_max;	/* /proc/sys/kernel/pid_max: counts' size */
static size_t page_size;
static volatile sig_atomic_t got_signal;

static void view_ever_add(struct view *v, pid_t pid)
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

static bool view_ever_has(struct view *v, pid_t pid)
{
	int i;

	for (i = 0; i < v->never; i++)
		if (v->ever[i] == pid)
			return true;
	return false;
}

static const char *view_desc(const struct view *v)
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

static const char *att_desc(const struct attach *a)
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
static int count_views(void)
{
	int i, n = 0;

	for (i = 0; i < VIEW_SLOTS; i++)
		n += G.views[i].used;
	return n;
}

static int count_workers(void)
{
	int i, n = 0;

	for (i = 0; i < WORKER_SLOTS; i++)
		n += G.workers[i].used;
	return n;
}

static int count_attach(enum mode mode, bool any)
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
static void view_maybe_die(struct view *v)
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

/* Pick a random slot satisfying @ok among @n, under G.lock; -1 if none. */
#define PICK(rng, arr, n, ok) ({					\
	int __c[n], __k = 0, __i;					\
	for (__i = 0; __i < (n); __i++)					\
		if (ok(&(arr)[__i]))					\
			__c[__k++] = __i;				\
	__k ? __c[rnd(rng, __k)] : -1;					\
})

static bool view_open_idle(const struct view *v)
{
	return v->used && !v->busy && v->kv;
}

static bool worker_idle(const struct worker *w)
{
	return w->used && !w->busy && w->pid > 0;
}

static bool worker_idle_viewless(const struct worker *w)
{
	return worker_idle(w) && !w->view;
}

static bool worker_idle_viewed(const struct worker *w)
{
	return worker_idle(w) && w->view;
}

static bool attach_idle(const struct attach *a)
{
	return a->used && !a->busy && a->link && a->mode != M_REF;
}

static bool slot_free_v(const struct view *v)
{
	return !v->used;
}

static bool slot_free_w(const struct worker *w)
{
	return !w->used;
}

static bool slot_free_a(const struct attach *a)
{
	return !a->used;
}

/* ------------------------------------------------------------------ */
/* BPF instances: one per attachment, reused                           */

/* Under G.lock: a spawn is between fork() and exec() (see struct inst). */
static unsigned int fork_begin(void)
{
	unsigned int seq = ++G.fork_seq;

	if (G.nforking < 16)
		G.forking[G.nforking++] = seq;
	return seq;
}

static void fork_end(unsigned int seq)
{
	int i;

	for (i = 0; i < G.nforking; i++)
		if (G.forking[i] == seq) {
			G.forking[i] = G.forking[--G.nforking];
			break;
		}
}

static unsigned int fork_max(void)
{
	unsigned int max = 0;
	int i;

	for (i = 0; i < G.nforking; i++)
		if (G.forking[i] > max)
			max = G.forking[i];
	return max;
}

/* No child that may hold a copy of @in's old link is left. */
static bool inst_reusable(const struct inst *in)
{
	int i;

	for (i = 0; i < G.nforking; i++)
		if (G.forking[i] <= in->hold_seq)
			return false;
	return true;
}

/* Unload an instance that is off the pool and attached nowhere. */
static void inst_free(struct inst *in)
{
	if (in->counts)
		munmap((void *)in->counts, in->counts_size);
	stress__destroy(in->skel);
	free(in);
}

/* Under G.lock: take a reusable instance of @hook off the pool. */
static struct inst *pool_take(enum hook hook)
{
	struct inst **pp, *in;

	for (pp = &G.pool[hook]; (in = *pp); pp = &in->next)
		if (inst_reusable(in)) {
			*pp = in->next;
			return in;
		}
	return NULL;
}

static struct inst *inst_get(enum hook hook)
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

			/* Detached: nothing counts into it meanwhile. */
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

/* Under G.lock, after its link was destroyed. */
static void inst_put(struct inst *in)
{
	in->dirty = true;
	in->hold_seq = fork_max();
	in->next = G.pool[in->hook];
	G.pool[in->hook] = in;
}

static struct bpf_program *inst_prog(struct inst *in)
{
	return bpf_object__find_program_by_name(in->skel->obj,
						hooks[in->hook].prog);
}

static unsigned long long inst_count(struct inst *in, pid_t pid)
{
	return (unsigned int)pid < pid_max ? in->counts[pid] : 0;
}

/* The tgids 'in' counted events of (0 also for a tgid past pid_max). */
static int inst_counted(struct inst *in, unsigned int *tgids, int max)
{
	unsigned int t;
	int n = 0;

	for (t = 0; t < pid_max && n < max; t++)
		if (in->counts[t])
			tgids[n++] = t;
	return n;
}

/* ------------------------------------------------------------------ */
/* Actors                                                              */

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

__attribute__((format(printf, 2, 3)))
static void alog(struct actor *a, const char *fmt, ...)
{
	va_list ap;

	if (a->loglen >= sizeof(a->log) - 1)
		return;
	va_start(ap, fmt);
	a->loglen += vsnprintf(a->log + a->loglen, sizeof(a->log) - a->loglen,
			       fmt, ap);
	va_end(ap);
	if (a->loglen > sizeof(a->log) - 1)
		a->loglen = sizeof(a->log) - 1;
}

/* An error from the kernel nothing explains: a violation. */
__attribute__((format(printf, 3, 4)))
static void unexpected(struct actor *a, int err, const char *fmt, ...)
{
	char buf[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	violation("op %ld (actor %d): %s: unexpected %s", a ? a->op : -1L,
		  a ? a->idx : -1, buf, err_name(err));
}

/* -------- views -------- */

static int op_view_create(struct actor *a)
{
	LIBBPF_OPTS(kview_opts, opts);
	struct worker *w = NULL;
	struct view *v;
	struct kview_info info;
	struct kview *kv;
	int vi, wi = -1, r, err;
	bool in_view = false, recent = false;

	opts.follow_fork = rnd(&a->rng, 2);
	opts.follow_exec = rnd(&a->rng, 2);
	opts.filter = !rnd(&a->rng, 4);
	r = rnd(&a->rng, 10);

	pthread_mutex_lock(&G.lock);
	if (count_views() >= MAX_VIEWS || global_only) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	vi = PICK(&a->rng, G.views, VIEW_SLOTS, slot_free_v);
	v = &G.views[vi];
	v->used = v->busy = true;
	v->serial = ++G.serial;
	if (r >= 4 && r < 9)
		wi = PICK(&a->rng, G.workers, WORKER_SLOTS, worker_idle_viewless);
	else if (r == 9)
		wi = PICK(&a->rng, G.workers, WORKER_SLOTS, worker_idle_viewed);
	if (wi >= 0) {
		w = &G.workers[wi];
		w->busy = true;
		in_view = w->view;
		recent = now() - w->left_view < EBUSY_GRACE;
	}
	pthread_mutex_unlock(&G.lock);

	kv = kview__create(w ? w->pid : 0, &opts);
	err = kv ? 0 : errno;
	alog(a, "create %s%s%s view on %d%s -> %s",
	     opts.filter ? "filter" : "kernel",
	     opts.follow_fork ? " follow-fork" : "",
	     opts.follow_exec ? " follow-exec" : "", w ? w->pid : 0,
	     in_view ? " (in a view)" : "", err_name(err));
	if (kv && kview__info(kv, &info)) {
		unexpected(a, errno, "KVIEW_IOC_INFO");
		memset(&info, 0, sizeof(info));
	}

	pthread_mutex_lock(&G.lock);
	if (kv) {
		v->kv = kv;
		v->kid = info.id;
		v->flags = info.flags;
		if (v->flags != ((opts.follow_fork ? KVIEW_F_FOLLOW_FORK : 0) |
				 (opts.follow_exec ? KVIEW_F_FOLLOW_EXEC : 0) |
				 (opts.filter ? KVIEW_F_FILTER : 0)))
			violation("view %u: flags %#x do not match the request",
				  v->kid, v->flags);
		if (w && in_view) {
			violation("op %ld: view created on pid %d, which is in %s already",
				  a->op, w->pid, view_desc(w->view));
		} else if (w) {
			w->view = v;
			view_ever_add(v, w->pid);
		}
		alog(a, " [%s]", view_desc(v));
		v->busy = false;
	} else {
		if (!(err == EBUSY && w && (in_view || recent)))
			unexpected(a, err, "create a view on %d", w ? w->pid : 0);
		memset(v, 0, sizeof(*v));
	}
	if (w)
		w->busy = false;
	pthread_mutex_unlock(&G.lock);
	return 1;
}

static void attach_release(struct attach *at);
static void check_exits(struct attach *at, const char *when);

static int op_view_close(struct actor *a)
{
	struct attach *ats[ATTACH_SLOTS];
	bool detach_all = rnd(&a->rng, 2);
	int vi, i, n = 0;
	struct view *v;
	struct kview *kv;

	pthread_mutex_lock(&G.lock);
	vi = PICK(&a->rng, G.views, VIEW_SLOTS, view_open_idle);
	if (vi < 0) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	v = &G.views[vi];
	v->busy = true;
	if (detach_all) {
		for (i = 0; i < ATTACH_SLOTS; i++)
			if (attach_idle(&G.attach[i]) && G.attach[i].view == v) {
				G.attach[i].busy = true;
				ats[n++] = &G.attach[i];
			}
	}
	pthread_mutex_unlock(&G.lock);

	alog(a, "close %s (%d attachment(s), detaching %d first)",
	     view_desc(v), v->nattach, n);
	for (i = 0; i < n; i++) {
		check_exits(ats[i], "detach");
		bpf_link__destroy(ats[i]->link);
		pthread_mutex_lock(&G.lock);
		attach_release(ats[i]);
		pthread_mutex_unlock(&G.lock);
	}
	kv = v->kv;
	kview__destroy(kv);
	pthread_mutex_lock(&G.lock);
	v->kv = NULL;
	v->busy = false;
	view_maybe_die(v);
	pthread_mutex_unlock(&G.lock);
	return 1;
}

static int op_add_pid(struct actor *a)
{
	unsigned int r = rnd(&a->rng, 10);
	struct worker *w = NULL;
	struct view *v, *wv = NULL;
	pid_t pid = BOGUS_PID;
	int vi, wi = -1, err;
	bool recent = false, expect_ok;

	pthread_mutex_lock(&G.lock);
	vi = PICK(&a->rng, G.views, VIEW_SLOTS, view_open_idle);
	if (vi < 0) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	if (r < 8)
		wi = PICK(&a->rng, G.workers, WORKER_SLOTS, worker_idle_viewless);
	else if (r == 8)
		wi = PICK(&a->rng, G.workers, WORKER_SLOTS, worker_idle_viewed);
	if (r < 9 && wi < 0) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	v = &G.views[vi];
	v->busy = true;
	if (wi >= 0) {
		w = &G.workers[wi];
		w->busy = true;
		pid = w->pid;
		wv = w->view;
		recent = now() - w->left_view < EBUSY_GRACE;
	}
	pthread_mutex_unlock(&G.lock);

	err = -kview__add_pid(v->kv, pid);
	alog(a, "add pid %d to %s (it is in %s) -> %s", pid, view_desc(v),
	     w ? view_desc(wv) : "nothing: no such process", err_name(err));
	if (!w)
		expect_ok = false;
	else
		expect_ok = !wv || wv == v;
	if (!w && err != ESRCH)
		unexpected(a, err, "add pid %d (no such process) to %s", pid,
			   view_desc(v));
	else if (w && expect_ok && err && !(err == EBUSY && recent))
		unexpected(a, err, "add pid %d to %s", pid, view_desc(v));
	else if (w && !expect_ok && err != EBUSY)
		unexpected(a, err, "add pid %d of %s to %s (EBUSY expected)",
			   pid, view_desc(wv), view_desc(v));

	pthread_mutex_lock(&G.lock);
	if (w && !err && !wv) {
		w->view = v;
		view_ever_add(v, w->pid);
	}
	if (w)
		w->busy = false;
	v->busy = false;
	pthread_mutex_unlock(&G.lock);
	return 1;
}

/* -------- attachments -------- */

/* ksys_read's first instruction past its ftrace site (main() reads it). */
static unsigned long past_off;

/* kp_read_off has no target in its section: ksys_read past its site. */
static bool past_site_prog(const struct bpf_program *prog)
{
	return !strcmp(bpf_program__name(prog), "kp_read_off");
}

/* bpf_program__attach(), in the current scope. */
static struct bpf_link *attach_hook_prog(struct bpf_program *prog)
{
	if (past_site_prog(prog))
		return attach_kprobe_off(NULL, prog, "ksys_read", past_off);
	return bpf_program__attach(prog);
}

/*
 * Attach @prog inside @kv's scope: libkview's, or the raw ioctls; with
 * @first, enter @first's scope before, so that entering @kv's switches.
 */
static struct bpf_link *attach_scoped(struct kview *kv, struct bpf_program *prog,
				      bool raw, struct kview *first)
{
	struct bpf_link *link;
	int err;

	if (!raw)
		return past_site_prog(prog) ?
		       attach_kprobe_off(kv, prog, "ksys_read", past_off) :
		       kview__attach_program(kv, prog);
	if (first && ioctl(kview__fd(first), KVIEW_IOC_SCOPE_ENTER))
		return NULL;
	if (ioctl(kview__fd(kv), KVIEW_IOC_SCOPE_ENTER)) {
		err = errno;
		if (first)
			ioctl(kview__fd(first), KVIEW_IOC_SCOPE_LEAVE);
		errno = err;
		return NULL;
	}
	link = attach_hook_prog(prog);
	err = link ? 0 : errno;
	if (ioctl(kview__fd(kv), KVIEW_IOC_SCOPE_LEAVE))
		violation("KVIEW_IOC_SCOPE_LEAVE: %s", strerror(errno));
	errno = err;
	return link;
}

/* Under G.lock: the attachment is gone (link destroyed). */
static void attach_release(struct attach *at)
{
	struct view *v = at->view;

	if (at->inst)
		inst_put(at->inst);
	memset(at, 0, sizeof(*at));
	if (v) {
		v->nattach--;
		view_maybe_die(v);
	}
}

static int op_attach(struct actor *a)
{
	enum hook hook = rnd(&a->rng, NR_HOOKS);
	bool global = !rnd(&a->rng, 4), raw = rnd(&a->rng, 2);
	bool switch_ = raw && !rnd(&a->rng, 3);
	struct bpf_link *link = NULL;
	struct view *v = NULL, *first = NULL;
	struct attach *at;
	struct inst *in;
	int ai, vi = -1, err;

	pthread_mutex_lock(&G.lock);
	if (count_attach(M_VIEW, true) >= MAX_ATTACH) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	if (global_only)
		global = true;
	if (global && count_attach(M_GLOBAL, false) >= MAX_GLOBAL) {
		if (global_only) {
			pthread_mutex_unlock(&G.lock);
			return 0;
		}
		global = false;
	}
	if (!global) {
		vi = PICK(&a->rng, G.views, VIEW_SLOTS, view_open_idle);
		if (vi < 0) {
			pthread_mutex_unlock(&G.lock);
			return 0;
		}
		v = &G.views[vi];
		v->busy = true;
		v->nattach++;
		if (switch_) {
			vi = PICK(&a->rng, G.views, VIEW_SLOTS, view_open_idle);
			if (vi >= 0) {
				first = &G.views[vi];
				first->busy = true;
			}
		}
	}
	ai = PICK(&a->rng, G.attach, ATTACH_SLOTS, slot_free_a);
	at = &G.attach[ai];
	at->used = at->busy = true;
	at->serial = ++G.serial;
	at->hook = hook;
	at->view = v;
	at->mode = !v ? M_GLOBAL : v->flags & KVIEW_F_FILTER ? M_PRE : M_VIEW;
	pthread_mutex_unlock(&G.lock);

	in = inst_get(hook);
	if (in) {
		if (v)
			link = attach_scoped(v->kv, inst_prog(in), raw,
					     first ? first->kv : NULL);
		else
			link = attach_hook_prog(inst_prog(in));
	}
	err = link ? 0 : in ? errno : ENOMEM;
	alog(a, "attach %s%s%s%s -> %s", att_desc(at),
	     v ? (raw ? " (raw scope ioctls" : " (libkview") : "",
	     first ? ", switching from the scope of " : "",
	     first ? view_desc(first) : "", err_name(err));
	if (v)
		alog(a, ")");

	pthread_mutex_lock(&G.lock);
	if (link) {
		at->inst = in;
		at->link = link;
		at->created = now();
		at->busy = false;
		G.attached[hook][at->mode]++;
	} else {
		if (in && v && err == EOPNOTSUPP)
			G.refused[hook]++;	/* a hook the view refuses */
		else if (in)
			unexpected(a, err, "attach %s", att_desc(at));
		at->inst = in;
		attach_release(at);
	}
	if (v) {
		v->busy = false;
		view_maybe_die(v);
	}
	if (first)
		first->busy = false;
	pthread_mutex_unlock(&G.lock);
	return 1;
}

/*
 * sched_process_exit programs: the processes that died in their scope
 * while they were attached must have been counted.
 */
static void check_exits(struct attach *at, const char *when)
{
	int i;

	for (i = 0; i < at->nexits; i++) {
		if (inst_count(at->inst, at->exits[i]))
			continue;
		violation("exit event: %s did not count the exit of pid %d (%s)%s",
			  att_desc(at), at->exits[i], when,
			  at->mode == M_GLOBAL ? "" :
			  " [known: events after exit_mm() are lost in views]");
	}
	at->nexits = 0;
}

static int op_detach(struct actor *a)
{
	struct attach *at;
	int ai;

	pthread_mutex_lock(&G.lock);
	ai = PICK(&a->rng, G.attach, ATTACH_SLOTS, attach_idle);
	if (ai < 0) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	at = &G.attach[ai];
	at->busy = true;
	pthread_mutex_unlock(&G.lock);

	alog(a, "detach %s", att_desc(at));
	check_exits(at, "at its detach");
	bpf_link__destroy(at->link);
	pthread_mutex_lock(&G.lock);
	attach_release(at);
	pthread_mutex_unlock(&G.lock);
	return 1;
}

/* -------- workers -------- */

/* Send a command, wait for its answer.  0 or -errno (-EPIPE: it died). */
static int wcall(struct worker *w, int type, int arg, struct wmsg *reply, int *fd)
{
	int err = msg_send(w->sock, type, arg, 0, 0, -1);

	if (err)
		return err == -ECONNRESET ? -EPIPE : err;
	err = msg_recv(w->sock, reply, REPLY_MS, fd);
	if (!err && reply->type != MSG_ACK)
		err = -EPROTO;
	return err;
}

/* Reap what died (our workers, and orphans we are the subreaper of). */
static void reap(void)
{
	int st;
	pid_t p;

	while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
		if (WIFEXITED(st) && WEXITSTATUS(st))
			violation("worker %d exited with status %d", p,
				  WEXITSTATUS(st));
		else if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL)
			violation("worker %d died of signal %d", p, WTERMSIG(st));
	}
}

/*
 * Under G.lock: @w is dead (its socket is closed: it passed exit_mm() and
 * sched_process_exit).  Attachments on sched_process_exit that had its
 * exit in scope must have counted it.
 */
static void worker_dead(struct worker *w, struct view *was_in, double t_death)
{
	int i;

	for (i = 0; i < ATTACH_SLOTS; i++) {
		struct attach *at = &G.attach[i];

		/* (A busy one is being detached: check_exits() reads it.) */
		if (!at->used || at->busy || !at->link || at->hook != H_TP_EXIT ||
		    at->created >= t_death || at->nexits >= MAX_EXITS)
			continue;
		if (at->mode == M_GLOBAL || (at->view && at->view == was_in))
			at->exits[at->nexits++] = w->pid;
	}
	close(w->sock);
	memset(w, 0, sizeof(*w));
}

/* Wait until the worker's socket closes: it is gone. */
static int wait_gone(struct worker *w, int timeout_ms)
{
	double end = now() + timeout_ms / 1000.0;
	struct wmsg m;
	int err, fd;

	do {
		err = msg_recv(w->sock, &m, timeout_ms, &fd);
		if (fd >= 0)
			close(fd);
	} while (!err && now() < end);
	return err == -EPIPE ? 0 : err ? err : -ETIMEDOUT;
}

/* A worker did not answer as it should: say so, kill it, forget it. */
static void worker_lost(struct actor *a, struct worker *w, int err, const char *what)
{
	struct view *v;
	double t = now();

	violation("op %ld: worker %d (%s): %s: %s", a ? a->op : -1L, w->pid,
		  comm_of(w->pid), what, err_name(-err));
	kill(w->pid, SIGKILL);
	if (wait_gone(w, 5000))
		t = 0;		/* not gone: expect no exit event of it */
	pthread_mutex_lock(&G.lock);
	v = w->view;
	worker_dead(w, v, t);
	pthread_mutex_unlock(&G.lock);
	reap();
}

static int op_spawn(struct actor *a)
{
	unsigned int with_view = rnd(&a->rng, 3);
	char fdstr[16], *argv[] = { "kview-stress", "--worker", fdstr, "0", NULL };
	struct worker *w;
	struct view *v = NULL;
	struct wmsg m;
	int wi, vi, sv[2], err;
	unsigned int seq;
	pid_t pid;

	pthread_mutex_lock(&G.lock);
	if (count_workers() >= MAX_PROCS) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	wi = PICK(&a->rng, G.workers, WORKER_SLOTS, slot_free_w);
	w = &G.workers[wi];
	w->used = w->busy = true;
	w->serial = ++G.serial;
	w->sock = -1;
	pthread_mutex_unlock(&G.lock);

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		unexpected(a, errno, "socketpair");
		goto undo;
	}
	snprintf(fdstr, sizeof(fdstr), "%d", sv[1]);
	pthread_mutex_lock(&G.lock);
	seq = fork_begin();
	pthread_mutex_unlock(&G.lock);
	pid = fork();
	if (pid < 0) {
		unexpected(a, errno, "fork");
		close(sv[0]);
		close(sv[1]);
		pthread_mutex_lock(&G.lock);
		fork_end(seq);
		pthread_mutex_unlock(&G.lock);
		goto undo;
	}
	if (!pid) {
		/* A copy of a threaded process: exec at once. */
		setpgid(0, 0);
		fcntl(sv[1], F_SETFD, 0);
		execv(self_exe, argv);
		_exit(127);
	}
	setpgid(pid, pid);	/* either of us may be first */
	close(sv[1]);
	w->sock = sv[0];
	w->pid = pid;
	w->pgid = pid;
	w->threads = 1;
	err = msg_recv(w->sock, &m, REPLY_MS, NULL);
	if (!err && (m.type != MSG_READY || m.pid != pid))
		err = -EPROTO;
	if (err) {
		worker_lost(a, w, err, "start");
		/* Gone: it holds no copy of our fds any more. */
		pthread_mutex_lock(&G.lock);
		fork_end(seq);
		pthread_mutex_unlock(&G.lock);
		return 1;
	}

	pthread_mutex_lock(&G.lock);
	/* It exec'd (READY): our close-on-exec fds are closed in it. */
	fork_end(seq);
	if (G.npgids < (int)(sizeof(G.pgids) / sizeof(G.pgids[0])))
		G.pgids[G.npgids++] = pid;
	if (with_view) {
		vi = PICK(&a->rng, G.views, VIEW_SLOTS, view_open_idle);
		if (vi >= 0) {
			v = &G.views[vi];
			v->busy = true;
		}
	}
	pthread_mutex_unlock(&G.lock);

	alog(a, "spawn worker %d", pid);
	if (v) {
		err = -kview__add_pid(v->kv, pid);
		alog(a, ", add to %s -> %s", view_desc(v), err_name(err));
		if (err)
			unexpected(a, err, "add new worker %d to %s", pid,
				   view_desc(v));
		pthread_mutex_lock(&G.lock);
		if (!err) {
			w->view = v;
			view_ever_add(v, pid);
		}
		v->busy = false;
		pthread_mutex_unlock(&G.lock);
	}
	/* Go. */
	err = wcall(w, CMD_RUN, 1, &m, NULL);
	if (err) {
		worker_lost(a, w, err, "go");
		return 1;
	}
	pthread_mutex_lock(&G.lock);
	w->busy = false;
	pthread_mutex_unlock(&G.lock);
	return 1;
undo:
	pthread_mutex_lock(&G.lock);
	memset(w, 0, sizeof(*w));
	pthread_mutex_unlock(&G.lock);
	return 1;
}

static int op_fork(struct actor *a)
{
	struct worker *w, *c;
	struct view *v;
	struct wmsg m;
	int wi, ci, err, fd;

	pthread_mutex_lock(&G.lock);
	if (count_workers() >= MAX_PROCS) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	wi = PICK(&a->rng, G.workers, WORKER_SLOTS, worker_idle);
	if (wi < 0) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	w = &G.workers[wi];
	w->busy = true;
	ci = PICK(&a->rng, G.workers, WORKER_SLOTS, slot_free_w);
	c = &G.workers[ci];
	c->used = c->busy = true;
	c->serial = ++G.serial;
	c->sock = -1;
	pthread_mutex_unlock(&G.lock);

	err = wcall(w, CMD_FORK, 0, &m, &fd);
	if (!err && (m.err || fd < 0))
		err = -(m.err ? m.err : EPROTO);
	if (err) {
		if (fd >= 0)
			close(fd);
		pthread_mutex_lock(&G.lock);
		memset(c, 0, sizeof(*c));
		pthread_mutex_unlock(&G.lock);
		worker_lost(a, w, err, "fork");
		return 1;
	}
	c->sock = fd;
	c->pid = m.pid;
	c->pgid = w->pgid;
	c->threads = 1;
	err = msg_recv(c->sock, &m, REPLY_MS, NULL);
	if (!err && (m.type != MSG_READY || m.pid != c->pid))
		err = -EPROTO;

	pthread_mutex_lock(&G.lock);
	v = w->view;
	if (v && (v->flags & KVIEW_F_FOLLOW_FORK)) {
		c->view = v;
		view_ever_add(v, c->pid);
	}
	alog(a, "worker %d forks %d (parent in %s) -> child in %s", w->pid,
	     c->pid, view_desc(v), view_desc(c->view));
	w->busy = false;
	pthread_mutex_unlock(&G.lock);
	if (err) {
		worker_lost(a, c, err, "start of a forked child");
		return 1;
	}
	pthread_mutex_lock(&G.lock);
	c->busy = false;
	pthread_mutex_unlock(&G.lock);
	return 1;
}

static int op_thread(struct actor *a, bool add)
{
	struct worker *w;
	struct wmsg m;
	int wi, err;

	pthread_mutex_lock(&G.lock);
	wi = PICK(&a->rng, G.workers, WORKER_SLOTS, worker_idle);
	if (wi < 0 || (add && G.workers[wi].threads > MAX_XTHREADS) ||
	    (!add && G.workers[wi].threads == 1)) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	w = &G.workers[wi];
	w->busy = true;
	pthread_mutex_unlock(&G.lock);

	err = wcall(w, add ? CMD_THREAD_ADD : CMD_THREAD_DEL, 0, &m, NULL);
	if (!err && m.err)
		err = -m.err;
	alog(a, "worker %d: %s thread -> %s, %d thread(s)", w->pid,
	     add ? "new" : "end a", err_name(-err), err ? w->threads : m.arg);
	if (err) {
		worker_lost(a, w, err, add ? "new thread" : "end a thread");
		return 1;
	}
	pthread_mutex_lock(&G.lock);
	w->threads = m.arg;
	w->busy = false;
	pthread_mutex_unlock(&G.lock);
	return 1;
}

static int op_exec(struct actor *a)
{
	struct worker *w;
	struct view *v;
	struct wmsg m;
	int wi, err;

	pthread_mutex_lock(&G.lock);
	wi = PICK(&a->rng, G.workers, WORKER_SLOTS, worker_idle);
	if (wi < 0) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	w = &G.workers[wi];
	w->busy = true;
	pthread_mutex_unlock(&G.lock);

	err = msg_send(w->sock, CMD_EXEC, 0, 0, 0, -1);
	if (!err)
		err = msg_recv(w->sock, &m, REPLY_MS, NULL);
	if (!err && m.type != MSG_READY)
		err = -(m.err ? m.err : EPROTO);
	if (err) {
		worker_lost(a, w, err, "exec");
		return 1;
	}
	pthread_mutex_lock(&G.lock);
	v = w->view;
	w->threads = 1;
	if (v && !(v->flags & KVIEW_F_FOLLOW_EXEC))
		w->view = NULL;
	alog(a, "worker %d execs (was in %s) -> in %s", w->pid, view_desc(v),
	     view_desc(w->view));
	w->busy = false;
	pthread_mutex_unlock(&G.lock);
	return 1;
}

enum end_how { END_EXIT, END_KILL, END_KILL_GROUP };

static int op_end(struct actor *a, enum end_how how)
{
	struct worker *ws_[WORKER_SLOTS];
	struct view *was[WORKER_SLOTS];
	int wi, i, n = 0, err;
	pid_t pgid = 0;
	double t;

	pthread_mutex_lock(&G.lock);
	wi = PICK(&a->rng, G.workers, WORKER_SLOTS, worker_idle);
	if (wi < 0) {
		pthread_mutex_unlock(&G.lock);
		return 0;
	}
	if (how == END_KILL_GROUP) {
		/* Every process of the group, and none may be busy. */
		pgid = G.workers[wi].pgid;
		for (i = 0; i < WORKER_SLOTS; i++) {
			struct worker *w = &G.workers[i];

			if (!w->used || w->pgid != pgid)
				continue;
			if (w->busy) {
				pthread_mutex_unlock(&G.lock);
				return 0;
			}
			ws_[n++] = w;
		}
	} else {
		ws_[n++] = &G.workers[wi];
	}
	for (i = 0; i < n; i++) {
		ws_[i]->busy = true;
		was[i] = ws_[i]->view;
	}
	pthread_mutex_unlock(&G.lock);

	t = now();
	if (how == END_EXIT) {
		alog(a, "worker %d exits (in %s)", ws_[0]->pid, view_desc(was[0]));
		msg_send(ws_[0]->sock, CMD_EXIT, 0, 0, 0, -1);
	} else if (how == END_KILL) {
		alog(a, "SIGKILL worker %d (in %s)", ws_[0]->pid, view_desc(was[0]));
		kill(ws_[0]->pid, SIGKILL);
	} else {
		alog(a, "SIGKILL group %d (%d known process(es))", pgid, n);
		if (kill(-pgid, SIGKILL))
			unexpected(a, errno, "kill(-%d)", pgid);
	}
	for (i = 0; i < n; i++) {
		err = wait_gone(ws_[i], REPLY_MS);
		if (err)
			violation("op %ld: worker %d did not go away: %s", a->op,
				  ws_[i]->pid, err_name(-err));
		pthread_mutex_lock(&G.lock);
		worker_dead(ws_[i], was[i], err ? 0 : t);
		pthread_mutex_unlock(&G.lock);
	}
	reap();
	return 1;
}

/* -------- global text changes -------- */

static int op_static_key(struct actor *a)
{
	int err;

	pthread_mutex_lock(&T.lock);
	T.bpf_stats = !T.bpf_stats;
	err = -write_file(BPF_STATS, T.bpf_stats ? "1" : "0", false);
	alog(a, "sysctl kernel.bpf_stats_enabled=%d -> %s", T.bpf_stats,
	     err_name(err));
	if (err)
		unexpected(a, err, "bpf_stats_enabled=%d", T.bpf_stats);
	pthread_mutex_unlock(&T.lock);
	return 1;
}

static void ftrace_off(void)
{
	int err = -write_file(TRACING "current_tracer", "nop\n", false);

	if (err)
		violation("current_tracer nop: %s", err_name(err));
	write_file(TRACING "set_ftrace_filter", "\n", false);
	T.ftrace_on = false;
}

static int op_ftrace(struct actor *a)
{
	char filter[256] = "", *got;
	unsigned int i, mask;
	int err = 0;

	pthread_mutex_lock(&T.lock);
	if (T.ftrace_on) {
		ftrace_off();
		alog(a, "function tracer off");
		pthread_mutex_unlock(&T.lock);
		return 1;
	}
	mask = 1 + rnd(&a->rng, (1 << 5) - 1);
	/* One function a write: tracefs takes one token per write. */
	for (i = 0; i < 5 && !err; i++)
		if (mask & (1 << i)) {
			err = -write_file(TRACING "set_ftrace_filter", ftrace_funcs[i],
					  filter[0]);
			strcat(filter, ftrace_funcs[i]);
			strcat(filter, " ");
		}
	strcat(filter, "\n");
	got = read_all(TRACING "set_ftrace_filter");
	/* Never the function tracer on every function: TCG would crawl. */
	if (!err && got && got[0] && got[0] != '#') {
		err = -write_file(TRACING "current_tracer", "function\n", false);
		T.ftrace_on = !err;
	} else if (!err) {
		err = ENOENT;
	}
	free(got);
	filter[strlen(filter) - 1] = '\0';
	alog(a, "function tracer on %s-> %s", filter, err_name(err));
	if (err) {
		unexpected(a, err, "function tracer on %s", filter);
		write_file(TRACING "set_ftrace_filter", "\n", false);
	}
	pthread_mutex_unlock(&T.lock);
	return 1;
}

static int op_event(struct actor *a)
{
	unsigned int e = rnd(&a->rng, 5);
	char path[256];
	int err;

	pthread_mutex_lock(&T.lock);
	T.event_on[e] = !T.event_on[e];
	snprintf(path, sizeof(path), TRACING "events/%s/enable", events[e]);
	err = -write_file(path, T.event_on[e] ? "1" : "0", false);
	alog(a, "tracefs %s enable=%d -> %s", events[e], T.event_on[e],
	     err_name(err));
	if (err)
		unexpected(a, err, "%s enable=%d", events[e], T.event_on[e]);
	pthread_mutex_unlock(&T.lock);
	return 1;
}

/* Under T.lock. */
static int kpev_remove(int i)
{
	char path[256], cmd[64];
	int err;

	snprintf(path, sizeof(path), TRACING "events/kvstress/%s/enable",
		 T.kpev[i].name);
	write_file(path, "0", false);
	snprintf(cmd, sizeof(cmd), "-:kvstress/%s\n", T.kpev[i].name);
	err = -write_file(TRACING "kprobe_events", cmd, true);
	T.kpev[i].used = false;
	return err;
}

static int op_kprobe_event(struct actor *a)
{
	unsigned int f = rnd(&a->rng, 3), off = rnd(&a->rng, 3) ?
		rnd(&a->rng, 0x28) : 0, i, n = 0, slot = MAX_KPEVENTS;
	bool add = rnd(&a->rng, 2);
	char cmd[128], path[256];
	int err;

	pthread_mutex_lock(&T.lock);
	for (i = 0; i < MAX_KPEVENTS; i++) {
		if (T.kpev[i].used)
			n++;
		else if (slot == MAX_KPEVENTS)
			slot = i;
	}
	if (!n || (add && n < MAX_KPEVENTS)) {
		snprintf(T.kpev[slot].name, sizeof(T.kpev[slot].name), "e%u",
			 ++T.kpev_serial);
		snprintf(cmd, sizeof(cmd), "p:kvstress/%s %s+%u\n",
			 T.kpev[slot].name, kpev_funcs[f], off);
		err = -write_file(TRACING "kprobe_events", cmd, true);
		if (!err) {
			T.kpev[slot].used = true;
			snprintf(path, sizeof(path),
				 TRACING "events/kvstress/%s/enable",
				 T.kpev[slot].name);
			err = -write_file(path, "1", false);
			if (err)
				unexpected(a, err, "enable kprobe event %s", cmd);
		}
		cmd[strlen(cmd) - 1] = '\0';
		alog(a, "tracefs kprobe event %s -> %s", cmd, err_name(err));
		/*
		 * At an offset: not an instruction boundary (EILSEQ), past the
		 * function (EINVAL), a jump label or static call site (EBUSY).
		 */
		if (err && !(off && (err == EILSEQ || err == EINVAL ||
				     err == EBUSY)) && !T.kpev[slot].used)
			unexpected(a, err, "kprobe event %s", cmd);
	} else {
		unsigned int k = rnd(&a->rng, n);

		for (i = 0; i < MAX_KPEVENTS; i++)
			if (T.kpev[i].used && !k--)
				break;
		alog(a, "remove tracefs kprobe event %s", T.kpev[i].name);
		err = kpev_remove(i);
		if (err)
			unexpected(a, err, "remove kprobe event %s", T.kpev[i].name);
	}
	pthread_mutex_unlock(&T.lock);
	return 1;
}

static int tp_id(const char *tp)
{
	char path[256];

	snprintf(path, sizeof(path), TRACING "events/%s/id", tp);
	return read_long(path, -1);
}

/* A global counting perf event on @tp on every CPU.  0 or -errno. */
static int perf_open(struct perfev *p, const char *tp)
{
	struct perf_event_attr attr;
	int cpu, id = tp_id(tp);

	if (id < 0)
		return -ENOENT;
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.size = sizeof(attr);
	attr.config = id;
	for (cpu = 0; cpu < ncpus; cpu++) {
		p->fds[cpu] = syscall(SYS_perf_event_open, &attr, -1, cpu, -1,
				      PERF_FLAG_FD_CLOEXEC);
		if (p->fds[cpu] < 0) {
			int err = -errno;

			while (cpu--)
				close(p->fds[cpu]);
			return err;
		}
	}
	p->tp = tp;
	p->reads = strstr(tp, "sys_enter") || strstr(tp, "sys_exit_read");
	p->used = true;
	return 0;
}

static void perf_close(struct perfev *p)
{
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++)
		close(p->fds[cpu]);
	p->used = false;
}

static long long perf_read(struct perfev *p)
{
	long long sum = 0, v;
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++)
		if (read(p->fds[cpu], &v, sizeof(v)) == sizeof(v))
			sum += v;
	return sum;
}

static int op_perf(struct actor *a)
{
	unsigned int t = rnd(&a->rng, 4), i, n = 0, slot = 0;
	bool open_ = rnd(&a->rng, 2);
	int err;

	pthread_mutex_lock(&T.lock);
	for (i = 1; i <= MAX_PERF; i++) {
		if (T.perf[i].used)
			n++;
		else if (!slot)
			slot = i;
	}
	if (!n || (open_ && n < MAX_PERF)) {
		err = -perf_open(&T.perf[slot], perf_tps[t]);
		alog(a, "perf counting event on %s -> %s", perf_tps[t],
		     err_name(err));
		if (err)
			unexpected(a, err, "perf_event_open %s", perf_tps[t]);
	} else {
		unsigned int k = rnd(&a->rng, n);

		for (i = 1; i <= MAX_PERF; i++)
			if (T.perf[i].used && !k--)
				break;
		alog(a, "close perf event on %s", T.perf[i].tp);
		perf_close(&T.perf[i]);
	}
	pthread_mutex_unlock(&T.lock);
	return 1;
}

static int run_op(struct actor *a, enum op op)
{
	switch (op) {
	case OP_VIEW_CREATE: return op_view_create(a);
	case OP_VIEW_CLOSE: return op_view_close(a);
	case OP_ADD_PID: return op_add_pid(a);
	case OP_ATTACH: return op_attach(a);
	case OP_DETACH: return op_detach(a);
	case OP_SPAWN: return op_spawn(a);
	case OP_FORK: return op_fork(a);
	case OP_THREAD_ADD: return op_thread(a, true);
	case OP_THREAD_DEL: return op_thread(a, false);
	case OP_EXEC: return op_exec(a);
	case OP_EXIT: return op_end(a, END_EXIT);
	case OP_KILL: return op_end(a, END_KILL);
	case OP_KILL_GROUP: return op_end(a, END_KILL_GROUP);
	case OP_STATIC_KEY: return op_static_key(a);
	case OP_FTRACE: return op_ftrace(a);
	case OP_EVENT: return op_event(a);
	case OP_KPROBE_EVENT: return op_kprobe_event(a);
	case OP_PERF: return op_perf(a);
	case NR_OPS: break;
	}
	return 0;
}

static enum op pick_op(struct rng *rng)
{
	int total = 0, i, r;

	for (i = 0; i < NR_OPS; i++)
		total += op_weight[i];
	r = rnd(rng, total);
	for (i = 0; i < NR_OPS; i++) {
		r -= op_weight[i];
		if (r < 0)
			break;
	}
	return i;
}

/* ------------------------------------------------------------------ */
/* Watchdog: a hang is a finding, say where everybody is stuck        */

#define HANG_S 90

static volatile double heartbeat;
static const char *volatile stage = "start";
static struct actor *watch_actors;
static int watch_nactors;

static void beat(const char *what)
{
	heartbeat = now();
	if (what)
		stage = what;
}

/* The kernel stacks of every thread of @pid, as "#" lines. */
static void dump_stacks(pid_t pid)
{
	char path[320], *stack, *comm, *wchan, *line, *save;
	struct dirent *d;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", pid, d->d_name);
		comm = read_all(path);
		snprintf(path, sizeof(path), "/proc/%d/task/%s/wchan", pid, d->d_name);
		wchan = read_all(path);
		snprintf(path, sizeof(path), "/proc/%d/task/%s/stack", pid, d->d_name);
		stack = read_all(path);
		if (comm)
			comm[strcspn(comm, "\n")] = '\0';
		note("  task %d/%s (%s) wchan %s:", pid, d->d_name,
		     comm ? comm : "?", wchan ? wchan : "?");
		save = NULL;
		for (line = stack ? strtok_r(stack, "\n", &save) : NULL; line;
		     line = strtok_r(NULL, "\n", &save))
			note("    %s", line);
		free(comm);
		free(wchan);
		free(stack);
	}
	closedir(dir);
}

static void *watchdog_main(void *arg)
{
	bool told = false;
	double t;
	int i;

	(void)arg;
	for (;;) {
		sleep(1);
		t = now() - heartbeat;
		if (t < HANG_S) {
			if (told)
				note("watchdog: progress again after the hang");
			told = false;
			continue;
		}
		if (told)
			continue;
		told = true;
		violation("hang: no progress for %.0f s; main: %s", t, stage);
		for (i = 0; i < watch_nactors; i++) {
			struct actor *a = &watch_actors[i];

			if (a->cur >= 0)
				note("  actor %d: op %ld %s for %.0f s", i, a->op,
				     op_names[a->cur], now() - a->cur_start);
		}
		note("kernel stacks of the driver:");
		dump_stacks(getpid());
		/* No G.lock: it may be held by the stuck thread. */
		for (i = 0; i < WORKER_SLOTS; i++)
			if (G.workers[i].used && G.workers[i].pid > 0)
				dump_stacks(G.workers[i].pid);
		/* And the kernel's own view of it, in its log. */
		write_file("/proc/sysrq-trigger", "w", false);
		write_file("/proc/sysrq-trigger", "l", false);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Scheduling: op tickets, check phases                                */

static bool duration_mode;
static double deadline;

static long take_ticket(void)
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

static void progress(long done)
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

static void finish_ticket(void)
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

static void *actor_main(void *arg)
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
static struct kview_views *read_views(void)
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

/* ------------------------------------------------------------------ */
/* Check phases                                                        */

static struct rng main_rng;
static int phase;
static bool have_verify = true;

/*
 * The kernel's membership must be ours: every live view lists exactly
 * its live members.  Views we consider dead and exited members may lag
 * (work item, last mm reference): poll for a while.  Returns the views.
 */
static struct kview_views *check_membership(void)
{
	char diff[1024];
	struct kview_views *l = NULL;
	double end = now() + 3.0;
	size_t i, k, len;
	int j;

	for (;;) {
		kview__views_free(l);
		l = read_views();
		len = 0;
		diff[0] = '\0';
#define DIFF(...) (len += snprintf(diff + len,				\
				      len < sizeof(diff) ? sizeof(diff) - len : 0, \
				      __VA_ARGS__))
		for (i = 0; i < l->cnt; i++) {
			const struct kview_views_view *e = l->views[i];
			struct view *v = NULL;

			for (j = 0; j < VIEW_SLOTS; j++)
				if (G.views[j].used && G.views[j].kid == e->id)
					v = &G.views[j];
			if (!v) {
				DIFF(" kernel view %u (%u member(s), %u attachment(s)) is not ours or should be dead;",
				     e->id, e->nr_members, e->nr_attachments);
				continue;
			}
			for (k = 0; k < e->members_cnt; k++) {
				pid_t pid = e->members[k].pid;
				struct worker *w = NULL;

				for (j = 0; j < WORKER_SLOTS; j++)
					if (G.workers[j].used &&
					    G.workers[j].pid == pid)
						w = &G.workers[j];
				if (!w || w->view != v)
					DIFF(" pid %d (%s) is in %s, we think in %s;",
					     pid, comm_of(pid),
					     view_desc(v), w ? view_desc(w->view) :
					     "none (not a live worker)");
			}
		}
		for (j = 0; j < WORKER_SLOTS; j++) {
			struct worker *w = &G.workers[j];
			const struct kview_views_view *e;
			bool found = false;

			if (!w->used || !w->view)
				continue;
			e = kview__views_find(l, w->view->kid);
			for (k = 0; e && k < e->members_cnt; k++)
				found |= e->members[k].pid == w->pid;
			if (!found)
				DIFF(" worker %d should be in %s%s;", w->pid,
				     view_desc(w->view), e ? "" : ", which the kernel does not list");
		}
		for (j = 0; j < VIEW_SLOTS; j++)
			if (G.views[j].used && !kview__views_find(l, G.views[j].kid))
				DIFF(" %s is not listed;", view_desc(&G.views[j]));
#undef DIFF
		if (!len || now() > end)
			break;
		usleep(50000);
	}
	if (len)
		violation("check %d: membership differs:%s", phase, diff);
	return l;
}

/* Does one of @e's patches cover @addr? */
static bool patched(const struct kview_views_view *e, unsigned long addr)
{
	size_t i;

	for (i = 0; i < e->patches_cnt; i++)
		if (addr >= e->patches[i].addr &&
		    addr < e->patches[i].addr + e->patches[i].len)
			return true;
	return false;
}

/* Invariant 4 for one view; the first mismatch in @why, or 0. */
static int check_view_text(struct view *v, const struct kview_views_view *e,
			   char *why, size_t sz)
{
	unsigned char vb[64], gb[64];
	unsigned long lo, hi, page, a;
	size_t i;

	if (e->patches_cnt != e->nr_patches) {
		snprintf(why, sz, "%s: header says %u patch(es), %zu listed",
			 view_desc(v), e->nr_patches, e->patches_cnt);
		return -1;
	}
	if ((v->flags & KVIEW_F_FILTER) &&
	    (e->nr_patches || e->nr_pages || e->nr_pt_pages)) {
		snprintf(why, sz, "filter %s has %u patch(es), %u page(s), %u table page(s)",
			 view_desc(v), e->nr_patches, e->nr_pages, e->nr_pt_pages);
		return -1;
	}
	for (i = 0; i < e->patches_cnt; i++) {
		const struct kview_views_patch *p = &e->patches[i];

		if (kview__read_text(v->kv, p->addr, vb, gb, p->len)) {
			snprintf(why, sz, "%s: KVIEW_IOC_READ_TEXT at %#llx (%s): %s",
				 view_desc(v), p->addr, p->symbol, strerror(errno));
			return -1;
		}
		if (memcmp(vb, p->insn, p->len) || memcmp(gb, p->orig, p->len)) {
			snprintf(why, sz, "%s: %s patch at %#llx (%s): view %s global %s, debugfs insn %s orig %s",
				 view_desc(v), p->kind, p->addr, p->symbol,
				 hexbytes(vb, p->len), hexbytes(gb, p->len),
				 hexbytes(p->insn, p->len), hexbytes(p->orig, p->len));
			return -1;
		}
		page = p->addr & ~4095UL;
		lo = p->addr >= page + 32 ? p->addr - 32 : page;
		hi = lo + 64 < page + 4096 ? lo + 64 : page + 4096;
		if (etext && hi > etext)
			hi = etext;
		if (kview__read_text(v->kv, lo, vb, gb, hi - lo)) {
			snprintf(why, sz, "%s: KVIEW_IOC_READ_TEXT %#lx+%lu: %s",
				 view_desc(v), lo, hi - lo, strerror(errno));
			return -1;
		}
		for (a = lo; a < hi; a++) {
			if (patched(e, a) || vb[a - lo] == gb[a - lo])
				continue;
			snprintf(why, sz, "%s: byte at %#lx (near the %s patch at %s) differs outside its patches: view %02x global %02x; view %s / global %s around %#lx",
				 view_desc(v), a, p->kind, p->symbol, vb[a - lo],
				 gb[a - lo], hexbytes(vb, hi - lo),
				 hexbytes(gb, hi - lo), lo);
			return -1;
		}
	}
	return 0;
}

static void check_text(struct kview_views *l)
{
	char why[1024];
	int i, try;

	for (i = 0; i < VIEW_SLOTS; i++) {
		struct view *v = &G.views[i];

		if (!v->used || !v->kv)
			continue;
		for (try = 0; try < 3; try++) {
			const struct kview_views_view *e;

			if (try) {
				/* Something may have moved the global text. */
				usleep(100000);
				kview__views_free(l);
				l = read_views();
			}
			e = kview__views_find(l, v->kid);
			if (!e) {
				snprintf(why, sizeof(why), "%s not in kview/views",
					 view_desc(v));
				continue;
			}
			if (!check_view_text(v, e, why, sizeof(why)))
				break;
		}
		if (try == 3)
			violation("check %d: text: %s", phase, why);
	}
	kview__views_free(l);

	if (!have_verify)
		return;
	for (try = 0; try < 3; try++) {
		char *buf = read_all(KVIEW_DEBUGFS "verify"), *line, *save = NULL;
		bool bad = false;

		if (!buf) {
			note("no %sverify in this kernel: full-copy check skipped",
			     KVIEW_DEBUGFS);
			have_verify = false;
			return;
		}
		why[0] = '\0';
		for (line = strtok_r(buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			struct kview_verify vv;

			if (!kview_verify_parse(line, &vv)) {
				snprintf(why, sizeof(why), "unknown line '%s'", line);
				bad = true;
				break;
			}
			if (kview_verify_bad(&vv)) {
				snprintf(why, sizeof(why), "%s", line);
				bad = true;
			}
		}
		free(buf);
		if (!bad)
			return;
		usleep(100000);
	}
	violation("check %d: kview/verify: %s", phase, why);
}

/* Scope (invariant 1): only tgids that were members were ever counted. */
static void check_scope(void)
{
	int i, k, n;

	for (i = 0; i < ATTACH_SLOTS; i++) {
		struct attach *at = &G.attach[i];
		unsigned int keys[512];

		if (!at->used || !at->link || !at->view)
			continue;
		n = inst_counted(at->inst, keys, 512);
		for (k = 0; k < n; k++) {
			int r;
			bool told = false;

			if (view_ever_has(at->view, keys[k]))
				continue;
			for (r = 0; r < at->nreported; r++)
				told |= at->reported[r] == (pid_t)keys[k];
			if (told)
				continue;
			if (at->nreported < MAX_REPORTED)
				at->reported[at->nreported++] = keys[k];
			violation("check %d: scope: %s counted %llu event(s) of tgid %u (%s), never a member%s",
				  phase, att_desc(at), inst_count(at->inst, keys[k]),
				  keys[k], comm_of(keys[k]),
				  keys[k] == (unsigned int)getpid() ? " (the driver)" : "");
		}
	}
}

/*
 * Check phase (G.lock held): a worker did not answer as it must.  It is
 * killed and forgotten, so that the phases after this one do not count on
 * it.
 */
static void check_lost(struct worker *w, int err, const char *what)
{
	violation("check %d: worker %d (%s) %s: %s", phase, w->pid,
		  comm_of(w->pid), what, err_name(-err));
	kill(w->pid, SIGKILL);
	/* Its exit may not have happened yet: expect no exit event of it. */
	worker_dead(w, w->view, 0);
}

/* Tell every live worker (but one that is gone); collect the answers. */
static void workers_all(int type, int arg)
{
	struct wmsg m;
	int i, err;

	for (i = 0; i < WORKER_SLOTS; i++) {
		struct worker *w = &G.workers[i];

		if (!w->used)
			continue;
		err = msg_send(w->sock, type, arg, 0, 0, -1);
		w->pending = !err;
		if (err)
			check_lost(w, err, "cannot be told");
	}
	for (i = 0; i < WORKER_SLOTS; i++) {
		struct worker *w = &G.workers[i];

		if (!w->used || !w->pending)
			continue;
		w->pending = 0;
		err = msg_recv(w->sock, &m, REPLY_MS, NULL);
		if (!err && (m.type != MSG_ACK || m.err))
			err = -EPROTO;
		if (!err && m.arg != w->threads) {
			violation("check %d: worker %d has %d thread(s), we think %d",
				  phase, w->pid, m.arg, w->threads);
			w->threads = m.arg;
		}
		if (err)
			check_lost(w, err, "did not answer");
	}
}

/* Every worker does @r marked reads per thread, a few threads at once. */
static void workers_read(int r)
{
	int i, j, inflight = 0, err;
	struct wmsg m;

	for (i = 0; i <= WORKER_SLOTS; i++) {
		struct worker *w = i < WORKER_SLOTS ? &G.workers[i] : NULL;

		if (w && !w->used)
			continue;
		/* Wait for answers while the budget is spent (or at the end). */
		while (inflight && (!w || inflight + w->threads > CHECK_BUDGET)) {
			struct pollfd p[WORKER_SLOTS];
			int idx[WORKER_SLOTS], n = 0;

			for (j = 0; j < WORKER_SLOTS; j++)
				if (G.workers[j].used && G.workers[j].pending) {
					p[n].fd = G.workers[j].sock;
					p[n].events = POLLIN;
					idx[n++] = j;
				}
			if (poll(p, n, REPLY_MS) <= 0) {
				for (j = 0; j < n; j++)
					check_lost(&G.workers[idx[j]], -ETIMEDOUT,
						   "did not finish its reads");
				inflight = 0;
				break;
			}
			for (j = 0; j < n; j++) {
				struct worker *x = &G.workers[idx[j]];

				if (!p[j].revents)
					continue;
				x->pending = 0;
				inflight -= x->threads;
				beat(NULL);
				err = msg_recv(x->sock, &m, 0, NULL);
				if (!err && (m.type != MSG_ACK || m.err))
					err = -EPROTO;
				if (err)
					check_lost(x, err, "reads");
			}
		}
		if (!w)
			break;
		err = msg_send(w->sock, CMD_READS, r, 0, 0, -1);
		if (err) {
			check_lost(w, err, "cannot be told to read");
			continue;
		}
		w->pending = 1;
		inflight += w->threads;
	}
}

/* An extra attachment for this check phase only (G.lock held). */
static struct attach *check_attach(enum hook hook, struct attach *pair)
{
	struct bpf_link *link;
	struct attach *at;
	struct inst *in;
	int ai, i, fd;
	unsigned int one = 1;

	for (ai = 0; ai < ATTACH_SLOTS && G.attach[ai].used; ai++)
		;
	if (ai == ATTACH_SLOTS)
		return NULL;
	pthread_mutex_unlock(&G.lock);
	in = inst_get(hook);
	pthread_mutex_lock(&G.lock);
	if (!in)
		return NULL;
	if (pair) {
		/* The in-eBPF reference: pid in the view's members. */
		fd = bpf_map__fd(in->skel->maps.filter);
		for (i = 0; i < WORKER_SLOTS; i++)
			if (G.workers[i].used && G.workers[i].view == pair->view)
				bpf_map_update_elem(fd, &G.workers[i].pid, &one, BPF_ANY);
		in->skel->bss->filter_on = 1;
	}
	link = attach_hook_prog(inst_prog(in));
	if (!link) {
		violation("check %d: attach the reference %s globally: %s", phase,
			  hooks[hook].name, strerror(errno));
		inst_put(in);
		return NULL;
	}
	at = &G.attach[ai];
	memset(at, 0, sizeof(*at));
	at->used = true;
	at->serial = ++G.serial;
	at->hook = hook;
	at->mode = pair ? M_REF : M_GLOBAL;
	at->inst = in;
	at->link = link;
	at->pair = pair;
	at->created = now();
	at->busy = true;	/* not the actors' */
	return at;
}

static void check_phase(bool final)
{
	struct attach *extra[2] = { NULL, NULL };
	long long sum = 0;
	bool pre_tp[NR_HOOKS] = { false }, view_tp[NR_HOOKS] = { false };
	struct kview_views *l;
	double t0 = now();
	int r, i, j, nread = 0, cand[ATTACH_SLOTS], nc = 0;

	phase++;
	r = 10 + rnd(&main_rng, 50);
	reap();
	pthread_mutex_lock(&G.lock);
	pthread_mutex_lock(&T.lock);

	/* Workers stop; the kernel's membership is ours. */
	beat("check: pause the workers");
	workers_all(CMD_RUN, 0);
	beat("check: membership");
	l = check_membership();
	beat("check: extra attachments");

	/* Sometimes the in-eBPF reference, or a global program, for this phase. */
	for (i = 0; i < ATTACH_SLOTS; i++) {
		struct attach *at = &G.attach[i];

		if (at->used && at->link && at->view && hooks[at->hook].read)
			cand[nc++] = i;
	}
	if (nc && rnd(&main_rng, 2)) {
		struct attach *pair = &G.attach[cand[rnd(&main_rng, nc)]];

		extra[0] = check_attach(pair->hook, pair);
	}
	if (rnd(&main_rng, 2)) {
		enum hook h = rnd(&main_rng, H_TP_EXIT);	/* read hooks */

		extra[1] = check_attach(h, NULL);
	}

	/* Before. */
	for (i = 0; i < ATTACH_SLOTS; i++) {
		struct attach *at = &G.attach[i];

		if (!at->used || !at->link || !hooks[at->hook].read)
			continue;
		if (at->mode == M_PRE && hooks[at->hook].tp)
			pre_tp[at->hook] = true;
		if (at->mode == M_VIEW && hooks[at->hook].tp)
			view_tp[at->hook] = true;
		for (j = 0; j < WORKER_SLOTS; j++)
			if (G.workers[j].used)
				at->before[j] = inst_count(at->inst, G.workers[j].pid);
	}
	for (i = 0; i <= MAX_PERF; i++)
		if (T.perf[i].used)
			T.perf[i].before = perf_read(&T.perf[i]);

	beat("check: reads");
	workers_read(r);
	beat("check: counts");

	/* After: invariants 2 and 3. */
	for (j = 0; j < WORKER_SLOTS; j++)
		if (G.workers[j].used) {
			sum += (long long)r * G.workers[j].threads;
			nread++;
		}
	for (i = 0; i < ATTACH_SLOTS; i++) {
		struct attach *at = &G.attach[i];

		if (!at->used || !at->link || !hooks[at->hook].read)
			continue;
		for (j = 0; j < WORKER_SLOTS; j++) {
			struct worker *w = &G.workers[j];
			unsigned long long got, want;
			bool in;

			if (!w->used)
				continue;
			got = inst_count(at->inst, w->pid) - at->before[j];
			switch (at->mode) {
			case M_GLOBAL:
				in = true;
				break;
			case M_REF:
				in = w->view == at->pair->view;
				break;
			default:
				in = w->view == at->view;
			}
			want = in ? (unsigned long long)r * w->threads : 0;
			if (got != want)
				violation("check %d: equality: %s counted %llu for worker %d (%s, %d thread(s), in %s), expected %llu (R %d)",
					  phase, att_desc(at), got, w->pid,
					  in ? "member" : "not a member", w->threads,
					  view_desc(w->view), want, r);
			if (at->mode == M_REF) {
				unsigned long long pg = inst_count(at->pair->inst, w->pid) -
							at->pair->before[j];

				if (pg != got)
					violation("check %d: equality: %s counted %llu for worker %d, the in-eBPF reference (pid in members, global) %llu",
						  phase, att_desc(at->pair), pg, w->pid, got);
			}
		}
	}
	for (i = 0; i <= MAX_PERF; i++) {
		struct perfev *p = &T.perf[i];
		long long got;
		enum hook h;

		if (!p->used || !p->reads)
			continue;
		got = perf_read(p) - p->before;
		if (got >= sum)
			continue;
		h = !strcmp(p->tp, "syscalls/sys_enter_read") ? H_TP_READ :
		    !strcmp(p->tp, "syscalls/sys_exit_read") ? H_TP_READ_EXIT :
		    H_TP_RAW_ENTER;
		if (pre_tp[h] && !view_tp[h])
			note("check %d: global perf event #%d on %s counted %lld < %lld marked reads, with a filter-view program on it (the pre-eBPF filter suppresses others' samples: design.md §7)",
			     phase, i, p->tp, got, sum);
		else
			violation("check %d: global perf counting event #%d on %s counted %lld, the workers did %lld marked reads%s",
				  phase, i, p->tp, got, sum, view_tp[h] ?
				  " [known: a view program on the tracepoint silences global perf users]" :
				  " (no view program on it)");
	}

	/* Invariants 1 and 2 (exits), 4. */
	beat("check: scope");
	check_scope();
	for (i = 0; i < ATTACH_SLOTS; i++)
		if (G.attach[i].used && G.attach[i].link && G.attach[i].nexits)
			check_exits(&G.attach[i], "by the check phase");
	beat("check: text");
	check_text(l);

	beat("check: detach the extra attachments");
	for (i = 0; i < 2; i++) {
		if (!extra[i])
			continue;
		bpf_link__destroy(extra[i]->link);
		inst_put(extra[i]->inst);
		memset(extra[i], 0, sizeof(*extra[i]));
	}
	beat("check: resume the workers");
	if (!final)
		workers_all(CMD_RUN, 1);
	beat("running");
	pthread_mutex_unlock(&T.lock);
	vlog("check %d: R %d, %d worker(s), %lld marked reads, %d view(s), %d attachment(s)%s%s, %.0f ms",
	     phase, r, nread, sum, count_views(), count_attach(M_VIEW, true),
	     extra[0] ? ", in-eBPF reference" : "",
	     extra[1] ? ", global program" : "", (now() - t0) * 1000);
	pthread_mutex_unlock(&G.lock);
}

/* ------------------------------------------------------------------ */
/* Teardown and the final invariants                                   */

/* Lines of kview/stats read (it has about 20). */
#define STAT_LINES 48

struct stat_line {
	char name[32];
	long value;
};

static int read_stats(struct stat_line *s, int max)
{
	char *buf = read_all(KVIEW_DEBUGFS "stats"), *line, *save = NULL;
	int n = 0;

	if (!buf)
		return 0;
	for (line = strtok_r(buf, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%31s %ld", s[n].name, &s[n].value) == 2)
			n++;
	free(buf);
	return n;
}

static long stat_get(struct stat_line *s, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s[i].name, name))
			return s[i].value;
	return -1;
}

static void teardown(void)
{
	double end;
	int i, st;

	/* Workers: every group we made, then every process we know. */
	beat("teardown: kill the workers");
	for (i = 0; i < G.npgids; i++)
		kill(-G.pgids[i], SIGKILL);
	for (i = 0; i < WORKER_SLOTS; i++)
		if (G.workers[i].used && G.workers[i].pid > 0)
			kill(G.workers[i].pid, SIGKILL);
	for (i = 0; i < WORKER_SLOTS; i++) {
		struct worker *w = &G.workers[i];

		if (!w->used)
			continue;
		if (w->sock >= 0 && w->pid > 0 && wait_gone(w, 10000))
			violation("teardown: worker %d did not go away", w->pid);
		if (w->sock >= 0)
			close(w->sock);
		memset(w, 0, sizeof(*w));
	}
	beat("teardown: reap");
	end = now() + 10;
	while (now() < end) {
		pid_t p = waitpid(-1, &st, WNOHANG);

		if (p < 0)
			break;
		if (!p)
			usleep(10000);
	}

	beat("teardown: destroy the links");
	for (i = 0; i < ATTACH_SLOTS; i++) {
		struct attach *at = &G.attach[i];

		if (!at->used)
			continue;
		beat(NULL);
		if (at->link) {
			if (at->nexits)
				check_exits(at, "at the teardown");
			bpf_link__destroy(at->link);
		}
		at->link = NULL;
		attach_release(at);
	}
	beat("teardown: close the views");
	for (i = 0; i < VIEW_SLOTS; i++) {
		struct view *v = &G.views[i];

		if (!v->used)
			continue;
		kview__destroy(v->kv);
		v->kv = NULL;
		v->busy = false;
		view_maybe_die(v);
	}
	beat("teardown: unload the BPF objects");
	for (i = 0; i < NR_HOOKS; i++)
		while (G.pool[i]) {
			struct inst *in = G.pool[i];

			G.pool[i] = in->next;
			inst_free(in);
		}

	beat("teardown: close the perf events");
	for (i = 0; i <= MAX_PERF; i++)
		if (T.perf[i].used)
			perf_close(&T.perf[i]);
	beat("teardown: remove the kprobe events");
	for (i = 0; i < MAX_KPEVENTS; i++)
		if (T.kpev[i].used && kpev_remove(i))
			violation("teardown: remove kprobe event %s", T.kpev[i].name);
	beat("teardown: disable the tracefs events");
	for (i = 0; i < 5; i++)
		if (T.event_on[i]) {
			char path[256];

			snprintf(path, sizeof(path), TRACING "events/%s/enable", events[i]);
			if (write_file(path, "0", false))
				violation("teardown: disable %s", events[i]);
			T.event_on[i] = false;
		}
	beat("teardown: function tracer off");
	if (T.ftrace_on)
		ftrace_off();
	beat("teardown: bpf_stats_enabled");
	if (T.bpf_stats_orig >= 0) {
		char v[24];

		snprintf(v, sizeof(v), "%ld", T.bpf_stats_orig);
		write_file(BPF_STATS, v, false);
	}
}

static char *kprobes_before;
static bool syscall_work_before;

/* Invariant 5: nothing is left. */
static void check_clean(long oos_before)
{
	static const char *const must_be_0[] = { "views", "patches", "pages", "pt_pages" };
	struct stat_line s[STAT_LINES];
	char *after, *line, *save = NULL, buf[1024];
	int n = 0, i, tids[64];
	size_t nt = 0;
	double end = now() + 3.0;
	bool dirty;

	beat("final checks");
	do {
		n = read_stats(s, STAT_LINES);
		dirty = false;
		for (i = 0; i < 4; i++)
			dirty |= stat_get(s, n, must_be_0[i]) != 0;
		nt = syscall_work_tids(tids, 64);
		dirty |= nt > 0 && !syscall_work_before;
		if (dirty)
			usleep(50000);
	} while (dirty && now() < end);

	buf[0] = '\0';
	for (i = 0; i < n; i++)
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%.31s %ld",
			 i ? ", " : "", s[i].name, s[i].value);
	say("kview-stress: kview/stats after the teardown: %s", buf);
	for (i = 0; i < 4; i++)
		if (stat_get(s, n, must_be_0[i]) != 0)
			violation("teardown: kview/stats %s is %ld, not 0",
				  must_be_0[i], stat_get(s, n, must_be_0[i]));
	/*
	 * Nothing here adopts a member's mm (kthread_use_mm()), the one way
	 * left for a task outside a view to run its text.
	 */
	if (stat_get(s, n, "out_of_scope") >= 0 && oos_before >= 0) {
		long oos = stat_get(s, n, "out_of_scope") - oos_before;

		say("kview-stress: out_of_scope went up by %ld", oos);
		if (oos)
			violation("kview/stats out_of_scope went up by %ld: tasks outside a view reached its hooks through its text",
				  oos);
	}
	for (i = 0; i < (int)nt && !syscall_work_before; i++)
		violation("teardown: task %d (%s) still has the syscall-work flag",
			  tids[i], comm_of(tids[i]));

	after = read_all("/sys/kernel/debug/kprobes/list");
	for (line = after ? strtok_r(after, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		if (!kprobes_before || !strstr(kprobes_before, line))
			violation("teardown: kprobe left: %s", line);
	free(after);
}

/* ------------------------------------------------------------------ */

static void on_signal(int sig)
{
	got_signal = sig;
}

static void usage(void)
{
	fprintf(stderr, "usage: kview-stress [--seed S] [--ops N] [--actors A] [--duration SEC] [-v]\n"
		"       [--global-only]   no view: the same churn, all global (A/B runs)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct actor actors[16];
	struct stat_line s[STAT_LINES];
	pthread_t watchdog;
	uint64_t seed;
	long ops = 400, duration = 0, oos_before;
	int nactors = 3, i, n, err, tids[64];
	double next_progress = 0;
	struct timespec ts;

	if (argc == 4 && !strcmp(argv[1], "--worker"))
		return worker_main(atoi(argv[2]), atoi(argv[3]));

	clock_gettime(CLOCK_REALTIME, &ts);
	seed = (uint64_t)ts.tv_sec * 1000003 ^ ts.tv_nsec ^ getpid();
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--ops") && i + 1 < argc)
			ops = atol(argv[++i]);
		else if (!strcmp(argv[i], "--actors") && i + 1 < argc)
			nactors = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--duration") && i + 1 < argc)
			duration = atol(argv[++i]);
		else if (!strcmp(argv[i], "-v"))
			verbose = true;
		else if (!strcmp(argv[i], "--global-only"))
			global_only = true;
		else
			usage();
	}
	if (ops < 1 || nactors < 1 || nactors > 16 || duration < 0)
		usage();
	duration_mode = duration > 0;
	page_size = sysconf(_SC_PAGESIZE);
	{
		char *v = read_all("/proc/sys/kernel/pid_max");

		pid_max = v ? strtoul(v, NULL, 10) : 0;
		free(v);
		check(pid_max, "read /proc/sys/kernel/pid_max: %s", strerror(errno));
	}

	say("kview-stress: seed %llu ops %s%ld actors %d%s", (unsigned long long)seed,
	    duration_mode ? "unbounded, duration " : "",
	    duration_mode ? duration : ops, nactors,
	    global_only ? " (global only: no views)" : "");
	t_start = now();

	/* What we need, and what the machine holds before us. */
	check(!access(KVIEW_DEVICE, R_OK | W_OK), "%s: %s", KVIEW_DEVICE, strerror(errno));
	check(readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1) > 0,
	      "readlink /proc/self/exe: %s", strerror(errno));
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus > MAX_CPUS)
		ncpus = MAX_CPUS;
	etext = ksym("_etext");
	past_off = past_site_offset("ksys_read");
	n = read_stats(s, STAT_LINES);
	check(n, "no %sstats", KVIEW_DEBUGFS);
	oos_before = stat_get(s, n, "out_of_scope");
	if (stat_get(s, n, "views") || stat_get(s, n, "patches"))
		note("kview/stats before the stress: %ld view(s), %ld patch(es)",
		     stat_get(s, n, "views"), stat_get(s, n, "patches"));
	syscall_work_before = syscall_work_tids(tids, 64);
	if (syscall_work_before)
		note("tasks have the syscall-work flag before the stress: not checked after it");
	kprobes_before = read_all("/sys/kernel/debug/kprobes/list");
	T.bpf_stats_orig = read_long(BPF_STATS, -1);
	T.bpf_stats = T.bpf_stats_orig > 0;
	if (read_long(TRACING "events/syscalls/sys_enter_read/enable", 0) ||
	    read_long(TRACING "events/raw_syscalls/sys_enter/enable", 0))
		note("a syscall event is enabled in tracefs before the stress");

	prctl(PR_SET_CHILD_SUBREAPER, 1);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	libbpf_set_print(NULL);

	err = perf_open(&T.perf[0], "syscalls/sys_enter_read");
	if (err)
		violation("perf_event_open syscalls:sys_enter_read: %s", err_name(-err));

	rng_seed(&main_rng, seed, 1000);
	G.nops = duration_mode ? LONG_MAX : ops;
	G.next_check = 20 + rnd(&main_rng, 40);
	deadline = t_start + duration;
	if (duration_mode)
		next_progress = t_start + duration / 10.0;
	beat("running");
	watch_actors = actors;
	watch_nactors = nactors;
	err = pthread_create(&watchdog, NULL, watchdog_main, NULL);
	check(!err, "pthread_create: %s", strerror(err));
	pthread_detach(watchdog);
	for (i = 0; i < nactors; i++) {
		actors[i].idx = i;
		actors[i].cur = -1;
		rng_seed(&actors[i].rng, seed, i);
		err = pthread_create(&actors[i].thread, NULL, actor_main, &actors[i]);
		check(!err, "pthread_create: %s", strerror(err));
	}

	/* Check phases whenever the actors reach the next one. */
	pthread_mutex_lock(&G.lock);
	for (;;) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 200 * 1000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&G.cond, &G.lock, &until);
		if (got_signal || (duration_mode && now() >= deadline)) {
			if (got_signal)
				note("signal %d: stopping", (int)got_signal);
			G.stop = true;
			pthread_cond_broadcast(&G.cond);
		}
		if (duration_mode && now() >= next_progress && !G.stop) {
			next_progress += duration / 10.0;
			pthread_mutex_unlock(&G.lock);
			progress(G.done);
			pthread_mutex_lock(&G.lock);
		}
		if (G.stop || G.done >= G.nops)
			break;
		if (G.inflight || G.next_ticket < G.next_check)
			continue;
		pthread_mutex_unlock(&G.lock);
		check_phase(false);
		pthread_mutex_lock(&G.lock);
		G.next_check = G.done + 20 + rnd(&main_rng, 40);
		pthread_cond_broadcast(&G.cond);
	}
	pthread_mutex_unlock(&G.lock);
	for (i = 0; i < nactors; i++)
		pthread_join(actors[i].thread, NULL);

	beat("final check phase");
	if (!got_signal)
		check_phase(true);
	teardown();
	check_clean(oos_before);
	{
		char buf[1024] = "";

		for (i = 0; i < NR_HOOKS; i++)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
				 " %s %lu/%lu/%lu%s", hooks[i].prog,
				 G.attached[i][M_VIEW], G.attached[i][M_PRE],
				 G.attached[i][M_GLOBAL],
				 G.refused[i] ? " (refused)" : "");
		say("kview-stress: attachments view/pre/global:%s", buf);
	}
	for (i = 0; i < NR_HOOKS; i++)
		if (G.refused[i])
			note("%s refused in a view %lu time(s) (EOPNOTSUPP)",
			     hooks[i].name, G.refused[i]);
	say("kview-stress: %ld check phases, %.1f s", (long)phase, now() - t_start);
	for (i = 0; i < RECAP && i < violations; i++)
		say("# violation %d: %.300s", i + 1, recap[i]);
	if (violations > RECAP)
		say("# ... and %ld more", violations - RECAP);
	say("kview-stress: %ld ops, %ld invariant violations", G.done, violations);
	return violations ? 1 : 0;
}
