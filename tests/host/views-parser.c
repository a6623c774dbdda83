// SPDX-License-Identifier: GPL-2.0
/*
 * views-parser: libkview's reader of debugfs kview/views
 * (kview__views_read(), libbpf-ext/src/views.c), on files written here in
 * the kernel's format (kernel/kview/core.c, kview_views_show()): every
 * field of every kind of line, with and without the "version" line, what
 * a kernel may add under the same version (fields at the end of a line, an
 * indented line of a new kind), and the inputs it must refuse with EPROTO
 * (an unknown version, a top-level line of no known kind, a detail line
 * before any view, a short view line, patch bytes that do not pair up, an
 * overlong line) or ENOENT.  TAP on stdout.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kview/kview.h"

static int n, fails;
static char path[] = "/tmp/kview-views-XXXXXX";

static void ok(int cond, const char *what)
{
	n++;
	printf("%sok %d - %s\n", cond ? "" : "not ", n, what);
	fails += !cond;
}

static void put(const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(2);
	}
}

/*
 * kview__views_read() of @text (NULL: of the file left as it is): its
 * return value, the views in *@v.
 */
static int parse(const char *text, struct kview_views **v)
{
	if (text)
		put(text);
	return kview__views_read(path, v);
}

static const char sample[] =
	"version 1\n"
	"view 3 flags 0x3 members 2 attachments 2 patches 1 pages 1 pt_pages 4 bytes 20480 out_of_scope 0\n"
	"\tpid 78 dd\n"
	"\tpid 79 a comm with spaces\n"
	"\tattach kprobe 0xffffffff81234560 vfs_read+0x0/0x1a0\n"
	"\tattach tracepoint 0xffffffff82000000 syscalls:sys_enter_read\n"
	"\trefused 2 fentry vfs_write (not core kernel text)\n"
	"\tpatch call 0xffffffff81234564 vfs_read+0x4/0x1a0 insn e8d7c3be00 orig 0f1f440000\n"
	"view 4 flags 0 members 0 attachments 0 patches 0 pages 0 pt_pages 0 bytes 0 out_of_scope 7\n";

static void test_sample(void)
{
	const struct kview_views_view *v;
	const struct kview_views_patch *p;
	struct kview_views *views;
	static const unsigned char insn[] = { 0xe8, 0xd7, 0xc3, 0xbe, 0x00 };
	static const unsigned char orig[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

	ok(parse(sample, &views) == 0, "the sample parses");
	if (!views)
		return;
	ok(views->version == 1 && views->cnt == 2, "version 1, two views");
	v = kview__views_find(views, 3);
	ok(v && v->flags == 3 && v->nr_members == 2 && v->nr_attachments == 2 &&
	   v->nr_patches == 1 && v->nr_pages == 1 && v->nr_pt_pages == 4 &&
	   v->bytes == 20480 && v->out_of_scope == 0,
	   "view 3's counts");
	ok(v && v->members_cnt == 2 && v->members[0].pid == 78 &&
	   !strcmp(v->members[0].comm, "dd") && v->members[1].pid == 79 &&
	   !strcmp(v->members[1].comm, "a comm with spaces"),
	   "view 3's members, a comm with spaces whole");
	ok(v && v->hooks_cnt == 2 && !strcmp(v->hooks[0].kind, "kprobe") &&
	   v->hooks[0].addr == 0xffffffff81234560ULL &&
	   !strcmp(v->hooks[0].name, "vfs_read+0x0/0x1a0") &&
	   !strcmp(v->hooks[1].kind, "tracepoint") &&
	   !strcmp(v->hooks[1].name, "syscalls:sys_enter_read"),
	   "view 3's hooks");
	ok(v && v->refused_cnt == 1 && v->refused[0].count == 2 &&
	   !strcmp(v->refused[0].what, "fentry vfs_write (not core kernel text)"),
	   "view 3's refusal, its text whole");
	p = v && v->patches_cnt == 1 ? &v->patches[0] : NULL;
	ok(p && !strcmp(p->kind, "call") && p->addr == 0xffffffff81234564ULL &&
	   !strcmp(p->symbol, "vfs_read+0x4/0x1a0") && p->len == 5 &&
	   !memcmp(p->insn, insn, 5) && !memcmp(p->orig, orig, 5),
	   "view 3's patch, its bytes decoded");
	v = kview__views_find(views, 4);
	ok(v && v->flags == 0 && v->out_of_scope == 7 && !v->members_cnt &&
	   !v->hooks_cnt && !v->refused_cnt && !v->patches_cnt,
	   "view 4: flags 0 (no 0x), no details");
	errno = 0;
	ok(!kview__views_find(views, 5) && errno == ENOENT,
	   "a view not there: NULL, ENOENT");
	kview__views_free(views);
}

static void test_accepts(void)
{
	struct kview_views *views;

	ok(parse(sample + strlen("version 1\n"), &views) == 0 &&
	   views->version == 1 && views->cnt == 2,
	   "no version line: version 1");
	kview__views_free(views);
	ok(parse("", &views) == 0 && views->cnt == 0, "no views: an empty file");
	kview__views_free(views);
	ok(parse("version 1\n", &views) == 0 && views->cnt == 0,
	   "no views: the version line alone");
	kview__views_free(views);
	ok(parse("version 1\n"
		 "view 9 flags 0 members 1 attachments 0 patches 0 pages 0 pt_pages 0 bytes 0 out_of_scope 0 newfield 5\n"
		 "\tpid 1 init\n"
		 "\tnewkind 1 2 3\n"
		 "\tattach kprobe 0x10 f+0x0/0x8 more\n", &views) == 0 &&
	   views->cnt == 1 && views->views[0]->members_cnt == 1 &&
	   views->views[0]->hooks_cnt == 1 &&
	   !strcmp(views->views[0]->hooks[0].name, "f+0x0/0x8"),
	   "a field added at a line's end, an indented line of a new kind: skipped");
	kview__views_free(views);
	ok(parse("version 1\n"
		 "view 5 flags 0x8 members 3 attachments 1 patches 1 pages 1 pt_pages 4 bytes 20480 out_of_scope 0 cgroup 4242 skipped 2 newfield 1\n"
		 "view 6 flags 0 members 0 attachments 0 patches 0 pages 0 pt_pages 0 bytes 0 out_of_scope 0\n",
		 &views) == 0 && views->cnt == 2 &&
	   views->views[0]->cgroup_id == 4242 &&
	   views->views[0]->nr_skipped == 2 &&
	   views->views[1]->cgroup_id == 0 && views->views[1]->nr_skipped == 0,
	   "a cgroup view's cgroup and skipped count; none from an older kernel");
	kview__views_free(views);
}

static void refused(const char *text, int err, const char *what)
{
	struct kview_views *views = (void *)1;
	int ret = parse(text, &views);

	ok(ret == -err && errno == err && !views, what);
}

/* @line after a view line must be refused with EPROTO. */
static void refused_after_view(const char *line, const char *what)
{
	static const char view[] =
		"view 1 flags 0 members 0 attachments 0 patches 0 pages 0 pt_pages 0 bytes 0 out_of_scope 0\n";
	char *buf;

	if (asprintf(&buf, "%s%s\n", view, line) < 0)
		exit(2);
	refused(buf, EPROTO, what);
	free(buf);
}

static void test_refuses(void)
{
	char *buf, *big;

	refused("version 2\n", EPROTO, "a newer version: EPROTO");
	refused("version 0\n", EPROTO, "version 0: EPROTO");
	refused("\tpid 1 init\n", EPROTO, "a detail line before any view: EPROTO");
	refused("view 1 flags 0 members 0\n", EPROTO, "a short view line: EPROTO");
	refused_after_view("frob 1 2 3", "a top-level line of no known kind: EPROTO");
	refused_after_view("version 1", "a version line after a view: EPROTO");
	refused_after_view("\tpatch call 0x1 f+0x0/0x10 insn e8d7 orig 0f1f44",
			   "patch bytes of two lengths: EPROTO");
	refused_after_view("\trefused 3 ", "a refusal without its hook: EPROTO");
	big = malloc(4096);
	if (!big)
		exit(2);
	memset(big, 'x', 4095);
	big[4095] = '\0';
	if (asprintf(&buf, "\tpid 1 %s", big) < 0)
		exit(2);
	refused_after_view(buf, "a line longer than any the kernel writes: EPROTO");
	free(buf);
	free(big);

	unlink(path);
	refused(NULL, ENOENT, "no file: ENOENT");
}

int main(void)
{
	int fd = mkstemp(path);

	if (fd < 0) {
		perror("mkstemp");
		return 2;
	}
	close(fd);
	test_sample();
	test_accepts();
	test_refuses();
	unlink(path);
	printf("1..%d\n", n);
	return fails ? 1 : 0;
}
