// SPDX-License-Identifier: GPL-2.0
/*
 * per-event: the per-event cost suite (Benchmark 1 of seed 001; the
 * programs are in eval/bpf/per_event.bpf.c).  Runs in the guest
 * (eval/bench-per-event boots it).
 *
 * For each script and mode, a traced `dd if=/dev/zero of=/dev/null bs=1
 * count=COUNT` (COUNT reads through vfs_read) runs with the script's
 * programs attached, then, still attached, an untraced one:
 *
 *   global  attached for everyone, as the bpftrace script is: the untraced
 *           dd pays what the traced one pays;
 *   kview   attached in the traced dd's kernel view (made while it is
 *           stopped right after exec): only it pays.
 *
 * Each dd is measured by its CPU time (wait4()); in icount mode that is the
 * instructions it executed.  Script 01 (nothing attached) is the control;
 * the report subtracts it and divides by COUNT.  Uprobes (06, 07) patch
 * libc's text, which every process maps: kview cannot scope them, so they
 * run globally only, and the driver prints why.  Rounds rotate the order
 * of the modes; round 0 is a warm-up.
 *
 *   per-event ROUNDS COUNT OUT.csv [SCRIPT...]   (default: all)
 */
#include <pthread.h>

#include "evalutil.h"
#include "per_event.h"
#include "per_event.skel.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

static const struct script {
	const char *id, *name;
	const char *progs[2];
	bool uprobe;	/* u:libc:read (06) or ur:libc:read (07) */
} scripts[] = {
	{ .id = "01", .name = "control", .progs = { NULL } },
	{ .id = "02", .name = "kprobe", .progs = { "s02_kprobe" } },
	{ .id = "03", .name = "kretprobe", .progs = { "s03_kretprobe" } },
	{ .id = "04", .name = "tracepoint entry", .progs = { "s04_tracepoint_entry" } },
	{ .id = "05", .name = "tracepoint return", .progs = { "s05_tracepoint_return" } },
	{ .id = "06", .name = "uprobe", .progs = { "s06_uprobe" }, .uprobe = true },
	{ .id = "07", .name = "uretprobe", .progs = { "s07_uretprobe" }, .uprobe = true },
	{ .id = "08", .name = "filter", .progs = { "s08_filter" } },
	{ .id = "09", .name = "map", .progs = { "s09_map" } },
	{ .id = "10", .name = "single key", .progs = { "s10_single_key" } },
	{ .id = "11", .name = "string key", .progs = { "s11_string_key" } },
	{ .id = "12", .name = "two keys", .progs = { "s12_two_keys" } },
	{ .id = "13", .name = "kernel stack", .progs = { "s13_kernel_stack" } },
	{ .id = "14", .name = "user stack", .progs = { "s14_user_stack" } },
	{ .id = "15", .name = "histogram", .progs = { "s15_histogram" } },
	{ .id = "16", .name = "timing", .progs = { "s16_timing_entry", "s16_timing_return" } },
	{ .id = "17", .name = "multiple", .progs = { "s17_multiple" } },
	{ .id = "18", .name = "per event", .progs = { "s18_per_event" } },
	{ .id = "19", .name = "fentry", .progs = { "s19_fentry" } },
	{ .id = "20", .name = "fexit", .progs = { "s20_fexit" } },
	{ .id = "21", .name = "fentry map", .progs = { "s21_fentry_map" } },
	{ .id = "22", .name = "fentry histogram", .progs = { "s22_fentry_histogram" } },
	{ .id = "23", .name = "fexit histogram", .progs = { "s23_fexit_histogram" } },
};
#define NSCRIPTS (int)(sizeof(scripts) / sizeof(scripts[0]))

enum mode { NONE, GLOBAL, KVIEW };
static const char *const mode_names[] = { "none", "global", "kview" };

/* Script 18's user space: bpftrace prints each event; so do we (to /dev/null). */
struct printer {
	struct perf_buffer *pb;
	pthread_t thread;
	volatile bool stop;
	FILE *out;
	unsigned long long printed, lost;
};

static void print_event(void *ctx, int cpu, void *data, __u32 size)
{
	struct printer *p = ctx;
	const struct pe_event *e = data;

	(void)cpu;
	if (size < sizeof(*e))
		return;
	fprintf(p->out, "%llu bytes\n", (unsigned long long)e->len);
	p->printed++;
}

static void lost_events(void *ctx, int cpu, __u64 n)
{
	struct printer *p = ctx;

	(void)cpu;
	p->lost += n;
}

static void *printer_main(void *arg)
{
	struct printer *p = arg;
	int err;

	while (!p->stop) {
		err = perf_buffer__poll(p->pb, 100);
		check(err >= 0 || err == -EINTR, "perf_buffer__poll: %d", err);
	}
	perf_buffer__consume(p->pb);
	return NULL;
}

static long long run_dd(const char *count, struct kview *(*before)(pid_t, void *),
			void *arg, struct kview **kv)
{
	char arg_count[64];
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1", arg_count,
		       "status=none", NULL };
	pid_t pid;

	snprintf(arg_count, sizeof(arg_count), "count=%s", count);
	pid = spawn_stopped(dd);
	if (before)
		*kv = before(pid, arg);
	resume(pid);
	return reap_cpu_ns(pid, 0, "dd");
}

struct attach_ctx {
	struct per_event *skel;
	const struct script *s;
	struct bpf_link *links[2];
	long long attach_ns;
};

static struct bpf_program *prog_of(struct per_event *skel, const char *name)
{
	struct bpf_program *p = bpf_object__find_program_by_name(skel->obj, name);

	check(p, "no program %s", name);
	return p;
}

static void attach_global(struct attach_ctx *a)
{
	long long t0 = now_ns();
	int i;

	for (i = 0; i < 2 && a->s->progs[i]; i++) {
		struct bpf_program *p = prog_of(a->skel, a->s->progs[i]);

		if (a->s->uprobe) {
			LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = "read",
				    .retprobe = !strcmp(a->s->id, "07"));

			a->links[i] = bpf_program__attach_uprobe_opts(p, -1, LIBC, 0, &uo);
		} else {
			a->links[i] = bpf_program__attach(p);
		}
		check(a->links[i], "attach %s: %s", a->s->progs[i], strerror(errno));
	}
	a->attach_ns = now_ns() - t0;
}

/* Make the view of the stopped traced dd and attach the script in it. */
static struct kview *attach_in_view(pid_t pid, void *arg)
{
	struct attach_ctx *a = arg;
	long long t0 = now_ns();
	struct kview *kv;
	int i;

	kv = kview__create(pid, NULL);
	check(kv, "kview__create: %s", strerror(errno));
	for (i = 0; i < 2 && a->s->progs[i]; i++) {
		a->links[i] = kview__attach_program(kv, prog_of(a->skel, a->s->progs[i]));
		check(a->links[i], "attach %s in the view: %s", a->s->progs[i],
		      strerror(errno));
	}
	a->attach_ns = now_ns() - t0;
	/* Deferred work of the attach settles before the dd runs. */
	sleep(1);
	return kv;
}

/* The scripts that count every event: the count must be the dd's reads. */
static unsigned long long map_total(struct per_event *skel, const struct script *s)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	unsigned long long sum = 0;
	__u64 v[256];
	__u32 zero = 0;

	if (strcmp(s->id, "09"))
		return 0;
	check(ncpu > 0 && ncpu <= 256, "cpus: %d", ncpu);
	check(!bpf_map_lookup_elem(bpf_map__fd(skel->maps.total), &zero, v),
	      "lookup: %s", strerror(errno));
	for (i = 0; i < ncpu; i++)
		sum += v[i];
	return sum;
}

static void one_run(FILE *out, const struct script *s, enum mode m, int round,
		    const char *count)
{
	struct attach_ctx a = { .s = s };
	struct printer pr = { 0 };
	struct kview *kv = NULL;
	long long traced, untraced, t0, detach_ns;
	unsigned long long events = 0;
	struct bpf_program *p;
	int i;

	if (m != NONE) {
		a.skel = per_event__open();
		check(a.skel, "open: %s", strerror(errno));
		bpf_object__for_each_program(p, a.skel->obj) {
			const char *name = bpf_program__name(p);

			bpf_program__set_autoload(p, !strcmp(name, s->progs[0]) ||
						  (s->progs[1] && !strcmp(name, s->progs[1])));
		}
		check(!per_event__load(a.skel), "load %s: %s", s->name, strerror(errno));
		if (!strcmp(s->id, "18")) {
			pr.out = fopen("/dev/null", "w");
			check(pr.out, "/dev/null: %s", strerror(errno));
			pr.pb = perf_buffer__new(bpf_map__fd(a.skel->maps.output), 64,
						 print_event, lost_events, &pr, NULL);
			check(pr.pb, "perf_buffer__new: %s", strerror(errno));
			check(!pthread_create(&pr.thread, NULL, printer_main, &pr),
			      "pthread_create");
		}
	}
	if (m == GLOBAL)
		attach_global(&a);
	/* Deferred work of the attach and of the previous run settles. */
	if (m != KVIEW)
		sleep(1);
	traced = run_dd(count, m == KVIEW ? attach_in_view : NULL, &a, &kv);
	if (m != NONE)
		events = map_total(a.skel, s);
	untraced = run_dd(count, NULL, NULL, NULL);

	if (pr.pb) {
		pr.stop = true;
		pthread_join(pr.thread, NULL);
		perf_buffer__free(pr.pb);
		fclose(pr.out);
	}
	t0 = now_ns();
	for (i = 0; i < 2; i++)
		bpf_link__destroy(a.links[i]);
	kview__destroy(kv);
	detach_ns = now_ns() - t0;
	per_event__destroy(a.skel);

	if (m == KVIEW && events)
		check(events >= strtoull(count, NULL, 10) &&
		      events <= strtoull(count, NULL, 10) + 10000,
		      "script %s in a view counted %llu events for %s reads", s->id,
		      events, count);
	fprintf(out, "per-event,%s,%s,%s,%s,%d,%d,%s,%lld,%lld,%lld,%lld,%llu,%llu,%llu\n",
		clock_name(), s->id, s->name, mode_names[m], round, round == 0, count,
		traced, untraced, m == NONE ? 0 : a.attach_ns, m == NONE ? 0 : detach_ns,
		events, pr.printed, pr.lost);
	fflush(out);
	progress("round %d %s %-17s %-6s traced dd %11lld ns, untraced dd %11lld ns%s",
		 round, s->id, s->name, mode_names[m], traced, untraced,
		 round ? "" : "  (warm-up)");
}

int main(int argc, char **argv)
{
	const struct script *todo[NSCRIPTS];
	int rounds, ntodo = 0, r, i, j, k;
	const char *why;
	FILE *out;

	if (argc < 4) {
		fprintf(stderr, "usage: per-event ROUNDS COUNT OUT.csv [SCRIPT...]\n");
		return 2;
	}
	rounds = atoi(argv[1]);
	check(rounds >= 1 && atol(argv[2]) >= 1, "ROUNDS and COUNT must be >= 1");
	for (i = 0; i < NSCRIPTS; i++) {
		bool want = argc == 4;

		for (j = 4; j < argc; j++)
			want |= !strcmp(argv[j], scripts[i].id);
		/* The control is always measured: the others are relative to it. */
		if (want || i == 0)
			todo[ntodo++] = &scripts[i];
	}
	out = fopen(argv[3], "w");
	check(out, "%s: %s", argv[3], strerror(errno));
	fprintf(out, "bench,clock,script,name,mode,round,warmup,count,traced_cpu_ns,untraced_cpu_ns,attach_ns,detach_ns,counted_events,printed,lost\n");

	for (i = 0; i < ntodo; i++) {
		struct per_event *skel;

		if (!todo[i]->progs[0])
			continue;
		skel = per_event__open();
		check(skel, "open: %s", strerror(errno));
		if (kview_program__scopable(prog_of(skel, todo[i]->progs[0]), &why))
			progress("script %s (%s): global only; kview: %s", todo[i]->id,
				 todo[i]->name, why);
		per_event__destroy(skel);
	}

	for (r = 0; r <= rounds; r++) {
		for (i = 0; i < ntodo; i++) {
			const struct script *s = todo[i];

			if (!s->progs[0]) {
				one_run(out, s, NONE, r, argv[2]);
				continue;
			}
			for (k = 0; k < 2; k++) {
				enum mode m = (k + r) % 2 ? KVIEW : GLOBAL;

				if (m == KVIEW && s->uprobe)
					continue;
				one_run(out, s, m, r, argv[2]);
			}
		}
	}
	fclose(out);
	return 0;
}
