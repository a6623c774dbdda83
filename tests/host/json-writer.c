// SPDX-License-Identifier: GPL-2.0
/*
 * json-writer: kview's JSON writer (userspace/json.c).  Each case is
 * compared with the exact bytes expected (on stderr, "# " lines for the
 * cases that differ): commas at every level of nesting, every control
 * character's escape, UTF-8 passed through, each byte of invalid UTF-8 as
 * U+FFFD, numbers, a length-limited string.  On stdout, one JSON line per
 * string case, {"case":NAME,"s":STRING,"cp":[CODE POINTS]}, with the code
 * points the string must decode to, written out by hand here: the test
 * script (tests/host/json-writer) decodes them with jq.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int fails, cases;

/* A writer on a memory stream, for one case. */
struct mem {
	struct json_writer w;
	FILE *f;
	char *buf;
	size_t len;
};

static struct json_writer *mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	if (!m->f) {
		perror("open_memstream");
		exit(2);
	}
	jw_init(&m->w, m->f);
	return &m->w;
}

/* Prints a byte string readably for a diagnostic. */
static void show(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			fputc(c, stderr);
		else
			fprintf(stderr, "\\x%02x", c);
	}
}

static void expect(struct mem *m, const char *what, const char *want)
{
	fclose(m->f);
	cases++;
	if (m->len != strlen(want) || memcmp(m->buf, want, m->len)) {
		fprintf(stderr, "# %s:\n#   want ", what);
		show(want, strlen(want));
		fprintf(stderr, "\n#   got  ");
		show(m->buf, m->len);
		fputc('\n', stderr);
		fails++;
	}
	free(m->buf);
}

static void nesting(void)
{
	struct mem m;
	struct json_writer *w = mem_open(&m);

	jw_begin_object(w);
	jw_key_int(w, "a", 1);
	jw_key(w, "b");
	jw_begin_array(w);
	jw_uint(w, 2);
	jw_begin_object(w);
	jw_end_object(w);
	jw_begin_array(w);
	jw_end_array(w);
	jw_begin_array(w);
	jw_begin_object(w);
	jw_key(w, "c");
	jw_null(w);
	jw_key_bool(w, "d", true);
	jw_end_object(w);
	jw_bool(w, false);
	jw_begin_array(w);
	jw_begin_array(w);
	jw_int(w, 3);
	jw_int(w, 4);
	jw_end_array(w);
	jw_end_array(w);
	jw_end_array(w);
	jw_string(w, "x");
	jw_end_array(w);
	jw_key(w, "e");
	jw_begin_object(w);
	jw_key(w, "f");
	jw_begin_object(w);
	jw_key(w, "g");
	jw_hex(w, 0x1f);
	jw_key_uint(w, "g2", 5);
	jw_end_object(w);
	jw_key_string(w, "h", "y");
	jw_end_object(w);
	jw_key_int(w, "i", -3);
	jw_end_object(w);
	expect(&m, "commas at every level",
	       "{\"a\":1,\"b\":[2,{},[],[{\"c\":null,\"d\":true},false,[[3,4]]],\"x\"],"
	       "\"e\":{\"f\":{\"g\":\"0x1f\",\"g2\":5},\"h\":\"y\"},\"i\":-3}\n");

	/* Top-level values: a line each, no commas between them. */
	w = mem_open(&m);
	jw_int(w, 1);
	jw_string(w, "a");
	jw_begin_array(w);
	jw_end_array(w);
	jw_begin_record(w, m.f, "note");
	jw_key_string(w, "message", "hi");
	jw_end_object(w);
	jw_begin_record(w, m.f, "note");
	jw_end_object(w);
	expect(&m, "one line per top-level value",
	       "1\n\"a\"\n[]\n{\"type\":\"note\",\"message\":\"hi\"}\n{\"type\":\"note\"}\n");
}

/* One string through jw_string_n(): the exact bytes written. */
static void string_case(const char *what, const char *s, size_t max, const char *want)
{
	struct mem m;

	jw_string_n(mem_open(&m), s, max);
	expect(&m, what, want);
}

/* The two-character escapes, every other control character is \u00XX. */
static const char *const short_escape[0x80] = {
	['\b'] = "\"\\b\"\n", ['\t'] = "\"\\t\"\n", ['\n'] = "\"\\n\"\n",
	['\f'] = "\"\\f\"\n", ['\r'] = "\"\\r\"\n", ['"'] = "\"\\\"\"\n",
	['\\'] = "\"\\\\\"\n",
};

static void escapes(void)
{
	char in[2] = "", want[16];
	unsigned int c;

	for (c = 1; c < 0x80; c++) {
		if (c < 0x20 || c == 0x7f)
			snprintf(want, sizeof(want), "\"\\u%04x\"\n", c);
		else
			snprintf(want, sizeof(want), "\"%c\"\n", c);
		in[0] = c;
		string_case("every ASCII character", in, SIZE_MAX,
			    short_escape[c] ? short_escape[c] : want);
	}
	string_case("control characters", "a\x01\x08\x09\x0a\x0b\x0c\x0d\x1b\x1f\x7f" "b",
		    SIZE_MAX, "\"a\\u0001\\b\\t\\n\\u000b\\f\\r\\u001b\\u001f\\u007fb\"\n");
	string_case("quotes and backslashes", "say \"\\\"", SIZE_MAX,
		    "\"say \\\"\\\\\\\"\"\n");
	string_case("empty", "", SIZE_MAX, "\"\"\n");
	string_case("at most 3 bytes", "abcdef", 3, "\"abc\"\n");
	string_case("up to the NUL", "ab\0cd", 5, "\"ab\"\n");
	string_case("a char array cut in a character", "caf\xc3\xa9", 4,
		    "\"caf\xef\xbf\xbd\"\n");
	string_case("a char array filled", "caf\xc3\xa9", 5, "\"caf\xc3\xa9\"\n");
}

/* Valid UTF-8 goes out as it is; each bad byte is U+FFFD (ef bf bd). */
#define FFFD "\xef\xbf\xbd"
static const struct {
	const char *name, *in, *out;
} utf8[] = {
	{ "e acute", "caf\xc3\xa9", NULL },
	{ "CJK", "\xe6\x97\xa5\xe6\x9c\xac", NULL },
	{ "emoji", "\xf0\x9f\x98\x80", NULL },
	{ "U+0080", "\xc2\x80", NULL },
	{ "U+07FF", "\xdf\xbf", NULL },
	{ "U+0800", "\xe0\xa0\x80", NULL },
	{ "U+D7FF", "\xed\x9f\xbf", NULL },
	{ "U+E000", "\xee\x80\x80", NULL },
	{ "U+FFFF", "\xef\xbf\xbf", NULL },
	{ "U+10000", "\xf0\x90\x80\x80", NULL },
	{ "U+10FFFF", "\xf4\x8f\xbf\xbf", NULL },
	{ "lone continuation", "a\x80" "b", "a" FFFD "b" },
	{ "latin-1", "caf\xe9", "caf" FFFD },
	{ "overlong 2", "\xc0\xaf", FFFD FFFD },
	{ "overlong 2 (c1)", "\xc1\xbf", FFFD FFFD },
	{ "overlong 3", "\xe0\x80\xaf", FFFD FFFD FFFD },
	{ "overlong 4", "\xf0\x8f\xbf\xbf", FFFD FFFD FFFD FFFD },
	{ "surrogate", "\xed\xa0\x80", FFFD FFFD FFFD },
	{ "above U+10FFFF", "\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD },
	{ "f5", "\xf5\x80\x80\x80", FFFD FFFD FFFD FFFD },
	{ "fe ff", "\xfe\xff", FFFD FFFD },
	{ "cut short at the end", "x\xe6\x97", "x" FFFD FFFD },
	{ "cut short by ASCII", "\xe6\x97y\xf0\x9f\x98z", FFFD FFFD "y" FFFD FFFD FFFD "z" },
	{ "lead then lead", "\xc3\xc3\xa9", FFFD "\xc3\xa9" },
};

static void utf8_cases(void)
{
	char want[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(utf8); i++) {
		snprintf(want, sizeof(want), "\"%s\"\n", utf8[i].out ? utf8[i].out : utf8[i].in);
		string_case(utf8[i].name, utf8[i].in, SIZE_MAX, want);
	}
}

static void numbers(void)
{
	struct mem m;
	struct json_writer *w = mem_open(&m);

	jw_begin_array(w);
	jw_int(w, INT64_MIN);
	jw_int(w, INT64_MAX);
	jw_uint(w, UINT64_MAX);
	jw_uint(w, 0);
	jw_hex(w, 0);
	jw_hex(w, 0xffff888000001000ULL);
	jw_double(w, 0.5);
	jw_double(w, 0.1);
	jw_double(w, -1e300);
	jw_double(w, 100);
	jw_double(w, NAN);
	jw_double(w, INFINITY);
	jw_double(w, -INFINITY);
	jw_end_array(w);
	expect(&m, "numbers",
	       "[-9223372036854775808,9223372036854775807,18446744073709551615,0,"
	       "\"0x0\",\"0xffff888000001000\",0.5,0.10000000000000001,-1.0000000000000001e+300,"
	       "100,\"nan\",\"inf\",\"-inf\"]\n");

	w = mem_open(&m);
	jw_begin_object(w);
	jw_key_string(w, "k\"\n\xc3\xa9\xff", "v");
	jw_end_object(w);
	expect(&m, "keys are escaped too", "{\"k\\\"\\n\xc3\xa9" FFFD "\":\"v\"}\n");
}

/*
 * For jq: what each string decodes to, as code points, written by hand.
 * The writer writes these lines itself.
 */
static const struct {
	const char *name, *in;
	unsigned int cp[40];	/* 0-terminated */
} decoded[] = {
	{ "ascii", "kview", { 'k', 'v', 'i', 'e', 'w' } },
	{ "e acute", "caf\xc3\xa9", { 'c', 'a', 'f', 0xe9 } },
	{ "CJK", "\xe6\x97\xa5\xe6\x9c\xac", { 0x65e5, 0x672c } },
	{ "emoji", "\xf0\x9f\x98\x80!", { 0x1f600, '!' } },
	{ "U+10FFFF", "\xf4\x8f\xbf\xbf", { 0x10ffff } },
	{ "controls",
	  "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10"
	  "\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f",
	  { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
	    21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 127 } },
	{ "quotes", "\"\\/", { '"', '\\', '/' } },
	{ "path", "/tmp/caf\xc3\xa9 \xe6\x97\xa5/x", { '/', 't', 'm', 'p', '/', 'c', 'a', 'f',
	  0xe9, ' ', 0x65e5, '/', 'x' } },
	{ "invalid", "a\xff" "b\xc3", { 'a', 0xfffd, 'b', 0xfffd } },
	{ "surrogate", "\xed\xa0\x80", { 0xfffd, 0xfffd, 0xfffd } },
};

static void jq_lines(void)
{
	struct json_writer w;
	size_t i, j;

	jw_init(&w, stdout);
	for (i = 0; i < ARRAY_SIZE(decoded); i++) {
		jw_begin_object(&w);
		jw_key_string(&w, "case", decoded[i].name);
		jw_key_string(&w, "s", decoded[i].in);
		jw_key(&w, "cp");
		jw_begin_array(&w);
		for (j = 0; decoded[i].cp[j]; j++)
			jw_uint(&w, decoded[i].cp[j]);
		jw_end_array(&w);
		jw_end_object(&w);
	}
}

int main(void)
{
	nesting();
	escapes();
	utf8_cases();
	numbers();
	jq_lines();
	fprintf(stderr, "# %d of %d exact case(s) failed\n", fails, cases);
	return fails ? 1 : 0;
}
