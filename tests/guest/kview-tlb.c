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

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
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

/* One view on a running reader, the hooks in it, detached, closed. */
static void cycle(struct tlb *skel)
{
	pid_t pid = reader();
	struct kview *kv = kview__create(pid, NULL);
	struct hooks h;

	check(kv, "kview__create(%d): %s", pid, strerror(errno));
	attach(skel, kv, &h);
	usleep(100000);
	detach(&h);
	kview__destroy(kv);
	stop(pid);
}

static struct tlb *setup(struct kview **keeper)
{
	struct tlb *skel;

	pin_to_cpu(0);
	check(sysconf(_SC_NPROCESSORS_ONLN) >= 2, "needs 2 CPUs");
	skel = tlb__open_and_load();
	check(skel, "load tlb.bpf.o: %s", strerror(errno));
	/* Keeps kview's static key on and the pool of copies. */
	*keeper = kview__create(0, NULL);
	check(*keeper, "kview__create: %s", strerror(errno));
	cycle(skel);
	return skel;
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

static void test_ipis(void)
{
	LIBBPF_OPTS(kview_opts, opts, .follow_fork = true, .follow_exec = true);
	char *sh[] = { "sh", "-c", "for i in 1 2 3 4 5; do /bin/true; done", NULL };
	unsigned long b, flips_none, flips_view, global, remote;
	pid_t spin, target, second, forker;
	struct kview *keeper, *kv = NULL;
	struct tlb *skel = setup(&keeper);
	cpu_set_t set;
	struct hooks h;

	spin = spinner(1);
	target = reader();
	second = reader();
	usleep(200000);
	remote = kview_stat("tlb_flush_ipis");

	PHASE("view made, hooks attached", {
		kv = kview__create(target, &opts);
		check(kv, "kview__create(%d): %s", target, strerror(errno));
		attach(skel, kv, &h);
	});
	PHASE("steady state (1 s)", usleep(1000000));
	PHASE("a running process joins", {
		check(!kview__add_pid(kv, second), "add %d: %s", second,
		      strerror(errno));
	});
	forker = spawn_stopped(sh);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	check(!sched_setaffinity(forker, sizeof(set), &set), "pin: %s",
	      strerror(errno));
	check(!kview__add_pid(kv, forker), "add %d: %s", forker, strerror(errno));
	PHASE("members fork, exec and exit", {
		resume(forker);
		check_eq(wait_exit(forker), 0);
	});
	check(skel->bss->kprobe_hits && skel->bss->tp_hits,
	      "the view's programs never ran (kprobe %llu, tracepoint %llu)",
	      (unsigned long long)skel->bss->kprobe_hits,
	      (unsigned long long)skel->bss->tp_hits);
	check_eq(kview_stat("tlb_flush_ipis"), remote);
	check_eq(kview_stats().out_of_scope, 0);

	/* A global static key flipped with the view's copies present. */
	b = ipis(1);
	write_sysctl("/proc/sys/kernel/bpf_stats_enabled", "1");
	write_sysctl("/proc/sys/kernel/bpf_stats_enabled", "0");
	flips_view = ipis(1) - b;

	PHASE("hooks detached, view closed", {
		detach(&h);
		kview__destroy(kv);
	});
	stop(second);
	stop(target);

	b = ipis(1);
	write_sysctl("/proc/sys/kernel/bpf_stats_enabled", "1");
	write_sysctl("/proc/sys/kernel/bpf_stats_enabled", "0");
	flips_none = ipis(1) - b;
	diag("a static key flipped twice: CPU 1 took %lu IPIs with the view's copies, %lu without",
	     flips_view, flips_none);
	check_eq(flips_view, flips_none);

	/* The reference: the same hooks attached globally. */
	b = ipis(1);
	attach(skel, NULL, &h);
	detach(&h);
	global = ipis(1) - b;
	diag("the same hooks attached and detached globally: CPU 1 took %lu IPIs",
	     global);
	check(global > 0, "a global attach sent CPU 1 no IPI: the count is wrong");

	stop(spin);
	kview__destroy(keeper);
	tlb__destroy(skel);
	check_stats_clean();
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

static void test_global(void)
{
	char *before, *during, *after;
	struct kview *keeper, *kv;
	struct tlb *skel = setup(&keeper);
	struct kview_info info;
	pid_t target = reader();
	struct hooks h;

	before = kernel_text_tables();
	diag("kernel image mappings before the view:\n%s", before);
	diag("global (GLB) text mappings: %s (PTI with PCID maps the image non-global)",
	     strstr(before, "GLB") ? "yes" : "none");
	kv = kview__create(target, NULL);
	check(kv, "kview__create(%d): %s", target, strerror(errno));
	attach(skel, kv, &h);
	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	diag("the view holds %u copied pages", info.nr_pages);
	check(info.nr_pages >= 8, "only %u copies", info.nr_pages);
	during = kernel_text_tables();
	if (strcmp(before, during))
		diag("while the view holds copies:\n%s", during);
	check(!strcmp(before, during), "init_mm's kernel text mappings changed under a view");
	check_eq(kview_verify_total(NULL), 0);
	detach(&h);
	kview__destroy(kv);
	stop(target);
	after = kernel_text_tables();
	check(!strcmp(before, after), "init_mm's kernel text mappings changed after a view");
	free(before);
	free(during);
	free(after);
	kview__destroy(keeper);
	tlb__destroy(skel);
	check_stats_clean();
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

static void test_dmap(void)
{
	unsigned long before[3], after[3], changes;
	struct kview *keeper;
	struct tlb *skel = setup(&keeper);

	direct_map(before);
	changes = kview_stat("dmap_changes");
	diag("direct map: 4k %lu kB, 2M %lu kB, 1G %lu kB; kview changed it %lu times (%lu pages), pool %lu block(s)",
	     before[0], before[1], before[2], changes,
	     kview_stat("dmap_pages"), kview_stat("pool_blocks"));
	check(kview_stat("pool_blocks") >= 1, "no pool of copies");
	cycle(skel);
	direct_map(after);
	diag("after a second view:  4k %lu kB, 2M %lu kB, 1G %lu kB; kview changed it %lu times",
	     after[0], after[1], after[2], kview_stat("dmap_changes"));
	check_eq(kview_stat("dmap_changes"), changes);
	check_eq(after[0], before[0]);
	check_eq(after[1], before[1]);
	check_eq(after[2], before[2]);
	kview__destroy(keeper);
	tlb__destroy(skel);
	check_stats_clean();
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "ipis"))
		test_ipis();
	else if (!strcmp(mode, "global"))
		test_global();
	else if (!strcmp(mode, "dmap"))
		test_dmap();
	else {
		fprintf(stderr, "usage: kview-tlb ipis|global|dmap\n");
		return 2;
	}
	return 0;
}
