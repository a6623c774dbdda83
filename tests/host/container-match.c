// SPDX-License-Identifier: GPL-2.0
/*
 * container-match: what --container reads, without a runtime.  kview's
 * JSON reader (userspace/json-read.c) on valid JSON of every shape (crun's
 * and runc's list and state output among it) and on every kind of bad
 * input, each refusal with its byte offset; then --container's pieces
 * (userspace/container.c): an id matched exactly or by a unique prefix,
 * an ambiguous prefix with its candidates, a state's init pid by status,
 * and a /proc/PID/cgroup's cgroup v2 directory.  "# " lines on stderr for
 * the cases that fail; exit 1 if one did.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "container.h"
#include "kview-cli.h"

/*
 * container.c is linked as the CLI links it, with the output layer
 * (output.c); of the rest of the CLI it uses describe_status() (command.c),
 * which its pure parts never call.
 */
const char *describe_status(int status)
{
	(void)status;
	return "?";
}

static int fails, cases;

static void check(bool ok, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void check(bool ok, const char *what, const char *fmt, ...)
{
	va_list ap;

	cases++;
	if (ok)
		return;
	fails++;
	fprintf(stderr, "# %s: ", what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static struct jr_value *parse_ok(const char *what, const char *text)
{
	struct jr_value *v;
	char why[256];

	if (jr_parse(text, strlen(text), &v, why, sizeof(why))) {
		check(false, what, "refused: %s", why);
		return NULL;
	}
	cases++;
	return v;
}

/* @text must be refused with @want. */
static void parse_bad(const char *text, size_t len, const char *want)
{
	struct jr_value *v = (void *)1;
	char why[256] = "";

	if (!jr_parse(text, len, &v, why, sizeof(why))) {
		check(false, want, "taken: '%.*s'", (int)len, text);
		jr_free(v);
		return;
	}
	check(!v && !strcmp(why, want), want, "'%.*s': got '%s'", (int)len, text, why);
}

static void shapes(void)
{
	const char *text = " {\"a\": [1, -2.5e3, true, false, null, \"x\\u00e9\\ud83d\\ude00\\n\\t\\\"\\\\\\/\"],"
			   "\n\t\"b\": {}, \"c\": [], \"a\": 0, \"n\": -0, \"big\": 9223372036854775807,"
			   " \"over\": 9223372036854775808, \"e\": 1E+2, \"s\": \"\"} \r\n";
	const struct jr_value *a, *m;
	struct jr_value *v = parse_ok("shapes", text);
	long long n;

	if (!v)
		return;
	a = jr_member(v, "a");
	check(v->type == JR_OBJECT && v->n == 9, "shapes", "not an object of 9 members");
	check(a && a->type == JR_ARRAY && a->n == 6, "shapes", "a: not the first 'a', an array of 6");
	if (a && a->type == JR_ARRAY && a->n == 6) {
		check(jr_int(&a->items[0], &n) && n == 1, "shapes", "a[0] is not 1");
		check(a->items[1].type == JR_NUMBER && !strcmp(a->items[1].str, "-2.5e3") &&
		      !jr_int(&a->items[1], &n), "shapes", "a[1]: not the number -2.5e3, not an integer");
		check(a->items[2].type == JR_TRUE && a->items[3].type == JR_FALSE &&
		      a->items[4].type == JR_NULL, "shapes", "a[2..4]: not true, false, null");
		check(!strcmp(jr_string(&a->items[5]) ?: "", "x\xc3\xa9\xf0\x9f\x98\x80\n\t\"\\/"),
		      "shapes", "a[5]: escapes not decoded to UTF-8: '%s'", jr_string(&a->items[5]));
		check(!jr_string(&a->items[0]), "shapes", "a number taken as a string");
	}
	m = jr_member(v, "b");
	check(m && m->type == JR_OBJECT && m->n == 0, "shapes", "b: not an empty object");
	m = jr_member(v, "c");
	check(m && m->type == JR_ARRAY && m->n == 0, "shapes", "c: not an empty array");
	check(jr_int(jr_member(v, "n"), &n) && n == 0, "shapes", "-0 is not the integer 0");
	check(jr_int(jr_member(v, "big"), &n) && n == 9223372036854775807LL, "shapes", "big: not LLONG_MAX");
	check(!jr_int(jr_member(v, "over"), &n), "shapes", "over: an integer beyond long long");
	check(!jr_int(jr_member(v, "e"), &n), "shapes", "1E+2 taken as an integer");
	check(!strcmp(jr_string(jr_member(v, "s")) ?: "?", ""), "shapes", "s: not the empty string");
	check(!jr_member(v, "zz") && !jr_member(a, "a") && !jr_member(NULL, "a"), "shapes",
	      "a member found where there is none");
	check(!strcmp(jr_type_name(v), "an object") && !strcmp(jr_type_name(NULL), "nothing"),
	      "shapes", "type names");
	jr_free(v);

	v = parse_ok("a bare string", "\"abc\"");
	check(v && !strcmp(jr_string(v) ?: "", "abc"), "a bare string", "not 'abc'");
	jr_free(v);
	v = parse_ok("a bare null", "null");
	check(v && v->type == JR_NULL, "a bare null", "not null");
	jr_free(v);
}

static void refusals(void)
{
	char deep[2 * JR_MAX_DEPTH + 3];
	struct jr_value *v;
	int i;

	parse_bad("", 0, "at byte 0: expected a value, found the end");
	parse_bad(" \n", 2, "at byte 2: expected a value, found the end");
	parse_bad("[1,]", 4, "at byte 3: expected a value");
	parse_bad("[1 2]", 5, "at byte 3: expected ',' or ']' in an array");
	parse_bad("[1, 2", 5, "at byte 0: an array without its closing ']'");
	parse_bad("{\"a\" 1}", 7, "at byte 5: expected ':' after a member's name");
	parse_bad("{a: 1}", 6, "at byte 1: expected a member's name (a string) in an object");
	parse_bad("{\"a\": 1,}", 9, "at byte 8: expected a member's name (a string) in an object");
	parse_bad("{\"a\": 1", 7, "at byte 0: an object without its closing '}'");
	parse_bad("01", 2, "at byte 0: a number with a leading zero");
	parse_bad("-", 1, "at byte 0: a number without digits");
	parse_bad("-a", 2, "at byte 0: a number without digits");
	parse_bad("1.", 2, "at byte 0: a number without digits after its decimal point");
	parse_bad("1e+", 3, "at byte 0: a number without digits in its exponent");
	parse_bad("+1", 2, "at byte 0: expected a value");
	parse_bad(".5", 2, "at byte 0: expected a value");
	parse_bad("\"abc", 4, "at byte 0: a string without its closing quote");
	parse_bad("\"a\x01\"", 4, "at byte 2: a control character (0x01) in a string: JSON wants it escaped");
	parse_bad("\"a\nb\"", 5, "at byte 2: a control character (0x0a) in a string: JSON wants it escaped");
	parse_bad("\"a\\x\"", 5, "at byte 2: a bad escape in a string");
	parse_bad("\"a\\", 3, "at byte 2: a bad escape in a string");
	parse_bad("\"\\u12\"", 6, "at byte 5: a \\u escape wants four hex digits");
	parse_bad("\"\\u12g4\"", 8, "at byte 5: a \\u escape wants four hex digits");
	parse_bad("\"\\ud800\"", 8, "at byte 1: a high surrogate (\\ud800) without a low one after it");
	parse_bad("\"\\ud800\\u0041\"", 14, "at byte 1: a high surrogate (\\ud800) without a low one after it");
	parse_bad("\"\\udc00\"", 8, "at byte 1: a low surrogate (\\udc00) without a high one before it");
	parse_bad("\"a\\u0000b\"", 10, "at byte 2: \\u0000 in a string (not taken: kview's strings end at a NUL)");
	parse_bad("tru", 3, "at byte 0: expected a value (not a JSON word)");
	parse_bad("nul", 3, "at byte 0: expected a value (not a JSON word)");
	parse_bad("True", 4, "at byte 0: expected a value");
	parse_bad("'a'", 3, "at byte 0: expected a value");
	parse_bad("[1] x", 5, "at byte 4: more after the JSON value");
	parse_bad("[1]\0", 4, "at byte 3: more after the JSON value");
	parse_bad("{} {}", 5, "at byte 3: more after the JSON value");
	parse_bad("// c\n1", 6, "at byte 0: expected a value");

	/* JR_MAX_DEPTH levels are taken, one more is not. */
	for (i = 0; i < JR_MAX_DEPTH; i++) {
		deep[i] = '[';
		deep[JR_MAX_DEPTH + i] = ']';
	}
	deep[2 * JR_MAX_DEPTH] = '\0';
	v = parse_ok("64 levels", deep);
	jr_free(v);
	memmove(deep + 1, deep, 2 * JR_MAX_DEPTH);
	deep[2 * JR_MAX_DEPTH + 1] = ']';
	deep[2 * JR_MAX_DEPTH + 2] = '\0';
	parse_bad(deep, strlen(deep), "at byte 64: more than 64 nested arrays and objects");
}

/* What crun 1.8.1 prints (yajl, beautified), and runc's single lines. */
static const char crun_list[] =
	"[\n"
	"    {\n"
	"        \"id\": \"web\",\n"
	"        \"pid\": 812,\n"
	"        \"status\": \"running\",\n"
	"        \"bundle\": \"/b/web\",\n"
	"        \"created\": \"2026-11-27T12:00:00.123456789Z\",\n"
	"        \"owner\": \"root\"\n"
	"    },\n"
	"    {\n        \"id\": \"web-1\",\n        \"pid\": 813,\n        \"status\": \"running\"\n    },\n"
	"    {\n        \"id\": \"web-2\",\n        \"pid\": 0,\n        \"status\": \"stopped\"\n    },\n"
	"    {\n        \"id\": \"db-9f8e\",\n        \"pid\": 820,\n        \"status\": \"paused\"\n    }\n"
	"]\n";
static const char runc_list[] =
	"[{\"ociVersion\":\"1.0.2-dev\",\"id\":\"3f2a\",\"pid\":4242,\"status\":\"running\","
	"\"bundle\":\"/run/containerd/io.containerd.runtime.v2.task/moby/3f2a\","
	"\"rootfs\":\"/var/lib/docker/overlay2/x/merged\",\"created\":\"2026-11-27T12:00:00Z\","
	"\"annotations\":{\"io.kubernetes.cri.container-type\":\"container\"},\"owner\":\"root\"}]\n";

static void match(const char *list_text, const char *name, const char *want_id, const char *want_why)
{
	struct jr_value *list = parse_ok(name, list_text);
	const char *id;
	char why[512] = "", what[128];

	if (!list)
		return;
	snprintf(what, sizeof(what), "match '%s'", name);
	if (container_match(list, name, "crun", &id, why, sizeof(why)))
		check(want_why && !strcmp(why, want_why), what, "refused: %s", why);
	else
		check(want_id && !strcmp(id, want_id), what, "matched %s, not %s", id,
		      want_id ?: "nothing");
	jr_free(list);
}

static void matching(void)
{
	char many[2048], name[32];
	int i, at;

	match(crun_list, "web", "web", NULL);
	match(crun_list, "web-1", "web-1", NULL);
	match(crun_list, "db", "db-9f8e", NULL);
	match(crun_list, "web-2", "web-2", NULL);
	match(crun_list, "web-", NULL,
	      "container id prefix 'web-' is ambiguous, 2 of crun's containers begin with it: web-1, web-2");
	match(crun_list, "we", NULL,
	      "container id prefix 'we' is ambiguous, 3 of crun's containers begin with it: web, web-1, web-2");
	match(crun_list, "nope", NULL,
	      "no container 'nope': none of the 4 container(s) crun lists has that id or one beginning with it");
	match(crun_list, "web-10", NULL,
	      "no container 'web-10': none of the 4 container(s) crun lists has that id or one beginning with it");
	match(runc_list, "3f", "3f2a", NULL);
	match("null", "x", NULL, "no container 'x': crun lists no container at all");
	match("[\n\n]", "x", NULL, "no container 'x': crun lists no container at all");
	match("{\"id\": \"x\"}", "x", NULL, "crun list --format json: not a list of containers (an object)");
	match("[{\"id\": \"a\"}, {\"id\": 7}]", "b", NULL,
	      "crun list --format json: container 2 of the list has no id");
	match("[{\"id\": \"a\"}, 3]", "b", NULL,
	      "crun list --format json: container 2 of the list has no id");

	/* More candidates than a message names. */
	at = snprintf(many, sizeof(many), "[");
	for (i = 0; i < 12; i++)
		at += snprintf(many + at, sizeof(many) - at, "%s{\"id\": \"c%02d\"}", i ? ", " : "", i);
	snprintf(many + at, sizeof(many) - at, "]");
	match(many, "c", NULL, "container id prefix 'c' is ambiguous, 12 of crun's containers begin with it: "
	      "c00, c01, c02, c03, c04, c05, c06, c07, ...");
	snprintf(name, sizeof(name), "c11");
	match(many, name, "c11", NULL);
}

static void state(const char *text, const char *id, pid_t want_pid, const char *want_why)
{
	struct jr_value *v = parse_ok(text, text);
	char why[512] = "", what[128];
	pid_t pid = 0;

	if (!v)
		return;
	snprintf(what, sizeof(what), "state of %s", id);
	if (container_pid(v, id, "crun", &pid, why, sizeof(why)))
		check(want_why && !strcmp(why, want_why), what, "refused: %s", why);
	else
		check(!want_why && pid == want_pid, what, "pid %d, not %d", pid, want_pid);
	jr_free(v);
}

static void states(void)
{
	state("{\n\t\"ociVersion\": \"1.0.0\",\n\t\"id\": \"a\",\n\t\"pid\": 812,\n\t\"status\": \"running\",\n"
	      "\t\"bundle\": \"/b/a\",\n\t\"rootfs\": \"/b/a/rootfs\",\n\t\"created\": \"2026-11-27T12:00:00Z\",\n"
	      "\t\"owner\": \"root\"\n}\n", "a", 812, NULL);
	state("{\"id\": \"a\", \"pid\": 9, \"status\": \"paused\"}", "a", 9, NULL);
	state("{\"id\": \"a\", \"pid\": 9, \"status\": \"created\"}", "a", 9, NULL);
	state("{\"pid\": 9, \"status\": \"running\"}", "a", 9, NULL);
	state("{\"id\": \"a\", \"pid\": 0, \"status\": \"stopped\"}", "a", 0,
	      "container a is stopped: it has no process to trace (crun state a)");
	state("{\"id\": \"a\", \"pid\": 9, \"status\": \"creating\"}", "a", 0,
	      "container a is not running: crun state a says 'creating'");
	state("{\"id\": \"a\", \"pid\": 0, \"status\": \"running\"}", "a", 0,
	      "container a is running but crun state a gives no init pid");
	state("{\"id\": \"a\", \"pid\": \"9\", \"status\": \"running\"}", "a", 0,
	      "container a is running but crun state a gives no init pid");
	state("{\"id\": \"a\", \"pid\": 9.5, \"status\": \"running\"}", "a", 0,
	      "container a is running but crun state a gives no init pid");
	state("{\"id\": \"a\", \"pid\": 4294967297, \"status\": \"running\"}", "a", 0,
	      "container a is running but crun state a gives no init pid");
	state("{\"id\": \"b\", \"pid\": 9, \"status\": \"running\"}", "a", 0,
	      "crun state a: the state of another container, 'b'");
	state("{\"id\": \"a\", \"pid\": 9}", "a", 0,
	      "crun state a: not a container's state (an object without a status)");
	state("[]", "a", 0, "crun state a: not a container's state (an array)");
}

static void cgroup_line(const char *text, const char *want, const char *want_why)
{
	char why[512] = "", *path;

	if (cgroup_v2_path(text, "/sys/fs/cgroup", &path, why, sizeof(why)))
		check(want_why && !strcmp(why, want_why), text, "refused: %s", why);
	else
		check(want && !strcmp(path, want), text, "%s, not %s", path, want ?: "a refusal");
	free(path);
}

static void cgroup_lines(void)
{
	cgroup_line("0::/kview-ctr/a\n", "/sys/fs/cgroup/kview-ctr/a", NULL);
	cgroup_line("0::/system.slice/docker-3f2a.scope", "/sys/fs/cgroup/system.slice/docker-3f2a.scope", NULL);
	cgroup_line("12:pids:/x\n1:name=systemd:/user.slice\n0::/user.slice/a.scope\n",
		    "/sys/fs/cgroup/user.slice/a.scope", NULL);
	cgroup_line("0::/a:b..c\n", "/sys/fs/cgroup/a:b..c", NULL);
	cgroup_line("0::/\n", "/sys/fs/cgroup", NULL);
	cgroup_line("4:memory:/x\n1:cpu:/\n", NULL,
		    "no cgroup v2 line (0::) in its /proc/PID/cgroup: cgroup v1 only?");
	cgroup_line("", NULL, "no cgroup v2 line (0::) in its /proc/PID/cgroup: cgroup v1 only?");
	cgroup_line("10::/x\n", NULL, "no cgroup v2 line (0::) in its /proc/PID/cgroup: cgroup v1 only?");
	cgroup_line("0::/kview-ctr/a (deleted)\n", NULL, "its cgroup /kview-ctr/a was removed");
	cgroup_line("0::/../../system.slice/x\n", NULL,
		    "its cgroup (/../../system.slice/x) is outside kview's cgroup namespace");
	cgroup_line("0::/a/../b\n", NULL, "its cgroup (/a/../b) is outside kview's cgroup namespace");
	cgroup_line("0::/a/..\n", NULL, "its cgroup (/a/..) is outside kview's cgroup namespace");
	cgroup_line("0::a\n", NULL, "its cgroup (a) is outside kview's cgroup namespace");
}

int main(void)
{
	shapes();
	refusals();
	matching();
	states();
	cgroup_lines();
	printf("# %d case(s), %d failed\n", cases, fails);
	return fails ? 1 : 0;
}
