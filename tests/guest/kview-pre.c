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

static struct bpf_program *load(const char *prog, unsigned int filter,
				 bool tp, void **skel_out, int *map_fd)
{
	struct bpf_object *obj;

	if (tp) {
		struct tpcount *skel = tpcount__open();

		check(skel, "open tpcount.bpf.o: %s", strerror(errno));
		skel->rodata->filter_tgid = filter;
		skel->rodata->mark_size = !strcmp(prog, "tp_read") ||
					  !strcmp(prog, "kp_read") ? MARK_SIZE : 0;
		only_program(skel->obj, prog);
		check(!tpcount__load(skel), "load %s: %s", prog, strerror(errno));
		*map_fd = bpf_map__fd(skel->maps.counts);
		obj = skel->obj;
		*skel_out = skel;
	} else {
		struct count *skel = count__open();

		check(skel, "open count.bpf.o: %s", strerror(errno));
		skel->rodata->filter_tgid = filter;
		skel->rodata->mark_size = MARK_SIZE;
		only_program(skel->obj, prog);
		check(!count__load(skel), "load %s: %s", prog, strerror(errno));
		*map_fd = bpf_map__fd(skel->maps.counts);
		obj = skel->obj;
		*skel_out = skel;
	}
	return bpf_object__find_program_by_name(obj, prog);
}

int main(int argc, char **argv)
{
	char *args[] = { workload, "reads", NSTR, NULL };
	const char *mode = argc > 1 ? argv[1] : "";
	const char *prog, *in_prog;
	LIBBPF_OPTS(kview_opts, opts, .filter = true);
	unsigned long long want, got, decoy_got;
	struct bpf_program *p, *ip;
	unsigned char before = 0, vb, gb;
	struct bpf_link *link, *ilink;
	struct kview_info info;
	void *skel, *iskel;
	unsigned int keys[16];
	unsigned long fn = 0;
	int fd, ifd;
	bool tp = true;
	struct kview *kv;
	pid_t t, d;

	workload_path(workload, sizeof(workload));

	if (!strcmp(mode, "kprobe")) {
		prog = "kp_entry";
		in_prog = "tp_enter";
		tp = false;
	} else if (!strcmp(mode, "tracepoint")) {
		prog = "tp_read";
		in_prog = "kp_read";
	} else if (!strcmp(mode, "raw-tp")) {
		prog = "rawtp_enter";
		in_prog = "tp_raw_enter";
	} else {
		fprintf(stderr, "usage: kview-pre kprobe|tracepoint|raw-tp\n");
		return 2;
	}

	t = spawn_stopped(args);
	d = spawn_stopped(args);
	kv = kview__create(t, &opts);
	check(kv, "kview__create(filter): %s", strerror(errno));
	if (!tp) {
		fn = ksym_site("ksys_read");
		check(!kview__read_text(kv, fn, &vb, &before, 1), "read text: %s",
		      strerror(errno));
	}
	check(!syscall_work_flagged(d), "the decoy has the syscall-work flag already");

	p = load(prog, 0, tp, &skel, &fd);
	ip = load(in_prog, t, tp, &iskel, &ifd);
	ilink = bpf_program__attach(ip);
	check(ilink, "attach in-eBPF %s: %s", in_prog, strerror(errno));
	link = kview__attach_program(kv, p);
	check(link, "attach %s with the pre-eBPF filter: %s", prog, strerror(errno));

	check(!kview__info(kv, &info), "info: %s", strerror(errno));
	diag("filter view %u: flags %#x, %u attachment(s), %u site(s), %u page(s), %u table page(s)",
	     info.id, info.flags, info.nr_attachments, info.nr_patches,
	     info.nr_pages, info.nr_pt_pages);
	check_eq(info.flags, KVIEW_F_FILTER);
	check_eq(info.nr_attachments, 1);
	check_eq(info.nr_patches, 0);
	check_eq(info.nr_pages, 0);
	check_eq(info.nr_pt_pages, 0);
	if (!tp) {
		/* Armed globally: ksys_read's ftrace site now calls. */
		check(!kview__read_text(kv, fn, &vb, &gb, 1), "read text: %s",
		      strerror(errno));
		diag("ksys_read: global %02x (before %02x), member's %02x", gb,
		     before, vb);
		check(gb != before, "the kprobe is not armed in the global text");
		check_eq(vb, gb);
	} else if (!strcmp(mode, "tracepoint")) {
		check(syscall_work_flagged(d), "the decoy has no syscall-work flag: not armed globally");
	}

	resume(t);
	resume(d);
	check_eq(wait_exit(t), 0);
	check_eq(wait_exit(d), 0);
	want = map_u32_count(ifd, t);
	got = map_u32_count(fd, t);
	decoy_got = map_u32_count(fd, d);
	diag("%s with the pre-eBPF filter: target %llu, decoy %llu; in-eBPF %s: %llu",
	     prog, got, decoy_got, in_prog, want);
	check(want >= N, "in-eBPF counted %llu, expected at least %d", want, N);
	check_eq(got, want);
	check_eq(decoy_got, 0);
	check_eq(map_u32_keys(fd, keys, 16), 1);

	bpf_link__destroy(link);
	bpf_link__destroy(ilink);
	kview__destroy(kv);
	if (tp) {
		tpcount__destroy(skel);
		tpcount__destroy(iskel);
	} else {
		count__destroy(skel);
		count__destroy(iskel);
	}
	check_eq(kview_stats_settled(0).views, 0);
	if (!tp) {
		/* The global site is back (read through an empty view). */
		kv = kview__create(0, NULL);
		check(kv, "kview__create: %s", strerror(errno));
		check(!kview__read_text(kv, fn, &vb, &gb, 1), "read text: %s",
		      strerror(errno));
		check_eq(gb, before);
		kview__destroy(kv);
	}
	return 0;
}
