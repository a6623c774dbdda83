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
 *          processes outside the view before they run (the series' last patch, filter views)
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
 *   keys   a control without BPF: user keys (add_key(2)) whose payloads
 *          are kernel kmalloc() objects of the sizes the object's loaded
 *          BTF keeps (its data, type array and two resolved-id arrays)
 *   onekey the same with one key of a few bytes: what a key costs
 *   key4k, key1k, key512, key4kx8  each size class of keys alone, and
 *          eight 4 KiB payloads (one kmalloc-4k slab's worth)
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
 *     ROUNDS: measured rounds after the warm-up (0: the warm-up alone)
 *     NS: comma-separated program counts (e.g. 1,4,16,64)
 *     MODES: comma-separated, of none,post,in,pre,kview and the controls
 *     loaded,maps,ringbuf,arrays,unloaded,rawmap,mmapmap,btf,opened,smallbtf,
 *     btf2k,btf4k,keys,onekey,key4k,key1k,key512,key4kx8
 *
 * Besides each process's rusage, a run records the page allocator's
 * allocations and frees (/proc/vmstat pgalloc_*, pgfree) while memcaslap
 * ran: slab pages taken and given back show up there.
 *
 * With --slabs SLABS.csv (a diagnostic: it costs every run the same
 * kprobes), tracefs kprobe events on SLUB's slow paths (___slab_alloc,
 * __slab_free, allocate_slab, __free_slab, deactivate_slab,
 * put_cpu_partial, __unfreeze_partials) and the kmalloc and
 * kmem_cache_alloc tracepoints count, in histogram triggers keyed by the
 * cache's name or the allocated size, what SLUB did while memcaslap ran:
 * one CSV row per run, event and key.  No BPF: trace events only.
 *
 * With --ballast (layout randomization), every run of measured round r of
 * R holds (r - 1) * S / R kmalloc-1k objects of its own (user keys of 1000
 * bytes; S: objects per kmalloc-1k slab), the same count in every mode of
 * the round, taken before anything else and let go at its end.  Two
 * skb heads of every memcached request live in kmalloc-1k, and how often
 * SLUB takes its slow paths on them depends on where in a slab's objects
 * the long-lived ones before them left off (--slabs shows it): one held
 * object more or less moves memcached by a few tenths of a percent either
 * way, in every mode that holds one (a loaded BTF does).  The ballast
 * walks every mode through the same spread of those phases, so that the
 * comparison is not one phase against another.
 *
 *   memcached [--fentry] [--slabs SLABS.csv] [--ballast] ROUNDS SECONDS NS
 *             MODES OUT.csv [CENSUS.csv]
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <bpf/btf.h>
#include <linux/keyctl.h>

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
	RAWMAP, MMAPMAP, BTF, OPENED, SMALLBTF, BTF2K, BTF4K, KEYS, ONEKEY,
	KEY4K, KEY1K, KEY512, KEY4KX8, CENSUS
};
static const char *const mode_names[] = {
	"none", "post", "in", "pre", "kview", "loaded", "maps", "ringbuf",
	"arrays", "unloaded", "rawmap", "mmapmap", "btf", "opened", "smallbtf",
	"btf2k", "btf4k", "keys", "onekey", "key4k", "key1k", "key512", "key4kx8", "census"
};

/* The modes that attach programs (the others are controls). */
static bool attaching(enum mode m)
{
	return m == POST || m == IN || m == PRE || m == KVIEW || m == CENSUS;
}

struct run {
	enum mode mode;
	int n, round, rounds;
	int ballast;		/* kmalloc-1k objects held (--ballast) */
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
	/* the page allocator's allocations and frees meanwhile */
	unsigned long long pgalloc, pgfree;
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

/* The page allocator's allocations (all zones) and frees: /proc/vmstat. */
static void page_totals(unsigned long long *alloc, unsigned long long *freed)
{
	char name[64];
	unsigned long long v;
	FILE *f = fopen("/proc/vmstat", "r");

	check(f, "/proc/vmstat: %s", strerror(errno));
	*alloc = *freed = 0;
	while (fscanf(f, "%63s %llu", name, &v) == 2) {
		if (!strncmp(name, "pgalloc_", 8))
			*alloc += v;
		else if (!strcmp(name, "pgfree"))
			*freed = v;
	}
	fclose(f);
}

/*
 * The keys controls: user keys whose payloads (kmalloc(), not accounted to
 * a memory cgroup, as a loaded BTF's are not) have the sizes of what the
 * object's BTF keeps in the kernel (kernel/bpf/btf.c): its 4013 bytes of
 * data (kmalloc-4k), its array of 125 type pointers (1000 bytes after
 * growing by quarters: kmalloc-1k) and its two arrays of 125 resolved ids
 * and sizes (500 bytes each: kmalloc-512).  A key's payload is a 24-byte
 * header and the data.  onekey: one key of 8 bytes; key4k, key1k, key512:
 * each size class of "keys" alone; key4kx8: eight 4 KiB payloads, as many
 * as one kmalloc-4k slab (order 3) holds.
 */
#define MAX_KEYS 8
static const struct key_set {
	enum mode mode;
	size_t sizes[MAX_KEYS];		/* payload data sizes; 0 ends */
} key_sets[] = {
	{ KEYS, { 4013, 976, 476, 476 } },
	{ ONEKEY, { 8 } },
	{ KEY4K, { 4013 } },
	{ KEY1K, { 976 } },
	{ KEY512, { 476, 476 } },
	{ KEY4KX8, { 4013, 4013, 4013, 4013, 4013, 4013, 4013, 4013 } },
};

static const struct key_set *key_set(enum mode m)
{
	size_t i;

	for (i = 0; i < sizeof(key_sets) / sizeof(key_sets[0]); i++)
		if (key_sets[i].mode == m)
			return &key_sets[i];
	return NULL;
}

/* One user key named PREFIX-@i with a payload of @size bytes (kmalloc()). */
static long add_key(const char *prefix, int i, size_t size)
{
	static char data[4096];
	char desc[32];
	long id;

	check(size <= sizeof(data), "a key of %zu bytes", size);
	snprintf(desc, sizeof(desc), "%s-%d", prefix, i);
	id = syscall(SYS_add_key, "user", desc, data, size, KEY_SPEC_PROCESS_KEYRING);
	check(id >= 0, "add_key %s: %s", desc, strerror(errno));
	return id;
}

static int add_keys(const struct key_set *ks, long *ids)
{
	int i;

	for (i = 0; i < MAX_KEYS && ks->sizes[i]; i++)
		ids[i] = add_key("kview-eval", i, ks->sizes[i]);
	return i;
}

/* --ballast: objects per kmalloc-1k slab, 0 without the option. */
static int ballast_period;

static int ballast_count(int round, int rounds)
{
	return round && ballast_period ? (round - 1) * ballast_period / rounds : 0;
}

/* @n user keys of 1000 bytes (24 of them the payload's header): kmalloc-1k. */
static void add_ballast(long *ids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		ids[i] = add_key("kview-ballast", i, 976);
}

static void drop_keys(const long *ids, int n)
{
	int i;

	for (i = 0; i < n; i++)
		check(!syscall(SYS_keyctl, KEYCTL_INVALIDATE, ids[i]),
		      "invalidate key %ld: %s", ids[i], strerror(errno));
}

static int read_int(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	check(f, "%s: %s", path, strerror(errno));
	check(fscanf(f, "%d", &v) == 1 && v > 0, "%s: no count", path);
	fclose(f);
	return v;
}

/* ---- the slab census (--slabs) ------------------------------------- */

#define TRACEFS "/sys/kernel/tracing"

/*
 * SLUB's slow paths, each a kprobe event whose first argument is the
 * struct kmem_cache: the histogram key is the cache's name, read through
 * kmem_cache.name (its offset from the kernel's BTF).  And the allocation
 * tracepoints, keyed by the size the allocator gave.
 */
static const struct slab_event {
	const char *event;	/* under events/ */
	const char *probe;	/* kprobe function; NULL: a tracepoint */
	const char *key;
} slab_events[] = {
	{ "kview_slab/slab_alloc_slow", "___slab_alloc", "name" },
	{ "kview_slab/slab_free_slow", "__slab_free", "name" },
	{ "kview_slab/slab_new", "allocate_slab", "name" },
	{ "kview_slab/slab_discard", "__free_slab", "name" },
	{ "kview_slab/slab_deactivate", "deactivate_slab", "name" },
	{ "kview_slab/slab_cpu_partial", "put_cpu_partial", "name" },
	{ "kview_slab/slab_unfreeze", "__unfreeze_partials", "name" },
	{ "kmem/kmalloc", NULL, "bytes_alloc" },
	{ "kmem/kmem_cache_alloc", NULL, "bytes_alloc" },
};
#define NSLAB_EVENTS (int)(sizeof(slab_events) / sizeof(slab_events[0]))

static FILE *slabs_out;
/*
 * The events this kernel has: SLUB's internals move between releases
 * (6.12 inlines __unfreeze_partials()), and a census of the paths there
 * are is still one.  slab_census_start() says which it leaves out.
 */
static bool slab_on[NSLAB_EVENTS];

/* open(2) and write(2): stdio's append mode seeks, which tracefs refuses. */
static void tracefs_write(const char *path, const char *text)
{
	char full[256];
	ssize_t len = strlen(text);
	int fd;

	snprintf(full, sizeof(full), TRACEFS "/%s", path);
	fd = open(full, O_WRONLY | O_APPEND);
	check(fd >= 0, "%s: %s", full, strerror(errno));
	check(write(fd, text, len) == len, "write \"%s\" to %s: %s", text, full,
	      strerror(errno));
	close(fd);
}

static void slab_trigger(const struct slab_event *e, const char *cmd)
{
	char path[128], spec[128];

	snprintf(path, sizeof(path), "events/%s/trigger", e->event);
	snprintf(spec, sizeof(spec), "hist:keys=%s:vals=hitcount:size=512%s", e->key, cmd);
	tracefs_write(path, spec);
}

/* The byte offset of struct kmem_cache's name, from the kernel's BTF. */
static unsigned int kmem_cache_name_offset(void)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	const struct btf_member *m;
	const struct btf_type *t;
	int id, i;

	check(vmlinux, "the kernel's BTF: %s", strerror(errno));
	id = btf__find_by_name_kind(vmlinux, "kmem_cache", BTF_KIND_STRUCT);
	check(id > 0, "no struct kmem_cache in the kernel's BTF");
	t = btf__type_by_id(vmlinux, id);
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(vmlinux, m->name_off), "name"))
			break;
	check(i < btf_vlen(t), "no kmem_cache.name in the kernel's BTF");
	id = btf_member_bit_offset(t, i) / 8;
	btf__free(vmlinux);
	return id;
}

static void slab_census_start(void)
{
	unsigned int off = kmem_cache_name_offset();
	char def[160];
	int i;

	for (i = 0; i < NSLAB_EVENTS; i++) {
		const struct slab_event *e = &slab_events[i];

		slab_on[i] = !e->probe || ftrace_traceable(e->probe);
		if (!slab_on[i]) {
			fprintf(stderr, "# slab census: no %s in this kernel, no %s\n",
				e->probe, e->event);
			continue;
		}
		if (!e->probe)
			continue;
		snprintf(def, sizeof(def), "p:%s %s name=+0(+%u(%%di)):string\n",
			 e->event, e->probe, off);
		tracefs_write("kprobe_events", def);
	}
	for (i = 0; i < NSLAB_EVENTS; i++)
		if (slab_on[i])
			slab_trigger(&slab_events[i], "");
}

/* At the end: the triggers and the kprobe events go. */
static void slab_census_stop(void)
{
	char def[96], spec[128], path[128];
	int i;

	for (i = 0; i < NSLAB_EVENTS; i++) {
		const struct slab_event *e = &slab_events[i];

		if (!slab_on[i])
			continue;
		snprintf(path, sizeof(path), "events/%s/trigger", e->event);
		snprintf(spec, sizeof(spec), "!hist:keys=%s:vals=hitcount:size=512", e->key);
		tracefs_write(path, spec);
	}
	for (i = 0; i < NSLAB_EVENTS; i++) {
		if (!slab_events[i].probe || !slab_on[i])
			continue;
		snprintf(def, sizeof(def), "-:%s\n", slab_events[i].event);
		tracefs_write("kprobe_events", def);
	}
}

/* Before memcaslap: every histogram starts from zero. */
static void slab_census_clear(void)
{
	int i;

	for (i = 0; i < NSLAB_EVENTS; i++)
		if (slab_on[i])
			slab_trigger(&slab_events[i], ":clear");
}

/*
 * After memcaslap: one row per event and key, from lines such as
 * "{ name: kmalloc-4k } hitcount: 12" or "{ bytes_alloc: 4096 } hitcount: 3".
 */
static void slab_census_read(const struct run *r)
{
	char path[128], line[256], key[96];
	unsigned long long hits;
	FILE *f;
	int i;

	for (i = 0; i < NSLAB_EVENTS; i++) {
		const struct slab_event *e = &slab_events[i];

		if (!slab_on[i])
			continue;
		snprintf(path, sizeof(path), TRACEFS "/events/%s/hist", e->event);
		f = fopen(path, "r");
		check(f, "%s: %s", path, strerror(errno));
		while (fgets(line, sizeof(line), f)) {
			char *k = strchr(line, ':'), *h = strstr(line, "hitcount:");

			if (line[0] != '{' || !k || !h)
				continue;
			check(sscanf(k + 1, " %95[^ }]", key) == 1 &&
			      sscanf(h, "hitcount: %llu", &hits) == 1,
			      "%s: cannot read \"%s\"", path, line);
			fprintf(slabs_out, "%s,%d,%d,%d,%s,%s,%llu,%llu\n",
				mode_names[r->mode], r->n, r->round, r->warmup,
				strchr(e->event, '/') + 1, key, hits, r->ops);
		}
		fclose(f);
	}
	fflush(slabs_out);
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
	int map_fd = -1, nkeys = 0;
	long keys[MAX_KEYS], *ballast;
	unsigned long long pgalloc, pgfree;
	pid_t traced, mc;
	long long t0;
	int i;

	r->ballast = ballast_count(r->round, r->rounds);
	ballast = calloc(r->ballast + 1, sizeof(*ballast));
	check(ballast, "calloc: %s", strerror(errno));
	add_ballast(ballast, r->ballast);

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
	} else if (key_set(r->mode)) {
		nkeys = add_keys(key_set(r->mode), keys);
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
	if (slabs_out)
		slab_census_clear();
	irq_totals(&irqs, &softirqs);
	page_totals(&pgalloc, &pgfree);
	run_memcaslap_ru(r->seconds, &r->ops, &r->tps, &r->memcaslap_cpu,
			 &r->slap_ru);
	page_totals(&r->pgalloc, &r->pgfree);
	irq_totals(&r->irqs, &r->softirqs);
	if (slabs_out)
		slab_census_read(r);
	r->irqs -= irqs;
	r->softirqs -= softirqs;
	r->pgalloc -= pgalloc;
	r->pgfree -= pgfree;
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
	drop_keys(keys, nkeys);
	drop_keys(ballast, r->ballast);
	free(ballast);

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

	fprintf(out, "memcached,%s,%s,%d,%d,%d,%llu,%llu,%lld,%.1f,%.1f,%lld,%lld,%lu,%lld,%llu,%llu,%llu,%lld,%lld,%lld,%u,%u,%u,%llu,%lld,%lld,%ld,%ld,%ld,%lld,%lld,%ld,%ld,%ld,%llu,%llu,%llu,%llu,%d\n",
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
		r->irqs, r->softirqs, r->pgalloc, r->pgfree, r->ballast);
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
	if (argc > 2 && !strcmp(argv[1], "--slabs")) {
		slabs_out = fopen(argv[2], "w");
		check(slabs_out, "%s: %s", argv[2], strerror(errno));
		fprintf(slabs_out, "mode,n,round,warmup,event,key,hits,ops\n");
		argv += 2;
		argc -= 2;
	}
	if (argc > 1 && !strcmp(argv[1], "--ballast")) {
		ballast_period = read_int("/sys/kernel/slab/kmalloc-1k/objs_per_slab");
		argv++;
		argc--;
	}
	if (argc != 6 && argc != 7) {
		fprintf(stderr, "usage: memcached [--fentry] [--slabs SLABS.csv] [--ballast] ROUNDS SECONDS NS MODES OUT.csv [CENSUS.csv]\n");
		return 2;
	}
	rounds = atoi(argv[1]);
	seconds = atoi(argv[2]);
	/* ROUNDS 0: the warm-up round alone (tests/guest/eval-smoke.sh). */
	check(rounds >= 0 && seconds >= 1, "ROUNDS must be >= 0 and SECONDS >= 1");
	nn = parse_list(argv[3], ns, MAX_NS, NULL, 0);
	nm = parse_list(argv[4], modes, MAX_MODES, mode_names, KEY4KX8 + 1);
	out = fopen(argv[5], "w");
	check(out, "%s: %s", argv[5], strerror(errno));
	fprintf(out, "bench,clock,mode,n,round,warmup,tps,ops,untraced_cpu_ns,cpu_ns_per_op,memcached_ns_per_op,memcached_cpu_ns,memcaslap_cpu_ns,traced_iters,traced_cpu_ns,traced_events,other_events,drops,tracer_cpu_ns,attach_ns,detach_ns,view_patches,view_pages,view_pt_pages,view_bytes,memcached_utime_ns,memcached_stime_ns,memcached_minflt,memcached_nvcsw,memcached_nivcsw,memcaslap_utime_ns,memcaslap_stime_ns,memcaslap_minflt,memcaslap_nvcsw,memcaslap_nivcsw,irqs,softirqs,pgalloc,pgfree,ballast\n");
	if (slabs_out)
		slab_census_start();
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
				run.rounds = rounds;
				run.warmup = !r;
				run.seconds = seconds;
				do_run(&run, iters);
				emit(out, &run);
				progress("round %d/%d N=%-2d %-5s %7llu ops/s  memcached %6.0f ns/op  traced events %llu  ballast %d%s",
					 r, rounds, run.n, mode_names[run.mode], run.tps,
					 (double)run.memcached_cpu / run.ops,
					 run.traced_events, run.ballast,
					 run.warmup ? "  (warm-up)" : "");
			}
		}
	}
	fclose(out);
	if (slabs_out) {
		slab_census_stop();
		fclose(slabs_out);
	}
	return 0;
}
