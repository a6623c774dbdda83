// SPDX-License-Identifier: GPL-2.0
/*
 * kview's JSON reader (json-read.h): a recursive descent parser of one
 * JSON text into a tree.  Every allocation is hung on the tree as soon as
 * it is made (an array's or object's count includes the element being
 * parsed, zeroed first), so that a failure anywhere frees the whole tree
 * with jr_free().
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-read.h"

struct parser {
	const char *start, *p, *end;
	char *why;
	size_t whysz;
};

static int fail_at(struct parser *ps, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "at byte N: what", in the caller's buffer; -1. */
static int fail_at(struct parser *ps, const char *at, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(ps->why, ps->whysz, "at byte %zu: ", (size_t)(at - ps->start));
	if (n >= 0 && (size_t)n < ps->whysz) {
		va_start(ap, fmt);
		vsnprintf(ps->why + n, ps->whysz - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int out_of_memory(struct parser *ps)
{
	fail_at(ps, ps->p, "out of memory");
	errno = ENOMEM;
	return -1;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static void skip_space(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
				   *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

/* A growing string: the decoded bytes of a JSON string. */
struct buf {
	char *s;
	size_t len, cap;
};

static bool buf_add(struct buf *b, const char *bytes, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 16;
		char *s;

		while (b->len + n + 1 > cap)
			cap *= 2;
		s = realloc(b->s, cap);
		if (!s)
			return false;
		b->s = s;
		b->cap = cap;
	}
	memcpy(b->s + b->len, bytes, n);
	b->len += n;
	b->s[b->len] = '\0';
	return true;
}

/* Code point @cp (not a surrogate, at most 0x10ffff) as UTF-8. */
static bool buf_add_utf8(struct buf *b, unsigned int cp)
{
	char u[4];

	if (cp < 0x80) {
		u[0] = cp;
		return buf_add(b, u, 1);
	}
	if (cp < 0x800) {
		u[0] = 0xc0 | cp >> 6;
		u[1] = 0x80 | (cp & 0x3f);
		return buf_add(b, u, 2);
	}
	if (cp < 0x10000) {
		u[0] = 0xe0 | cp >> 12;
		u[1] = 0x80 | (cp >> 6 & 0x3f);
		u[2] = 0x80 | (cp & 0x3f);
		return buf_add(b, u, 3);
	}
	u[0] = 0xf0 | cp >> 18;
	u[1] = 0x80 | (cp >> 12 & 0x3f);
	u[2] = 0x80 | (cp >> 6 & 0x3f);
	u[3] = 0x80 | (cp & 0x3f);
	return buf_add(b, u, 4);
}

/* The four hex digits of a \u escape at ps->p, which moves past them. */
static int hex4(struct parser *ps, unsigned int *cp)
{
	int i;

	*cp = 0;
	for (i = 0; i < 4; i++, ps->p++) {
		char c = ps->p < ps->end ? *ps->p : '\0';

		*cp <<= 4;
		if (is_digit(c))
			*cp |= c - '0';
		else if (c >= 'a' && c <= 'f')
			*cp |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			*cp |= c - 'A' + 10;
		else
			return fail_at(ps, ps->p, "a \\u escape wants four hex digits");
	}
	return 0;
}

/* After "\u": one code point, a surrogate pair's two escapes at once. */
static int unicode_escape(struct parser *ps, const char *esc, unsigned int *cp)
{
	unsigned int lo;

	if (hex4(ps, cp))
		return -1;
	if (*cp >= 0xdc00 && *cp < 0xe000)
		return fail_at(ps, esc, "a low surrogate (\\u%04x) without a high one before it", *cp);
	if (*cp >= 0xd800 && *cp < 0xdc00) {
		if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u')
			return fail_at(ps, esc, "a high surrogate (\\u%04x) without a low one after it", *cp);
		ps->p += 2;
		if (hex4(ps, &lo))
			return -1;
		if (lo < 0xdc00 || lo >= 0xe000)
			return fail_at(ps, esc, "a high surrogate (\\u%04x) without a low one after it", *cp);
		*cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (*cp == 0)
		return fail_at(ps, esc, "\\u0000 in a string (not taken: kview's strings end at a NUL)");
	return 0;
}

/* The string at ps->p (its opening quote), decoded into *@out. */
static int parse_string(struct parser *ps, char **out)
{
	const char *open = ps->p++, *esc;
	struct buf b = { 0 };
	unsigned int cp;
	char c;

	if (!buf_add(&b, "", 0))
		return out_of_memory(ps);
	*out = b.s;
	for (;;) {
		if (ps->p >= ps->end)
			return fail_at(ps, open, "a string without its closing quote");
		c = *ps->p;
		if (c == '"')
			break;
		if ((unsigned char)c < 0x20)
			return fail_at(ps, ps->p, "a control character (0x%02x) in a string: JSON wants it escaped",
				       (unsigned char)c);
		if (c != '\\') {
			if (!buf_add(&b, ps->p++, 1))
				return out_of_memory(ps);
			*out = b.s;
			continue;
		}
		esc = ps->p++;
		c = ps->p < ps->end ? *ps->p++ : '\0';
		switch (c) {
		case '"': case '\\': case '/': cp = c; break;
		case 'b': cp = '\b'; break;
		case 'f': cp = '\f'; break;
		case 'n': cp = '\n'; break;
		case 'r': cp = '\r'; break;
		case 't': cp = '\t'; break;
		case 'u':
			if (unicode_escape(ps, esc, &cp))
				return -1;
			break;
		default:
			return fail_at(ps, esc, "a bad escape in a string");
		}
		if (!buf_add_utf8(&b, cp))
			return out_of_memory(ps);
		*out = b.s;
	}
	ps->p++;
	return 0;
}

static int parse_number(struct parser *ps, struct jr_value *v)
{
	const char *s = ps->p;

	if (ps->p < ps->end && *ps->p == '-')
		ps->p++;
	if (ps->p >= ps->end || !is_digit(*ps->p))
		return fail_at(ps, s, "a number without digits");
	if (*ps->p == '0') {
		ps->p++;
		if (ps->p < ps->end && is_digit(*ps->p))
			return fail_at(ps, s, "a number with a leading zero");
	}
	while (ps->p < ps->end && is_digit(*ps->p))
		ps->p++;
	if (ps->p < ps->end && *ps->p == '.') {
		ps->p++;
		if (ps->p >= ps->end || !is_digit(*ps->p))
			return fail_at(ps, s, "a number without digits after its decimal point");
		while (ps->p < ps->end && is_digit(*ps->p))
			ps->p++;
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (ps->p >= ps->end || !is_digit(*ps->p))
			return fail_at(ps, s, "a number without digits in its exponent");
		while (ps->p < ps->end && is_digit(*ps->p))
			ps->p++;
	}
	v->type = JR_NUMBER;
	v->str = strndup(s, ps->p - s);
	return v->str ? 0 : out_of_memory(ps);
}

static int parse_word(struct parser *ps, struct jr_value *v, const char *word,
		      enum jr_type type)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n))
		return fail_at(ps, ps->p, "expected a value (not a JSON word)");
	ps->p += n;
	v->type = type;
	return 0;
}

/* Room for one more zeroed element (and name, for an object) in @v. */
static int grow(struct parser *ps, struct jr_value *v, size_t *cap)
{
	if (v->n == *cap) {
		size_t n = *cap ? *cap * 2 : 4;
		struct jr_value *items = realloc(v->items, n * sizeof(*items));
		char **keys;

		if (!items)
			return out_of_memory(ps);
		v->items = items;
		if (v->type == JR_OBJECT) {
			keys = realloc(v->keys, n * sizeof(*keys));
			if (!keys)
				return out_of_memory(ps);
			v->keys = keys;
		}
		*cap = n;
	}
	memset(&v->items[v->n], 0, sizeof(v->items[0]));
	if (v->type == JR_OBJECT)
		v->keys[v->n] = NULL;
	v->n++;
	return 0;
}

static int parse_value(struct parser *ps, struct jr_value *v, unsigned int depth);

/* An array or an object at ps->p (its '[' or '{'). */
static int parse_container(struct parser *ps, struct jr_value *v, unsigned int depth)
{
	const char *open = ps->p;
	bool object = *ps->p++ == '{';
	char close = object ? '}' : ']';
	size_t cap = 0;

	if (depth >= JR_MAX_DEPTH)
		return fail_at(ps, open, "more than %d nested arrays and objects", JR_MAX_DEPTH);
	v->type = object ? JR_OBJECT : JR_ARRAY;
	skip_space(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return 0;
	}
	for (;;) {
		if (grow(ps, v, &cap))
			return -1;
		if (object) {
			skip_space(ps);
			if (ps->p >= ps->end || *ps->p != '"')
				return fail_at(ps, ps->p, "expected a member's name (a string) in an object");
			if (parse_string(ps, &v->keys[v->n - 1]))
				return -1;
			skip_space(ps);
			if (ps->p >= ps->end || *ps->p != ':')
				return fail_at(ps, ps->p, "expected ':' after a member's name");
			ps->p++;
		}
		if (parse_value(ps, &v->items[v->n - 1], depth + 1))
			return -1;
		skip_space(ps);
		if (ps->p < ps->end && *ps->p == ',') {
			ps->p++;
			continue;
		}
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			return 0;
		}
		if (ps->p >= ps->end)
			return fail_at(ps, open, "an %s without its closing '%c'",
				       object ? "object" : "array", close);
		return fail_at(ps, ps->p, "expected ',' or '%c' in an %s", close,
			       object ? "object" : "array");
	}
}

static int parse_value(struct parser *ps, struct jr_value *v, unsigned int depth)
{
	skip_space(ps);
	if (ps->p >= ps->end)
		return fail_at(ps, ps->p, "expected a value, found the end");
	switch (*ps->p) {
	case '{':
	case '[':
		return parse_container(ps, v, depth);
	case '"':
		v->type = JR_STRING;
		return parse_string(ps, &v->str);
	case 't':
		return parse_word(ps, v, "true", JR_TRUE);
	case 'f':
		return parse_word(ps, v, "false", JR_FALSE);
	case 'n':
		return parse_word(ps, v, "null", JR_NULL);
	}
	if (*ps->p == '-' || is_digit(*ps->p))
		return parse_number(ps, v);
	return fail_at(ps, ps->p, "expected a value");
}

int jr_parse(const char *text, size_t len, struct jr_value **out, char *why, size_t whysz)
{
	struct parser ps = {
		.start = text, .p = text, .end = text + len, .why = why, .whysz = whysz,
	};
	struct jr_value *v = calloc(1, sizeof(*v));

	*out = NULL;
	if (!v)
		return out_of_memory(&ps);
	if (parse_value(&ps, v, 0))
		goto fail;
	skip_space(&ps);
	if (ps.p != ps.end) {
		fail_at(&ps, ps.p, "more after the JSON value");
		goto fail;
	}
	*out = v;
	return 0;
fail:
	jr_free(v);
	return -1;
}

static void free_contents(struct jr_value *v)
{
	size_t i;

	for (i = 0; i < v->n; i++) {
		free_contents(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
}

void jr_free(struct jr_value *v)
{
	if (!v)
		return;
	free_contents(v);
	free(v);
}

const struct jr_value *jr_member(const struct jr_value *obj, const char *key)
{
	size_t i;

	if (!obj || obj->type != JR_OBJECT)
		return NULL;
	for (i = 0; i < obj->n; i++)
		if (!strcmp(obj->keys[i], key))
			return &obj->items[i];
	return NULL;
}

const char *jr_string(const struct jr_value *v)
{
	return v && v->type == JR_STRING ? v->str : NULL;
}

bool jr_int(const struct jr_value *v, long long *out)
{
	char *end;
	long long n;

	if (!v || v->type != JR_NUMBER || strpbrk(v->str, ".eE"))
		return false;
	errno = 0;
	n = strtoll(v->str, &end, 10);
	if (errno || *end)
		return false;
	*out = n;
	return true;
}

const char *jr_type_name(const struct jr_value *v)
{
	static const char *const names[] = {
		[JR_NULL] = "null", [JR_FALSE] = "false", [JR_TRUE] = "true",
		[JR_NUMBER] = "a number", [JR_STRING] = "a string",
		[JR_ARRAY] = "an array", [JR_OBJECT] = "an object",
	};

	return v ? names[v->type] : "nothing";
}
