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
"  -j, --json   JSON output\n"
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

static void print_json(struct view *views, size_t n)
{
	size_t i, j;

	printf("[");
	for (i = 0; i < n; i++) {
		struct view *v = &views[i];

		printf("%s{\"id\":%u,\"filter\":%s,\"follow_fork\":%s,\"follow_exec\":%s,\"members\":[",
		       i ? "," : "", v->id,
		       v->flags & KVIEW_F_FILTER ? "true" : "false",
		       v->flags & KVIEW_F_FOLLOW_FORK ? "true" : "false",
		       v->flags & KVIEW_F_FOLLOW_EXEC ? "true" : "false");
		for (j = 0; j < v->nm; j++) {
			printf("%s{\"pid\":%d,\"comm\":", j ? "," : "", v->m[j].pid);
			json_string(stdout, v->m[j].comm);
			printf("}");
		}
		printf("],\"attachments\":[");
		for (j = 0; j < v->na; j++) {
			printf("%s{\"kind\":", j ? "," : "");
			json_string(stdout, v->a[j].kind);
			printf(",\"symbol\":");
			json_string(stdout, v->a[j].symbol);
			printf(",\"address\":\"0x%llx\"}", v->a[j].addr);
		}
		printf("],\"refused\":[");
		for (j = 0; j < v->nr; j++) {
			printf("%s{\"hook\":", j ? "," : "");
			json_string(stdout, v->r[j].what);
			printf(",\"count\":%u}", v->r[j].count);
		}
		printf("],\"probe_sites\":%u,\"text_pages\":%u,\"page_table_pages\":%u,\"bytes\":%llu,\"out_of_scope\":%llu}",
		       v->patches, v->pages, v->pt_pages, v->bytes,
		       v->out_of_scope);
	}
	printf("]\n");
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
	size_t n;

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
	if (json_output)
		print_json(views, n);
	else
		print_table(views, n);
	views_free(views, n);
	return 0;
}
