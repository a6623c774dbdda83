/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Support for the kernel-view tests: processes started stopped right after
 * exec (so a view can be made on the final mm before the work starts),
 * kallsyms, map reads, kview's debugfs counters, free memory.
 */
#ifndef KVIEW_TESTS_KVTEST_H
#define KVIEW_TESTS_KVTEST_H

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <kview/kview.h>

#include "check.h"

/* Mark size of workload's reads (tests/guest/workload.c). */
#define MARK_SIZE 7

/*
 * Wait until @cond holds, polling every 20 ms, for at most @sec seconds;
 * true if it held.  For what a workload does "soon": a fixed sleep that is
 * long enough on the test kernel is not on the debug kernel (KASAN and
 * lockdep under TCG run about 20 times slower).
 */
#define WAIT_FOR(cond, sec) ({						\
	double __end = kvtest_now() + (sec);				\
	bool __ok;							\
	while (!(__ok = (cond)) && kvtest_now() < __end)		\
		usleep(20000);						\
	__ok;								\
})

/*
 * @call (a value or -errno) must fail with @err (0: succeed); says what it
 * returned.  A wrong errno is an expect(): the test goes on to its other
 * errnos.  A failure where success (0) was expected ends the test
 * (check()): what follows uses what the call made.
 */
#define expect_errno(call, err)                                              \
	do {                                                                 \
		int __r = (call);                                            \
		diag("%s -> %s", #call, __r >= 0 ? "ok" : strerror(-__r));   \
		if ((err) == 0)                                              \
			check(__r >= 0, "%s: got %d, expected success",      \
			      #call, __r);                                   \
		else                                                         \
			expect(__r == -(err), "%s: got %d, expected -%s",    \
			       #call, __r, #err);                            \
	} while (0)

/* CLOCK_MONOTONIC in seconds. */
static inline double kvtest_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run the calling thread on @cpu only. */
static inline void pin_to_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	check(!sched_setaffinity(0, sizeof(set), &set), "pin to CPU %d: %s",
	      cpu, strerror(errno));
}

/* Start argv[] stopped just after its exec (ptrace), return its pid. */
static inline pid_t spawn_stopped(char *const argv[])
{
	pid_t pid;
	int st;

	pid = fork();
	check(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		/* Its own process group: kill(-pid) ends its children too. */
		setpgid(0, 0);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execvp(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	check(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
	check(WIFSTOPPED(st) && WSTOPSIG(st) == SIGTRAP,
	      "%s did not stop after exec (status %#x)", argv[0], st);
	return pid;
}

/* Let a spawn_stopped() process run. */
static inline void resume(pid_t pid)
{
	check(!ptrace(PTRACE_DETACH, pid, NULL, NULL), "PTRACE_DETACH %d: %s",
	      pid, strerror(errno));
}

static inline int wait_exit(pid_t pid)
{
	int st;

	check(waitpid(pid, &st, 0) == pid, "waitpid %d: %s", pid, strerror(errno));
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * For a suite's teardown: kill and reap @pid (its process group too) if
 * it is a child of ours not reaped yet, a spawn_stopped() process that a
 * failed check left behind; 0, or a child wait_exit() reaped, is left be.
 */
static inline void reap_child(pid_t pid)
{
	if (pid <= 0 || waitpid(pid, NULL, WNOHANG) != 0)
		return;
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/*
 * For a suite's fixture (tests/lib/harness.h): destroy what *@link or
 * *@kv holds, or close *@fd, if anything, and forget it, so that a
 * teardown after a failed check releases only what is left.  An fd of 0
 * (a zeroed fixture's) or below (a failed open's) is none.
 */
static inline void release_link(struct bpf_link **link)
{
	bpf_link__destroy(*link);
	*link = NULL;
}

static inline void release_view(struct kview **kv)
{
	kview__destroy(*kv);
	*kv = NULL;
}

static inline void release_fd(int *fd)
{
	if (*fd > 0)
		close(*fd);
	*fd = 0;
}

/*
 * For a suite's teardown, where a failed check() would end it: write @s
 * to @path (appended if @append), and say what failed, if anything.  What
 * puts back the global state a case changed (tracefs, a sysctl).
 */
static inline void put_back(const char *path, const char *s, bool append)
{
	int fd = open(path, O_WRONLY | (append ? O_APPEND : O_TRUNC));

	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		diag("teardown: write '%s' to %s: %s", s, path, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/* For a suite's teardown: the function tracer off, unfiltered, tracing on. */
static inline void function_tracer_put_back(void)
{
	put_back("/sys/kernel/tracing/current_tracer", "nop\n", false);
	put_back("/sys/kernel/tracing/set_ftrace_filter", "\n", false);
	put_back("/sys/kernel/tracing/tracing_on", "1", false);
}

/* The address of kernel symbol @name, or 0 if the kernel has none. */
static inline unsigned long ksym_find(const char *name)
{
	char line[512], sym[256], t;
	unsigned long addr;
	FILE *f = fopen("/proc/kallsyms", "r");

	check(f, "/proc/kallsyms: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %255s", &addr, &t, sym) == 3 &&
		    !strcmp(sym, name)) {
			fclose(f);
			return addr;
		}
	}
	fclose(f);
	return 0;
}

static inline unsigned long ksym(const char *name)
{
	unsigned long addr = ksym_find(name);

	if (!addr)
		fail("no symbol %s", name);
	return addr;
}

/*
 * The ftrace site of the function at @fn: where a kprobe on the function's
 * entry goes, and a view's call for it.  Without IBT that is the function's
 * address; with IBT (6.12 as Debian builds it) an ENDBR64, or the 4-byte
 * NOP that seals an unused one, comes first.  tracefs lists the sites since
 * 6.5 (available_filter_functions_addrs); without it, the site is @fn.
 * The instruction after the site is at fentry_site(fn) + 5.
 */
static inline unsigned long fentry_site(unsigned long fn)
{
	char line[512];
	unsigned long a, site = 0;
	FILE *f = fopen("/sys/kernel/tracing/available_filter_functions_addrs", "r");

	if (!f) {
		check(errno == ENOENT, "available_filter_functions_addrs: %s",
		      strerror(errno));
		return fn;
	}
	while (!site && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx", &a) == 1 && a >= fn && a < fn + 16)
			site = a;
	fclose(f);
	if (!site)
		fail("no ftrace site at %#lx..%#lx", fn, fn + 15);
	return site;
}

/* The ftrace site of the function @name. */
static inline unsigned long ksym_site(const char *name)
{
	return fentry_site(ksym(name));
}

/*
 * What follows the ftrace site of @name, as an offset into the function
 * (5 without IBT): where the tests put a kprobe past the entry, an int3
 * that is single-stepped.
 */
static inline unsigned long past_site_offset(const char *name)
{
	unsigned long fn = ksym(name);

	return fentry_site(fn) + 5 - fn;
}

/*
 * Attach the kprobe program @prog (SEC("kprobe"): no target of its own) at
 * @fn+@off, in the attach scope of @kv, or globally with @kv NULL.
 */
static inline struct bpf_link *attach_kprobe_off(struct kview *kv,
						 struct bpf_program *prog,
						 const char *fn, unsigned long off)
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .offset = off);
	struct bpf_link *link;
	int err;

	if (kv && kview__enter_scope(kv))
		return NULL;
	link = bpf_program__attach_kprobe_opts(prog, fn, &opts);
	err = link ? 0 : errno;
	if (kv)
		kview__leave_scope(kv);
	errno = err;
	return link;
}

/*
 * ... on @fn's first instruction past its ftrace site, an ordinary int3.
 * The offset depends on the kernel's layout of the function, so it cannot
 * be in the program's section.
 */
static inline struct bpf_link *attach_past_site(struct kview *kv,
						struct bpf_program *prog,
						const char *fn)
{
	return attach_kprobe_off(kv, prog, fn, past_site_offset(fn));
}

static inline unsigned long long map_u32_count(int fd, unsigned int key)
{
	unsigned long long v = 0;

	if (bpf_map_lookup_elem(fd, &key, &v))
		return 0;
	return v;
}

static inline size_t map_u32_keys(int fd, unsigned int *keys, size_t max)
{
	unsigned int k, next;
	size_t n = 0;
	bool first = true;

	while (n < max && !bpf_map_get_next_key(fd, first ? NULL : &k, &next)) {
		keys[n++] = next;
		k = next;
		first = false;
	}
	return n;
}

/*
 * A view's program counted for @target exactly what the in-eBPF one
 * counted (@view_fd, @in_fd: tgid -> count maps), and nobody else (the
 * decoy's count is shown).  Returns the in-eBPF count.
 */
static inline unsigned long long check_counts_equal(int view_fd, int in_fd,
						    pid_t target, pid_t decoy)
{
	unsigned long long want = map_u32_count(in_fd, target);
	unsigned long long got = map_u32_count(view_fd, target);
	unsigned int keys[16];
	size_t nkeys = map_u32_keys(view_fd, keys, 16);

	diag("target %d: kview %llu, in-eBPF %llu; decoy %d: kview %llu; kview map keys %zu",
	     target, got, want, decoy, map_u32_count(view_fd, decoy), nkeys);
	check_eq(got, want);
	check_eq(nkeys, 1);
	check_eq(keys[0], target);
	return want;
}

/*
 * A global program (its tgid -> count map @fd) beside a view's: it saw the
 * target as often as the view's did (@want), and the decoy, at least
 * @decoy_min times.
 */
static inline void check_global_counts(int fd, pid_t target, pid_t decoy,
				       unsigned long long want,
				       unsigned long long decoy_min)
{
	unsigned long long gt = map_u32_count(fd, target), gd = map_u32_count(fd, decoy);

	diag("global program: target %llu, decoy %llu", gt, gd);
	check_eq(gt, want);
	check(gd >= decoy_min, "the global program missed the decoy: %llu", gd);
}

struct kview_stats {
	unsigned int views, members, patches, pages, pt_pages;
	/* since boot: hooks reached outside their view, global fallbacks */
	unsigned long out_of_scope, global_fallback;
};

static inline struct kview_stats kview_stats(void)
{
	struct kview_stats s = { 0 };
	char name[32];
	unsigned long v;
	FILE *f = fopen("/sys/kernel/debug/kview/stats", "r");

	check(f, "kview stats: %s", strerror(errno));
	while (fscanf(f, "%31s %lu", name, &v) == 2) {
		if (!strcmp(name, "views"))
			s.views = v;
		else if (!strcmp(name, "members"))
			s.members = v;
		else if (!strcmp(name, "patches"))
			s.patches = v;
		else if (!strcmp(name, "pages"))
			s.pages = v;
		else if (!strcmp(name, "pt_pages"))
			s.pt_pages = v;
		else if (!strcmp(name, "out_of_scope"))
			s.out_of_scope = v;
		else if (!strcmp(name, "global_fallback"))
			s.global_fallback = v;
	}
	fclose(f);
	return s;
}

/* The whole of a (pseudo) file, NUL-terminated; the caller frees it. */
static inline char *kvtest_slurp(const char *path)
{
	size_t len = 0, size = 1 << 16, n;
	char *buf = malloc(size);
	FILE *f = fopen(path, "r");

	check(f && buf, "read %s: %s", path, strerror(errno));
	while ((n = fread(buf + len, 1, size - len - 1, f)) > 0) {
		len += n;
		if (len + 1 == size) {
			size *= 2;
			buf = realloc(buf, size);
			check(buf, "read %s: out of memory", path);
		}
	}
	fclose(f);
	buf[len] = '\0';
	return buf;
}

/* One line of kview/stats by name (0 if the kernel has no such line). */
static inline unsigned long kview_stat(const char *name)
{
	char key[64];
	unsigned long v, found = 0;
	FILE *f = fopen("/sys/kernel/debug/kview/stats", "r");

	check(f, "kview/stats: %s", strerror(errno));
	while (fscanf(f, "%63s %lu", key, &v) == 2)
		if (!strcmp(key, name))
			found = v;
	fclose(f);
	return found;
}

/*
 * kview frees views from a work item, and an mm leaves its view when its
 * last lazy user drops it, just after its last task switched away: wait
 * until the counters settle.
 */
static inline struct kview_stats kview_stats_settled(unsigned int views)
{
	struct kview_stats s;
	int i;

	for (i = 0; i < 200; i++) {
		s = kview_stats();
		if (s.views <= views && (views || !s.members))
			break;
		usleep(10000);
	}
	return s;
}

/* Once views settle, no view, member, patch, copy or table page is left. */
static inline void check_stats_clean(void)
{
	struct kview_stats s = kview_stats_settled(0);

	check_eq(s.views, 0);
	check_eq(s.members, 0);
	check_eq(s.patches, 0);
	check_eq(s.pages, 0);
	check_eq(s.pt_pages, 0);
}

/* @kv holds no attachment, site or page any more: close it. */
static inline void check_view_empty_destroy(struct kview *kv)
{
	struct kview_info info;

	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_attachments, 0);
	check_eq(info.nr_patches, 0);
	check_eq(info.nr_pages, 0);
	kview__destroy(kv);
}

/*
 * One line of debugfs kview/verify: a view's text and tables checked
 * against the global ones.  Every bad_ count must be 0.
 */
struct kview_verify {
	unsigned int id, pages, patches;
	unsigned long bad_bytes, bad_orig, bad_map, bad_tables, bad_global;
};

/* Parse one kview/verify line; false if it is not one. */
static inline bool kview_verify_parse(const char *line, struct kview_verify *v)
{
	return sscanf(line, "view %u pages %u patches %u bad_bytes %lu bad_orig %lu bad_map %lu bad_tables %lu bad_global %lu",
		      &v->id, &v->pages, &v->patches, &v->bad_bytes,
		      &v->bad_orig, &v->bad_map, &v->bad_tables,
		      &v->bad_global) == 8;
}

static inline unsigned long kview_verify_bad(const struct kview_verify *v)
{
	return v->bad_bytes + v->bad_orig + v->bad_map + v->bad_tables +
	       v->bad_global;
}

/* The bad_ counts of all views in kview/verify, summed; @views: lines. */
static inline unsigned long kview_verify_total(unsigned int *views)
{
	struct kview_verify v;
	unsigned long bad = 0;
	unsigned int n = 0;
	char line[256];
	FILE *f = fopen("/sys/kernel/debug/kview/verify", "r");

	check(f, "kview/verify: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		check(kview_verify_parse(line, &v), "odd kview/verify line: %s", line);
		bad += kview_verify_bad(&v);
		n++;
	}
	fclose(f);
	if (views)
		*views = n;
	return bad;
}

/*
 * Does the kernel run 5-level paging?  It clears the la57 flag of
 * /proc/cpuinfo when it does not (no5lvl, or a CPU without LA57).
 */
static inline bool paging_5level(void)
{
	char line[4096];
	bool la57 = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	check(f, "/proc/cpuinfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			la57 = strstr(line, " la57 ") || strstr(line, " la57\n");
			break;
		}
	fclose(f);
	return la57;
}

/* Table pages of a view without patches: PUD and PMD copies, and P4D. */
static inline unsigned int view_base_pt_pages(void)
{
	return paging_5level() ? 3 : 2;
}

static inline long mem_free_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	check(f, "/proc/meminfo: %s", strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemFree: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * The path of the `workload` helper, which is built next to the running
 * test, into @buf (PATH_MAX-sized).
 */
static inline void workload_path(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 16);
	char *slash;

	if (n < 0)
		fail("readlink /proc/self/exe: %s", strerror(errno));
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	check(slash, "odd path %s", buf);
	strcpy(slash + 1, "workload");
}

/* Attach @obj's program @prog in view @kv, or globally if @kv is NULL. */
static inline struct bpf_link *attach_prog(struct bpf_object *obj,
					   const char *prog, struct kview *kv)
{
	struct bpf_program *p = bpf_object__find_program_by_name(obj, prog);
	struct bpf_link *link;

	check(p, "no program %s", prog);
	link = kv ? kview__attach_program(kv, p) : bpf_program__attach(p);
	check(link, "attach %s%s: %s", prog, kv ? " in the view" : "",
	      strerror(errno));
	return link;
}

/*
 * The view's info once its members are gone (for at most 2 s): a member
 * that exits leaves at its last switch, which may come after the reap.
 */
static inline struct kview_info kview_info_memberless(struct kview *kv)
{
	struct kview_info info = { 0 };
	int i;

	for (i = 0; i < 200; i++) {
		check(!kview__info(kv, &info), "info: %s", strerror(errno));
		if (!info.nr_members)
			break;
		usleep(10000);
	}
	return info;
}

/* Task ids with the syscall-work flag (debugfs kview/syscall_work). */
static inline size_t syscall_work_tids(int *tids, size_t max)
{
	char line[256];
	size_t n = 0;
	FILE *f = fopen("/sys/kernel/debug/kview/syscall_work", "r");

	check(f, "kview/syscall_work: %s", strerror(errno));
	while (n < max && fgets(line, sizeof(line), f))
		if (sscanf(line, "%d", &tids[n]) == 1)
			n++;
	fclose(f);
	return n;
}

/* Does task @tid have the syscall-work flag? */
static inline bool syscall_work_flagged(pid_t tid)
{
	int tids[512];
	size_t i, n = syscall_work_tids(tids, 512);

	for (i = 0; i < n; i++)
		if (tids[i] == tid)
			return true;
	return false;
}

/* Keep only the program @name of @obj for loading. */
static inline void only_program(struct bpf_object *obj, const char *name)
{
	struct bpf_program *prog;
	bool found = false;

	bpf_object__for_each_program(prog, obj) {
		bool keep = !strcmp(bpf_program__name(prog), name);

		bpf_program__set_autoload(prog, keep);
		found |= keep;
	}
	check(found, "no program %s", name);
}

/* @n bytes as hex ("0f 1f 44 00 00"), in one of four rotating buffers. */
static inline const char *hexbytes(const unsigned char *b, size_t n)
{
	static char bufs[4][3 * 64 + 1];
	static unsigned int next;
	char *buf = bufs[next++ % 4];
	size_t i;

	if (n > 64)
		n = 64;
	buf[0] = '\0';
	for (i = 0; i < n; i++)
		sprintf(buf + (i ? 3 * i - 1 : 0), i ? " %02x" : "%02x", b[i]);
	return buf;
}

/*
 * Whether @insn, the bytes at @addr, is a call to @dest: what a view's copy
 * of an ftrace site holds where a view kprobe is armed (a call to
 * kprobe_view_caller) and the global text where ftrace is enabled.
 */
static inline bool insn_calls(const unsigned char *insn, unsigned long addr,
			      unsigned long dest)
{
	int32_t rel;

	memcpy(&rel, insn + 1, sizeof(rel));
	return insn[0] == 0xe8 && addr + 5 + (long)rel == dest;
}

/*
 * A view kprobe armed at @addr: on an ftrace site (@entry), the view's copy
 * calls kprobe_view_caller, as the global text calls ftrace's caller for a
 * global one; elsewhere it holds an int3.
 */
static inline void check_view_kprobe_insn(struct kview *kv, unsigned long addr,
					  bool entry)
{
	unsigned char vb[5], gb[5];

	check(!kview__read_text(kv, addr, vb, gb, sizeof(vb)), "read text at %#lx: %s",
	      addr, strerror(errno));
	if (entry)
		check(insn_calls(vb, addr, ksym("kprobe_view_caller")),
		      "the view holds %s at %#lx, not a call to kprobe_view_caller",
		      hexbytes(vb, 5), addr);
	else
		check(vb[0] == 0xcc, "the view holds %s at %#lx, not an int3",
		      hexbytes(vb, 5), addr);
}

/* debugfs kview/views, read with libkview (its one parser of the format). */
static inline struct kview_views *views_read(void)
{
	struct kview_views *views;
	int err = kview__views_read(NULL, &views);

	check(!err, "%s: %s", KVIEW_VIEWS_FILE, strerror(-err));
	return views;
}

/*
 * The address of the first patch of @kind ("jump", "call", ...) debugfs
 * lists for the views, or 0; the number of them in @nr if not NULL.
 */
static inline unsigned long first_patch(const char *kind, unsigned int *nr)
{
	struct kview_views *views = views_read();
	unsigned long first = 0;
	unsigned int n = 0;
	size_t i, j;

	for (i = 0; i < views->cnt; i++) {
		const struct kview_views_view *v = views->views[i];

		for (j = 0; j < v->patches_cnt; j++)
			if (!strcmp(v->patches[j].kind, kind) && !n++)
				first = v->patches[j].addr;
	}
	kview__views_free(views);
	if (nr)
		*nr = n;
	return first;
}

static inline unsigned long first_jump_patch(void)
{
	return first_patch("jump", NULL);
}

/* Whether view @id's "refused" lines in kview/views have one with @what. */
static inline bool view_refused(unsigned int id, const char *what)
{
	struct kview_views *views = views_read();
	const struct kview_views_view *v = kview__views_find(views, id);
	bool found = false;
	size_t j;

	for (j = 0; v && j < v->refused_cnt; j++)
		found |= strstr(v->refused[j].what, what) != NULL;
	kview__views_free(views);
	diag("view %u refused %s: %s", id, what, found ? "yes" : "no");
	return found;
}

/* Write @s to the tracefs file @name (under /sys/kernel/tracing/). */
static inline void tracefs_set(const char *name, const char *s)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/tracing/%s", name);
	f = fopen(path, "w");
	check(f, "open %s: %s", path, strerror(errno));
	check(fputs(s, f) >= 0 && !fclose(f), "write '%s' to %s: %s", s, path,
	      strerror(errno));
}

/* Lines of the trace buffer that mention "-PID " and @what. */
static inline int trace_lines(pid_t pid, const char *what)
{
	char line[1024], tag[32];
	int n = 0;
	FILE *f = fopen("/sys/kernel/tracing/trace", "r");

	check(f, "trace: %s", strerror(errno));
	snprintf(tag, sizeof(tag), "-%d ", pid);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, tag) && strstr(line, what))
			n++;
	fclose(f);
	return n;
}

/* The view's and the global bytes at @addr must be equal. */
static inline void check_text_same(struct kview *kv, unsigned long addr,
				   size_t len, const char *when)
{
	unsigned char vb[64], gb[64];

	check(len <= sizeof(vb), "check_text_same: %zu bytes", len);
	check(!kview__read_text(kv, addr, vb, gb, len), "read text: %s",
	      strerror(errno));
	if (memcmp(vb, gb, len)) {
		diag("view   %s", hexbytes(vb, len));
		diag("global %s", hexbytes(gb, len));
		fail("%s: the view's bytes at %#lx differ from the global ones",
		     when, addr);
	}
}

#endif
