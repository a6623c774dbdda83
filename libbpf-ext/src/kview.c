// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libkview: attach libbpf programs to one process's kernel view.
 * See include/kview/kview.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "kview/kview.h"

struct kview {
	int fd;
};

struct kview_links {
	size_t nr;
	struct bpf_link **links;
	struct bpf_program **progs;
};

static int fail(int err)
{
	errno = err;
	return -err;
}

/*
 * A caller's mistake that errno alone would not explain, on stderr as
 * libbpf's default print function writes its warnings.
 */
__attribute__((format(printf, 1, 2)))
static void pr_warn(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	fputs("libkview: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	errno = err;
}

/*
 * Option structs follow libbpf's rules (LIBBPF_OPTS()): ->sz is the size
 * of the caller's struct, which may be older (smaller) or newer (larger)
 * than ours.  It must at least hold ->sz itself; the bytes of a larger
 * struct beyond the fields we know must be zero (a newer caller asking
 * for nothing we do not know of); and a field is read only if it lies
 * within ->sz, else its default is taken.
 */
static bool opts_valid(const void *opts, size_t sz, size_t known,
		       const char *type)
{
	const char *p = opts;
	size_t i;

	if (!opts)
		return true;
	if (sz < sizeof(size_t)) {
		pr_warn("struct %s: sz %zu is too small (at least %zu; declare it with LIBBPF_OPTS())\n",
			type, sz, sizeof(size_t));
		return false;
	}
	for (i = known; i < sz; i++) {
		if (p[i]) {
			pr_warn("struct %s: byte %zu, beyond the fields libkview knows (%zu bytes), is not zero\n",
				type, i, known);
			return false;
		}
	}
	return true;
}

#define offsetofend(type, field) \
	(offsetof(type, field) + sizeof(((type *)0)->field))
/* @opts, NULL or a struct @type, is valid (see opts_valid()). */
#define OPTS_VALID(opts, type) \
	opts_valid(opts, (opts) ? (opts)->sz : 0, \
		   offsetofend(struct type, type##__last_field), #type)
#define OPTS_HAS(opts, field) \
	((opts) && (opts)->sz >= offsetofend(typeof(*(opts)), field))
#define OPTS_GET(opts, field, def) (OPTS_HAS(opts, field) ? (opts)->field : (def))

/* KVIEW_IOC_CREATE with @attr's pid (or cgroup fd) and @opts' flags. */
static struct kview *view_create(struct kview_create *attr,
				 const struct kview_opts *opts)
{
	struct kview *kv;
	int dev, fd;

	if (OPTS_GET(opts, follow_fork, false))
		attr->flags |= KVIEW_F_FOLLOW_FORK;
	if (OPTS_GET(opts, follow_exec, false))
		attr->flags |= KVIEW_F_FOLLOW_EXEC;
	if (OPTS_GET(opts, filter, false))
		attr->flags |= KVIEW_F_FILTER;

	kv = calloc(1, sizeof(*kv));
	if (!kv)
		return NULL;
	dev = open(KVIEW_DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		goto err;
	fd = ioctl(dev, KVIEW_IOC_CREATE, attr);
	close(dev);
	if (fd < 0)
		goto err;
	kv->fd = fd;
	return kv;
err:
	fd = errno;
	free(kv);
	errno = fd;
	return NULL;
}

struct kview *kview__create(pid_t pid, const struct kview_opts *opts)
{
	struct kview_create attr;

	if (!OPTS_VALID(opts, kview_opts) || pid < 0) {
		errno = EINVAL;
		return NULL;
	}
	memset(&attr, 0, sizeof(attr));
	attr.pid = pid;
	return view_create(&attr, opts);
}

struct kview *kview__create_cgroup(int cgroup_fd, const struct kview_opts *opts)
{
	struct kview_create attr;

	if (!OPTS_VALID(opts, kview_opts) || cgroup_fd < 0) {
		errno = cgroup_fd < 0 ? EBADF : EINVAL;
		return NULL;
	}
	memset(&attr, 0, sizeof(attr));
	attr.pid = cgroup_fd;
	attr.flags = KVIEW_F_CGROUP;
	return view_create(&attr, opts);
}

int kview__add_pid(struct kview *kv, pid_t pid)
{
	__u32 p = pid;

	if (pid <= 0)
		return fail(ESRCH);
	return ioctl(kv->fd, KVIEW_IOC_ADD_PID, &p) ? -errno : 0;
}

void kview__destroy(struct kview *kv)
{
	if (!kv)
		return;
	close(kv->fd);
	free(kv);
}

int kview__fd(const struct kview *kv)
{
	return kv->fd;
}

int kview__info(struct kview *kv, struct kview_info *info)
{
	memset(info, 0, sizeof(*info));
	return ioctl(kv->fd, KVIEW_IOC_INFO, info) ? -errno : 0;
}

/*
 * KVIEW_IOC_READ_TEXT reads within one page (a view copies text a page at
 * a time); a range that crosses a page boundary takes one call per page,
 * so that whether a caller's range fits does not depend on where the
 * kernel placed a function.
 */
int kview__read_text(struct kview *kv, unsigned long addr, void *view_buf,
		     void *global_buf, size_t len)
{
	unsigned long page = (unsigned long)sysconf(_SC_PAGESIZE);
	struct kview_text t;
	size_t done, n;

	if (!len || len > KVIEW_TEXT_MAX)
		return fail(EINVAL);
	for (done = 0; done < len; done += n) {
		n = page - ((addr + done) & (page - 1));
		if (n > len - done)
			n = len - done;
		memset(&t, 0, sizeof(t));
		t.addr = addr + done;
		t.view_buf = (uintptr_t)view_buf + done;
		t.global_buf = (uintptr_t)global_buf + done;
		t.len = n;
		if (ioctl(kv->fd, KVIEW_IOC_READ_TEXT, &t))
			return -errno;
	}
	return 0;
}

int kview__enter_scope(struct kview *kv)
{
	return ioctl(kv->fd, KVIEW_IOC_SCOPE_ENTER) ? -errno : 0;
}

int kview__leave_scope(struct kview *kv)
{
	return ioctl(kv->fd, KVIEW_IOC_SCOPE_LEAVE) ? -errno : 0;
}

/*
 * What a program's SEC() is, by its type (the part before the first '/'),
 * as libbpf's section table has it: a hook a view scopes, a hook a view
 * refuses (and why), or a type libbpf does not attach automatically (XDP,
 * sockets, cgroups, struct_ops...: not kernel text hooks, and skipped by
 * bpf_object__attach_skeleton()).
 */
enum hook_kind {
	HOOK_OTHER,		/* not auto-attached by libbpf */
	HOOK_SCOPED,
	HOOK_REFUSED,
};

static const struct {
	const char *type;
	const char *why;	/* NULL: scoped */
} hook_types[] = {
	{ "kprobe", NULL },
	{ "kretprobe", NULL },
	{ "ksyscall", NULL },
	{ "kretsyscall", NULL },
	{ "tracepoint", NULL },
	{ "tp", NULL },
	{ "raw_tracepoint", NULL },
	{ "raw_tp", NULL },
	{ "raw_tracepoint.w", NULL },
	{ "raw_tp.w", NULL },
	{ "tp_btf", NULL },
	{ "kprobe.multi", NULL },
	{ "kretprobe.multi", NULL },
	{ "fentry", NULL },
	{ "fexit", NULL },
	{ "fmod_ret", NULL },
	{ "fentry.s", NULL },
	{ "fexit.s", NULL },
	{ "fmod_ret.s", NULL },
	{ "freplace", "BPF extensions replace a BPF program's function for every caller" },
	{ "lsm", "LSM programs hook every process, not kernel text" },
	{ "lsm.s", "LSM programs hook every process, not kernel text" },
	{ "iter", "BPF iterators are read, not hooked into kernel text" },
	{ "iter.s", "BPF iterators are read, not hooked into kernel text" },
	{ "uprobe", "uprobes patch a file's text, shared by every process mapping it" },
	{ "uretprobe", "uprobes patch a file's text, shared by every process mapping it" },
	{ "uprobe.s", "uprobes patch a file's text, shared by every process mapping it" },
	{ "uretprobe.s", "uprobes patch a file's text, shared by every process mapping it" },
	{ "usdt", "USDT probes are uprobes: they patch a file's shared text" },
};

/*
 * @prog's kind; *@why for a refused one; *@target: whether the section
 * names what to attach to ("kprobe/FUNC", not a bare "kprobe"), without
 * which libbpf's automatic attach skips the program.
 */
static enum hook_kind hook_kind(const struct bpf_program *prog,
				const char **why, bool *target)
{
	const char *sec = bpf_program__section_name(prog);
	const char *slash = strchr(sec, '/');
	size_t len = slash ? (size_t)(slash - sec) : strlen(sec);
	size_t i;

	*target = slash && slash[1];
	for (i = 0; i < sizeof(hook_types) / sizeof(hook_types[0]); i++) {
		if (strlen(hook_types[i].type) != len ||
		    strncmp(sec, hook_types[i].type, len))
			continue;
		if (!hook_types[i].why)
			return HOOK_SCOPED;
		if (why)
			*why = hook_types[i].why;
		return HOOK_REFUSED;
	}
	if (why)
		*why = "not a kernel hook kview can scope (kprobe/, kretprobe/, tracepoint/, raw_tp/, tp_btf/, fentry/, fexit/, fmod_ret/)";
	return HOOK_OTHER;
}

int kview_program__scopable(const struct bpf_program *prog, const char **why)
{
	bool target;

	return hook_kind(prog, why, &target) == HOOK_SCOPED ? 0 : fail(EOPNOTSUPP);
}

/*
 * Whether an automatic attach (kview__attach_object(), kview__attach_
 * skeleton()) takes @prog: as bpf_object__attach_skeleton(), programs not
 * loaded or marked not to autoattach, sections without a target and types
 * libbpf does not attach are left alone (their owner attaches them by
 * hand, in the scope if they are hooks).
 */
static bool auto_attached(const struct bpf_program *prog)
{
	bool target;

	return bpf_program__autoload(prog) && bpf_program__autoattach(prog) &&
	       hook_kind(prog, NULL, &target) != HOOK_OTHER && target;
}

/* Kernel headers older than the series' (linux-libc-dev) lack it. */
#ifndef PERF_FLAG_PID_KVIEW
#define PERF_FLAG_PID_KVIEW	(1UL << 4)
#endif

/* A number from a sysfs file of the kprobe PMU, e.g. "6" or "config:0". */
static int pmu_number(const char *file, const char *fmt)
{
	char path[128];
	FILE *f;
	int v = -1;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/kprobe/%s", file);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (fscanf(f, fmt, &v) != 1)
		v = -EINVAL;
	fclose(f);
	return v;
}

/* The id of tracepoint @cat/@name in tracefs, or -errno. */
static int tracepoint_id(const char *cat, const char *name)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[384];
	size_t i;
	int id = -ENOENT;
	FILE *f;

	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/id", roots[i], cat, name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fscanf(f, "%d", &id) != 1)
			id = -EINVAL;
		fclose(f);
		break;
	}
	return id;
}

/*
 * The perf event of a kprobe/FUNC[+OFF], kretprobe/FUNC or
 * tracepoint/CAT/NAME (tp/) program, opened in @kv explicitly: the view
 * fd as perf_event_open()'s pid, with PERF_FLAG_PID_KVIEW.  -ENOENT: not
 * such a section (the program goes through the attach scope instead).
 */
static int open_view_event(struct kview *kv, const struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog), *arg;
	struct perf_event_attr attr = { .size = sizeof(attr) };
	char func[256], cat[128], name[128];
	long offset = 0;
	int type, bit, fd, id;
	bool ret;

	if (!strncmp(sec, "kprobe/", 7) || !strncmp(sec, "kretprobe/", 10)) {
		ret = sec[1] == 'r';
		arg = strchr(sec, '/') + 1;
		if (sscanf(arg, "%255[^+]+%li", func, &offset) < 1 || offset < 0 ||
		    (ret && offset))
			return -EINVAL;
		type = pmu_number("type", "%d");
		bit = pmu_number("format/retprobe", "config:%d");
		if (type < 0 || (ret && bit < 0))
			return type < 0 ? type : bit;
		attr.type = type;
		attr.config = ret ? 1ULL << bit : 0;
		attr.config1 = (uintptr_t)func;		/* kprobe_func */
		attr.config2 = offset;			/* probe_offset */
	} else if (!strncmp(sec, "tracepoint/", 11) || !strncmp(sec, "tp/", 3)) {
		arg = strchr(sec, '/') + 1;
		if (sscanf(arg, "%127[^/]/%127s", cat, name) != 2)
			return -EINVAL;
		id = tracepoint_id(cat, name);
		if (id < 0)
			return id;
		attr.type = PERF_TYPE_TRACEPOINT;
		attr.config = id;
	} else {
		return -ENOENT;
	}
	fd = syscall(SYS_perf_event_open, &attr, kv->fd, 0, -1,
		     PERF_FLAG_PID_KVIEW | PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

struct bpf_link *kview__attach_program(struct kview *kv,
				       struct bpf_program *prog)
{
	struct bpf_link *link;
	int err, pfd;

	err = kview_program__scopable(prog, NULL);
	if (err)
		return NULL;
	/*
	 * kprobes, kretprobes and tracepoints: on a perf event opened in the
	 * view explicitly, which the link then owns.  The rest (syscall
	 * kprobes, kprobe_multi, raw tracepoints, BPF trampolines) are
	 * attached by libbpf in the view's attach scope.
	 */
	pfd = open_view_event(kv, prog);
	if (pfd >= 0) {
		link = bpf_program__attach_perf_event(prog, pfd);
		if (!link) {
			err = errno;
			close(pfd);
			errno = err;
		}
		return link;
	}
	if (pfd != -ENOENT) {
		errno = -pfd;
		return NULL;
	}
	err = kview__enter_scope(kv);
	if (err)
		return NULL;
	link = bpf_program__attach(prog);
	err = link ? 0 : errno;
	kview__leave_scope(kv);
	if (!link)
		errno = err;
	return link;
}

struct kview_links *kview__attach_object_opts(struct kview *kv,
					      struct bpf_object *obj,
					      const struct kview_attach_opts *opts)
{
	const struct bpf_program **failed_prog;
	const struct bpf_program *failed = NULL;
	struct kview_links *links;
	struct bpf_program *prog;
	size_t n = 0;
	int err = 0;

	if (!OPTS_VALID(opts, kview_attach_opts)) {
		errno = EINVAL;
		return NULL;
	}
	failed_prog = OPTS_GET(opts, failed_prog, NULL);
	if (failed_prog)
		*failed_prog = NULL;
	links = calloc(1, sizeof(*links));
	if (!links)
		return NULL;
	bpf_object__for_each_program(prog, obj)
		n++;
	links->links = calloc(n ? n : 1, sizeof(*links->links));
	links->progs = calloc(n ? n : 1, sizeof(*links->progs));
	if (!links->links || !links->progs) {
		err = ENOMEM;
		goto fail;
	}
	/* Check every section before attaching anything. */
	bpf_object__for_each_program(prog, obj) {
		if (!kv || !auto_attached(prog))
			continue;
		if (kview_program__scopable(prog, NULL)) {
			failed = prog;
			err = EOPNOTSUPP;
			goto fail;
		}
	}
	bpf_object__for_each_program(prog, obj) {
		struct bpf_link *link;

		if (!auto_attached(prog))
			continue;
		link = kv ? kview__attach_program(kv, prog) :
			    bpf_program__attach(prog);
		if (!link) {
			err = errno;
			failed = prog;
			goto fail;
		}
		links->links[links->nr] = link;
		links->progs[links->nr] = prog;
		links->nr++;
	}
	return links;
fail:
	kview_links__destroy(links);
	if (failed_prog)
		*failed_prog = failed;
	errno = err;
	return NULL;
}

struct kview_links *kview__attach_object(struct kview *kv,
					 struct bpf_object *obj)
{
	return kview__attach_object_opts(kv, obj, NULL);
}

/* The @i-th program of skeleton @s (its entries may be larger than ours). */
static struct bpf_prog_skeleton *skel_prog(struct bpf_object_skeleton *s, int i)
{
	return (struct bpf_prog_skeleton *)((char *)s->progs + (size_t)i * s->prog_skel_sz);
}

int kview__attach_skeleton(struct kview *kv, struct bpf_object_skeleton *s,
			   const struct kview_attach_opts *opts)
{
	const struct bpf_program **failed_prog;
	const struct bpf_program *failed = NULL;
	bool *mine;
	int i, j, err = 0;

	if (!OPTS_VALID(opts, kview_attach_opts) || !kv || !s ||
	    s->prog_skel_sz < (int)sizeof(struct bpf_prog_skeleton))
		return fail(EINVAL);
	failed_prog = OPTS_GET(opts, failed_prog, NULL);
	if (failed_prog)
		*failed_prog = NULL;
	/* Check every section before attaching anything. */
	for (i = 0; i < s->prog_cnt; i++) {
		struct bpf_program *prog = *skel_prog(s, i)->prog;

		if (auto_attached(prog) && kview_program__scopable(prog, NULL)) {
			if (failed_prog)
				*failed_prog = prog;
			return fail(EOPNOTSUPP);
		}
	}
	mine = calloc(s->prog_cnt ? s->prog_cnt : 1, sizeof(*mine));
	if (!mine)
		return fail(ENOMEM);
	for (i = 0; i < s->prog_cnt; i++) {
		struct bpf_prog_skeleton *ps = skel_prog(s, i);

		/* As libbpf: a link the caller set already is left alone. */
		if (!auto_attached(*ps->prog) || *ps->link)
			continue;
		*ps->link = kview__attach_program(kv, *ps->prog);
		if (!*ps->link) {
			err = errno;
			failed = *ps->prog;
			break;
		}
		mine[i] = true;
	}
	/* All or nothing: what this call attached goes again. */
	for (j = 0; err && j < i; j++) {
		if (mine[j]) {
			bpf_link__destroy(*skel_prog(s, j)->link);
			*skel_prog(s, j)->link = NULL;
		}
	}
	free(mine);
	if (!err)
		return 0;
	if (failed_prog)
		*failed_prog = failed;
	return fail(err);
}

size_t kview_links__count(const struct kview_links *links)
{
	return links->nr;
}

struct bpf_link *kview_links__link(const struct kview_links *links, size_t i)
{
	return i < links->nr ? links->links[i] : NULL;
}

struct bpf_program *kview_links__program(const struct kview_links *links,
					 size_t i)
{
	return i < links->nr ? links->progs[i] : NULL;
}

void kview_links__destroy(struct kview_links *links)
{
	size_t i;

	if (!links)
		return;
	for (i = 0; i < links->nr; i++)
		bpf_link__destroy(links->links[i]);
	free(links->links);
	free(links->progs);
	free(links);
}
