// SPDX-License-Identifier: GPL-2.0
/*
 * memcached: what tracing one process costs memcached, which is not
 * traced, under each way of limiting the tracing to that process.  Runs
 * in the guest (eval/bench-memcached boots it).
 *
 * Per run: a traced process starts (traced_loop(): a TCP round trip over
 * loopback, a read of /dev/zero, and a 100 ms epoll_wait, in a loop), N
 * programs are attached for it in the run's mode, the guest rests a second
 * (deferred work of the attach and of the previous run settles), memcached
 * starts (Debian's, one worker thread, on 127.0.0.1), memcaslap (Debian's
 * libmemcached-tools) drives it for SECONDS of guest time, and everything
 * is stopped and detached.  Modes:
 *
 *   none   nothing attached
 *   post   attached globally; every event goes to a ring buffer with its
 *          pid; a consumer thread of this process keeps the traced ones
 *   in     attached globally; "pid == traced" first thing in the program
 *   pre    a filter view: hooks armed for everyone, programs skipped for
 *          processes outside the view before they run (patch 0016, filter views)
 *   kview  the traced process's kernel view
 *   loaded a control: the programs loaded as in the other modes, nothing
 *          attached, no view (what loading them alone does)
 *   maps   a control: the object's maps only, no program loaded
 *   ringbuf, arrays  the same with its ring buffer (one page) and no
 *          array map but .rodata, with its array maps only
 *   unloaded a control: the programs loaded as in "loaded", and unloaded
 *          again before the run (what they leave behind)
 *   rawmap, mmapmap  a control: no object, one BPF array map of one entry
 *          made with bpf_map_create(), plain, or mmapable and mapped here
 *   btf    a control: the object's BTF loaded into the kernel, nothing else
 *   opened a control: the object opened by libbpf (in this process's
 *          memory), nothing loaded into the kernel
 *   smallbtf, btf2k, btf4k  a control: a BTF of ints loaded, no object: one
 *          (tens of bytes), or about 1.9 KiB, or 3.9 KiB of them
 *
 * N programs go round the hook list below: syscall tracepoints memcached
 * and memcaslap hit on every request (read, sendmsg, epoll_wait), kprobes
 * on the socket, TCP, epoll and VFS paths, and network tracepoints.
 * Rounds interleave the modes in a rotating order; round 0 (one run of
 * each mode at the first N, plus one "census" run) is a warm-up.  The
 * census attaches one counting program per hook globally for everyone
 * and says how often memcached's requests hit each hook.
 *
 * With --fentry, the kprobe hooks of the list are fentry programs (BPF
 * trampolines on the same functions; bpftrace's kfunc:) instead.
 *
 *   memcached [--fentry] ROUNDS SECONDS NS MODES OUT.csv [CENSUS.csv]
 *     NS: comma-separated program counts (e.g. 1,4,16,64)
 *     MODES: comma-separated, of none,post,in,pre,kview and the controls
 *     loaded,maps,ringbuf,arrays,unloaded,rawmap,mmapmap,btf,opened,smallbtf,
 *     btf2k,btf4k
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <bpf/btf.h>

#include "evalutil.h"
#include "mcload.h"
#include "memcached_hooks.h"
#include "memcached_hooks.skel.h"

#define MAX_NS 16
#define MAX_MODES 8

static const struct hook {
	const char *name;	/* "cat/event": tracepoint; else kprobe */
} hooks[] = {
	{ "syscalls/sys_enter_read" },
	{ "tcp_sendmsg" },
	{ "syscalls/sys_enter_sendmsg" },
	{ "tcp_recvmsg" },
	{ "syscalls/sys_enter_epoll_wait" },
	{ "vfs_read" },
	{ "syscalls/sys_exit_read" },
	{ "sock_read_iter" },
	{ "syscalls/sys_exit_sendmsg" },
	{ "do_epoll_wait" },
	{ "syscalls/sys_exit_epoll_wait" },
	{ "tcp_v4_rcv" },
	{ "net/net_dev_queue" },
	{ "__dev_queue_xmit" },
	{ "net/netif_rx" },
	{ "tcp_rcv_established" },
};
#define NHOOKS (int)(sizeof(hooks) / sizeof(hooks[0]))

static bool is_tracepoint(const struct hook *h)
{
	return strchr(h->name, '/');
}

/* The function hooks are fentry programs, not kprobes (--fentry). */
static bool fentry_set;

static const char *hook_kind(const struct hook *h)
{
	return is_tracepoint(h) ? "tracepoint" : fentry_set ? "fentry" : "kprobe";
}

/* The fentry program of copy @copy on function hook @h. */
static struct bpf_program *fentry_program(struct memcached_hooks *skel,
					  const struct hook *h, int copy)
{
	char name[32];
	int f = 0, i;

	for (i = 0; &hooks[i] != h; i++)
		f += !is_tracepoint(&hooks[i]);
	check(f * MC_COPIES + copy < MC_FENTRY_PROGS, "no fentry program %d/%d", f, copy);
	snprintf(name, sizeof(name), "on_fentry%d", f * MC_COPIES + copy);
	return bpf_object__find_program_by_name(skel->obj, name);
}

/*
 * Before load: the fentry programs the first @n attachments use get their
 * function; the others are not loaded.
 */
static void fentry_targets(struct memcached_hooks *skel, int n)
{
	struct bpf_program *prog;
	int i;

	bpf_object__for_each_program(prog, skel->obj)
		if (bpf_program__type(prog) == BPF_PROG_TYPE_TRACING)
			bpf_program__set_autoload(prog, false);
	for (i = 0; fentry_set && i < n; i++) {
		const struct hook *h = &hooks[i % NHOOKS];

		if (is_tracepoint(h))
			continue;
		prog = fentry_program(skel, h, i / NHOOKS);
		bpf_program__set_autoload(prog, true);
		check(!bpf_program__set_attach_target(prog, 0, h->name),
		      "fentry target %s: %s", h->name, strerror(errno));
	}
}

/* ---- the traced process ---------------------------------------------- */

/*
 * Its own syscall and network work, paced by a 100 ms epoll_wait on an
 * empty set so that it is light (about ten iterations per second of guest
 * time, each hitting every hook of the list at least once): the events it
 * produces are real, and its CPU share, which it pays in every mode but
 * none and which the single vCPU takes from memcached, stays small (the
 * CSV has it: traced_cpu_ns).  @iters counts iterations (shared memory).
 */
static void __attribute__((noreturn)) traced_loop(volatile unsigned long *iters)
{
	struct sockaddr_in a;
	int c, s, zero, ep, idle;
	struct epoll_event ev = { .events = EPOLLIN }, out;
	char buf[64] = { 0 };
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	loopback_connect(loopback_listen(&a), &a, &c, &s);
	zero = open("/dev/zero", O_RDONLY);
	ep = epoll_create1(0);
	idle = epoll_create1(0);
	check(zero >= 0 && ep >= 0 && idle >= 0, "traced: %s", strerror(errno));
	check(!epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev), "traced: epoll_ctl: %s", strerror(errno));
	for (;;) {
		check(sendmsg(c, &msg, 0) == sizeof(buf), "traced: sendmsg: %s", strerror(errno));
		check(epoll_wait(ep, &out, 1, 1000) == 1, "traced: epoll_wait");
		check(read(s, buf, sizeof(buf)) == sizeof(buf), "traced: read");
		check(sendmsg(s, &msg, 0) == sizeof(buf), "traced: sendmsg back");
		check(read(c, buf, sizeof(buf)) == sizeof(buf), "traced: read back");
		check(read(zero, buf, sizeof(buf)) == sizeof(buf), "traced: read /dev/zero");
		epoll_wait(idle, &out, 1, 100);
		(*iters)++;
	}
}

/* ---- the post mode's consumer ---------------------------------------- */

struct consumer {
	struct ring_buffer *rb;
	pthread_t thread;
	volatile bool stop;
	pid_t traced;
	unsigned long long mine[MC_MAX_HOOKS];	/* the traced process's, by attachment */
	unsigned long long others;		/* dropped by the filter */
	long long cpu_ns;			/* the thread's CPU time */
};

static int consume(void *ctx, void *data, size_t size)
{
	struct consumer *c = ctx;
	const struct mc_event *e = data;

	if (size < sizeof(*e))
		return 0;
	if (e->tgid == (__u32)c->traced && e->hook < MC_MAX_HOOKS)
		c->mine[e->hook]++;
	else
		c->others++;
	return 0;
}

static void *consumer_main(void *arg)
{
	struct consumer *c = arg;
	struct timespec ts;
	int err;

	while (!c->stop) {
		err = ring_buffer__poll(c->rb, 100);
		check(err >= 0 || err == -EINTR, "ring_buffer__poll: %d", err);
	}
	ring_buffer__consume(c->rb);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	c->cpu_ns = ts.tv_sec * 1000000000LL + ts.tv_nsec;
	return NULL;
}

/* ---- one run ------------------------------------------------------------ */

enum mode {
	NONE, POST, IN, PRE, KVIEW, LOADED, MAPS, RINGBUF, ARRAYS, UNLOADED,
	RAWMAP, MMAPMAP, BTF, OPENED, SMALLBTF, BTF2K, BTF4K, CENSUS
};
static const char *const mode_names[] = {
	"none", "post", "in", "pre", "kview", "loaded", "maps", "ringbuf",
	"arrays", "unloaded", "rawmap", "mmapmap", "btf", "opened", "smallbtf",
	"btf2k", "btf4k", "census"
};

/* The modes that attach programs (the others are controls). */
static bool attaching(enum mode m)
{
	return m == POST || m == IN || m == PRE || m == KVIEW || m == CENSUS;
}

struct run {
	enum mode mode;
	int n, round;
	bool warmup;
	int seconds;
	/* results */
	unsigned long long ops, tps, traced_events, other_events, drops;
	unsigned long long per_attach[MC_MAX_HOOKS];
	long long memcached_cpu, memcaslap_cpu, traced_cpu, tracer_cpu;
	long long attach_ns, detach_ns;
	unsigned long traced_iters;
	struct kview_info info;
	/* where the CPU time goes: memcached's and memcaslap's rusage, and
	 * the guest's interrupts and softirqs while memcaslap ran */
	struct rusage mc_ru, slap_ru;
	unsigned long long irqs, softirqs;
};

/* The totals of /proc/stat's "intr" and "softirq" lines. */
static void irq_totals(unsigned long long *irqs, unsigned long long *softirqs)
{
	char line[256];
	FILE *f = fopen("/proc/stat", "r");

	check(f, "/proc/stat: %s", strerror(errno));
	*irqs = *softirqs = 0;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "intr %llu", irqs);
		sscanf(line, "softirq %llu", softirqs);
	}
	fclose(f);
}

static long long tv_ns(const struct timeval *tv)
{
	return tv->tv_sec * 1000000000LL + tv->tv_usec * 1000LL;
}

/* Copy @copy of the kprobe or the tracepoint program. */
static struct bpf_program *program(struct memcached_hooks *skel, bool tp, int copy)
{
	struct bpf_program *kp[MC_COPIES] = {
		skel->progs.on_kprobe0, skel->progs.on_kprobe1,
		skel->progs.on_kprobe2, skel->progs.on_kprobe3,
	};
	struct bpf_program *t[MC_COPIES] = {
		skel->progs.on_tracepoint0, skel->progs.on_tracepoint1,
		skel->progs.on_tracepoint2, skel->progs.on_tracepoint3,
	};

	check(copy < MC_COPIES, "no copy %d of the programs", copy);
	return tp ? t[copy] : kp[copy];
}

static void do_run(struct run *r, volatile unsigned long *iters)
{
	struct bpf_link *links[MC_MAX_HOOKS] = { 0 };
	struct memcached_hooks *skel = NULL;
	struct consumer cons = { 0 };
	struct kview *kv = NULL;
	unsigned long long irqs, softirqs;
	struct btf *small_btf = NULL;
	void *map_mem = NULL;
	int map_fd = -1;
	pid_t traced, mc;
	long long t0;
	int i;

	*iters = 0;
	traced = fork();
	check(traced >= 0, "fork: %s", strerror(errno));
	if (!traced)
		traced_loop(iters);

	if (r->mode == RAWMAP || r->mode == MMAPMAP) {
		LIBBPF_OPTS(bpf_map_create_opts, mo,
			    .map_flags = r->mode == MMAPMAP ? BPF_F_MMAPABLE : 0);

		map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mc_control", 4, 8, 1, &mo);
		check(map_fd >= 0, "bpf_map_create: %s", strerror(errno));
		if (r->mode == MMAPMAP) {
			map_mem = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
				       MAP_SHARED, map_fd, 0);
			check(map_mem != MAP_FAILED, "mmap the map: %s", strerror(errno));
		}
	} else if (r->mode == SMALLBTF || r->mode == BTF2K || r->mode == BTF4K) {
		/* 16 bytes a type: about 1.9 KiB and 3.9 KiB of BTF. */
		int types = r->mode == BTF4K ? 240 : r->mode == BTF2K ? 116 : 1;

		small_btf = btf__new_empty();
		check(small_btf, "a new BTF: %s", strerror(errno));
		for (i = 0; i < types; i++)
			check(btf__add_int(small_btf, "int", 4, BTF_INT_SIGNED) > 0,
			      "a BTF of %d ints: %s", types, strerror(errno));
		check(!btf__load_into_kernel(small_btf), "load a BTF of one int: %s",
		      strerror(errno));
	} else if (r->mode == BTF || r->mode == OPENED) {
		skel = memcached_hooks__open();
		check(skel, "open: %s", strerror(errno));
		check(r->mode == OPENED ||
		      !btf__load_into_kernel(bpf_object__btf(skel->obj)),
		      "load the object's BTF: %s", strerror(errno));
	} else if (r->mode != NONE) {
		skel = memcached_hooks__open();
		check(skel, "open: %s", strerror(errno));
		if (r->mode == IN)
			skel->rodata->filter_tgid = traced;
		if (r->mode == POST)
			skel->rodata->post = true;
		else	/* only post writes the ring buffer: no 16 MiB for the others */
			check(!bpf_map__set_max_entries(skel->maps.events, getpagesize()),
			      "ring buffer size: %s", strerror(errno));
		fentry_targets(skel, r->n);
		if (r->mode == MAPS || r->mode == RINGBUF || r->mode == ARRAYS) {
			struct bpf_program *prog;
			struct bpf_map *map;

			bpf_object__for_each_program(prog, skel->obj)
				bpf_program__set_autoload(prog, false);
			/* The skeleton needs .rodata: it stays in both. */
			bpf_object__for_each_map(map, skel->obj)
				if ((r->mode == RINGBUF &&
				     (map == skel->maps.counts || map == skel->maps.drops)) ||
				    (r->mode == ARRAYS && map == skel->maps.events))
					bpf_map__set_autocreate(map, false);
		}
		check(!memcached_hooks__load(skel), "load: %s", strerror(errno));
		if (r->mode == UNLOADED) {
			memcached_hooks__destroy(skel);
			skel = NULL;
		}
	}

	t0 = now_ns();
	if (r->mode == PRE || r->mode == KVIEW) {
		LIBBPF_OPTS(kview_opts, o, .filter = r->mode == PRE);

		kv = kview__create(traced, &o);
		check(kv, "kview__create: %s", strerror(errno));
		check(!kview__enter_scope(kv), "enter scope: %s", strerror(errno));
	}
	for (i = 0; attaching(r->mode) && i < r->n; i++) {
		const struct hook *h = &hooks[i % NHOOKS];
		struct bpf_program *prog = fentry_set && !is_tracepoint(h) ?
			fentry_program(skel, h, i / NHOOKS) :
			program(skel, is_tracepoint(h), i / NHOOKS);

		links[i] = attach_hook(prog, h->name, false, i);
		check(links[i], "attach %s (%s, program %d): %s", h->name,
		      mode_names[r->mode], i, strerror(errno));
	}
	if (kv)
		check(!kview__leave_scope(kv), "leave scope: %s", strerror(errno));
	r->attach_ns = now_ns() - t0;
	if (kv)
		check(!kview__info(kv, &r->info), "kview info: %s", strerror(errno));

	if (r->mode == POST) {
		cons.traced = traced;
		cons.rb = ring_buffer__new(bpf_map__fd(skel->maps.events), consume, &cons, NULL);
		check(cons.rb, "ring_buffer__new: %s", strerror(errno));
		check(!pthread_create(&cons.thread, NULL, consumer_main, &cons),
		      "pthread_create");
	}

	/* Let deferred work of the attach and of the previous run finish. */
	sleep(1);
	mc = start_memcached();
	irq_totals(&irqs, &softirqs);
	run_memcaslap_ru(r->seconds, &r->ops, &r->tps, &r->memcaslap_cpu,
			 &r->slap_ru);
	irq_totals(&r->irqs, &r->softirqs);
	r->irqs -= irqs;
	r->softirqs -= softirqs;
	kill(mc, SIGTERM);
	r->memcached_cpu = reap_rusage(mc, SIGTERM, "memcached", &r->mc_ru);
	kill(traced, SIGKILL);
	r->traced_cpu = reap_cpu_ns(traced, SIGKILL, "traced process");
	r->traced_iters = *iters;

	if (r->mode == POST) {
		cons.stop = true;
		pthread_join(cons.thread, NULL);
		ring_buffer__free(cons.rb);
		r->tracer_cpu = cons.cpu_ns;
		r->other_events = cons.others;
		memcpy(r->per_attach, cons.mine, sizeof(r->per_attach));
		r->drops = map_u32_count(bpf_map__fd(skel->maps.drops), 0);
	} else if (skel && bpf_map__fd(skel->maps.counts) >= 0) {
		for (i = 0; i < r->n; i++)
			r->per_attach[i] = map_u32_count(bpf_map__fd(skel->maps.counts), i);
	}
	for (i = 0; r->mode != NONE && r->mode != CENSUS && i < r->n; i++)
		r->traced_events += r->per_attach[i];

	t0 = now_ns();
	for (i = 0; i < r->n; i++)
		bpf_link__destroy(links[i]);
	kview__destroy(kv);
	r->detach_ns = now_ns() - t0;
	memcached_hooks__destroy(skel);
	btf__free(small_btf);
	if (map_mem)
		munmap(map_mem, getpagesize());
	if (map_fd >= 0)
		close(map_fd);

	/*
	 * The tracing was real: with the traced process's events going
	 * through every program, each attachment saw some.
	 */
	for (i = 0; attaching(r->mode) && r->mode != CENSUS && i < r->n; i++)
		check(r->per_attach[i] > 0,
		      "%s, N=%d: program %d (%s) saw no event of the traced process",
		      mode_names[r->mode], r->n, i, hooks[i % NHOOKS].name);
}

static int parse_list(char *s, int *out, int max, const char *const *names, int nnames)
{
	char *tok, *save = NULL;
	int n = 0, i;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		check(n < max, "too many items in the list");
		if (!names) {
			out[n] = atoi(tok);
			check(out[n] >= 1 && out[n] <= MC_MAX_HOOKS,
			      "N must be 1..%d, not %s", MC_MAX_HOOKS, tok);
			n++;
			continue;
		}
		for (i = 0; i < nnames && strcmp(tok, names[i]); i++)
			;
		if (i == nnames) {
			char known[256] = "";
			size_t len = 0;

			for (i = 0; i < nnames; i++)
				len += snprintf(known + len, len < sizeof(known) ?
						sizeof(known) - len : 0, " %s", names[i]);
			fail("unknown mode %s (one of:%s)", tok, known);
		}
		out[n++] = i;
	}
	check(n > 0, "empty list");
	return n;
}

static void emit(FILE *out, const struct run *r)
{
	long long untraced = r->memcached_cpu + r->memcaslap_cpu;

	fprintf(out, "memcached,%s,%s,%d,%d,%d,%llu,%llu,%lld,%.1f,%.1f,%lld,%lld,%lu,%lld,%llu,%llu,%llu,%lld,%lld,%lld,%u,%u,%u,%llu,%lld,%lld,%ld,%ld,%ld,%lld,%lld,%ld,%ld,%ld,%llu,%llu\n",
		clock_name(), mode_names[r->mode], r->n, r->round, r->warmup, r->tps, r->ops, untraced,
		(double)untraced / r->ops, (double)r->memcached_cpu / r->ops,
		r->memcached_cpu, r->memcaslap_cpu,
		r->traced_iters, r->traced_cpu, r->traced_events, r->other_events,
		r->drops, r->tracer_cpu, r->attach_ns, r->detach_ns,
		r->info.nr_patches, r->info.nr_pages, r->info.nr_pt_pages,
		(unsigned long long)r->info.bytes,
		tv_ns(&r->mc_ru.ru_utime), tv_ns(&r->mc_ru.ru_stime),
		r->mc_ru.ru_minflt, r->mc_ru.ru_nvcsw, r->mc_ru.ru_nivcsw,
		tv_ns(&r->slap_ru.ru_utime), tv_ns(&r->slap_ru.ru_stime),
		r->slap_ru.ru_minflt, r->slap_ru.ru_nvcsw, r->slap_ru.ru_nivcsw,
		r->irqs, r->softirqs);
	fflush(out);
}

int main(int argc, char **argv)
{
	int rounds, seconds, ns[MAX_NS], nn, modes[MAX_MODES], nm, r, j, i;
	volatile unsigned long *iters;
	FILE *out, *census = NULL;
	struct run run;

	if (argc > 1 && !strcmp(argv[1], "--fentry")) {
		fentry_set = true;
		argv++;
		argc--;
	}
	if (argc != 6 && argc != 7) {
		fprintf(stderr, "usage: memcached [--fentry] ROUNDS SECONDS NS MODES OUT.csv [CENSUS.csv]\n");
		return 2;
	}
	rounds = atoi(argv[1]);
	seconds = atoi(argv[2]);
	check(rounds >= 1 && seconds >= 1, "ROUNDS and SECONDS must be >= 1");
	nn = parse_list(argv[3], ns, MAX_NS, NULL, 0);
	nm = parse_list(argv[4], modes, MAX_MODES, mode_names, BTF4K + 1);
	out = fopen(argv[5], "w");
	check(out, "%s: %s", argv[5], strerror(errno));
	fprintf(out, "bench,clock,mode,n,round,warmup,tps,ops,untraced_cpu_ns,cpu_ns_per_op,memcached_ns_per_op,memcached_cpu_ns,memcaslap_cpu_ns,traced_iters,traced_cpu_ns,traced_events,other_events,drops,tracer_cpu_ns,attach_ns,detach_ns,view_patches,view_pages,view_pt_pages,view_bytes,memcached_utime_ns,memcached_stime_ns,memcached_minflt,memcached_nvcsw,memcached_nivcsw,memcaslap_utime_ns,memcaslap_stime_ns,memcaslap_minflt,memcaslap_nvcsw,memcaslap_nivcsw,irqs,softirqs\n");
	iters = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	check(iters != MAP_FAILED, "mmap: %s", strerror(errno));
	signal(SIGPIPE, SIG_IGN);

	if (argc == 7) {
		/* Census: one counting program per hook, for everyone. */
		memset(&run, 0, sizeof(run));
		run.mode = CENSUS;
		run.n = NHOOKS;
		run.warmup = true;
		run.seconds = seconds;
		do_run(&run, iters);
		census = fopen(argv[6], "w");
		check(census, "%s: %s", argv[6], strerror(errno));
		fprintf(census, "hook,kind,events,ops,events_per_op\n");
		for (i = 0; i < NHOOKS; i++)
			fprintf(census, "%s,%s,%llu,%llu,%.3f\n", hooks[i].name,
				hook_kind(&hooks[i]),
				run.per_attach[i], run.ops,
				(double)run.per_attach[i] / run.ops);
		fclose(census);
		progress("census: %d hooks, %llu memcached ops in %d s", NHOOKS, run.ops, seconds);
	}

	for (r = 0; r <= rounds; r++) {
		for (j = 0; j < (r ? nn : 1); j++) {
			for (i = 0; i < nm; i++) {
				memset(&run, 0, sizeof(run));
				run.mode = modes[(i + r + j) % nm];
				run.n = ns[j];
				run.round = r;
				run.warmup = !r;
				run.seconds = seconds;
				do_run(&run, iters);
				emit(out, &run);
				progress("round %d/%d N=%-2d %-5s %7llu ops/s  memcached %6.0f ns/op  traced events %llu%s",
					 r, rounds, run.n, mode_names[run.mode], run.tps,
					 (double)run.memcached_cpu / run.ops,
					 run.traced_events, run.warmup ? "  (warm-up)" : "");
			}
		}
	}
	fclose(out);
	return 0;
}
