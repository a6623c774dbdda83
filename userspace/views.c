// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs kview/views, parsed: what kview list prints and what kview exec
 * watches (the hooks a tool attached in its view).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kview-cli.h"

static int grow(void **p, size_t n, size_t size)
{
	void *q = realloc(*p, n * size);

	if (!q)
		return -ENOMEM;
	*p = q;
	return 0;
}

/*
 * One line per view, then one indented line per member process, per
 * attachment and per patch (the kernel's format, kview_views_show()):
 *   view <id> flags <hex> members <n> attachments <n> ... out_of_scope <n>
 *	pid <tgid> <comm>
 *	attach <kind> <addr> <symbol+off/size or system:event>
 *	refused <count> <kind> <name...>
 *	patch ...
 */
static int parse_line(const char *line, struct view **views, size_t *n)
{
	struct view *v = *n ? &(*views)[*n - 1] : NULL;
	int used = 0;

	if (!strncmp(line, "view ", 5)) {
		if (grow((void **)views, *n + 1, sizeof(**views)))
			return -ENOMEM;
		v = &(*views)[(*n)++];
		memset(v, 0, sizeof(*v));
		if (sscanf(line, "view %u flags %x members %u attachments %u patches %u pages %u pt_pages %u bytes %llu out_of_scope %llu",
			   &v->id, &v->flags, &v->members, &v->attachments,
			   &v->patches, &v->pages, &v->pt_pages, &v->bytes,
			   &v->out_of_scope) != 9)
			return -EPROTO;
	} else if (v && !strncmp(line, "\tpid ", 5)) {
		struct member *m;

		if (grow((void **)&v->m, v->nm + 1, sizeof(*v->m)))
			return -ENOMEM;
		m = &v->m[v->nm++];
		if (sscanf(line, "\tpid %d %n", &m->pid, &used) != 1)
			return -EPROTO;
		snprintf(m->comm, sizeof(m->comm), "%s", line + used);
	} else if (v && !strncmp(line, "\tattach ", 8)) {
		struct attachment *a;

		if (grow((void **)&v->a, v->na + 1, sizeof(*v->a)))
			return -ENOMEM;
		a = &v->a[v->na++];
		if (sscanf(line, "\tattach %15s %llx %127s", a->kind, &a->addr,
			   a->symbol) != 3)
			return -EPROTO;
	} else if (v && !strncmp(line, "\trefused ", 9)) {
		struct refusal *r;

		if (grow((void **)&v->r, v->nr + 1, sizeof(*v->r)))
			return -ENOMEM;
		r = &v->r[v->nr++];
		if (sscanf(line, "\trefused %u %n", &r->count, &used) != 1 || !line[used])
			return -EPROTO;
		snprintf(r->what, sizeof(r->what), "%s", line + used);
	}
	return 0;
}

int views_read(struct view **out, size_t *n)
{
	struct view *views = NULL;
	char line[512];
	int err = 0;
	FILE *f;

	*out = NULL;
	*n = 0;
	f = fopen(VIEWS_FILE, "r");
	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		err = parse_line(line, &views, n);
	}
	fclose(f);
	if (err) {
		views_free(views, *n);
		*n = 0;
		return err;
	}
	*out = views;
	return 0;
}

void views_free(struct view *views, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(views[i].m);
		free(views[i].a);
		free(views[i].r);
	}
	free(views);
}

struct view *view_by_id(struct view *views, size_t n, unsigned int id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (views[i].id == id)
			return &views[i];
	return NULL;
}
