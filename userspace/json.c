// SPDX-License-Identifier: GPL-2.0
/*
 * kview's one JSON writer (json.h): commas from a stack of open objects
 * and arrays, strings escaped for JSON with their UTF-8 passed through.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>

#include "json.h"

void jw_init(struct json_writer *w, FILE *out)
{
	w->out = out;
	w->depth = 0;
	w->key_written = false;
	w->is_object = 0;
	w->has_member = 0;
}

/* The bit of the innermost open object or array in the masks. */
static unsigned long long top(const struct json_writer *w)
{
	assert(w->depth > 0);
	return 1ULL << (w->depth - 1);
}

static bool in_object(const struct json_writer *w)
{
	return w->depth && (w->is_object & top(w));
}

/* A comma before every member of an object or an array but its first. */
static void member(struct json_writer *w)
{
	if (w->has_member & top(w))
		fputc(',', w->out);
	w->has_member |= top(w);
}

/* Before any value: its key's already there in an object, a comma in an array. */
static void before_value(struct json_writer *w)
{
	if (!w->depth)
		return;
	if (in_object(w)) {
		assert(w->key_written);
		w->key_written = false;
		return;
	}
	member(w);
}

/* A top-level value is a line of its own. */
static void after_value(struct json_writer *w)
{
	if (!w->depth)
		fputc('\n', w->out);
}

static void begin(struct json_writer *w, bool object)
{
	before_value(w);
	assert(w->depth < JW_MAX_DEPTH);
	w->depth++;
	if (object)
		w->is_object |= top(w);
	else
		w->is_object &= ~top(w);
	w->has_member &= ~top(w);
	fputc(object ? '{' : '[', w->out);
}

static void end(struct json_writer *w, bool object)
{
	assert(in_object(w) == object && !w->key_written);
	w->depth--;
	fputc(object ? '}' : ']', w->out);
	after_value(w);
}

void jw_begin_object(struct json_writer *w)
{
	begin(w, true);
}

void jw_end_object(struct json_writer *w)
{
	end(w, true);
}

void jw_begin_array(struct json_writer *w)
{
	begin(w, false);
}

void jw_end_array(struct json_writer *w)
{
	end(w, false);
}

/*
 * The length of the UTF-8 sequence that starts at @s, within @n bytes, if
 * it is valid (RFC 3629: no overlong form, no surrogate, nothing above
 * U+10FFFF), else 0.  A NUL ends the string: it is never a continuation
 * byte, so nothing is read past it.
 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;	/* ASCII, a continuation byte, or never in UTF-8 */
	if (len > n)
		return 0;
	/* The second byte's range is narrower after these lead bytes. */
	if (s[0] == 0xe0)
		lo = 0xa0;	/* overlong below U+0800 */
	else if (s[0] == 0xed)
		hi = 0x9f;	/* surrogates U+D800..U+DFFF */
	else if (s[0] == 0xf0)
		lo = 0x90;	/* overlong below U+10000 */
	else if (s[0] == 0xf4)
		hi = 0x8f;	/* above U+10FFFF */
	for (i = 1; i < len; i++) {
		if (s[i] < lo || s[i] > hi)
			return 0;
		lo = 0x80;
		hi = 0xbf;
	}
	return len;
}

/*
 * "@s", at most @max bytes of it, up to a NUL.  Valid UTF-8 goes out as it
 * is.  A byte that does not start a valid UTF-8 sequence (a stray
 * continuation byte, a sequence cut short, by @max too, an overlong form,
 * a surrogate, 0xc0, 0xc1, 0xf5..0xff) is replaced with U+FFFD, one for
 * each such byte, so that whatever the bytes the line is valid JSON (a
 * comm the kernel cut in the middle of a character ends in U+FFFD).
 */
static void put_string(FILE *out, const char *str, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, len;

	fputc('"', out);
	while (i < max && s[i]) {
		unsigned char c = s[i];

		if (c >= 0x80) {
			len = utf8_len(s + i, max - i);
			if (len)
				fwrite(s + i, 1, len, out);
			else
				fputs("\xef\xbf\xbd", out);	/* U+FFFD */
			i += len ? len : 1;
			continue;
		}
		i++;
		switch (c) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		case '\b':
			fputs("\\b", out);
			break;
		case '\f':
			fputs("\\f", out);
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(out, "\\u%04x", c);
			else
				fputc(c, out);
		}
	}
	fputc('"', out);
}

void jw_key(struct json_writer *w, const char *key)
{
	assert(in_object(w) && !w->key_written);
	member(w);
	put_string(w->out, key, SIZE_MAX);
	fputc(':', w->out);
	w->key_written = true;
}

void jw_string_n(struct json_writer *w, const char *s, size_t max)
{
	before_value(w);
	put_string(w->out, s, max);
	after_value(w);
}

void jw_string(struct json_writer *w, const char *s)
{
	jw_string_n(w, s, SIZE_MAX);
}

void jw_int(struct json_writer *w, long long v)
{
	before_value(w);
	fprintf(w->out, "%lld", v);
	after_value(w);
}

void jw_uint(struct json_writer *w, unsigned long long v)
{
	before_value(w);
	fprintf(w->out, "%llu", v);
	after_value(w);
}

void jw_hex(struct json_writer *w, unsigned long long v)
{
	before_value(w);
	fprintf(w->out, "\"0x%llx\"", v);
	after_value(w);
}

void jw_double(struct json_writer *w, double v)
{
	char buf[16];

	if (!isfinite(v)) {
		snprintf(buf, sizeof(buf), "%g", v);	/* nan, -nan, inf, -inf */
		jw_string(w, buf);
		return;
	}
	before_value(w);
	fprintf(w->out, "%.17g", v);
	after_value(w);
}

void jw_bool(struct json_writer *w, bool v)
{
	before_value(w);
	fputs(v ? "true" : "false", w->out);
	after_value(w);
}

void jw_null(struct json_writer *w)
{
	before_value(w);
	fputs("null", w->out);
	after_value(w);
}

void jw_key_string(struct json_writer *w, const char *key, const char *s)
{
	jw_key(w, key);
	jw_string(w, s);
}

void jw_key_int(struct json_writer *w, const char *key, long long v)
{
	jw_key(w, key);
	jw_int(w, v);
}

void jw_key_uint(struct json_writer *w, const char *key, unsigned long long v)
{
	jw_key(w, key);
	jw_uint(w, v);
}

void jw_key_bool(struct json_writer *w, const char *key, bool v)
{
	jw_key(w, key);
	jw_bool(w, v);
}

void jw_begin_record(struct json_writer *w, FILE *out, const char *type)
{
	jw_init(w, out);
	jw_begin_object(w);
	jw_key_string(w, "type", type);
}
