// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libkview: debugfs kview/views, parsed.  The one reader of that format:
 * the kview CLI (list, exec) and the tests use it.  See
 * include/kview/kview.h.
 *
 * The kernel writes (kernel/kview/core.c, kview_views_show()) an optional
 * "version N" line, then one line per view and one indented line per
 * member process, hook, refusal and patch of it:
 *
 *   version 1
 *   view <id> flags <hex> members <n> attachments <n> patches <n> pages <n>
 *        pt_pages <n> bytes <n> out_of_scope <n> [cgroup <id> skipped <n>]
 *        (one line)
 *	pid <tgid> <comm>
 *	attach <kind> <addr> <symbol+off/size, or system:event>
 *	refused <count> <what...>
 *	patch <kind> <addr> <symbol+off/size> insn <hex> orig <hex>
 *
 * Under one version the kernel may add fields at the end of a line and new
 * kinds of indented lines: both are skipped here.  A kernel without the
 * version line writes version 1's lines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kview/kview.h"

/* The newest format this library reads. */
#define VIEWS_VERSION_MAX	1

/*
 * A new element of @size, zeroed, at the end of the array *@p of *@cnt
 * elements (which it counts); NULL if there is no memory for it.
 */
static void *append(void *p, size_t *cnt, size_t size)
{
	void **arr = p;
	char *q = realloc(*arr, (*cnt + 1) * size);

	if (!q)
		return NULL;
	*arr = q;
	q += (*cnt)++ * size;
	memset(q, 0, size);
	return q;
}

static void view_free(struct kview_views_view *v)
{
	if (!v)
		return;
	free(v->members);
	free(v->hooks);
	free(v->refused);
	free(v->patches);
	free(v);
}

void kview__views_free(struct kview_views *views)
{
	size_t i;

	if (!views)
		return;
	for (i = 0; i < views->cnt; i++)
		view_free(views->views[i]);
	free(views->views);
	free(views);
}

/* "<hex>" of at most @max bytes into @buf; the number of bytes, or -1. */
static int parse_hex(const char *s, unsigned char *buf, size_t max)
{
	size_t n = strlen(s), i;
	unsigned int byte;

	if (!n || n % 2 || n / 2 > max)
		return -1;
	for (i = 0; i < n / 2; i++) {
		if (sscanf(s + 2 * i, "%2x", &byte) != 1)
			return -1;
		buf[i] = byte;
	}
	return n / 2;
}

static int parse_view(struct kview_views *views, const char *line)
{
	struct kview_views_view *v, **vv;

	vv = append(&views->views, &views->cnt, sizeof(*vv));
	if (!vv)
		return -ENOMEM;
	v = *vv = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	int end = 0;

	if (sscanf(line, "view %u flags %x members %u attachments %u patches %u pages %u pt_pages %u bytes %llu out_of_scope %llu%n",
		   &v->id, &v->flags, &v->nr_members, &v->nr_attachments,
		   &v->nr_patches, &v->nr_pages, &v->nr_pt_pages, &v->bytes,
		   &v->out_of_scope, &end) != 9)
		return -EPROTO;
	/* Since the cgroup views (0.6); a kernel without them has neither. */
	sscanf(line + end, " cgroup %llu skipped %u", &v->cgroup_id,
	       &v->nr_skipped);
	return 0;
}

/*
 * An indented line of view @v: "pid", "attach", "refused", "patch", or a
 * kind this library does not know, skipped.
 */
static int parse_detail(struct kview_views_view *v, const char *line)
{
	char insn[2 * KVIEW_VIEWS_INSN_MAX + 2], orig[sizeof(insn)];
	int used = 0, len;

	if (!strncmp(line, "\tpid ", 5)) {
		struct kview_views_member *m;

		m = append(&v->members, &v->members_cnt, sizeof(*m));
		if (!m)
			return -ENOMEM;
		if (sscanf(line, "\tpid %d %n", &m->pid, &used) != 1 || !used)
			return -EPROTO;
		snprintf(m->comm, sizeof(m->comm), "%s", line + used);
	} else if (!strncmp(line, "\tattach ", 8)) {
		struct kview_views_hook *h;

		h = append(&v->hooks, &v->hooks_cnt, sizeof(*h));
		if (!h)
			return -ENOMEM;
		if (sscanf(line, "\tattach %15s %llx %127s", h->kind, &h->addr,
			   h->name) != 3)
			return -EPROTO;
	} else if (!strncmp(line, "\trefused ", 9)) {
		struct kview_views_refusal *r;

		r = append(&v->refused, &v->refused_cnt, sizeof(*r));
		if (!r)
			return -ENOMEM;
		if (sscanf(line, "\trefused %u %n", &r->count, &used) != 1 ||
		    !used || !line[used])
			return -EPROTO;
		snprintf(r->what, sizeof(r->what), "%s", line + used);
	} else if (!strncmp(line, "\tpatch ", 7)) {
		struct kview_views_patch *p;

		p = append(&v->patches, &v->patches_cnt, sizeof(*p));
		if (!p)
			return -ENOMEM;
		if (sscanf(line, "\tpatch %15s %llx %127s insn %33s orig %33s",
			   p->kind, &p->addr, p->symbol, insn, orig) != 5)
			return -EPROTO;
		len = parse_hex(insn, p->insn, sizeof(p->insn));
		if (len < 0 || parse_hex(orig, p->orig, sizeof(p->orig)) != len)
			return -EPROTO;
		p->len = len;
	}
	return 0;
}

static int parse_line(struct kview_views *views, const char *line,
		      unsigned int lineno)
{
	unsigned int version;

	if (lineno == 1 && sscanf(line, "version %u", &version) == 1) {
		if (!version || version > VIEWS_VERSION_MAX)
			return -EPROTO;
		views->version = version;
		return 0;
	}
	if (!strncmp(line, "view ", 5))
		return parse_view(views, line);
	if (line[0] == '\t' && views->cnt)
		return parse_detail(views->views[views->cnt - 1], line);
	return -EPROTO;
}

int kview__views_read(const char *path, struct kview_views **out)
{
	struct kview_views *views;
	unsigned int lineno = 0;
	char line[1024];
	int err = 0;
	FILE *f;

	if (!out)
		return errno = EINVAL, -EINVAL;
	*out = NULL;
	views = calloc(1, sizeof(*views));
	if (!views)
		return errno = ENOMEM, -ENOMEM;
	views->version = 1;
	f = fopen(path ? path : KVIEW_VIEWS_FILE, "re");
	if (!f) {
		err = -errno;
		free(views);
		return errno = -err, err;
	}
	while (!err && fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\n");

		/* A line longer than the buffer is not the kernel's format. */
		if (!line[len] && !feof(f)) {
			err = -EPROTO;
			break;
		}
		line[len] = '\0';
		err = parse_line(views, line, ++lineno);
	}
	if (!err && ferror(f))
		err = -EIO;
	fclose(f);
	if (err) {
		kview__views_free(views);
		return errno = -err, err;
	}
	*out = views;
	return 0;
}

const struct kview_views_view *
kview__views_find(const struct kview_views *views, unsigned int id)
{
	size_t i;

	for (i = 0; views && i < views->cnt; i++)
		if (views->views[i]->id == id)
			return views->views[i];
	errno = ENOENT;
	return NULL;
}
