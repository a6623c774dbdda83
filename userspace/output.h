/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kview's messages (output.c): how the CLI speaks on stderr, in the form
 * the options chose, passed to whatever speaks.  main() owns the one
 * struct output; the commands and their helpers are handed a pointer to
 * it (in struct target, their context structs, or a parameter): nothing
 * reads a global flag.
 *
 * A message is "kview: <message>" on stderr, or with -j one JSON line
 * {"type":"error"|"note"|...,"message":"<message>"} (the guest tests
 * parse both).
 */
#ifndef KVIEW_OUTPUT_H
#define KVIEW_OUTPUT_H

#include <stdbool.h>

#include "json.h"

struct output {
	bool json;	/* -j: messages as JSON lines (and JSON on stdout) */
	bool verbose;	/* -v: libbpf's messages too */
};

/* Print the error and exit 1. */
void out_die(const struct output *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
/* An error that the caller handles: out_die() without the exit. */
void out_error(const struct output *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A note, {"type":"note",...} with -j. */
void out_note(const struct output *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * With -j, the message record {"type":@type,"message":@msg,...}: begins
 * it on @w, on stderr; the caller may add members before it ends the
 * object.
 */
void out_message(struct json_writer *w, const char *type, const char *msg);

/*
 * libbpf's messages: on stderr with @o->verbose (read at each message),
 * else nowhere.  @o must outlive every libbpf call.
 */
void out_libbpf_print_init(const struct output *o);

#endif
