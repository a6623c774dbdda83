// SPDX-License-Identifier: GPL-2.0
/*
 * kview: attach eBPF programs to one process's kernel view.
 *
 *   kview attach (--pid N | -c COMMAND | --cgroup PATH | --container ID) [options] prog.o
 *   kview exec (--pid N | -c COMMAND | --cgroup PATH | --container ID) [options]
 *	-- TOOL [ARGS...]
 *   kview list
 *   (-j anywhere: JSON lines)
 */
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kview-cli.h"

static const char usage_text[] =
"Usage: kview [-v] COMMAND [ARGS]\n"
"\n"
"Attach eBPF tracing programs to one process's kernel view: the probes are\n"
"written into that process's private copy of the kernel text only, so no\n"
"other process pays for them.\n"
"\n"
"Commands:\n"
"  attach --pid N [options] prog.o   attach every program of prog.o in N's view\n"
"  exec --pid N [options] -- TOOL    run a tracing tool (bpftrace, opensnoop,\n"
"                                     ...) with its hooks in N's view\n"
"  exec -c CMD [options] -- TOOL     the same on a command it starts\n"
"  exec --cgroup PATH [...] -- TOOL  the same on the processes of a cgroup\n"
"                                     (attach --cgroup PATH too; PATH is\n"
"                                     relative to " CGROUP_MOUNT ")\n"
"  exec --container ID [...] -- TOOL the same on a container's processes\n"
"                                     (its cgroup, which kview asks the OCI\n"
"                                     runtime for; attach --container too)\n"
"  list                              show the kernel views\n"
"\n"
"Options (before or after COMMAND):\n"
"  -j, --json      JSON lines on stdout (views, records, maps, status) and\n"
"                  kview's messages as JSON lines on stderr, errors included:\n"
"                  {\"type\":\"error\",\"message\":\"...\"}\n"
"  -v, --verbose   show libbpf's messages\n"
"  -h, --help      this help; 'kview COMMAND --help' for a command\n"
"  -V, --version   print the version\n";

int pidfd_open_compat(pid_t pid)
{
	return syscall(SYS_pidfd_open, pid, 0);
}

int main(int argc, char **argv)
{
	static char stderr_buf[1 << 16];
	struct output out = { };
	int i = 1;

	/*
	 * Each of kview's lines on stderr goes out in one write, whole: kview
	 * exec shares stderr with TOOL, whose writes would otherwise split a
	 * JSON line that is written a piece at a time (unbuffered stderr).
	 */
	setvbuf(stderr, stderr_buf, _IOLBF, sizeof(stderr_buf));

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			out.verbose = true;
		} else if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json")) {
			out.json = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_text, stdout);
			return 0;
		} else if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			printf("kview %s (libbpf %s)\n", KVIEW_VERSION,
			       libbpf_version_string());
			return 0;
		} else {
			out_die(&out, "unknown option '%s' (see kview --help)", argv[i]);
		}
	}
	if (i >= argc) {
		fputs(usage_text, stderr);
		return 2;
	}
	out_libbpf_print_init(&out);
	if (!strcmp(argv[i], "attach"))
		return cmd_attach(&out, argc - i, argv + i);
	if (!strcmp(argv[i], "exec"))
		return cmd_exec(&out, argc - i, argv + i);
	if (!strcmp(argv[i], "list"))
		return cmd_list(&out, argc - i, argv + i);
	out_die(&out, "unknown command '%s' (see kview --help)", argv[i]);
}
