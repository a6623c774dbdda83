// SPDX-License-Identifier: GPL-2.0
/*
 * kview-skeleton: kview__attach_skeleton() attaches a bpftool skeleton in
 * a view as bpf_object__attach_skeleton() attaches it globally.
 *
 *   attach   the kprobe with a target is attached in the view (its link in
 *            skel->links), counts the target's reads and not the decoy's;
 *            the bare SEC("kprobe"), the program marked not to autoattach,
 *            the XDP program and the LSM program marked not to autoattach
 *            are skipped (links NULL); a link set by the caller is left
 *            alone; the bare kprobe attached by hand in the scope counts
 *            the target only; bpf_object__detach_skeleton() leaves the
 *            view with nothing attached and the text clean
 *   refused  the LSM program left to autoattach: -EOPNOTSUPP naming it, no
 *            link set, nothing attached in the view
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "kvtest.h"
#include "skel.skel.h"

#define READS 2000

static struct skel *load(bool lsm_auto)
{
	struct skel *skel = skel__open();

	check(skel, "open skel.bpf.o: %s", strerror(errno));
	skel->rodata->mark_size = 1;	/* dd bs=1 */
	bpf_program__set_autoattach(skel->progs.not_auto, false);
	if (!lsm_auto)
		bpf_program__set_autoattach(skel->progs.lsm_open, false);
	check(!skel__load(skel), "load skel.bpf.o: %s", strerror(errno));
	return skel;
}

static void check_no_links(struct skel *skel)
{
	check(!skel->links.auto_read && !skel->links.manual_read &&
	      !skel->links.not_auto && !skel->links.pass_all &&
	      !skel->links.lsm_open, "a link is set");
}

static void test_attach(void)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=2000", "status=none", NULL };
	const struct bpf_program *failed = (void *)1;
	LIBBPF_OPTS(kview_attach_opts, opts, .failed_prog = &failed);
	struct kview_info info;
	struct bpf_link *mine;
	struct skel *skel = load(false);
	pid_t target = spawn_stopped(dd), decoy = spawn_stopped(dd);
	struct kview *kv = kview__create(target, NULL);
	int err;

	check(kv, "kview__create: %s", strerror(errno));
	/* A link the caller set is not replaced (nor destroyed). */
	skel->links.not_auto = mine = bpf_program__attach(skel->progs.not_auto);
	check(mine, "global attach of the tracepoint: %s", strerror(errno));
	err = kview__attach_skeleton(kv, skel->skeleton, &opts);
	check(!err, "kview__attach_skeleton: %s", strerror(-err));
	check(failed == NULL, "failed_prog set on success");
	check(skel->links.auto_read, "the kprobe with a target has no link");
	check(!skel->links.manual_read, "the bare SEC(\"kprobe\") was attached");
	check(skel->links.not_auto == mine, "the caller's link was replaced");
	check(!skel->links.pass_all, "the XDP program was attached");
	check(!skel->links.lsm_open, "the LSM program marked not to autoattach was attached");
	/* The bare kprobe, by hand in the scope. */
	check(!kview__enter_scope(kv), "enter scope: %s", strerror(errno));
	skel->links.manual_read = bpf_program__attach_kprobe(skel->progs.manual_read,
							     false, "ksys_read");
	err = skel->links.manual_read ? 0 : errno;
	check(!kview__leave_scope(kv), "leave scope: %s", strerror(errno));
	check(!err, "bpf_program__attach_kprobe in the scope: %s", strerror(err));
	check(!kview__info(kv, &info), "kview__info: %s", strerror(errno));
	diag("view %u: %u attachment(s), %u patch(es)", info.id, info.nr_attachments,
	     info.nr_patches);
	check_eq(info.nr_attachments, 2);

	resume(target);
	resume(decoy);
	check_eq(wait_exit(target), 0);
	check_eq(wait_exit(decoy), 0);
	diag("target %d: %llu (auto) %llu (by hand); decoy %d: %llu %llu", target,
	     map_u32_count(bpf_map__fd(skel->maps.counts), target),
	     map_u32_count(bpf_map__fd(skel->maps.manual_counts), target), decoy,
	     map_u32_count(bpf_map__fd(skel->maps.counts), decoy),
	     map_u32_count(bpf_map__fd(skel->maps.manual_counts), decoy));
	check_eq(map_u32_count(bpf_map__fd(skel->maps.counts), target), READS);
	check_eq(map_u32_count(bpf_map__fd(skel->maps.manual_counts), target), READS);
	check_eq(map_u32_count(bpf_map__fd(skel->maps.counts), decoy), 0);
	check_eq(map_u32_count(bpf_map__fd(skel->maps.manual_counts), decoy), 0);

	bpf_object__detach_skeleton(skel->skeleton);
	check_no_links(skel);
	kview__destroy(kv);
	skel__destroy(skel);
	kview_stats_settled(0);
	check_eq(kview_stats().patches, 0);
}

static void test_refused(void)
{
	const struct bpf_program *failed = NULL;
	LIBBPF_OPTS(kview_attach_opts, opts, .failed_prog = &failed);
	struct skel *skel = load(true);
	struct kview *kv = kview__create(getpid(), NULL);
	struct kview_info info;
	int err;

	check(kv, "kview__create: %s", strerror(errno));
	err = kview__attach_skeleton(kv, skel->skeleton, &opts);
	diag("kview__attach_skeleton with the LSM program: %s, failed program %s",
	     strerror(-err), failed ? bpf_program__name(failed) : "none");
	check_eq(err, -EOPNOTSUPP);
	check(failed == skel->progs.lsm_open, "failed_prog is not the LSM program");
	check_no_links(skel);
	check(!kview__info(kv, &info), "kview__info: %s", strerror(errno));
	check_eq(info.nr_attachments, 0);
	check_eq(info.nr_patches, 0);
	kview__destroy(kv);
	skel__destroy(skel);
	kview_stats_settled(0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "attach"))
		test_attach();
	else if (!strcmp(mode, "refused"))
		test_refused();
	else {
		fprintf(stderr, "usage: kview-skeleton attach|refused\n");
		return 2;
	}
	return 0;
}
