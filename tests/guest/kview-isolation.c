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
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "kvtest.h"
#include "count.skel.h"

#define READS "20000"

static struct count *load(const char *prog, unsigned int filter)
{
	struct count *skel = count__open();

	check(skel, "open count.bpf.o: %s", strerror(errno));
	skel->rodata->filter_tgid = filter;
	only_program(skel->obj, prog);
	check(!count__load(skel), "load count.bpf.o: %s", strerror(errno));
	return skel;
}

/*
 * The same kprobe in two views.  While both are attached, the kprobe is
 * one aggregator of two scoped members, whose handler loops over them;
 * the decoy runs then.  Once the decoy's program goes, the aggregator has
 * one member, which a view's call runs directly; the target runs then.
 * Each view's program must see exactly what an in-eBPF pid filter sees for
 * its own process, and nothing of the other.
 */
static int two_views(void)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=" READS, "status=none", NULL };
	struct count *in_t, *in_d, *view_t, *view_d;
	struct bpf_link *in_t_link, *in_d_link, *view_t_link, *view_d_link;
	struct kview *kv_t, *kv_d;
	struct kview_info info;
	unsigned long long want;
	pid_t target, decoy;

	target = spawn_stopped(dd);
	decoy = spawn_stopped(dd);
	kv_t = kview__create(target, NULL);
	check(kv_t, "kview__create(%d): %s", target, strerror(errno));
	kv_d = kview__create(decoy, NULL);
	check(kv_d, "kview__create(%d): %s", decoy, strerror(errno));

	in_t = load("tp_enter", target);
	in_d = load("tp_enter", decoy);
	view_t = load("kp_entry", 0);
	view_d = load("kp_entry", 0);
	in_t_link = bpf_program__attach(in_t->progs.tp_enter);
	check(in_t_link, "attach in-eBPF for the target: %s", strerror(errno));
	in_d_link = bpf_program__attach(in_d->progs.tp_enter);
	check(in_d_link, "attach in-eBPF for the decoy: %s", strerror(errno));
	view_t_link = kview__attach_program(kv_t, view_t->progs.kp_entry);
	check(view_t_link, "attach in the target's view: %s", strerror(errno));
	view_d_link = kview__attach_program(kv_d, view_d->progs.kp_entry);
	check(view_d_link, "attach in the decoy's view: %s", strerror(errno));
	check(!kview__info(kv_t, &info), "info: %s", strerror(errno));
	check_eq(info.nr_patches, 1);
	check(!kview__info(kv_d, &info), "info: %s", strerror(errno));
	check_eq(info.nr_patches, 1);
	check_eq(kview_verify_total(NULL), 0);

	/* Two members: the decoy's hits run the loop. */
	resume(decoy);
	check_eq(wait_exit(decoy), 0);
	bpf_link__destroy(view_d_link);
	check(!kview__info(kv_d, &info), "info: %s", strerror(errno));
	check_eq(info.nr_patches, 0);

	/* One member left: the target's hits run it directly. */
	resume(target);
	check_eq(wait_exit(target), 0);

	diag("the decoy's view:");
	want = check_counts_equal(bpf_map__fd(view_d->maps.counts),
				  bpf_map__fd(in_d->maps.counts), decoy, target);
	check(want >= 20000, "in-eBPF saw only %llu reads of the decoy", want);
	diag("the target's view:");
	want = check_counts_equal(bpf_map__fd(view_t->maps.counts),
				  bpf_map__fd(in_t->maps.counts), target, decoy);
	check(want >= 20000, "in-eBPF saw only %llu reads of the target", want);

	bpf_link__destroy(view_t_link);
	bpf_link__destroy(in_d_link);
	bpf_link__destroy(in_t_link);
	check_view_empty_destroy(kv_d);
	check_view_empty_destroy(kv_t);
	count__destroy(view_d);
	count__destroy(view_t);
	count__destroy(in_d);
	count__destroy(in_t);
	check_stats_clean();
	check_eq(kview_stats().out_of_scope, 0);
	return 0;
}

int main(int argc, char **argv)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=" READS, "status=none", NULL };
	unsigned char gbefore[8], vbuf[8], gbuf[8];
	struct count *in, *view, *global = NULL;
	struct bpf_link *in_link, *view_link, *global_link = NULL;
	const char *mode = argc > 1 ? argv[1] : "";
	const char *prog, *in_prog;
	unsigned long addr;
	struct kview_info info;
	unsigned int nviews;
	pid_t target, decoy;
	struct kview *kv;
	unsigned long long want;
	bool past = false;

	if (!strcmp(mode, "entry") || !strcmp(mode, "mixed")) {
		prog = "kp_entry";
		in_prog = "tp_enter";
	} else if (!strcmp(mode, "offset")) {
		prog = "kp_offset";
		in_prog = "tp_enter";
		past = true;
	} else if (!strcmp(mode, "kretprobe")) {
		prog = "krp_return";
		in_prog = "tp_exit";
	} else if (!strcmp(mode, "two")) {
		return two_views();
	} else {
		fprintf(stderr, "usage: kview-isolation entry|offset|kretprobe|mixed|two\n");
		return 2;
	}
	addr = ksym_site("ksys_read") + (past ? 5 : 0);

	target = spawn_stopped(dd);
	decoy = spawn_stopped(dd);

	kv = kview__create(target, NULL);
	check(kv, "kview__create(%d): %s", target, strerror(errno));
	check(!kview__read_text(kv, addr, vbuf, gbefore, 1), "read text: %s",
	      strerror(errno));

	in = load(in_prog, target);
	view = load(prog, 0);
	in_link = bpf_program__attach(bpf_object__find_program_by_name(in->obj, in_prog));
	check(in_link, "attach in-eBPF %s: %s", in_prog, strerror(errno));
	view_link = past ? attach_past_site(kv, view->progs.kp_offset, "ksys_read") :
		kview__attach_program(kv, bpf_object__find_program_by_name(view->obj, prog));
	check(view_link, "attach %s in the view: %s", prog, strerror(errno));
	if (!strcmp(mode, "mixed")) {
		global = load(prog, 0);
		global_link = bpf_program__attach(
			bpf_object__find_program_by_name(global->obj, prog));
		check(global_link, "attach %s globally: %s", prog, strerror(errno));
	}

	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	check(!kview__read_text(kv, addr, vbuf, gbuf, 1), "read text: %s",
	      strerror(errno));
	diag("%s at %#lx: view %02x, global %02x (before: %02x); view: %u site(s), %u page(s), %u table page(s)",
	     prog, addr, vbuf[0], gbuf[0], gbefore[0], info.nr_patches,
	     info.nr_pages, info.nr_pt_pages);
	if (!global) {
		check_view_kprobe_insn(kv, addr, strcmp(mode, "offset"));
		check_eq(gbuf[0], gbefore[0]);
		check(gbuf[0] != 0xcc, "the global text holds an int3");
		check_eq(info.nr_patches, 1);
		check_eq(info.nr_pages, 1);
		/* The upper copies and one PTE page for the patched region. */
		check_eq(info.nr_pt_pages, view_base_pt_pages() + 1);
	} else {
		/* Armed globally (ftrace): the view holds no probe of its own. */
		check_eq(info.nr_patches, 0);
		check_eq(vbuf[0], gbuf[0]);
	}
	check_eq(info.nr_attachments, 1);
	/*
	 * The view's copy is the global page plus its probe, its tables are
	 * init_mm's but where it copied, and the region of the copy is
	 * mapped non-global in init_mm and in PTI's user copy.
	 */
	check_eq(kview_verify_total(&nviews), 0);
	check_eq(nviews, 1);

	resume(target);
	resume(decoy);
	check_eq(wait_exit(target), 0);
	check_eq(wait_exit(decoy), 0);

	want = check_counts_equal(bpf_map__fd(view->maps.counts),
				  bpf_map__fd(in->maps.counts), target, decoy);
	check(want >= 20000, "in-eBPF saw only %llu events of %s reads", want, READS);
	if (global) {
		unsigned long long gt, gd;

		gt = map_u32_count(bpf_map__fd(global->maps.counts), target);
		gd = map_u32_count(bpf_map__fd(global->maps.counts), decoy);
		diag("global program: target %llu, decoy %llu", gt, gd);
		check_eq(gt, want);
		check(gd >= 20000, "the global program missed the decoy: %llu", gd);
		bpf_link__destroy(global_link);
		count__destroy(global);
	}

	bpf_link__destroy(view_link);
	bpf_link__destroy(in_link);
	check_view_empty_destroy(kv);
	count__destroy(view);
	count__destroy(in);
	check_stats_clean();
	return 0;
}
