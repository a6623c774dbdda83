// SPDX-License-Identifier: GPL-2.0
/*
 * kview-scope: what reaches a view's programs is exactly what the in-eBPF
 * filter (pid == N) lets through, and a view changes nothing for anybody
 * else's tracing.
 *
 *   global-perf   a program in A's view on syscalls/sys_enter_read leaves
 *                 global perf users of the tracepoint alone: a counting
 *                 perf event (no program) and one with a global program
 *                 that returns 1 get every event of B, an untraced process
 *                 doing the same reads (A's are dropped, as any program
 *                 returning 0 drops them in mainline: the view's program
 *                 is A's filter)
 *   exit-events   events the target raises on its way out, after exit_mm()
 *                 (sched_process_exit, the SIGCHLD to its parent, a kprobe
 *                 on exit_files()), reach its view as they reach pid == N
 *   lazy-tlb      on 2 vCPUs with timers and loopback TCP: hooks that run
 *                 in interrupts, softirqs and the scheduler, in the view of
 *                 a process that sleeps between round trips, are never
 *                 reached by anybody else (kview/stats out_of_scope stays
 *                 0: idle CPUs and kernel threads do not run view text)
 *   lazy-join     a process joins a view (and a filter view, with
 *                 lazy-join-filter) while the idle task of its CPU borrows
 *                 its page tables: the idle task must not run the view's
 *                 text from then on (its sched_switch on the process's
 *                 wakeup is not an out-of-scope hit)
 *   efi-runtime   a member makes EFI runtime calls (reads efivarfs, under
 *                 kvm/run --firmware efi): efi_rts_wq's worker borrows the
 *                 member's mm and must not come back from the firmware's
 *                 page tables onto the view's (out_of_scope stays 0)
 *
 * One suite (tests/lib/harness.h): the fixture is what a case makes (the
 * processes, the view, the objects and their links, perf events, pipes),
 * released by its teardown if a check failed first.  Each case runs in a
 * process of its own, which it may pin to CPU 0.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kvtest.h"
#include "scope.skel.h"

#define N 2000
#define NSTR "2000"

static char workload[4096];

#define MAX_SKELS 6
#define MAX_CPUS 64

/* What the case made; NULL or 0 is what it did not, or released. */
struct sc {
	pid_t t, d;			/* target (A), decoy (B) or child */
	struct kview *kv;
	struct scope *skels[MAX_SKELS];
	struct bpf_link *links[MAX_SKELS];
	int cpufd[MAX_CPUS], taskfd;	/* perf events */
	int ready[2], go[2];		/* pipes to the child */
};

static struct scope *load(const char *prog, unsigned int filter,
			  unsigned long mark)
{
	struct scope *skel = scope__open();

	check(skel, "open scope.bpf.o: %s", strerror(errno));
	skel->rodata->filter_tgid = filter;
	skel->rodata->mark_size = mark;
	only_program(skel->obj, prog);
	check(!scope__load(skel), "load %s: %s", prog, strerror(errno));
	return skel;
}

static struct bpf_link *attach(struct scope *skel, const char *prog,
			       struct kview *kv)
{
	return attach_prog(skel->obj, prog, kv);
}

static unsigned long long counted(struct scope *skel, pid_t pid)
{
	return map_u32_count(bpf_map__fd(skel->maps.counts), pid);
}

static size_t keys(struct scope *skel, unsigned int *k, size_t max)
{
	return map_u32_keys(bpf_map__fd(skel->maps.counts), k, max);
}

static void close_pipes(struct sc *f)
{
	release_fd(&f->ready[0]);
	release_fd(&f->ready[1]);
	release_fd(&f->go[0]);
	release_fd(&f->go[1]);
}

static void open_pipes(struct sc *f)
{
	check(!pipe(f->ready) && !pipe(f->go), "pipe: %s", strerror(errno));
}

/* Skeleton @i's link, then the skeleton. */
static void release_skel(struct sc *f, size_t i)
{
	release_link(&f->links[i]);
	scope__destroy(f->skels[i]);
	f->skels[i] = NULL;
}

/* Detach, close the perf events, the pipes, the view and the objects. */
static void sc_release(struct sc *f)
{
	size_t i;

	for (i = MAX_SKELS; i-- > 0;)
		release_link(&f->links[i]);
	release_fd(&f->taskfd);
	for (i = 0; i < MAX_CPUS; i++)
		release_fd(&f->cpufd[i]);
	close_pipes(f);
	release_view(&f->kv);
	for (i = 0; i < MAX_SKELS; i++)
		release_skel(f, i);
}

static void sc_teardown(void *fixture, const void *variant)
{
	struct sc *f = fixture;

	(void)variant;
	reap_child(f->t);
	reap_child(f->d);
	sc_release(f);
}

static long tracepoint_id(const char *sys, const char *name)
{
	char path[256];
	long id = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/events/%s/%s/id",
		 sys, name);
	f = fopen(path, "r");
	check(f, "%s: %s", path, strerror(errno));
	check(fscanf(f, "%ld", &id) == 1, "no id in %s", path);
	fclose(f);
	return id;
}

/* A counting perf event on a tracepoint, with a filter. */
static int tp_counter(long id, pid_t pid, int cpu, const char *filter)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = id,
		.sample_period = 1,
	};
	int fd = syscall(SYS_perf_event_open, &attr, pid, cpu, -1,
			 PERF_FLAG_FD_CLOEXEC);

	check(fd >= 0, "perf_event_open(tracepoint %ld, pid %d, cpu %d): %s",
	      id, pid, cpu, strerror(errno));
	check(!ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter),
	      "set filter '%s': %s", filter, strerror(errno));
	return fd;
}

static unsigned long long read_counter(int fd)
{
	unsigned long long v = 0;

	check(read(fd, &v, sizeof(v)) == sizeof(v), "read counter: %s",
	      strerror(errno));
	return v;
}

/*
 * Global perf users of syscalls/sys_enter_read: system-wide counters on
 * each of @ncpu CPUs, no program, and one on B with a global program that
 * returns 1 (skeleton 1).
 */
static void global_perf_users(struct sc *f, int ncpu)
{
	long id = tracepoint_id("syscalls", "sys_enter_read");
	int cpu;

	/* Global perf users: system-wide counters, no program... */
	for (cpu = 0; cpu < ncpu; cpu++)
		f->cpufd[cpu] = tp_counter(id, -1, cpu, "count == 7");
	/* ...and one on B with a global program that returns 1. */
	f->skels[1] = load("tp_read_pass", 0, MARK_SIZE);
	f->taskfd = tp_counter(id, f->d, -1, "count == 7");
	f->links[1] = bpf_program__attach_perf_event(f->skels[1]->progs.tp_read_pass,
						     f->taskfd);
	check(f->links[1], "attach tp_read_pass to the perf event: %s", strerror(errno));
}

static void test_global_perf(void *fixture, const void *variant)
{
	char *args[] = { workload, "reads", NSTR, NULL };
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), cpu;
	unsigned long long all = 0, task;
	struct sc *f = fixture;
	struct scope *view, *pass;
	pid_t a, b;

	(void)variant;
	check(ncpu > 0 && ncpu <= MAX_CPUS, "%d CPUs", ncpu);
	f->t = a = spawn_stopped(args);
	f->d = b = spawn_stopped(args);
	f->kv = kview__create(a, NULL);
	check(f->kv, "kview__create: %s", strerror(errno));
	f->skels[0] = view = load("tp_read_drop", 0, MARK_SIZE);
	f->links[0] = attach(view, "tp_read_drop", f->kv);
	global_perf_users(f, ncpu);
	pass = f->skels[1];

	resume(a);
	resume(b);
	check_eq(wait_exit(a), 0);
	check_eq(wait_exit(b), 0);
	for (cpu = 0; cpu < ncpu; cpu++) {
		all += read_counter(f->cpufd[cpu]);
		release_fd(&f->cpufd[cpu]);
	}
	task = read_counter(f->taskfd);
	diag("view program: A %llu, B %llu; global program: A %llu, B %llu",
	     counted(view, a), counted(view, b), counted(pass, a),
	     counted(pass, b));
	diag("perf counts of marked reads: system-wide %llu, on B with a program %llu",
	     all, task);
	check_eq(counted(view, a), N);
	check_eq(counted(view, b), 0);
	check_eq(counted(pass, a), N);
	check_eq(counted(pass, b), N);
	/* B's events reach every global user; A's are its view's to drop. */
	check_eq(task, N);
	check_eq(all, N);
	sc_release(f);
	check_stats_clean();
}

static const char *const exit_progs[] = { "tp_exit", "tp_sigchld",
					  "kp_exit_files" };
#define NEXIT (sizeof(exit_progs) / sizeof(exit_progs[0]))

/*
 * The exit-path programs, in the view of a process that exits (@view), or
 * globally with pid == N (in-eBPF): what each counted for the process.
 */
static void run_exit(struct sc *f, bool in_view, unsigned long long *got)
{
	char *args[] = { workload, "reads", "10", NULL };
	unsigned int k[16];
	size_t i;
	pid_t t, d;

	f->t = t = spawn_stopped(args);
	f->d = d = spawn_stopped(args);
	if (in_view) {
		f->kv = kview__create(t, NULL);
		check(f->kv, "kview__create: %s", strerror(errno));
	}
	for (i = 0; i < NEXIT; i++) {
		f->skels[i] = load(exit_progs[i], in_view ? 0 : t, 0);
		f->links[i] = attach(f->skels[i], exit_progs[i], f->kv);
	}
	resume(t);
	resume(d);
	check_eq(wait_exit(t), 0);
	check_eq(wait_exit(d), 0);
	for (i = 0; i < NEXIT; i++) {
		got[i] = counted(f->skels[i], t);
		diag("%s %s: target %llu, decoy %llu", exit_progs[i],
		     in_view ? "in the view" : "in-eBPF", got[i],
		     counted(f->skels[i], d));
		check_eq(counted(f->skels[i], d), 0);
		check(keys(f->skels[i], k, 16) <= 1, "%s counted other processes",
		      exit_progs[i]);
		release_skel(f, i);
	}
	release_view(&f->kv);
	check_stats_clean();
}

static void test_exit_events(void *fixture, const void *variant)
{
	unsigned long long view[NEXIT], in[NEXIT];
	size_t i;

	(void)variant;
	run_exit(fixture, false, in);
	run_exit(fixture, true, view);
	for (i = 0; i < NEXIT; i++) {
		check(in[i] >= 1, "in-eBPF saw no %s of the target", exit_progs[i]);
		check_eq(view[i], in[i]);
	}
}

static const char *const irq_progs[] = { "tp_softirq", "tp_hrtimer",
					 "tp_switch", "tp_netif",
					 "kp_tcp_rcv", "kp_hrtimer_irq" };
#define NIRQ (sizeof(irq_progs) / sizeof(irq_progs[0]))

/* The interrupt, softirq and scheduler programs in the target's view. */
static void attach_irq_progs(struct sc *f)
{
	struct bpf_program *p;
	size_t i;

	for (i = 0; i < NIRQ; i++) {
		f->skels[i] = load(irq_progs[i], 0, 0);
		p = bpf_object__find_program_by_name(f->skels[i]->obj, irq_progs[i]);
		f->links[i] = kview__attach_program(f->kv, p);
		/*
		 * A view refuses a tracepoint whose jump sites it cannot patch
		 * (one across a page boundary, kview_text_ok()); where they
		 * fall depends on the build: the fresh clone's kernel refused
		 * net/netif_receive_skb, ours not.  The others still cover
		 * the path.
		 */
		if (!f->links[i] && errno == EOPNOTSUPP && !strncmp(irq_progs[i], "tp_", 3)) {
			diag("%s refused in the view: %s", irq_progs[i],
			     strerror(errno));
			continue;
		}
		check(f->links[i], "attach %s in the view: %s", irq_progs[i],
		      strerror(errno));
	}
}

/* Each program counted the target only: the sum of what it counted. */
static unsigned long long irq_counts(struct sc *f)
{
	unsigned long long total = 0;
	unsigned int k[64];
	size_t i, j, n;

	for (i = 0; i < NIRQ; i++) {
		n = keys(f->skels[i], k, 64);
		diag("%s in the view: target %llu, %zu process(es)",
		     irq_progs[i], counted(f->skels[i], f->t), n);
		for (j = 0; j < n; j++)
			check(k[j] == (unsigned int)f->t,
			      "%s counted process %u (%llu events)", irq_progs[i],
			      k[j], counted(f->skels[i], k[j]));
		total += counted(f->skels[i], f->t);
		release_skel(f, i);
	}
	return total;
}

static void test_lazy_tlb(void *fixture, const void *variant)
{
	char *args[] = { workload, "pingpong", "3000", NULL };
	struct kview_stats before, after;
	struct sc *f = fixture;
	unsigned long long total;

	(void)variant;
	check(sysconf(_SC_NPROCESSORS_ONLN) >= 2, "needs 2 CPUs");
	f->t = spawn_stopped(args);
	f->d = spawn_stopped(args);
	f->kv = kview__create(f->t, NULL);
	check(f->kv, "kview__create: %s", strerror(errno));
	attach_irq_progs(f);
	before = kview_stats();
	resume(f->t);
	resume(f->d);
	check_eq(wait_exit(f->t), 0);
	check_eq(wait_exit(f->d), 0);
	after = kview_stats();
	total = irq_counts(f);
	diag("out-of-scope hits on the view's text: %lu", after.out_of_scope -
	     before.out_of_scope);
	check(total > 0, "the view saw nothing of the target");
	check_eq(after.out_of_scope - before.out_of_scope, 0);
	release_view(&f->kv);
	check_stats_clean();
}

/* /proc/PID/stat's state letter, or 0. */
static char task_state(pid_t pid)
{
	char path[64], comm_state[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(comm_state, 1, sizeof(comm_state) - 1, f);
	fclose(f);
	comm_state[n] = 0;
	p = strrchr(comm_state, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/*
 * One round of lazy-join: a child that sleeps on CPU 1 joins a view (made
 * with @opts) with tp_switch in it, and is woken.  What the view counted
 * of the child's switches; it counted nobody else.
 */
static unsigned long long lazy_join_round(struct sc *f, const struct kview_opts *opts)
{
	struct scope *skel = f->skels[0];
	unsigned long long hits;
	struct kview_info info;
	unsigned int k[64];
	size_t n, j;
	char c;

	f->kv = kview__create(0, opts);
	check(f->kv, "kview__create: %s", strerror(errno));
	f->links[0] = attach(skel, "tp_switch", f->kv);
	open_pipes(f);
	f->t = fork();
	check(f->t >= 0, "fork: %s", strerror(errno));
	if (!f->t) {
		pin_to_cpu(1);
		if (write(f->ready[1], "r", 1) != 1 || read(f->go[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	check(read(f->ready[0], &c, 1) == 1, "the child did not start");
	/* Asleep in read(), and CPU 1 idle on its page tables. */
	check(WAIT_FOR(task_state(f->t) == 'S', 10), "the child did not sleep");
	usleep(100000);
	check(!kview__add_pid(f->kv, f->t), "kview__add_pid: %s", strerror(errno));
	usleep(100000);
	check(write(f->go[1], "g", 1) == 1, "wake the child: %s", strerror(errno));
	check_eq(wait_exit(f->t), 0);
	/*
	 * Its last switch, which the view counts, may come after the
	 * reap: it leaves the view there.
	 */
	info = kview_info_memberless(f->kv);
	check_eq(info.nr_members, 0);
	close_pipes(f);
	n = keys(skel, k, 64);
	for (j = 0; j < n; j++)
		check(k[j] == (unsigned int)f->t,
		      "tp_switch in the view counted process %u", k[j]);
	hits = counted(skel, f->t);
	release_link(&f->links[0]);
	release_view(&f->kv);
	/* The next round's child may get the same pid. */
	for (j = 0; j < n; j++)
		bpf_map_delete_elem(bpf_map__fd(skel->maps.counts), &k[j]);
	return hits;
}

/*
 * A process that last ran on CPU 1 sleeps there, so that CPU 1's idle task
 * runs in lazy TLB mode on its page tables (nothing else runs on CPU 1:
 * this test holds CPU 0).  The process then joins a view that has a
 * program on sched_switch, and is woken: the idle task's switch to it is
 * the first thing that can reach the view's tracepoint on CPU 1.  Before
 * the join took lazy CPUs off the process's tables, the idle task ran the
 * view's text there and reached the view's program (out_of_scope); the
 * program must count the process's own switches only.
 */
static void test_lazy_join(void *fixture, const void *variant)
{
	bool filter = *(const bool *)variant;
	LIBBPF_OPTS(kview_opts, opts, .filter = filter);
	struct kview_stats before, after;
	unsigned long long hits = 0;
	struct sc *f = fixture;
	int i, rounds = 5;

	check(sysconf(_SC_NPROCESSORS_ONLN) >= 2, "needs 2 CPUs");
	pin_to_cpu(0);
	f->skels[0] = load("tp_switch", 0, 0);
	before = kview_stats();
	for (i = 0; i < rounds; i++)
		hits += lazy_join_round(f, &opts);
	after = kview_stats();
	diag("%s: the child's switches counted %llu in %d rounds; out-of-scope hits %lu",
	     filter ? "filter view" : "view", hits, rounds,
	     after.out_of_scope - before.out_of_scope);
	check(hits > 0, "the view saw no switch of the child");
	check_eq(after.out_of_scope - before.out_of_scope, 0);
	release_skel(f, 0);
	check_stats_clean();
}

#define EFIVARS "/sys/firmware/efi/efivars"

/* Is efivarfs mounted on EFIVARS? */
static bool efivarfs_mounted(void)
{
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");

	check(f, "/proc/mounts: %s", strerror(errno));
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " " EFIVARS " efivarfs ") != NULL;
	fclose(f);
	return found;
}

/* Mount efivarfs if needed; the path of one EFI variable in it. */
static void efivar_path(char *buf, size_t size)
{
	struct dirent *d;
	DIR *dir;

	check(!access("/sys/firmware/efi", F_OK),
	      "not booted through EFI firmware (kvm/run --firmware efi)");
	if (!efivarfs_mounted()) {
		check(!system("grep -qw efivarfs /proc/filesystems || "
			      "modprobe -d \"$KVIEW_MODROOT\" efivarfs"),
		      "no efivarfs (CONFIG_EFIVAR_FS)");
		check(!mount("efivarfs", EFIVARS, "efivarfs", 0, NULL),
		      "mount efivarfs: %s", strerror(errno));
	}
	dir = opendir(EFIVARS);
	check(dir, "opendir %s: %s", EFIVARS, strerror(errno));
	buf[0] = 0;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.') {
			snprintf(buf, size, "%s/%s", EFIVARS, d->d_name);
			break;
		}
	closedir(dir);
	check(buf[0], "the firmware has no EFI variable to read");
}

static volatile int efi_stop;

/* The member's second thread: keeps CPU 0 lazy on the member's mm. */
static void *efi_sleeper(void *arg)
{
	(void)arg;
	pin_to_cpu(0);
	while (!efi_stop)
		usleep(200);
	return NULL;
}

/*
 * The member: on CPU 1, told to go, reads the EFI variable @var @reads
 * times while its second thread comes and goes on CPU 0.  Exits 0 if
 * every read worked.
 */
static void __attribute__((noreturn)) efi_member(struct sc *f, const char *var,
						  int reads)
{
	char buf[4096], c;
	pthread_t th;
	int i, fd, ok = 0;

	pin_to_cpu(1);
	if (write(f->ready[1], "r", 1) != 1 || read(f->go[0], &c, 1) != 1)
		_exit(1);
	if (pthread_create(&th, NULL, efi_sleeper, NULL))
		_exit(1);
	for (i = 0; i < reads; i++) {
		fd = open(var, O_RDONLY);
		if (fd >= 0 && read(fd, buf, sizeof(buf)) > 4)
			ok++;
		if (fd >= 0)
			close(fd);
	}
	efi_stop = 1;
	pthread_join(th, NULL);
	_exit(ok == reads ? 0 : 2);
}

/*
 * EFI runtime services run in efi_rts_wq's worker, a kernel thread that
 * borrows the mm of whatever ran before it on its CPU (active_mm), while
 * the CPU runs on init_mm's tables when that mm is a view member's (design
 * section 4, lazy TLB).  efi_enter_mm() switches to efi_mm for the call;
 * efi_leave_mm() must switch back to what the CPU had loaded, not to the
 * borrowed mm: else the worker runs on in the member's view until it
 * sleeps, and its own sched_switch reaches the view's program from
 * outside the view.  The member reads an EFI variable on CPU 1 while its
 * other thread comes and goes on CPU 0, so wherever the worker runs, the
 * mm it borrows is the member's.
 */
static void test_efi_runtime(void *fixture, const void *variant)
{
	struct kview_stats before, after;
	struct sc *f = fixture;
	int reads = 300;
	unsigned int k[64];
	char var[512], c;
	size_t n, j;

	(void)variant;
	check(sysconf(_SC_NPROCESSORS_ONLN) >= 2, "needs 2 CPUs");
	efivar_path(var, sizeof(var));
	diag("reading %s", var);
	pin_to_cpu(0);
	f->skels[0] = load("tp_switch", 0, 0);
	f->kv = kview__create(0, NULL);
	check(f->kv, "kview__create: %s", strerror(errno));
	f->links[0] = attach(f->skels[0], "tp_switch", f->kv);
	open_pipes(f);
	f->t = fork();
	check(f->t >= 0, "fork: %s", strerror(errno));
	if (!f->t)
		efi_member(f, var, reads);
	check(read(f->ready[0], &c, 1) == 1, "the child did not start");
	check(!kview__add_pid(f->kv, f->t), "kview__add_pid: %s", strerror(errno));
	before = kview_stats();
	check(write(f->go[1], "g", 1) == 1, "start the child: %s", strerror(errno));
	check_eq(wait_exit(f->t), 0);
	kview_info_memberless(f->kv);
	after = kview_stats();
	n = keys(f->skels[0], k, 64);
	for (j = 0; j < n; j++)
		check(k[j] == (unsigned int)f->t,
		      "tp_switch in the view counted process %u", k[j]);
	diag("%d EFI variable reads; the member's switches counted %llu; out-of-scope hits %lu",
	     reads, counted(f->skels[0], f->t), after.out_of_scope - before.out_of_scope);
	check(counted(f->skels[0], f->t) > 0, "the view saw no switch of the member");
	check_eq(after.out_of_scope - before.out_of_scope, 0);
	sc_release(f);
	check_stats_clean();
}

static const bool view_join = false, filter_join = true;

static const struct check_case cases[] = {
	{ "global-perf", test_global_perf, NULL },
	{ "exit-events", test_exit_events, NULL },
	{ "lazy-tlb", test_lazy_tlb, NULL },
	{ "lazy-join", test_lazy_join, &view_join },
	{ "lazy-join-filter", test_lazy_join, &filter_join },
	{ "efi-runtime", test_efi_runtime, NULL },
};

static const struct check_suite suite = {
	.fixture_size = sizeof(struct sc),
	.teardown = sc_teardown,
	CHECK_CASES(cases),
};

int main(int argc, char **argv)
{
	workload_path(workload, sizeof(workload));
	return check_main(&suite, argc, argv);
}
