// SPDX-License-Identifier: GPL-2.0
/*
 * kview-isolation: a program attached in one process's kernel view sees
 * exactly what the in-eBPF filter (pid == N first thing in a globally
 * attached program) sees for that process, and nothing from an identical
 * decoy; the global text stays untouched while the view holds the probe.
 *
 * Target and decoy both run `dd if=/dev/zero of=/dev/null bs=1 count=N`,
 * started stopped after exec so that both programs are attached before
 * either reads and detached after both exited.  The in-eBPF program runs
 * in the same run on the read syscall tracepoint (one read syscall is one
 * ksys_read() call): on ksys_read itself, a global program would arm the
 * kprobe globally and the view would have nothing of its own to hold.
 *
 *   kview-isolation entry      kprobe on ksys_read's ftrace site (the view's
 *                              copy calls kprobe_view_caller)
 *   kview-isolation offset     kprobe past ksys_read's ftrace site (int3, single-step)
 *   kview-isolation kretprobe  kretprobe on ksys_read
 *   kview-isolation mixed      the entry kprobe in the view and, at once,
 *                              globally without a filter: the global one
 *                              sees everybody, the view one only the target
 *   kview-isolation two        the entry kprobe in the target's view and in
 *                              the decoy's: one aggregator of two members
 *                              while the decoy runs (each view's program
 *                              sees its own process only), then of one
 *                              once the decoy's goes, while the target runs
 *                              (the member the aggregator keeps for views)
 *
 * One suite (tests/lib/harness.h): the fixture is the two processes, the
 * target's view (and the decoy's, for two), the in-eBPF program and the
 * view's, attached; each mode is a case, its variant the programs.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "kvtest.h"
#include "count.skel.h"

#define READS "20000"

static char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		      "count=" READS, "status=none", NULL };

struct iso_variant {
	const char *prog;	/* attached in the view */
	const char *in_prog;	/* the in-eBPF filter's, attached globally */
	bool past;		/* the kprobe past ksys_read's ftrace site */
	bool global;		/* mixed: @prog globally too, without a filter */
	bool two;		/* @prog in a view of the decoy's too */
};

/* What setup made; NULL is what it did not make, or what was released. */
struct iso {
	pid_t target, decoy;
	struct kview *kv, *kv_d;	/* the target's view, the decoy's */
	struct count *in, *in_d;	/* in-eBPF on the target, on the decoy */
	struct count *view, *view_d, *global;
	struct bpf_link *in_link, *in_d_link, *view_link, *view_d_link,
		*global_link;
	unsigned long addr;		/* where the view's probe is */
	unsigned char gbefore;		/* the global text there, before */
};

static struct count *load(const char *prog, unsigned int filter)
{
	struct count *skel = count__open();

	check(skel, "open count.bpf.o: %s", strerror(errno));
	skel->rodata->filter_tgid = filter;
	only_program(skel->obj, prog);
	check(!count__load(skel), "load count.bpf.o: %s", strerror(errno));
	return skel;
}

static struct bpf_program *prog_of(struct count *skel, const char *prog)
{
	return bpf_object__find_program_by_name(skel->obj, prog);
}

static struct kview *view_of(pid_t pid)
{
	struct kview *kv = kview__create(pid, NULL);

	check(kv, "kview__create(%d): %s", pid, strerror(errno));
	return kv;
}

/*
 * The decoy's side of two: its own view, in-eBPF program and view program
 * (the same kprobe as the target's, one aggregator of two members).
 */
static void setup_decoy_view(struct iso *f, const struct iso_variant *v)
{
	f->kv_d = view_of(f->decoy);
	f->in_d = load(v->in_prog, f->decoy);
	f->view_d = load(v->prog, 0);
	f->in_d_link = bpf_program__attach(prog_of(f->in_d, v->in_prog));
	check(f->in_d_link, "attach in-eBPF for the decoy: %s", strerror(errno));
	f->view_d_link = kview__attach_program(f->kv_d, prog_of(f->view_d, v->prog));
	check(f->view_d_link, "attach in the decoy's view: %s", strerror(errno));
}

/*
 * Target and decoy started stopped, the target's view, the in-eBPF program
 * filtered on the target and @v->prog in the view attached (and what the
 * variant adds); the global text at the probe's address read first.
 */
static void iso_setup(void *fixture, const void *variant)
{
	const struct iso_variant *v = variant;
	struct iso *f = fixture;
	unsigned char vbuf;

	f->addr = ksym_site("ksys_read") + (v->past ? 5 : 0);
	f->target = spawn_stopped(dd);
	f->decoy = spawn_stopped(dd);
	f->kv = view_of(f->target);
	check(!kview__read_text(f->kv, f->addr, &vbuf, &f->gbefore, 1),
	      "read text: %s", strerror(errno));
	f->in = load(v->in_prog, f->target);
	f->view = load(v->prog, 0);
	f->in_link = bpf_program__attach(prog_of(f->in, v->in_prog));
	check(f->in_link, "attach in-eBPF %s: %s", v->in_prog, strerror(errno));
	f->view_link = v->past ?
		attach_past_site(f->kv, prog_of(f->view, v->prog), "ksys_read") :
		kview__attach_program(f->kv, prog_of(f->view, v->prog));
	check(f->view_link, "attach %s in the view: %s", v->prog, strerror(errno));
	if (v->global) {
		f->global = load(v->prog, 0);
		f->global_link = bpf_program__attach(prog_of(f->global, v->prog));
		check(f->global_link, "attach %s globally: %s", v->prog,
		      strerror(errno));
	}
	if (v->two)
		setup_decoy_view(f, v);
}

/*
 * Detach every program, close the views (checked empty first if
 * @check_empty) and the objects.
 */
static void iso_release(struct iso *f, bool check_empty)
{
	struct bpf_link **links[] = { &f->global_link, &f->view_d_link,
				      &f->view_link, &f->in_d_link, &f->in_link };
	struct count **objs[] = { &f->global, &f->view_d, &f->view, &f->in_d, &f->in };
	struct kview **views[] = { &f->kv_d, &f->kv };
	size_t i;

	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		release_link(links[i]);
	for (i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
		if (*views[i] && check_empty)
			check_view_empty_destroy(*views[i]);
		else
			kview__destroy(*views[i]);
		*views[i] = NULL;
	}
	for (i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
		count__destroy(*objs[i]);
		*objs[i] = NULL;
	}
}

static void iso_teardown(void *fixture, const void *variant)
{
	struct iso *f = fixture;

	(void)variant;
	reap_child(f->target);
	reap_child(f->decoy);
	iso_release(f, false);
}

/*
 * Attached, before either process ran: the view holds the probe and the
 * global text does not (mixed: the probe is armed globally, the view has
 * none of its own), and debugfs kview/verify finds nothing wrong.
 */
static void check_attached(struct iso *f, const struct iso_variant *v)
{
	unsigned char vbuf, gbuf;
	struct kview_info info;
	unsigned int nviews;

	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	check(!kview__read_text(f->kv, f->addr, &vbuf, &gbuf, 1), "read text: %s",
	      strerror(errno));
	diag("%s at %#lx: view %02x, global %02x (before: %02x); view: %u site(s), %u page(s), %u table page(s)",
	     v->prog, f->addr, vbuf, gbuf, f->gbefore, info.nr_patches,
	     info.nr_pages, info.nr_pt_pages);
	if (!v->global) {
		check_view_kprobe_insn(f->kv, f->addr, !v->past);
		check_eq(gbuf, f->gbefore);
		check(gbuf != 0xcc, "the global text holds an int3");
		check_eq(info.nr_patches, 1);
		check_eq(info.nr_pages, 1);
		/* The upper copies and one PTE page for the patched region. */
		check_eq(info.nr_pt_pages, view_base_pt_pages() + 1);
	} else {
		/* Armed globally (ftrace): the view holds no probe of its own. */
		check_eq(info.nr_patches, 0);
		check_eq(vbuf, gbuf);
	}
	check_eq(info.nr_attachments, 1);
	/*
	 * The view's copy is the global page plus its probe, its tables are
	 * init_mm's but where it copied, and the region of the copy is
	 * mapped non-global in init_mm and in PTI's user copy.
	 */
	check_eq(kview_verify_total(&nviews), 0);
	check_eq(nviews, 1);
}

/* entry, offset, kretprobe, mixed: both processes read at once. */
static void iso_one_view(void *fixture, const void *variant)
{
	const struct iso_variant *v = variant;
	struct iso *f = fixture;
	unsigned long long want;

	check_attached(f, v);
	resume(f->target);
	resume(f->decoy);
	check_eq(wait_exit(f->target), 0);
	check_eq(wait_exit(f->decoy), 0);

	want = check_counts_equal(bpf_map__fd(f->view->maps.counts),
				  bpf_map__fd(f->in->maps.counts), f->target, f->decoy);
	check(want >= 20000, "in-eBPF saw only %llu events of %s reads", want, READS);
	if (v->global)
		check_global_counts(bpf_map__fd(f->global->maps.counts), f->target,
				    f->decoy, want, 20000);
	iso_release(f, true);
	check_stats_clean();
}

/*
 * two: the same kprobe in two views.  While both are attached, the kprobe
 * is one aggregator of two scoped members, whose handler loops over them;
 * the decoy runs then.  Once the decoy's program goes, the aggregator has
 * one member, which a view's call runs directly; the target runs then.
 * Each view's program must see exactly what an in-eBPF pid filter sees for
 * its own process, and nothing of the other.
 */
static void iso_two_views(void *fixture, const void *variant)
{
	struct iso *f = fixture;
	struct kview_info info;
	unsigned long long want;

	(void)variant;
	check(!kview__info(f->kv, &info), "info: %s", strerror(errno));
	check_eq(info.nr_patches, 1);
	check(!kview__info(f->kv_d, &info), "info: %s", strerror(errno));
	check_eq(info.nr_patches, 1);
	check_eq(kview_verify_total(NULL), 0);

	/* Two members: the decoy's hits run the loop. */
	resume(f->decoy);
	check_eq(wait_exit(f->decoy), 0);
	release_link(&f->view_d_link);
	check(!kview__info(f->kv_d, &info), "info: %s", strerror(errno));
	check_eq(info.nr_patches, 0);

	/* One member left: the target's hits run it directly. */
	resume(f->target);
	check_eq(wait_exit(f->target), 0);

	diag("the decoy's view:");
	want = check_counts_equal(bpf_map__fd(f->view_d->maps.counts),
				  bpf_map__fd(f->in_d->maps.counts), f->decoy, f->target);
	check(want >= 20000, "in-eBPF saw only %llu reads of the decoy", want);
	diag("the target's view:");
	want = check_counts_equal(bpf_map__fd(f->view->maps.counts),
				  bpf_map__fd(f->in->maps.counts), f->target, f->decoy);
	check(want >= 20000, "in-eBPF saw only %llu reads of the target", want);

	iso_release(f, true);
	check_stats_clean();
	check_eq(kview_stats().out_of_scope, 0);
}

static const struct iso_variant
	entry = { .prog = "kp_entry", .in_prog = "tp_enter" },
	offset = { .prog = "kp_offset", .in_prog = "tp_enter", .past = true },
	kretprobe = { .prog = "krp_return", .in_prog = "tp_exit" },
	mixed = { .prog = "kp_entry", .in_prog = "tp_enter", .global = true },
	two = { .prog = "kp_entry", .in_prog = "tp_enter", .two = true };

static const struct check_case cases[] = {
	{ "entry", iso_one_view, &entry },
	{ "offset", iso_one_view, &offset },
	{ "kretprobe", iso_one_view, &kretprobe },
	{ "mixed", iso_one_view, &mixed },
	{ "two", iso_two_views, &two },
};

static const struct check_suite suite = {
	.fixture_size = sizeof(struct iso),
	.setup = iso_setup,
	.teardown = iso_teardown,
	CHECK_CASES(cases),
};

int main(int argc, char **argv)
{
	return check_main(&suite, argc, argv);
}
