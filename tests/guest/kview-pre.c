// SPDX-License-Identifier: GPL-2.0
/*
 * kview-pre: the pre-eBPF filter (a filter view, KVIEW_F_FILTER, `kview
 * attach --mode pre`).  Its hooks are armed in the global text for every
 * process, as without views, and its programs are skipped, before they
 * run, for processes outside the view.  A program attached that way
 * counts exactly what the in-eBPF filter (pid == N, attached globally in
 * the same run) counts for the target, and nothing of an identical decoy;
 * the view has no text, pages or tables of its own.
 *
 *   kprobe      kprobe on ksys_read (its global ftrace site changes)
 *   tracepoint  syscalls/sys_enter_read (every task, the decoy too, gets
 *               the syscall-work flag), in-eBPF on ksys_read
 *   raw-tp      raw tracepoint sys_enter, in-eBPF on raw_syscalls/sys_enter
 *
 * One suite (tests/lib/harness.h): the fixture is the target and the
 * decoy, the filter view and both programs, attached; each mode is a case,
 * its variant the programs.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "kvtest.h"
#include "count.skel.h"
#include "tpcount.skel.h"

#define N 2000
#define NSTR "2000"

static char workload[4096];

struct pre_variant {
	const char *prog;	/* attached with the pre-eBPF filter */
	const char *in_prog;	/* the in-eBPF filter's, attached globally */
	bool tp;		/* tpcount.bpf.o's (else count.bpf.o's) */
	bool flags_decoy;	/* the decoy gets the syscall-work flag */
};

/* What setup made; NULL is what it did not make, or what was released. */
struct pre {
	pid_t t, d;			/* target, decoy */
	struct kview *kv;
	void *skel, *iskel;		/* struct tpcount or struct count */
	int fd, ifd;			/* their counts maps */
	struct bpf_link *link, *ilink;
	unsigned long fn;		/* ksys_read's ftrace site (kprobe) */
	unsigned char before;		/* the global text there, before */
};

static struct bpf_program *load(const char *prog, unsigned int filter,
				 bool tp, void **skel_out, int *map_fd)
{
	struct bpf_object *obj;

	if (tp) {
		struct tpcount *skel = tpcount__open();

		check(skel, "open tpcount.bpf.o: %s", strerror(errno));
		*skel_out = skel;
		skel->rodata->filter_tgid = filter;
		skel->rodata->mark_size = !strcmp(prog, "tp_read") ||
					  !strcmp(prog, "kp_read") ? MARK_SIZE : 0;
		only_program(skel->obj, prog);
		check(!tpcount__load(skel), "load %s: %s", prog, strerror(errno));
		*map_fd = bpf_map__fd(skel->maps.counts);
		obj = skel->obj;
	} else {
		struct count *skel = count__open();

		check(skel, "open count.bpf.o: %s", strerror(errno));
		*skel_out = skel;
		skel->rodata->filter_tgid = filter;
		skel->rodata->mark_size = MARK_SIZE;
		only_program(skel->obj, prog);
		check(!count__load(skel), "load %s: %s", prog, strerror(errno));
		*map_fd = bpf_map__fd(skel->maps.counts);
		obj = skel->obj;
	}
	return bpf_object__find_program_by_name(obj, prog);
}

static void destroy_skel(void **skel, bool tp)
{
	if (tp)
		tpcount__destroy(*skel);
	else
		count__destroy(*skel);
	*skel = NULL;
}

/*
 * Target and decoy started stopped, the target's filter view, the in-eBPF
 * program filtered on the target and @v->prog with the pre-eBPF filter,
 * attached; ksys_read's global text read first (kprobe).
 */
static void pre_setup(void *fixture, const void *variant)
{
	char *args[] = { workload, "reads", NSTR, NULL };
	LIBBPF_OPTS(kview_opts, opts, .filter = true);
	const struct pre_variant *v = variant;
	struct pre *f = fixture;
	struct bpf_program *p, *ip;
	unsigned char vb;

	f->t = spawn_stopped(args);
	f->d = spawn_stopped(args);
	f->kv = kview__create(f->t, &opts);
	check(f->kv, "kview__create(filter): %s", strerror(errno));
	if (!v->tp) {
		f->fn = ksym_site("ksys_read");
		check(!kview__read_text(f->kv, f->fn, &vb, &f->before, 1),
		      "read text: %s", strerror(errno));
	}
	check(!syscall_work_flagged(f->d), "the decoy has the syscall-work flag already");

	p = load(v->prog, 0, v->tp, &f->skel, &f->fd);
	ip = load(v->in_prog, f->t, v->tp, &f->iskel, &f->ifd);
	f->ilink = bpf_program__attach(ip);
	check(f->ilink, "attach in-eBPF %s: %s", v->in_prog, strerror(errno));
	f->link = kview__attach_program(f->kv, p);
	check(f->link, "attach %s with the pre-eBPF filter: %s", v->prog,
	      strerror(errno));
}

/* Detach both programs, close the view and the objects. */
static void pre_release(struct pre *f, const struct pre_variant *v)
{
	release_link(&f->link);
	release_link(&f->ilink);
	release_view(&f->kv);
	destroy_skel(&f->skel, v->tp);
	destroy_skel(&f->iskel, v->tp);
}

static void pre_teardown(void *fixture, const void *variant)
{
	struct pre *f = fixture;

	reap_child(f->t);
	reap_child(f->d);
	pre_release(f, variant);
}

/*
 * Attached: the view has nothing of its own, the hook is armed globally
 * (kprobe: ksys_read's ftrace site calls; tracepoint: the decoy has the
 * syscall-work flag).
 */
static void check_attached(struct pre *f, const struct pre_variant *v)
{
	struct kview_info info;
	unsigned char vb, gb;

	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	diag("filter view %u: flags %#x, %u attachment(s), %u site(s), %u page(s), %u table page(s)",
	     info.id, info.flags, info.nr_attachments, info.nr_patches,
	     info.nr_pages, info.nr_pt_pages);
	check_eq(info.flags, KVIEW_F_FILTER);
	check_eq(info.nr_attachments, 1);
	check_eq(info.nr_patches, 0);
	check_eq(info.nr_pages, 0);
	check_eq(info.nr_pt_pages, 0);
	if (!v->tp) {
		/* Armed globally: ksys_read's ftrace site now calls. */
		check(!kview__read_text(f->kv, f->fn, &vb, &gb, 1), "read text: %s",
		      strerror(errno));
		diag("ksys_read: global %02x (before %02x), member's %02x", gb,
		     f->before, vb);
		check(gb != f->before, "the kprobe is not armed in the global text");
		check_eq(vb, gb);
	} else if (v->flags_decoy) {
		check(syscall_work_flagged(f->d), "the decoy has no syscall-work flag: not armed globally");
	}
}

/* Released: no view is left and (kprobe) the global site is back. */
static void check_released(struct pre *f, const struct pre_variant *v)
{
	unsigned char vb, gb;

	check_eq(kview_stats_settled(0).views, 0);
	if (v->tp)
		return;
	/* The global site is back (read through an empty view). */
	f->kv = kview__create(0, NULL);
	check(f->kv, "kview__create: %s", strerror(errno));
	check(!kview__read_text(f->kv, f->fn, &vb, &gb, 1), "read text: %s",
	      strerror(errno));
	check_eq(gb, f->before);
	release_view(&f->kv);
}

static void pre_run(void *fixture, const void *variant)
{
	const struct pre_variant *v = variant;
	unsigned long long want, got, decoy_got;
	struct pre *f = fixture;
	unsigned int keys[16];

	check_attached(f, v);
	resume(f->t);
	resume(f->d);
	check_eq(wait_exit(f->t), 0);
	check_eq(wait_exit(f->d), 0);
	want = map_u32_count(f->ifd, f->t);
	got = map_u32_count(f->fd, f->t);
	decoy_got = map_u32_count(f->fd, f->d);
	diag("%s with the pre-eBPF filter: target %llu, decoy %llu; in-eBPF %s: %llu",
	     v->prog, got, decoy_got, v->in_prog, want);
	check(want >= N, "in-eBPF counted %llu, expected at least %d", want, N);
	check_eq(got, want);
	check_eq(decoy_got, 0);
	check_eq(map_u32_keys(f->fd, keys, 16), 1);

	pre_release(f, v);
	check_released(f, v);
}

static const struct pre_variant
	kprobe = { .prog = "kp_entry", .in_prog = "tp_enter" },
	tracepoint = { .prog = "tp_read", .in_prog = "kp_read", .tp = true,
		       .flags_decoy = true },
	raw_tp = { .prog = "rawtp_enter", .in_prog = "tp_raw_enter", .tp = true };

static const struct check_case cases[] = {
	{ "kprobe", pre_run, &kprobe },
	{ "tracepoint", pre_run, &tracepoint },
	{ "raw-tp", pre_run, &raw_tp },
};

static const struct check_suite suite = {
	.fixture_size = sizeof(struct pre),
	.setup = pre_setup,
	.teardown = pre_teardown,
	CHECK_CASES(cases),
};

int main(int argc, char **argv)
{
	workload_path(workload, sizeof(workload));
	return check_main(&suite, argc, argv);
}
