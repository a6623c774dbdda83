// SPDX-License-Identifier: GPL-2.0
/*
 * bpf-smoke: prove the platform kview stands on.  A CO-RE object built with
 * clang against our kernel's vmlinux.h loads through libbpf, attaches
 * globally to a kprobe and to a syscall tracepoint, and counts exactly the
 * events this process causes; bpftool lists the programs while attached.
 *
 *   bpf-smoke kprobe       N reads of /dev/zero -> read_calls[tgid] += N
 *   bpf-smoke tracepoint   N getppid()          -> getppid_calls[tgid] += N
 *   bpf-smoke bpftool      `bpftool -j prog show` lists both programs
 *
 * One suite (tests/lib/harness.h): the fixture is smoke.bpf.o, loaded and
 * attached; each mode is a case.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "check.h"
#include "smoke.skel.h"

#define ROUNDS 1000

/* What setup made; NULL is what it did not make. */
struct smoke_fix {
	struct smoke *skel;
};

static unsigned long long lookup(int map_fd, unsigned int tgid)
{
	unsigned long long v = 0;

	if (bpf_map_lookup_elem(map_fd, &tgid, &v) && errno != ENOENT)
		fail("bpf_map_lookup_elem: %s", strerror(errno));
	return v;
}

static void test_kprobe(void *fixture, const void *variant)
{
	struct smoke *skel = ((struct smoke_fix *)fixture)->skel;
	int map = bpf_map__fd(skel->maps.read_calls);
	unsigned int tgid = getpid();
	unsigned long long before, after;
	char c;
	int fd, i;

	(void)variant;
	fd = open("/dev/zero", O_RDONLY);
	check(fd >= 0, "open /dev/zero: %s", strerror(errno));
	before = lookup(map, tgid);
	for (i = 0; i < ROUNDS; i++)
		check(read(fd, &c, 1) == 1, "read: %s", strerror(errno));
	after = lookup(map, tgid);
	close(fd);
	diag("ksys_read kprobe: %llu events for %d reads", after - before, ROUNDS);
	check_eq(after - before, ROUNDS);
}

static void test_tracepoint(void *fixture, const void *variant)
{
	struct smoke *skel = ((struct smoke_fix *)fixture)->skel;
	int map = bpf_map__fd(skel->maps.getppid_calls);
	unsigned int tgid = getpid();
	unsigned long long before, after;
	int i;

	(void)variant;
	before = lookup(map, tgid);
	for (i = 0; i < ROUNDS; i++)
		syscall(SYS_getppid);
	after = lookup(map, tgid);
	diag("sys_enter_getppid tracepoint: %llu events for %d calls",
	     after - before, ROUNDS);
	check_eq(after - before, ROUNDS);
}

static unsigned int prog_id(struct bpf_program *prog)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		fail("bpf_obj_get_info_by_fd: %s", strerror(errno));
	return info.id;
}

static void expect_listed(struct bpf_program *prog)
{
	char cmd[128], out[4096], want[64];
	size_t n;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "bpftool -j prog show id %u 2>&1", prog_id(prog));
	p = popen(cmd, "r");
	check(p, "popen %s: %s", cmd, strerror(errno));
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	check(pclose(p) == 0, "%s failed: %s", cmd, out);
	/* bpftool truncates names to BPF_OBJ_NAME_LEN - 1 = 15 characters. */
	snprintf(want, sizeof(want), "\"name\":\"%.15s\"", bpf_program__name(prog));
	check(strstr(out, want), "%s does not list %s: %s", cmd, want, out);
	diag("bpftool lists %s", want);
}

static void test_bpftool(void *fixture, const void *variant)
{
	struct smoke *skel = ((struct smoke_fix *)fixture)->skel;

	(void)variant;
	expect_listed(skel->progs.smoke_ksys_read);
	expect_listed(skel->progs.smoke_getppid);
}

/* smoke.bpf.o loaded and attached globally. */
static void smoke_setup(void *fixture, const void *variant)
{
	struct smoke_fix *f = fixture;
	int err;

	(void)variant;
	f->skel = smoke__open_and_load();
	check(f->skel, "open/load smoke.bpf.o: %s", strerror(errno));
	err = smoke__attach(f->skel);
	check(!err, "attach: %s", strerror(-err));
}

static void smoke_teardown(void *fixture, const void *variant)
{
	struct smoke_fix *f = fixture;

	(void)variant;
	smoke__destroy(f->skel);
	f->skel = NULL;
}

static const struct check_case cases[] = {
	{ "kprobe", test_kprobe, NULL },
	{ "tracepoint", test_tracepoint, NULL },
	{ "bpftool", test_bpftool, NULL },
};

static const struct check_suite suite = {
	.fixture_size = sizeof(struct smoke_fix),
	.setup = smoke_setup,
	.teardown = smoke_teardown,
	CHECK_CASES(cases),
};

int main(int argc, char **argv)
{
	return check_main(&suite, argc, argv);
}
