// SPDX-License-Identifier: GPL-2.0
/*
 * kview-tlb: what a real CPU charges untraced work for a view is nothing.
 * On 2 vCPUs, the test, the traced process and kview run on CPU 0; an
 * untraced process spins on CPU 1 (in user space and in getppid()).
 *
 *   ipis    CPU 1 takes no IPI (the CAL and TLB rows of /proc/interrupts)
 *           while, on CPU 0, a view is made on a running process and 16
 *           kprobes and a syscall tracepoint are attached in it, while
 *           they stay, while a second running process joins, while
 *           members fork, exec and exit, and while they are detached and
 *           the view closed.  A global static-key flip sends CPU 1 the
 *           same IPIs whether a view holds copies or not (mirroring adds
 *           none), and, as the reference that shows the count works, the
 *           same programs attached globally do send CPU 1 IPIs.
 *           kview/stats: the view's TLB flushes reached CPU 0 only.
 *   global  init_mm's page tables for the kernel text (debugfs
 *           page_tables/kernel, the High Kernel Mapping) are the same
 *           while a view holds copies in several regions as before:
 *           global bits included
 *   dmap    a second view's attach and detach changes the direct map
 *           not at all (DirectMap4k/2M/1G of /proc/meminfo, and
 *           kview/stats dmap_changes)
 *
 * The first view after boot (or after views were gone for a second)
 * flips kview's static key, a global text change with its IPIs, and
 * makes the pool of read-only pages for copies (one change of the
 * direct map): each mode first makes a view that it keeps, and runs one
 * attach and detach before it measures.
 *
 * One suite (tests/lib/harness.h): the fixture is that view, the loaded
 * programs (setup, which pins the case to CPU 0 and runs the attach and
 * detach), and what the case makes (processes, the view, its hooks),
 * released by its teardown if a check failed first.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kvtest.h"
#include "tlb.skel.h"

/* Functions with an ftrace site that the kprobes go on (16 are used). */
static const char *const funcs[] = {
	"vfs_read", "vfs_write", "ksys_read", "ksys_write", "do_sys_openat2",
	"do_filp_open", "vfs_fstat", "vfs_statx", "__fput", "filp_close",
	"do_epoll_wait", "tcp_sendmsg", "tcp_recvmsg", "sock_sendmsg",
	"sock_recvmsg", "__x64_sys_getppid", "__x64_sys_getpid",
	"do_nanosleep", "pipe_read", "pipe_write",
};
#define NPROBES 16
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct hooks {
	struct bpf_link *links[NPROBES + 1];
	unsigned int n;
};

/* What setup and the case made; NULL or 0 is what they did not, or released. */
struct tlbf {
	struct tlb *skel;
	struct kview *keeper, *kv;	/* setup's view, the case's */
	struct hooks h;			/* the case's hooks (kv's or global) */
	pid_t spin, target, second, forker;
	char *tables[3];		/* global: before, during, after */
};

/* The IPIs @cpu took: the CAL and TLB rows of /proc/interrupts. */
static unsigned long ipis(int cpu)
{
	char row[16], line[4096], *p, *end;
	unsigned long v, sum = 0;
	FILE *f = fopen("/proc/interrupts", "r");
	int i;

	check(f, "/proc/interrupts: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %15s", row) != 1 ||
		    (strcmp(row, "CAL:") && strcmp(row, "TLB:")))
			continue;
		p = strchr(line, ':') + 1;
		for (i = 0; i <= cpu; i++) {
			v = strtoul(p, &end, 10);
			check(end != p, "/proc/interrupts: no CPU %d in %s", cpu, row);
			p = end;
		}
		sum += v;
	}
	fclose(f);
	return sum;
}

/* A process pinned to @cpu that calls getppid() and spins, until killed. */
static pid_t spinner(int cpu)
{
	pid_t pid = fork();
	volatile unsigned long n = 0;

	check(pid >= 0, "fork: %s", strerror(errno));
	if (pid)
		return pid;
	pin_to_cpu(cpu);
	for (;;) {
		syscall(SYS_getppid);
		for (int i = 0; i < 1000; i++)
			n++;
	}
}

/* Kill and reap *@pid, and forget it. */
static void stop(pid_t *pid)
{
	kill(*pid, SIGKILL);
	waitpid(*pid, NULL, 0);
	*pid = 0;
}

static void write_sysctl(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	check(fd >= 0, "%s: %s", path, strerror(errno));
	check(write(fd, s, strlen(s)) == (ssize_t)strlen(s), "write %s: %s",
	      path, strerror(errno));
	close(fd);
}

/*
 * Attach the kprobe program to NPROBES functions and the tracepoint
 * program, in @kv's attach scope (NULL: globally).
 */
static void attach(struct tlb *skel, struct kview *kv, struct hooks *h)
{
	unsigned int i;

	memset(h, 0, sizeof(*h));
	if (kv)
		check(!kview__enter_scope(kv), "enter scope: %s", strerror(errno));
	for (i = 0; i < ARRAY_SIZE(funcs) && h->n < NPROBES; i++) {
		if (!ksym_find(funcs[i]))
			continue;
		h->links[h->n] = bpf_program__attach_kprobe(skel->progs.kp_any,
							    false, funcs[i]);
		check(h->links[h->n], "kprobe on %s%s: %s", funcs[i],
		      kv ? " in the view" : "", strerror(errno));
		h->n++;
	}
	check_eq(h->n, NPROBES);
	h->links[h->n] = bpf_program__attach(skel->progs.tp_sys_enter);
	check(h->links[h->n], "raw_syscalls:sys_enter%s: %s",
	      kv ? " in the view" : "", strerror(errno));
	h->n++;
	if (kv)
		check(!kview__leave_scope(kv), "leave scope: %s", strerror(errno));
}

static void detach(struct hooks *h)
{
	while (h->n)
		bpf_link__destroy(h->links[--h->n]);
}

/* A process pinned to CPU 0 reading /dev/zero a byte at a time, forever. */
static pid_t reader(void)
{
	char *argv[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
			 "status=none", NULL };
	pid_t pid = spawn_stopped(argv);
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	check(!sched_setaffinity(pid, sizeof(set), &set), "pin %d: %s", pid,
	      strerror(errno));
	resume(pid);
	return pid;
}

/* Detach, close the views, kill the processes, free the tables' text. */
static void tlb_teardown(void *fixture, const void *variant)
{
	struct tlbf *f = fixture;
	pid_t *pids[] = { &f->forker, &f->second, &f->target, &f->spin };
	size_t i;

	(void)variant;
	detach(&f->h);
	release_view(&f->kv);
	for (i = 0; i < sizeof(pids) / sizeof(pids[0]); i++)
		reap_child(*pids[i]);
	release_view(&f->keeper);
	tlb__destroy(f->skel);
	f->skel = NULL;
	for (i = 0; i < 3; i++)
		free(f->tables[i]);
}

/* The end of a case: nothing of it or of setup is left. */
static void tlb_done(struct tlbf *f)
{
	release_view(&f->keeper);
	tlb__destroy(f->skel);
	f->skel = NULL;
	check_stats_clean();
}

/* One view on a running reader, the hooks in it, detached, closed. */
static void cycle(struct tlbf *f)
{
	f->target = reader();
	f->kv = kview__create(f->target, NULL);
	check(f->kv, "kview__create(%d): %s", f->target, strerror(errno));
	attach(f->skel, f->kv, &f->h);
	usleep(100000);
	detach(&f->h);
	release_view(&f->kv);
	stop(&f->target);
}

/*
 * Pinned to CPU 0, the programs loaded, a view kept (kview's static key on,
 * the pool of copies made), and one attach and detach in another view.
 */
static void tlb_setup(void *fixture, const void *variant)
{
	struct tlbf *f = fixture;

	(void)variant;
	pin_to_cpu(0);
	check(sysconf(_SC_NPROCESSORS_ONLN) >= 2, "needs 2 CPUs");
	f->skel = tlb__open_and_load();
	check(f->skel, "load tlb.bpf.o: %s", strerror(errno));
	/* Keeps kview's static key on and the pool of copies. */
	f->keeper = kview__create(0, NULL);
	check(f->keeper, "kview__create: %s", strerror(errno));
	cycle(f);
}

/* CPU 1's IPIs over a phase must be none. */
#define PHASE(name, ...) do {						\
	unsigned long __b = ipis(1), __b0 = ipis(0), __d;		\
	__VA_ARGS__;							\
	__d = ipis(1) - __b;						\
	diag("%-34s CPU 1: %lu IPIs (CPU 0: %lu)", name, __d,		\
	     ipis(0) - __b0);						\
	check_eq(__d, 0);						\
} while (0)

/*
 * The view made on the running target with the hooks in it, a second
 * running process joining, members forking, execing and exiting: no IPI
 * for CPU 1 in any of it.
 */
static void ipis_view_phases(struct tlbf *f)
{
	LIBBPF_OPTS(kview_opts, opts, .follow_fork = true, .follow_exec = true);
	char *sh[] = { "sh", "-c", "for i in 1 2 3 4 5; do /bin/true; done", NULL };
	cpu_set_t set;

	PHASE("view made, hooks attached", {
		f->kv = kview__create(f->target, &opts);
		check(f->kv, "kview__create(%d): %s", f->target, strerror(errno));
		attach(f->skel, f->kv, &f->h);
	});
	PHASE("steady state (1 s)", usleep(1000000));
	PHASE("a running process joins", {
		check(!kview__add_pid(f->kv, f->second), "add %d: %s", f->second,
		      strerror(errno));
	});
	f->forker = spawn_stopped(sh);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	check(!sched_setaffinity(f->forker, sizeof(set), &set), "pin: %s",
	      strerror(errno));
	check(!kview__add_pid(f->kv, f->forker), "add %d: %s", f->forker,
	      strerror(errno));
	PHASE("members fork, exec and exit", {
		resume(f->forker);
		check_eq(wait_exit(f->forker), 0);
	});
	check(f->skel->bss->kprobe_hits && f->skel->bss->tp_hits,
	      "the view's programs never ran (kprobe %llu, tracepoint %llu)",
	      (unsigned long long)f->skel->bss->kprobe_hits,
	      (unsigned long long)f->skel->bss->tp_hits);
}

/* CPU 1's IPIs while kernel.bpf_stats_enabled flips twice. */
static unsigned long flip_ipis(void)
{
	unsigned long b = ipis(1);

	write_sysctl("/proc/sys/kernel/bpf_stats_enabled", "1");
	write_sysctl("/proc/sys/kernel/bpf_stats_enabled", "0");
	return ipis(1) - b;
}

static void test_ipis(void *fixture, const void *variant)
{
	unsigned long b, flips_none, flips_view, global, remote;
	struct tlbf *f = fixture;

	(void)variant;
	f->spin = spinner(1);
	f->target = reader();
	f->second = reader();
	usleep(200000);
	remote = kview_stat("tlb_flush_ipis");
	ipis_view_phases(f);
	check_eq(kview_stat("tlb_flush_ipis"), remote);
	check_eq(kview_stats().out_of_scope, 0);

	/* A global static key flipped with the view's copies present. */
	flips_view = flip_ipis();
	PHASE("hooks detached, view closed", {
		detach(&f->h);
		release_view(&f->kv);
	});
	stop(&f->second);
	stop(&f->target);
	flips_none = flip_ipis();
	diag("a static key flipped twice: CPU 1 took %lu IPIs with the view's copies, %lu without",
	     flips_view, flips_none);
	check_eq(flips_view, flips_none);

	/* The reference: the same hooks attached globally. */
	b = ipis(1);
	attach(f->skel, NULL, &f->h);
	detach(&f->h);
	global = ipis(1) - b;
	diag("the same hooks attached and detached globally: CPU 1 took %lu IPIs",
	     global);
	check(global > 0, "a global attach sent CPU 1 no IPI: the count is wrong");
	stop(&f->spin);
	tlb_done(f);
}

/* The High Kernel Mapping of debugfs page_tables/kernel, one string. */
static char *kernel_text_tables(void)
{
	FILE *f = fopen("/sys/kernel/debug/page_tables/kernel", "r");
	char line[512], *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	bool in = false;

	check(f, "debugfs page_tables/kernel: %s (CONFIG_PTDUMP_DEBUGFS)",
	      strerror(errno));
	check(m, "open_memstream: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "---[ High Kernel Mapping ]---"))
			in = true;
		else if (strstr(line, "---["))
			in = false;
		else if (in)
			fputs(line, m);
	}
	fclose(f);
	fclose(m);
	check(len, "no High Kernel Mapping in page_tables/kernel");
	return out;
}

static void test_global(void *fixture, const void *variant)
{
	struct tlbf *f = fixture;
	struct kview_info info;
	char **t = f->tables;

	(void)variant;
	f->target = reader();
	t[0] = kernel_text_tables();
	diag("kernel image mappings before the view:\n%s", t[0]);
	diag("global (GLB) text mappings: %s (PTI with PCID maps the image non-global)",
	     strstr(t[0], "GLB") ? "yes" : "none");
	f->kv = kview__create(f->target, NULL);
	check(f->kv, "kview__create(%d): %s", f->target, strerror(errno));
	attach(f->skel, f->kv, &f->h);
	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	diag("the view holds %u copied pages", info.nr_pages);
	check(info.nr_pages >= 8, "only %u copies", info.nr_pages);
	t[1] = kernel_text_tables();
	if (strcmp(t[0], t[1]))
		diag("while the view holds copies:\n%s", t[1]);
	check(!strcmp(t[0], t[1]), "init_mm's kernel text mappings changed under a view");
	check_eq(kview_verify_total(NULL), 0);
	detach(&f->h);
	release_view(&f->kv);
	stop(&f->target);
	t[2] = kernel_text_tables();
	check(!strcmp(t[0], t[2]), "init_mm's kernel text mappings changed after a view");
	tlb_done(f);
}

static void direct_map(unsigned long kb[3])
{
	static const char *const names[] = { "DirectMap4k:", "DirectMap2M:",
					     "DirectMap1G:" };
	char line[256], name[64];
	unsigned long v;
	FILE *f = fopen("/proc/meminfo", "r");
	int i;

	check(f, "/proc/meminfo: %s", strerror(errno));
	kb[0] = kb[1] = kb[2] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %lu", name, &v) != 2)
			continue;
		for (i = 0; i < 3; i++)
			if (!strcmp(name, names[i]))
				kb[i] = v;
	}
	fclose(f);
}

static void test_dmap(void *fixture, const void *variant)
{
	unsigned long before[3], after[3], changes;
	struct tlbf *f = fixture;

	(void)variant;
	direct_map(before);
	changes = kview_stat("dmap_changes");
	diag("direct map: 4k %lu kB, 2M %lu kB, 1G %lu kB; kview changed it %lu times (%lu pages), pool %lu block(s)",
	     before[0], before[1], before[2], changes,
	     kview_stat("dmap_pages"), kview_stat("pool_blocks"));
	check(kview_stat("pool_blocks") >= 1, "no pool of copies");
	cycle(f);
	direct_map(after);
	diag("after a second view:  4k %lu kB, 2M %lu kB, 1G %lu kB; kview changed it %lu times",
	     after[0], after[1], after[2], kview_stat("dmap_changes"));
	check_eq(kview_stat("dmap_changes"), changes);
	check_eq(after[0], before[0]);
	check_eq(after[1], before[1]);
	check_eq(after[2], before[2]);
	tlb_done(f);
}

static const struct check_case cases[] = {
	{ "ipis", test_ipis, NULL },
	{ "global", test_global, NULL },
	{ "dmap", test_dmap, NULL },
};

static const struct check_suite suite = {
	.fixture_size = sizeof(struct tlbf),
	.setup = tlb_setup,
	.teardown = tlb_teardown,
	CHECK_CASES(cases),
};

int main(int argc, char **argv)
{
	return check_main(&suite, argc, argv);
}
