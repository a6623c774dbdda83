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
 *
 * One suite (tests/lib/harness.h): the fixture is skel.bpf.o, loaded (the
 * variant says whether the LSM program is left to autoattach), and the
 * view and processes each case makes.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "kvtest.h"
#include "skel.skel.h"

#define READS 2000

struct skel_variant {
	bool lsm_auto;		/* the LSM program left to autoattach */
};

/* What setup and the case made; NULL or 0 is what they did not, or released. */
struct skf {
	struct skel *skel;
	struct kview *kv;
	pid_t target, decoy;
};

static void skf_setup(void *fixture, const void *variant)
{
	const struct skel_variant *v = variant;
	struct skf *f = fixture;

	f->skel = skel__open();
	check(f->skel, "open skel.bpf.o: %s", strerror(errno));
	f->skel->rodata->mark_size = 1;	/* dd bs=1 */
	bpf_program__set_autoattach(f->skel->progs.not_auto, false);
	if (!v->lsm_auto)
		bpf_program__set_autoattach(f->skel->progs.lsm_open, false);
	check(!skel__load(f->skel), "load skel.bpf.o: %s", strerror(errno));
}

/* Close the view and the object (its links with it). */
static void skf_release(struct skf *f)
{
	release_view(&f->kv);
	skel__destroy(f->skel);
	f->skel = NULL;
}

static void skf_teardown(void *fixture, const void *variant)
{
	struct skf *f = fixture;

	(void)variant;
	reap_child(f->target);
	reap_child(f->decoy);
	skf_release(f);
}

static void check_no_links(struct skel *skel)
{
	check(!skel->links.auto_read && !skel->links.manual_read &&
	      !skel->links.not_auto && !skel->links.pass_all &&
	      !skel->links.lsm_open, "a link is set");
}

/*
 * kview__attach_skeleton() in the target's view: the kprobe with a target
 * only, the caller's link left alone; then the bare kprobe by hand in the
 * scope.  Two attachments.
 */
static void attach_in_view(struct skf *f)
{
	const struct bpf_program *failed = (void *)1;
	LIBBPF_OPTS(kview_attach_opts, opts, .failed_prog = &failed);
	struct skel *skel = f->skel;
	struct kview_info info;
	struct bpf_link *mine;
	int err;

	/* A link the caller set is not replaced (nor destroyed). */
	skel->links.not_auto = mine = bpf_program__attach(skel->progs.not_auto);
	check(mine, "global attach of the tracepoint: %s", strerror(errno));
	err = kview__attach_skeleton(f->kv, skel->skeleton, &opts);
	check(!err, "kview__attach_skeleton: %s", strerror(-err));
	check(failed == NULL, "failed_prog set on success");
	check(skel->links.auto_read, "the kprobe with a target has no link");
	check(!skel->links.manual_read, "the bare SEC(\"kprobe\") was attached");
	check(skel->links.not_auto == mine, "the caller's link was replaced");
	check(!skel->links.pass_all, "the XDP program was attached");
	check(!skel->links.lsm_open, "the LSM program marked not to autoattach was attached");
	/* The bare kprobe, by hand in the scope. */
	check(!kview__enter_scope(f->kv), "enter scope: %s", strerror(errno));
	skel->links.manual_read = bpf_program__attach_kprobe(skel->progs.manual_read,
							     false, "ksys_read");
	err = skel->links.manual_read ? 0 : errno;
	check(!kview__leave_scope(f->kv), "leave scope: %s", strerror(errno));
	check(!err, "bpf_program__attach_kprobe in the scope: %s", strerror(err));
	check(!kview__info(f->kv, &info), "kview__info: %s", strerror(errno));
	diag("view %u: %u attachment(s), %u patch(es)", info.id, info.nr_attachments,
	     info.nr_patches);
	check_eq(info.nr_attachments, 2);
}

/* Both programs counted the target's reads, none of the decoy's. */
static void check_reads(struct skf *f)
{
	int counts = bpf_map__fd(f->skel->maps.counts);
	int manual = bpf_map__fd(f->skel->maps.manual_counts);

	diag("target %d: %llu (auto) %llu (by hand); decoy %d: %llu %llu", f->target,
	     map_u32_count(counts, f->target), map_u32_count(manual, f->target),
	     f->decoy, map_u32_count(counts, f->decoy),
	     map_u32_count(manual, f->decoy));
	check_eq(map_u32_count(counts, f->target), READS);
	check_eq(map_u32_count(manual, f->target), READS);
	check_eq(map_u32_count(counts, f->decoy), 0);
	check_eq(map_u32_count(manual, f->decoy), 0);
}

static void test_attach(void *fixture, const void *variant)
{
	char *dd[] = { "dd", "if=/dev/zero", "of=/dev/null", "bs=1",
		       "count=2000", "status=none", NULL };
	struct skf *f = fixture;

	(void)variant;
	f->target = spawn_stopped(dd);
	f->decoy = spawn_stopped(dd);
	f->kv = kview__create(f->target, NULL);
	check(f->kv, "kview__create: %s", strerror(errno));
	attach_in_view(f);

	resume(f->target);
	resume(f->decoy);
	check_eq(wait_exit(f->target), 0);
	check_eq(wait_exit(f->decoy), 0);
	check_reads(f);

	bpf_object__detach_skeleton(f->skel->skeleton);
	check_no_links(f->skel);
	skf_release(f);
	kview_stats_settled(0);
	check_eq(kview_stats().patches, 0);
}

static void test_refused(void *fixture, const void *variant)
{
	const struct bpf_program *failed = NULL;
	LIBBPF_OPTS(kview_attach_opts, opts, .failed_prog = &failed);
	struct skf *f = fixture;
	struct kview_info info;
	int err;

	(void)variant;
	f->kv = kview__create(getpid(), NULL);
	check(f->kv, "kview__create: %s", strerror(errno));
	err = kview__attach_skeleton(f->kv, f->skel->skeleton, &opts);
	diag("kview__attach_skeleton with the LSM program: %s, failed program %s",
	     strerror(-err), failed ? bpf_program__name(failed) : "none");
	check_eq(err, -EOPNOTSUPP);
	check(failed == f->skel->progs.lsm_open, "failed_prog is not the LSM program");
	check_no_links(f->skel);
	check(!kview__info(f->kv, &info), "kview__info: %s", strerror(errno));
	check_eq(info.nr_attachments, 0);
	check_eq(info.nr_patches, 0);
	skf_release(f);
	kview_stats_settled(0);
}

static const struct skel_variant lsm_off, lsm_auto = { .lsm_auto = true };

static const struct check_case cases[] = {
	{ "attach", test_attach, &lsm_off },
	{ "refused", test_refused, &lsm_auto },
};

static const struct check_suite suite = {
	.fixture_size = sizeof(struct skf),
	.setup = skf_setup,
	.teardown = skf_teardown,
	CHECK_CASES(cases),
};

int main(int argc, char **argv)
{
	return check_main(&suite, argc, argv);
}
