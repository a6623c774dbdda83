/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kview's one JSON writer: every JSON line the CLI prints goes through it.
 *
 * A writer wraps a FILE * and writes one JSON value after another, each
 * on a line of its own (JSON lines): the newline follows a top-level
 * value as soon as it is complete.  It places the commas and colons
 * itself, from a stack of the open objects and arrays.  Strings are
 * escaped for JSON: '"' and '\\', control characters (\n \t \r \b \f
 * short, the others and DEL as \u00XX), valid UTF-8 passed through as it
 * is, and each byte that is not part of valid UTF-8 replaced by U+FFFD.
 *
 *	struct json_writer w;
 *
 *	jw_init(&w, stdout);
 *	jw_begin_object(&w);
 *	jw_key(&w, "pid");
 *	jw_int(&w, 42);
 *	jw_end_object(&w);		-> {"pid":42}\n
 *
 * Misuse (a value in an object without its key, a key in an array, an
 * end that does not match its begin, more than JW_MAX_DEPTH levels) is a
 * bug of the caller: it fails an assert().
 */
#ifndef KVIEW_JSON_H
#define KVIEW_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define JW_MAX_DEPTH 64

struct json_writer {
	FILE *out;
	unsigned int depth;		/* open objects and arrays */
	bool key_written;		/* an object's key waits for its value */
	/* bit d - 1: level d is an object (else an array) / has a member */
	unsigned long long is_object, has_member;
};

void jw_init(struct json_writer *w, FILE *out);

void jw_begin_object(struct json_writer *w);
void jw_end_object(struct json_writer *w);
void jw_begin_array(struct json_writer *w);
void jw_end_array(struct json_writer *w);
void jw_key(struct json_writer *w, const char *key);

void jw_string(struct json_writer *w, const char *s);
/* At most @max bytes of @s, or up to its NUL (a char array). */
void jw_string_n(struct json_writer *w, const char *s, size_t max);
void jw_int(struct json_writer *w, long long v);
void jw_uint(struct json_writer *w, unsigned long long v);
/* "0x1f": an address, as a string. */
void jw_hex(struct json_writer *w, unsigned long long v);
/*
 * Every digit (%.17g).  JSON has no number for NaN and the infinities:
 * they are strings, "nan", "-nan", "inf", "-inf" (as kview always wrote
 * them; a number or a string, never null).
 */
void jw_double(struct json_writer *w, double v);
void jw_bool(struct json_writer *w, bool v);
void jw_null(struct json_writer *w);

/* "key": value, in an object. */
void jw_key_string(struct json_writer *w, const char *key, const char *s);
void jw_key_int(struct json_writer *w, const char *key, long long v);
void jw_key_uint(struct json_writer *w, const char *key, unsigned long long v);
void jw_key_bool(struct json_writer *w, const char *key, bool v);

/*
 * kview's JSON lines are objects whose first member is "type": the kind
 * of record ("attached", "maps", "error", "view", ...).  Begins one on a
 * new writer @w on @out; the caller adds members and ends the object.
 */
void jw_begin_record(struct json_writer *w, FILE *out, const char *type);

#endif
