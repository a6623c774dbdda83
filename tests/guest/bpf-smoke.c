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

static unsigned long long lookup(int map_fd, unsigned int tgid)
{
	unsigned long long v = 0;

	if (bpf_map_lookup_elem(map_fd, &tgid, &v) && errno != ENOENT)
		fail("bpf_map_lookup_elem: %s", strerror(errno));
	return v;
}

static void test_kprobe(struct smoke *skel)
{
	int map = bpf_map__fd(skel->maps.read_calls);
	unsigned int tgid = getpid();
	unsigned long long before, after;
	char c;
	int fd, i;

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

static void test_tracepoint(struct smoke *skel)
{
	int map = bpf_map__fd(skel->maps.getppid_calls);
	unsigned int tgid = getpid();
	unsigned long long before, after;
	int i;

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

int main(int argc, char **argv)
{
	struct smoke *skel;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: bpf-smoke kprobe|tracepoint|bpftool\n");
		return 2;
	}
	skel = smoke__open_and_load();
	check(skel, "open/load smoke.bpf.o: %s", strerror(errno));
	err = smoke__attach(skel);
	check(!err, "attach: %s", strerror(-err));

	if (!strcmp(argv[1], "kprobe")) {
		test_kprobe(skel);
	} else if (!strcmp(argv[1], "tracepoint")) {
		test_tracepoint(skel);
	} else if (!strcmp(argv[1], "bpftool")) {
		expect_listed(skel->progs.smoke_ksys_read);
		expect_listed(skel->progs.smoke_getppid);
	} else {
		fail("unknown mode %s", argv[1]);
	}
	smoke__destroy(skel);
	return 0;
}
