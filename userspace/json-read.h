/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kview's JSON reader: parses one JSON text (RFC 8259) into a tree, for
 * the little JSON kview reads, an OCI runtime's `list --format json` and
 * `state ID` (userspace/container.c).
 *
 * Strict: one value and nothing after it but white space; no comments,
 * trailing commas, single quotes, leading zeros or bare words; control
 * characters in strings must be escaped; at most JR_MAX_DEPTH nested
 * arrays and objects.  String escapes are decoded, \uXXXX (surrogate pairs
 * included) to UTF-8; \u0000 is refused (kview's strings are C strings),
 * and so is a lone surrogate.  Bytes of 0x80 and up are kept as they are.
 * A number keeps its text (jr_int() reads an integer from it exactly).
 * An object keeps its members in order; jr_member() finds the first of a
 * name.
 *
 *	struct jr_value *v;
 *	char why[128];
 *	long long pid;
 *
 *	if (jr_parse(text, len, &v, why, sizeof(why)))
 *		... why: "at byte 12: ..."
 *	if (jr_int(jr_member(v, "pid"), &pid)) ...
 *	jr_free(v);
 */
#ifndef KVIEW_JSON_READ_H
#define KVIEW_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>

#define JR_MAX_DEPTH 64

enum jr_type { JR_NULL, JR_FALSE, JR_TRUE, JR_NUMBER, JR_STRING, JR_ARRAY, JR_OBJECT };

struct jr_value {
	enum jr_type type;
	/* JR_STRING: the decoded string; JR_NUMBER: the number's text */
	char *str;
	/* JR_ARRAY, JR_OBJECT: the elements, the members' values */
	struct jr_value *items;
	/* JR_OBJECT: the members' names (decoded), in order */
	char **keys;
	size_t n;
};

/*
 * Parse the JSON text @text[0..@len): 0 and the tree in *@out (for
 * jr_free()), or -1 with what is wrong and where ("at byte N: ...") in
 * @why (@whysz bytes; errno ENOMEM when memory ran out).
 */
int jr_parse(const char *text, size_t len, struct jr_value **out, char *why, size_t whysz);
void jr_free(struct jr_value *v);

/* The value of @obj's member @key; NULL when @obj is not an object (or NULL) or has none. */
const struct jr_value *jr_member(const struct jr_value *obj, const char *key);
/* @v's string; NULL when @v is not a string (or NULL). */
const char *jr_string(const struct jr_value *v);
/* An integer number (no fraction, no exponent) in long long: true and *@out. */
bool jr_int(const struct jr_value *v, long long *out);
/* "string", "number", ...: @v's type, for messages ("nothing" for NULL). */
const char *jr_type_name(const struct jr_value *v);

#endif
