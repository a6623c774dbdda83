// SPDX-License-Identifier: GPL-2.0
/*
 * kview attach: load a BPF object and attach every program in one
 * process's kernel view (or a cgroup's), all or nothing; run until
 * Ctrl-C/SIGTERM, the duration or the process's exit, printing the maps
 * every interval if asked; print the maps; detach.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <kview/kview.h>

#include "container.h"
#include "kview-cli.h"

#ifndef EM_BPF
#define EM_BPF 247
#endif

static const char attach_usage[] =
"Usage: kview attach --pid N [options] prog.o\n"
"       kview attach -c COMMAND [options] prog.o\n"
"       kview attach --cgroup PATH [options] prog.o\n"
"       kview attach --container NAME|ID [--runtime PATH] [--runtime-root DIR]\n"
"                    [options] prog.o\n"
"\n"
"Load prog.o (a BPF ELF object, e.g. built with clang -target bpf) with\n"
"libbpf and attach every program by its SEC() in the kernel view of process\n"
"N (or of COMMAND, started for it, or of a cgroup's or a container's\n"
"processes):\n"
"kprobe/FUNC[+OFFSET], kretprobe/FUNC, ksyscall/NAME, kretsyscall/NAME,\n"
"kprobe.multi/PATTERN, kretprobe.multi/PATTERN, tracepoint/SYSTEM/EVENT\n"
"(tp/; syscalls/ included), raw_tp/NAME (raw_tracepoint/), tp_btf/NAME,\n"
"fentry/FUNC, fexit/FUNC, fmod_ret/FUNC (core kernel functions with an\n"
"ftrace site).\n"
"Uprobes, USDT, LSM, iterators and extensions are refused.\n"
"Only N (and its threads) runs the probes; every other process runs the\n"
"kernel as if nothing were attached.  Runs until Ctrl-C or SIGTERM, the\n"
"duration, or N's (COMMAND's) exit (with --cgroup and --container: Ctrl-C,\n"
"SIGTERM or the duration); then prints the object's maps on stdout,\n"
"detaches and exits 0.  All or nothing: if one program cannot be\n"
"attached, none stays attached and kview exits 1.\n"
"\n"
"Options:\n"
"  -p, --pid N         the process to trace\n"
"  -c, --command CMD   instead of --pid: start /bin/sh -c CMD, held before\n"
"                      its exec until every program is attached, then\n"
"                      traced from its first instruction, its children and\n"
"                      execs too; when it exits, kview detaches and says\n"
"                      its status; if kview stops first (SIGTERM, the\n"
"                      duration), CMD and what it started get SIGTERM\n"
"                      (a terminal's Ctrl-C reached them already), and\n"
"                      what is left of them 10 s later SIGKILL\n"
"      --cgroup PATH   instead of --pid: the processes of cgroup v2\n"
"                      directory PATH (relative to " CGROUP_MOUNT " unless it\n"
"                      starts with '/') and of its descendants, as\n"
"                      bpf_current_task_under_cgroup() sees them: those\n"
"                      forked, started or moved in later join, those moved\n"
"                      out leave (no --follow-*); refused: the root cgroup,\n"
"                      a threaded cgroup, one within or above another\n"
"                      cgroup view's; processes already in a pid view stay\n"
"                      there (kview list counts them as skipped)\n"
"      --container NAME|ID\n"
"                      instead of --pid: the processes of an OCI container,\n"
"                      as --cgroup on its cgroup: kview asks the runtime\n"
"                      (RUNTIME list --format json) for the container whose\n"
"                      id is NAME|ID, or else the only one whose id begins\n"
"                      with it, then (RUNTIME state ID) for its init pid,\n"
"                      whose cgroup v2 directory (/proc/PID/cgroup) the view\n"
"                      follows; refused: a stopped container\n"
"      --runtime PATH  with --container: the OCI runtime to ask, crun or\n"
"                      runc or a path (default: $KVIEW_OCI_RUNTIME, else\n"
"                      " OCI_RUNTIME_DEFAULT ")\n"
"      --runtime-root DIR\n"
"                      with --container: the runtime's state directory,\n"
"                      passed as its --root (where a container engine\n"
"                      keeps it elsewhere than the runtime's default)\n"
"  -m, --mode MODE     kview (default): in N's kernel view; global: attach\n"
"                      for every process, as without kview; pre: attach for\n"
"                      every process, and the kernel skips the programs for\n"
"                      processes other than N before they run (the pre-eBPF\n"
"                      filter); global and pre are for comparison\n"
"  -f, --follow-fork   also trace N's children forked after the attach\n"
"  -e, --follow-exec   keep tracing N (and children) across exec\n"
"  -d, --duration S    detach after S seconds\n"
"  -i, --interval S    also print the maps every S seconds while tracing\n"
"                      (cumulative), each time after a line '@ HH:MM:SS'\n"
"  -q, --quiet         print only the maps (and the streamed records)\n"
"  -j, --json          JSON lines on stdout: {\"type\":\"attached\",...},\n"
"                      \"record\" (one per streamed record), \"maps\" (every\n"
"                      interval and at the end), \"detached\"; kview's\n"
"                      messages and errors as JSON lines on stderr\n"
"  -h, --help          this help\n"
"\n"
"Needs CAP_SYS_ADMIN (or CAP_BPF and CAP_PERFMON) and ptrace rights over N;\n"
"CAP_SYS_ADMIN with --cgroup and --container.\n"
"\n"
"Examples:\n"
"  kview attach --pid 1234 opens.bpf.o          # until Ctrl-C, then the maps\n"
"  kview attach -p 1234 -d 10 -i 1 lat.bpf.o    # 10 s, the maps every second\n"
"  kview attach -c 'make -j2' opens.bpf.o       # a command from its start\n"
"  kview attach --cgroup system.slice/foo.service -d 60 opens.bpf.o\n"
"                                               # a service's processes\n"
"  kview attach --container web -d 60 opens.bpf.o  # a container's (crun's)\n"
"  kview attach -j -p 1234 events.bpf.o | jq .  # records as JSON lines\n";

long parse_number(const struct output *o, const char *what, const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v > max)
		out_die(o, "%s wants a positive number, got '%s'", what, s);
	return v;
}

/* A clear error for anything that is not a BPF ELF object. */
static void check_object_file(const struct output *o, const char *path)
{
	unsigned char hdr[20];
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		out_die(o, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
		out_die(o, "%s: is a directory, not a BPF ELF object", path);
	n = read(fd, hdr, sizeof(hdr));
	close(fd);
	if (n < (ssize_t)sizeof(hdr) || memcmp(hdr, "\177ELF", 4))
		out_die(o, "%s: not a BPF ELF object (no ELF header)", path);
	if ((hdr[18] | hdr[19] << 8) != EM_BPF)
		out_die(o, "%s: not a BPF ELF object (ELF for machine %u, not BPF)", path,
			hdr[18] | hdr[19] << 8);
}

const char *create_error(int err, pid_t pid)
{
	static char buf[160];

	switch (err) {
	case ESRCH:
		snprintf(buf, sizeof(buf), "no process with pid %d (or it is exiting)", pid);
		break;
	case EOPNOTSUPP:
		snprintf(buf, sizeof(buf), "pid %d is a kernel thread: only user processes have a kernel view", pid);
		break;
	case EPERM:
	case EACCES:
		snprintf(buf, sizeof(buf), "permission denied: need CAP_SYS_ADMIN (or CAP_BPF and CAP_PERFMON) and ptrace rights over pid %d", pid);
		break;
	case EBUSY:
		snprintf(buf, sizeof(buf), "pid %d is already in a kernel view, or runs on another process's memory (a vfork() child before its exec, or clone(CLONE_VM)): a view takes whole address spaces", pid);
		break;
	case ENOSPC:
		snprintf(buf, sizeof(buf), "too many kernel views");
		break;
	case ENOENT:
	case ENODEV:
	case ENXIO:
		snprintf(buf, sizeof(buf), "this kernel has no kernel views (%s: %s)",
			 KVIEW_DEVICE, strerror(err));
		break;
	default:
		snprintf(buf, sizeof(buf), "cannot create a kernel view on pid %d: %s", pid, strerror(err));
	}
	return buf;
}

/* libbpf's error text: its own codes (LIBBPF_ERRNO__*) and errnos. */
static const char *bpf_error(int err)
{
	static char buf[128];

	if (libbpf_strerror(err, buf, sizeof(buf)))
		snprintf(buf, sizeof(buf), "%s", strerror(err));
	return buf;
}

/*
 * Each program gets its own verifier log buffer (bpf_program__set_log_buf()
 * with log level 0: libbpf asks the kernel for a log only when a load
 * fails, and retries with it); the failed program is the one whose buffer
 * has text.
 */
#define LOG_BUF_SIZE (1U << 20)

static void set_log_bufs(const struct output *o, struct bpf_object *obj)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj) {
		char *buf = calloc(1, LOG_BUF_SIZE);

		if (!buf || bpf_program__set_log_buf(prog, buf, LOG_BUF_SIZE))
			out_die(o, "out of memory for the verifier's log");
	}
}

static void free_log_bufs(struct bpf_object *obj)
{
	struct bpf_program *prog;
	size_t size;

	bpf_object__for_each_program(prog, obj) {
		free((char *)bpf_program__log_buf(prog, &size));
		bpf_program__set_log_buf(prog, NULL, 0);
	}
}

/* The failed program and the last lines of its verifier log. */
static void print_load_failure(const struct output *o, const char *path,
			       struct bpf_object *obj, int err)
{
	struct bpf_program *prog, *failed = NULL;
	const char *log = NULL, *end, *p, *q;
	int lines = 0, skip;
	size_t size;

	bpf_object__for_each_program(prog, obj) {
		log = bpf_program__log_buf(prog, &size);
		if (log && *log) {
			failed = prog;
			break;
		}
	}
	if (!failed) {
		out_error(o, "%s: cannot load the object: %s", path, bpf_error(err));
		return;
	}
	if (o->json) {
		struct json_writer w;
		char msg[512];

		snprintf(msg, sizeof(msg), "%s: the verifier rejected program '%s' (%s)",
			 path, bpf_program__name(failed), bpf_error(err));
		out_message(&w, "error", msg);
		jw_key_string(&w, "program", bpf_program__name(failed));
		jw_key_string(&w, "error", bpf_error(err));
		jw_key_string(&w, "log", log);
		jw_end_object(&w);
		return;
	}
	out_error(o, "%s: the verifier rejected program '%s' (%s); end of its log:",
		  path, bpf_program__name(failed), bpf_error(err));
	end = log + strlen(log);
	while (end > log && end[-1] == '\n')
		end--;
	for (p = log; p < end; p++)
		lines += *p == '\n';
	skip = lines >= 12 ? lines - 11 : 0;
	for (p = log; p < end && skip; p++)
		skip -= *p == '\n';
	while (p < end) {
		q = memchr(p, '\n', end - p);
		if (!q)
			q = end;
		fprintf(stderr, "  | %.*s\n", (int)(q - p), p);
		p = q + 1;
	}
}

/*
 * What the programs stream to user space, printed as it arrives: every
 * BPF ring buffer map (one ring_buffer over all of them) and every perf
 * event array (a perf_buffer each), one line a record.
 */
#define MAX_PERF_BUFS 8

struct stream {
	const char *map;
	const struct btf *btf;
	__u32 type_id;
	const struct output *out;	/* with -j (json), records as JSON lines */
};

struct streams {
	const struct output *out;
	struct stream *s;
	struct ring_buffer *rb;
	struct perf_buffer *pb[MAX_PERF_BUFS];
	const struct stream *pb_stream[MAX_PERF_BUFS];
	size_t npb;
};

static int on_ring_record(void *ctx, void *data, size_t size)
{
	const struct stream *st = ctx;

	if (print_record(stdout, st->out->json, st->map, st->btf, st->type_id,
			 data, size))
		out_die(st->out, "out of memory printing a record of %s", st->map);
	return 0;
}

static void on_perf_record(void *ctx, int cpu, void *data, __u32 size)
{
	(void)cpu;
	on_ring_record(ctx, data, size);
}

static void on_perf_lost(void *ctx, int cpu, __u64 n)
{
	const struct stream *st = ctx;

	out_note(st->out, "perf buffer %s: %llu record(s) lost on CPU %d", st->map,
		 (unsigned long long)n, cpu);
}

static bool streamed(const struct bpf_map *map)
{
	return bpf_map__type(map) == BPF_MAP_TYPE_RINGBUF ||
	       bpf_map__type(map) == BPF_MAP_TYPE_PERF_EVENT_ARRAY;
}

static void streams_open(struct streams *ss, const struct output *o,
			 struct bpf_object *obj)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map;
	size_t n = 0, i = 0;

	memset(ss, 0, sizeof(*ss));
	ss->out = o;
	bpf_object__for_each_map(map, obj)
		n += streamed(map);
	if (!n)
		return;
	ss->s = calloc(n, sizeof(*ss->s));
	if (!ss->s)
		out_die(o, "out of memory");
	bpf_object__for_each_map(map, obj) {
		struct stream *st = &ss->s[i++];
		int fd = bpf_map__fd(map);

		if (!streamed(map)) {
			i--;
			continue;
		}
		st->map = bpf_map__name(map);
		st->btf = btf;
		st->out = o;
		st->type_id = record_type(btf, st->map, n == 1);
		if (!st->type_id)
			out_note(o, "%s: no struct %s_event%s in the object's BTF: its records in hex",
				 st->map, st->map, n == 1 ? " or event" : "");
		if (bpf_map__type(map) == BPF_MAP_TYPE_RINGBUF) {
			if (!ss->rb ? !(ss->rb = ring_buffer__new(fd, on_ring_record, st, NULL)) :
				      ring_buffer__add(ss->rb, fd, on_ring_record, st) < 0)
				out_die(o, "cannot read ring buffer %s: %s", st->map, strerror(errno));
			continue;
		}
		if (ss->npb == MAX_PERF_BUFS)
			out_die(o, "more than %d perf event arrays", MAX_PERF_BUFS);
		ss->pb[ss->npb] = perf_buffer__new(fd, 64, on_perf_record, on_perf_lost, st, NULL);
		if (!ss->pb[ss->npb])
			out_die(o, "cannot read perf event array %s: %s", st->map, strerror(errno));
		ss->pb_stream[ss->npb++] = st;
	}
}

/* Their epoll fds into @pfd; how many. */
static int streams_pollfds(const struct streams *ss, struct pollfd *pfd)
{
	int n = 0;
	size_t i;

	if (ss->rb)
		pfd[n++] = (struct pollfd){ .fd = ring_buffer__epoll_fd(ss->rb), .events = POLLIN };
	for (i = 0; i < ss->npb; i++)
		pfd[n++] = (struct pollfd){ .fd = perf_buffer__epoll_fd(ss->pb[i]), .events = POLLIN };
	return n;
}

static void streams_consume(struct streams *ss)
{
	size_t i;

	if (ss->rb && ring_buffer__consume(ss->rb) < 0)
		out_die(ss->out, "reading the ring buffers: %s", strerror(errno));
	for (i = 0; i < ss->npb; i++)
		if (perf_buffer__consume(ss->pb[i]) < 0)
			out_die(ss->out, "reading perf event array %s: %s", ss->pb_stream[i]->map, strerror(errno));
}

static void streams_close(struct streams *ss)
{
	size_t i;

	ring_buffer__free(ss->rb);
	for (i = 0; i < ss->npb; i++)
		perf_buffer__free(ss->pb[i]);
	free(ss->s);
}

/* One line per attached program: its section and name. */
static void print_programs(struct kview_links *links)
{
	const struct bpf_program *prog;
	size_t i;

	for (i = 0; i < kview_links__count(links); i++) {
		prog = kview_links__program(links, i);
		fprintf(stderr, "  %-32s %s\n", bpf_program__section_name(prog),
			bpf_program__name(prog));
	}
}

/* -j: the attached line, with the programs and the view's memory. */
static void print_attached_json(struct kview_links *links, struct kview *kv,
				const char *mode, const struct target *t)
{
	const struct bpf_program *prog;
	struct json_writer w;
	struct kview_info info;
	size_t i;

	jw_begin_record(&w, stdout, "attached");
	jw_key_string(&w, "mode", mode);
	if (t->cgroup) {
		jw_key_string(&w, "cgroup", t->cgroup);
		if (kv)
			jw_key_uint(&w, "cgroup_id", t->cgroup_id);
		if (t->container_id)
			jw_key_string(&w, "container", t->container_id);
	} else {
		jw_key_int(&w, "pid", t->pid);
	}
	if (kv) {
		kview__info(kv, &info);
		jw_key_uint(&w, "view", info.id);
		jw_key(&w, "memory");
		jw_begin_object(&w);
		jw_key_uint(&w, "probe_sites", info.nr_patches);
		jw_key_uint(&w, "text_pages", info.nr_pages);
		jw_key_uint(&w, "pt_pages", info.nr_pt_pages);
		jw_key_uint(&w, "bytes", info.bytes);
		jw_end_object(&w);
	}
	jw_key(&w, "programs");
	jw_begin_array(&w);
	for (i = 0; i < kview_links__count(links); i++) {
		prog = kview_links__program(links, i);
		jw_begin_object(&w);
		jw_key_string(&w, "section", bpf_program__section_name(prog));
		jw_key_string(&w, "name", bpf_program__name(prog));
		jw_end_object(&w);
	}
	jw_end_array(&w);
	jw_end_object(&w);
	fflush(stdout);
}

/*
 * -j: the detached line, why, and with -c how the command (@pid, 0: none)
 * ended: @stopped by kview, with wait status @status.
 */
static void print_detached_json(const char *reason, pid_t pid, bool stopped,
				int status)
{
	struct json_writer w;

	jw_begin_record(&w, stdout, "detached");
	jw_key_string(&w, "reason", reason);
	if (pid) {
		jw_key(&w, "command");
		jw_begin_object(&w);
		jw_key_int(&w, "pid", pid);
		jw_key_bool(&w, "stopped", stopped);
		jw_key_string(&w, "status", describe_status(status));
		jw_end_object(&w);
	}
	jw_end_object(&w);
}

/* One kview attach, from its options to its teardown. */
struct attach {
	struct target t;
	const char *path;
	long duration, interval;
	bool global;
	unsigned int view_id;
	int go_fd, status;	/* -c: the held command's pipe, wait status */
	bool cmd_done;

	struct bpf_object *obj;
	struct kview *kv;
	struct kview_links *links;
	const struct bpf_program *bad;	/* the program that failed to attach */

	struct streams streams;
	struct pollfd pfd[5 + MAX_PERF_BUFS];
	int nfds, sfd, tfd, ifd;	/* pfd[0]: sfd, pfd[1]: the target */
	int stop_sig;
	const char *stop_reason;
	char reason[96];
};

static const char *attach_mode(const struct attach *a)
{
	return a->global ? "global" : a->t.opts.filter ? "pre" : "kview";
}

/* Options; 1: --help was printed, nothing else to do. */
static int attach_options(struct attach *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		TARGET_LONGOPTS,
		{ "mode", required_argument, NULL, 'm' },
		{ "duration", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, TARGET_SHORTOPTS "m:d:i:h", longopts, NULL)) != -1) {
		if (target_option(&a->t, c, optarg))
			continue;
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "global"))
				a->global = true;
			else if (!strcmp(optarg, "pre"))
				a->t.opts.filter = true;
			else if (strcmp(optarg, "kview"))
				out_die(a->t.out, "--mode wants kview, pre or global, got '%s'", optarg);
			break;
		case 'd':
			a->duration = parse_number(a->t.out, "--duration", optarg, 100000000);
			break;
		case 'i':
			a->interval = parse_number(a->t.out, "--interval", optarg, 100000000);
			break;
		case 'h':
			fputs(attach_usage, stdout);
			return 1;
		default:
			out_die(a->t.out, "bad arguments (see kview attach --help)");
		}
	}
	target_check(&a->t, "attach");
	if (optind != argc - 1)
		out_die(a->t.out, "attach needs exactly one BPF object file (see kview attach --help)");
	a->path = argv[optind];
	return 0;
}

/* Open the object; every program it would attach must be scopable. */
static void attach_open(struct attach *a)
{
	struct bpf_program *prog;
	const char *why = NULL;

	check_object_file(a->t.out, a->path);
	a->obj = bpf_object__open_file(a->path, NULL);
	if (!a->obj)
		out_die(a->t.out, "%s: cannot open as a BPF object: %s", a->path, bpf_error(errno));
	bpf_object__for_each_program(prog, a->obj) {
		if (!a->global && bpf_program__autoload(prog) && bpf_program__autoattach(prog) &&
		    kview_program__scopable(prog, &why))
			out_die(a->t.out, "%s: program '%s' (SEC(\"%s\")) cannot be scoped to a process: %s",
				a->path, bpf_program__name(prog),
				bpf_program__section_name(prog), why);
	}
}

/* -c: the command's process, started held. */
static void attach_start_command(struct attach *a)
{
	sigset_t oldmask;

	/*
	 * Held until the programs are in; if kview exits first, the command
	 * sees EOF and exits without running.  The command's children and
	 * execs are what it runs.
	 */
	sigprocmask(SIG_SETMASK, NULL, &oldmask);
	a->t.pid = command_start_held(a->t.out, a->t.command, &a->go_fd, &oldmask);
	a->t.opts.follow_fork = a->t.opts.follow_exec = true;
	/*
	 * The command is waited for whatever disposition of SIGCHLD kview
	 * inherited; a write to a closed pipe (the held command gone, a
	 * reader of stdout gone) fails with EPIPE instead of ending kview
	 * with the command left running untraced.
	 */
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
}

/* The process (-c's command, started held) or the cgroup; the view on it. */
static void attach_target(struct attach *a)
{
	const struct output *o = a->t.out;
	struct kview_info info;
	int err;

	if (a->t.command)
		attach_start_command(a);
	if (a->global && a->t.cgroup) {
		close(cgroup_open(o, a->t.cgroup));
		return;
	}
	if (a->global) {
		if (kill(a->t.pid, 0) && errno == ESRCH)
			out_die(o, "%s", create_error(ESRCH, a->t.pid));
		return;
	}
	if (a->t.cgroup)
		a->kv = target_cgroup_view(&a->t);
	else
		a->kv = kview__create(a->t.pid, &a->t.opts);
	if (!a->kv && a->t.command) {
		err = errno;
		command_abandon(a->t.pid, &a->go_fd);
		out_die(o, "cannot create a kernel view on the command: %s", create_error(err, a->t.pid));
	}
	if (!a->kv)
		out_die(o, "%s", create_error(errno, a->t.pid));
	if (kview__info(a->kv, &info) == 0)
		a->view_id = info.id;
}

/* Load and attach, all or nothing: 0, or -1 with the reason said. */
static int attach_programs(struct attach *a)
{
	LIBBPF_OPTS(kview_attach_opts, attach_opts, .failed_prog = &a->bad);
	int err;

	set_log_bufs(a->t.out, a->obj);
	err = bpf_object__load(a->obj);
	if (err) {
		print_load_failure(a->t.out, a->path, a->obj, -err);
		free_log_bufs(a->obj);
		return -1;
	}
	free_log_bufs(a->obj);

	a->links = kview__attach_object_opts(a->global ? NULL : a->kv, a->obj, &attach_opts);
	if (!a->links) {
		err = errno;
		out_error(a->t.out, "cannot attach program '%s' (SEC(\"%s\"))%s: %s%s",
			  a->bad ? bpf_program__name(a->bad) : "?",
			  a->bad ? bpf_program__section_name(a->bad) : "?",
			  a->global ? "" : a->t.opts.filter ? " with the pre-eBPF filter" :
			  " in the kernel view", strerror(err),
			  err == EOPNOTSUPP && !a->global && !a->t.opts.filter ?
			  " (kernel views scope hooks in core kernel text, not in modules)" : "");
		return -1;
	}
	return 0;
}

/* What was attached, where, and what the view costs. */
static void attach_report(struct attach *a)
{
	const struct output *o = a->t.out;
	struct kview_info info;

	if (a->t.quiet)
		return;
	if (o->json) {
		print_attached_json(a->links, a->kv, attach_mode(a), &a->t);
		return;
	}
	if (a->global) {
		out_note(o, "attached %zu program(s) globally (every process runs them)",
			 kview_links__count(a->links));
		print_programs(a->links);
		return;
	}
	kview__info(a->kv, &info);
	if (a->t.opts.filter) {
		out_note(o, "attached %zu program(s) for every process, run for %s%s only (pre-eBPF filter, view %u)",
			 kview_links__count(a->links), a->t.cgroup ? "the processes of " : "",
			 target_name(&a->t), info.id);
		print_programs(a->links);
		return;
	}
	out_note(o, "attached %zu program(s) in the kernel view of %s (view %u)",
		 kview_links__count(a->links), target_name(&a->t), info.id);
	print_programs(a->links);
	out_note(o, "view memory: %u probe site(s), %u text page(s) copied, %u page-table page(s), %llu KiB",
		 info.nr_patches, info.nr_pages, info.nr_pt_pages,
		 (unsigned long long)info.bytes / 1024);
}

static int timer_fd(const struct output *o, long seconds, bool repeat, const char *what)
{
	struct itimerspec its = { .it_value = { .tv_sec = seconds } };
	int fd;

	if (repeat)
		its.it_interval.tv_sec = seconds;
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (fd < 0 || timerfd_settime(fd, 0, &its, NULL))
		out_die(o, "cannot set the %s: %s", what, strerror(errno));
	return fd;
}

/*
 * What polls readable when the target is gone: its pidfd, or a set eventfd
 * if it is gone already; -1 for a cgroup, which has no end (poll() skips
 * it).
 */
static int attach_end_fd(const struct attach *a)
{
	int fd;

	if (a->t.cgroup)
		return -1;
	fd = pidfd_open_compat(a->t.pid);
	if (fd < 0 && errno != ESRCH)
		out_die(a->t.out, "cannot wait for pid %d: %s", a->t.pid, strerror(errno));
	return fd < 0 ? eventfd(1, EFD_CLOEXEC) : fd;
}

/*
 * What ends the trace or wakes it: Ctrl-C/SIGTERM/SIGHUP, the target's
 * exit, the duration, the interval, the streams; then the command goes.
 */
static void attach_wait_setup(struct attach *a)
{
	const struct output *o = a->t.out;
	sigset_t sigs;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	a->sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (a->sfd < 0)
		out_die(o, "signalfd: %s", strerror(errno));
	a->pfd[0] = (struct pollfd){ .fd = a->sfd, .events = POLLIN };
	a->pfd[1] = (struct pollfd){ .fd = attach_end_fd(a), .events = POLLIN };
	a->nfds = 2;
	if (a->duration) {
		a->tfd = timer_fd(o, a->duration, false, "duration");
		a->pfd[a->nfds++] = (struct pollfd){ .fd = a->tfd, .events = POLLIN };
	}
	if (a->interval)
		a->ifd = timer_fd(o, a->interval, true, "interval");
	/* Records stream to stdout as they come: line by line. */
	streams_open(&a->streams, o, a->obj);
	if (a->streams.s)
		setvbuf(stdout, NULL, _IOLBF, 0);
	a->nfds += streams_pollfds(&a->streams, a->pfd + a->nfds);
	if (a->ifd >= 0)
		a->pfd[a->nfds++] = (struct pollfd){ .fd = a->ifd, .events = POLLIN };

	if (a->t.command) {
		if (!command_release(o, &a->go_fd)) {
			waitpid(a->t.pid, &a->status, 0);
			out_die(o, "the command died before it was started: %s", describe_status(a->status));
		}
		if (!a->t.quiet && !o->json)
			out_note(o, "started the command (pid %d); tracing until it exits, Ctrl-C%s",
				 a->t.pid, a->duration ? " or the duration" : "");
	} else if (!a->t.quiet && !o->json && a->t.cgroup) {
		out_note(o, "tracing until Ctrl-C%s", a->duration ? " or the duration" : "");
	} else if (!a->t.quiet && !o->json) {
		out_note(o, "tracing until Ctrl-C%s or pid %d exits",
			 a->duration ? ", the duration" : "", a->t.pid);
	}
}

/* The interval's dump: the maps so far, after a time stamp. */
static void attach_interval(struct attach *a)
{
	time_t now = time(NULL);
	uint64_t ticks;
	char stamp[16];

	if (read(a->ifd, &ticks, sizeof(ticks)) != sizeof(ticks))
		return;
	strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&now));
	if (dump_maps(stdout, a->t.out->json, a->obj, stamp))
		out_die(a->t.out, "out of memory printing the maps");
	fflush(stdout);
}

/* Until something ends the trace: a->stop_reason says what. */
static void attach_loop(struct attach *a)
{
	struct signalfd_siginfo si;
	int i;

	for (;;) {
		if (poll(a->pfd, a->nfds, -1) < 0) {
			if (errno != EINTR)
				out_die(a->t.out, "poll: %s", strerror(errno));
			continue;
		}
		if (a->pfd[0].revents) {
			/*
			 * A terminal's Ctrl-C (or hangup) reached the command
			 * already (one process group): it gets no second one.
			 * A signal sent to kview alone is passed on.
			 */
			if (read(a->sfd, &si, sizeof(si)) == sizeof(si))
				a->stop_sig = (int)si.ssi_code == SI_KERNEL ? 0 : (int)si.ssi_signo;
			a->stop_reason = "interrupted";
			return;
		}
		if (a->pfd[1].revents && a->t.command) {
			if (waitpid(a->t.pid, &a->status, 0) != a->t.pid)
				a->status = -1;
			a->cmd_done = true;
			snprintf(a->reason, sizeof(a->reason), "the command exited (%s)",
				 describe_status(a->status));
			a->stop_reason = a->reason;
			return;
		}
		if (a->pfd[1].revents) {
			a->stop_reason = "the process exited";
			return;
		}
		for (i = 2; i < a->nfds; i++) {
			if (!a->pfd[i].revents)
				continue;
			if (a->pfd[i].fd == a->tfd) {
				a->stop_reason = "the duration is over";
				return;
			}
		}
		streams_consume(&a->streams);
		if (a->ifd >= 0 && a->pfd[a->nfds - 1].revents)
			attach_interval(a);
	}
}

/*
 * The one way out once the object is open: detach, what the programs
 * wrote before they were stopped, the maps, the command stopped, the view
 * and the fds closed.  @ok: the trace ran (not a load or attach failure).
 */
static int attach_teardown(struct attach *a, bool ok)
{
	const struct output *o = a->t.out;

	if (ok && !a->t.quiet && !o->json)
		out_note(o, "%s: detaching", a->stop_reason);
	kview_links__destroy(a->links);
	if (ok) {
		streams_consume(&a->streams);
		if (dump_maps(stdout, o->json, a->obj, NULL))
			out_die(o, "out of memory printing the maps");
		fflush(stdout);
		if (a->t.command && !a->cmd_done)
			command_stop(o, a->t.pid, a->view_id, a->stop_sig, a->t.quiet, &a->status);
		if (!a->t.quiet && o->json)
			print_detached_json(a->stop_reason, a->t.command ? a->t.pid : 0,
					    !a->cmd_done, a->status);
		fflush(stdout);
	} else if (a->t.command) {
		command_abandon(a->t.pid, &a->go_fd);
	}
	streams_close(&a->streams);
	kview__destroy(a->kv);
	bpf_object__close(a->obj);
	target_free(&a->t);
	if (a->nfds > 1 && a->pfd[1].fd >= 0)
		close(a->pfd[1].fd);
	if (a->sfd >= 0)
		close(a->sfd);
	if (a->tfd >= 0)
		close(a->tfd);
	if (a->ifd >= 0)
		close(a->ifd);
	if (ok && !a->t.quiet && !o->json)
		out_note(o, "detached");
	return ok ? 0 : 1;
}

int cmd_attach(struct output *o, int argc, char **argv)
{
	struct attach a = {
		.go_fd = -1, .status = -1, .sfd = -1, .tfd = -1, .ifd = -1,
		.stop_sig = SIGTERM, .stop_reason = "?",
	};

	target_init(&a.t, o);
	if (attach_options(&a, argc, argv))
		return 0;
	attach_open(&a);
	attach_target(&a);
	if (attach_programs(&a))
		return attach_teardown(&a, false);
	attach_report(&a);
	attach_wait_setup(&a);
	attach_loop(&a);
	return attach_teardown(&a, true);
}
