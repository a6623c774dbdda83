// SPDX-License-Identifier: GPL-2.0
/*
 * kview list: the kernel views, their member processes and attachments,
 * and the memory they use, from debugfs kview/views.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kview.h>

#include "kview-cli.h"

static const char list_usage[] =
"Usage: kview list [-j]\n"
"\n"
"Show every kernel view: its id and flags, the processes in it, the hooks\n"
"attached in it (kind, symbol, address), its memory (probe sites, copied\n"
"text pages, page-table pages, bytes) and its out-of-scope hits: hooks\n"
"reached through its text by a task outside it, which must stay 0.\n"
"Reads " VIEWS_FILE " (debugfs, root only).\n"
"\n"
"Options:\n"
"  -j, --json   JSON lines, one per view: {\"type\":\"view\",\"id\":N,...}\n"
"  -h, --help   this help\n";

static const char *flags_str(unsigned int flags)
{
	static char buf[64];
	int n;

	n = snprintf(buf, sizeof(buf), "%s%s%s",
		     flags & KVIEW_F_FILTER ? "filter," : "",
		     flags & KVIEW_F_FOLLOW_FORK ? "follow-fork," : "",
		     flags & KVIEW_F_FOLLOW_EXEC ? "follow-exec," : "");
	if (!n)
		return "-";
	buf[n - 1] = '\0';	/* the last comma */
	return buf;
}

/* -j: one JSON line per view, {"type":"view","id":N,...}. */
static void print_json(const struct view *v)
{
	struct json_writer w;
	size_t j;

	jw_begin_record(&w, stdout, "view");
	jw_key_uint(&w, "id", v->id);
	jw_key_bool(&w, "filter", v->flags & KVIEW_F_FILTER);
	jw_key_bool(&w, "follow_fork", v->flags & KVIEW_F_FOLLOW_FORK);
	jw_key_bool(&w, "follow_exec", v->flags & KVIEW_F_FOLLOW_EXEC);
	jw_key(&w, "members");
	jw_begin_array(&w);
	for (j = 0; j < v->nm; j++) {
		jw_begin_object(&w);
		jw_key_int(&w, "pid", v->m[j].pid);
		jw_key_string(&w, "comm", v->m[j].comm);
		jw_end_object(&w);
	}
	jw_end_array(&w);
	jw_key(&w, "attachments");
	jw_begin_array(&w);
	for (j = 0; j < v->na; j++) {
		jw_begin_object(&w);
		jw_key_string(&w, "kind", v->a[j].kind);
		jw_key_string(&w, "symbol", v->a[j].symbol);
		jw_key(&w, "address");
		jw_hex(&w, v->a[j].addr);
		jw_end_object(&w);
	}
	jw_end_array(&w);
	jw_key(&w, "refused");
	jw_begin_array(&w);
	for (j = 0; j < v->nr; j++) {
		jw_begin_object(&w);
		jw_key_string(&w, "hook", v->r[j].what);
		jw_key_uint(&w, "count", v->r[j].count);
		jw_end_object(&w);
	}
	jw_end_array(&w);
	jw_key_uint(&w, "probe_sites", v->patches);
	jw_key_uint(&w, "text_pages", v->pages);
	jw_key_uint(&w, "page_table_pages", v->pt_pages);
	jw_key_uint(&w, "bytes", v->bytes);
	jw_key_uint(&w, "out_of_scope", v->out_of_scope);
	jw_end_object(&w);
}

static void print_table(struct view *views, size_t n)
{
	size_t i, j;

	if (!n) {
		printf("no kernel views\n");
		return;
	}
	printf("%-5s %-23s %7s %7s %6s %6s %7s %9s %7s\n", "VIEW", "FLAGS",
	       "MEMBERS", "ATTACH", "SITES", "PAGES", "TABLES", "BYTES",
	       "OUTSIDE");
	for (i = 0; i < n; i++) {
		struct view *v = &views[i];

		printf("%-5u %-23s %7u %7u %6u %6u %7u %9llu %7llu\n", v->id,
		       flags_str(v->flags), v->members, v->attachments,
		       v->patches, v->pages, v->pt_pages, v->bytes,
		       v->out_of_scope);
		for (j = 0; j < v->nm; j++)
			printf("      process %d (%s)\n", v->m[j].pid, v->m[j].comm);
		for (j = 0; j < v->na; j++)
			printf("      %s %s at 0x%llx\n", v->a[j].kind,
			       v->a[j].symbol, v->a[j].addr);
		for (j = 0; j < v->nr; j++)
			printf("      refused: %s (%u time%s)\n", v->r[j].what,
			       v->r[j].count, v->r[j].count == 1 ? "" : "s");
	}
}

int cmd_list(int argc, char **argv)
{
	struct view *views;
	int a, err;
	size_t i, n;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-j") || !strcmp(argv[a], "--json"))
			json_output = true;
		else if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help")) {
			fputs(list_usage, stdout);
			return 0;
		} else {
			die("list: unknown argument '%s' (see kview list --help)", argv[a]);
		}
	}
	err = views_read(&views, &n);
	if (err == -ENOENT)
		die("%s: %s (is debugfs mounted, and the kernel built with CONFIG_KVIEW?)",
		    VIEWS_FILE, strerror(-err));
	if (err == -EPROTO)
		die("%s: unexpected contents (a kernel of another kview version?)", VIEWS_FILE);
	if (err)
		die("%s: %s", VIEWS_FILE, strerror(-err));
	if (json_output) {
		for (i = 0; i < n; i++)
			print_json(&views[i]);
	} else {
		print_table(views, n);
	}
	views_free(views, n);
	return 0;
}
