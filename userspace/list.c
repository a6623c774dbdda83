// SPDX-License-Identifier: GPL-2.0
/*
 * kview list: the kernel views, their member processes and attachments,
 * and the memory they use, from debugfs kview/views; a cgroup view's
 * cgroup found by its id under CGROUP_MOUNT.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <linux/kview.h>
#include <linux/magic.h>

#include "kview-cli.h"

static const char list_usage[] =
"Usage: kview list [-j]\n"
"\n"
"Show every kernel view: its id and flags, the processes in it, the hooks\n"
"attached in it (kind, symbol, address), its memory (probe sites, copied\n"
"text pages, page-table pages, bytes) and its out-of-scope hits: hooks\n"
"reached through its text by a task outside it, which must stay 0.  A\n"
"view on a cgroup (flag cgroup: kview exec/attach --cgroup) shows its\n"
"cgroup (path under " CGROUP_MOUNT ", id) and how many times one of its\n"
"processes was skipped, being in a pid view already.\n"
"Reads " KVIEW_VIEWS_FILE " (debugfs, root only).\n"
"\n"
"Options:\n"
"  -j, --json   JSON lines, one per view: {\"type\":\"view\",\"id\":N,...}\n"
"  -h, --help   this help\n";

static const char *flags_str(unsigned int flags)
{
	static char buf[64];
	int n;

	n = snprintf(buf, sizeof(buf), "%s%s%s%s",
		     flags & KVIEW_F_CGROUP ? "cgroup," : "",
		     flags & KVIEW_F_FILTER ? "filter," : "",
		     flags & KVIEW_F_FOLLOW_FORK ? "follow-fork," : "",
		     flags & KVIEW_F_FOLLOW_EXEC ? "follow-exec," : "");
	if (!n)
		return "-";
	buf[n - 1] = '\0';	/* the last comma */
	return buf;
}

/*
 * Find the cgroup with id @id below directory @path (of @size bytes),
 * into @path: on cgroup2 a cgroup's id is its directory's inode number,
 * which readdir() gives without a stat.  At most *@budget directories are
 * looked at.
 */
static bool cgroup_find(char *path, size_t size, unsigned long long id,
			unsigned int *budget)
{
	size_t len = strlen(path);
	bool found = false;
	struct dirent *d;
	DIR *dir;

	dir = opendir(path);
	if (!dir)
		return false;
	while (!found && *budget && (d = readdir(dir))) {
		if (d->d_type != DT_DIR || !strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		(*budget)--;
		if (snprintf(path + len, size - len, "/%s", d->d_name) >= (int)(size - len))
			continue;
		found = d->d_ino == id || cgroup_find(path, size, id, budget);
	}
	closedir(dir);
	if (!found)
		path[len] = '\0';
	return found;
}

/*
 * The path of cgroup view @v's cgroup, or NULL: not below CGROUP_MOUNT
 * (another mount namespace's, or gone), or not among its first 10000
 * cgroups.
 */
static const char *cgroup_path(const struct kview_views_view *v)
{
	static char path[PATH_MAX];
	unsigned int budget = 10000;
	struct statfs sfs;

	snprintf(path, sizeof(path), "%s", CGROUP_MOUNT);
	if (!v->cgroup_id || statfs(path, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC)
		return NULL;
	return cgroup_find(path, sizeof(path), v->cgroup_id, &budget) ? path : NULL;
}

/* -j: a cgroup view's "cgroup":{"id":N,"path":...,"skipped":N}, or null. */
static void print_json_cgroup(struct json_writer *w, const struct kview_views_view *v)
{
	const char *path;

	jw_key(w, "cgroup");
	if (!(v->flags & KVIEW_F_CGROUP)) {
		jw_null(w);
		return;
	}
	path = cgroup_path(v);
	jw_begin_object(w);
	jw_key_uint(w, "id", v->cgroup_id);
	jw_key(w, "path");
	if (path)
		jw_string(w, path);
	else
		jw_null(w);
	jw_key_uint(w, "skipped", v->nr_skipped);
	jw_end_object(w);
}

/* -j: one JSON line per view, {"type":"view","id":N,...}. */
static void print_json(const struct kview_views_view *v)
{
	struct json_writer w;
	size_t j;

	jw_begin_record(&w, stdout, "view");
	jw_key_uint(&w, "id", v->id);
	jw_key_bool(&w, "filter", v->flags & KVIEW_F_FILTER);
	jw_key_bool(&w, "follow_fork", v->flags & KVIEW_F_FOLLOW_FORK);
	jw_key_bool(&w, "follow_exec", v->flags & KVIEW_F_FOLLOW_EXEC);
	print_json_cgroup(&w, v);
	jw_key(&w, "members");
	jw_begin_array(&w);
	for (j = 0; j < v->members_cnt; j++) {
		jw_begin_object(&w);
		jw_key_int(&w, "pid", v->members[j].pid);
		jw_key_string(&w, "comm", v->members[j].comm);
		jw_end_object(&w);
	}
	jw_end_array(&w);
	jw_key(&w, "attachments");
	jw_begin_array(&w);
	for (j = 0; j < v->hooks_cnt; j++) {
		jw_begin_object(&w);
		jw_key_string(&w, "kind", v->hooks[j].kind);
		jw_key_string(&w, "symbol", v->hooks[j].name);
		jw_key(&w, "address");
		jw_hex(&w, v->hooks[j].addr);
		jw_end_object(&w);
	}
	jw_end_array(&w);
	jw_key(&w, "refused");
	jw_begin_array(&w);
	for (j = 0; j < v->refused_cnt; j++) {
		jw_begin_object(&w);
		jw_key_string(&w, "hook", v->refused[j].what);
		jw_key_uint(&w, "count", v->refused[j].count);
		jw_end_object(&w);
	}
	jw_end_array(&w);
	jw_key_uint(&w, "probe_sites", v->nr_patches);
	jw_key_uint(&w, "text_pages", v->nr_pages);
	jw_key_uint(&w, "page_table_pages", v->nr_pt_pages);
	jw_key_uint(&w, "bytes", v->bytes);
	jw_key_uint(&w, "out_of_scope", v->out_of_scope);
	jw_end_object(&w);
}

/* A cgroup view's cgroup, under its row. */
static void print_cgroup(const struct kview_views_view *v)
{
	const char *path = cgroup_path(v);

	printf("      cgroup %s (id %llu), %u skipped (in a pid view)\n",
	       path ? path : "?", v->cgroup_id, v->nr_skipped);
}

static void print_table(const struct kview_views *views)
{
	size_t i, j;

	if (!views->cnt) {
		printf("no kernel views\n");
		return;
	}
	printf("%-5s %-23s %7s %7s %6s %6s %7s %9s %7s\n", "VIEW", "FLAGS",
	       "MEMBERS", "ATTACH", "SITES", "PAGES", "TABLES", "BYTES",
	       "OUTSIDE");
	for (i = 0; i < views->cnt; i++) {
		const struct kview_views_view *v = views->views[i];

		printf("%-5u %-23s %7u %7u %6u %6u %7u %9llu %7llu\n", v->id,
		       flags_str(v->flags), v->nr_members, v->nr_attachments,
		       v->nr_patches, v->nr_pages, v->nr_pt_pages, v->bytes,
		       v->out_of_scope);
		if (v->flags & KVIEW_F_CGROUP)
			print_cgroup(v);
		for (j = 0; j < v->members_cnt; j++)
			printf("      process %d (%s)\n", v->members[j].pid,
			       v->members[j].comm);
		for (j = 0; j < v->hooks_cnt; j++)
			printf("      %s %s at 0x%llx\n", v->hooks[j].kind,
			       v->hooks[j].name, v->hooks[j].addr);
		for (j = 0; j < v->refused_cnt; j++)
			printf("      refused: %s (%u time%s)\n",
			       v->refused[j].what, v->refused[j].count,
			       v->refused[j].count == 1 ? "" : "s");
	}
}

int cmd_list(struct output *o, int argc, char **argv)
{
	struct kview_views *views;
	int a, err;
	size_t i;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-j") || !strcmp(argv[a], "--json"))
			o->json = true;
		else if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help")) {
			fputs(list_usage, stdout);
			return 0;
		} else {
			out_die(o, "list: unknown argument '%s' (see kview list --help)", argv[a]);
		}
	}
	err = kview__views_read(NULL, &views);
	if (err == -ENOENT)
		out_die(o, "%s: %s (is debugfs mounted, and the kernel built with CONFIG_KVIEW?)",
			KVIEW_VIEWS_FILE, strerror(-err));
	if (err == -EPROTO)
		out_die(o, "%s: unexpected contents (a kernel of another kview version?)",
			KVIEW_VIEWS_FILE);
	if (err)
		out_die(o, "%s: %s", KVIEW_VIEWS_FILE, strerror(-err));
	if (o->json) {
		for (i = 0; i < views->cnt; i++)
			print_json(views->views[i]);
	} else {
		print_table(views);
	}
	kview__views_free(views);
	return 0;
}
