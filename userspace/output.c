// SPDX-License-Identifier: GPL-2.0
/*
 * kview's messages on stderr, as text or (-j) as JSON lines, in the form
 * the struct output they are given says (output.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <bpf/libbpf.h>

#include "output.h"

void out_message(struct json_writer *w, const char *type, const char *msg)
{
	jw_begin_record(w, stderr, type);
	jw_key_string(w, "message", msg);
}

/* "kview: message", or with -j {"type":"TYPE","message":"message"}. */
static void out_vmessage(const struct output *o, const char *type,
			 const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (o->json) {
		struct json_writer w;

		out_message(&w, type, msg);
		jw_end_object(&w);
	} else {
		fprintf(stderr, "kview: %s\n", msg);
	}
}

void out_die(const struct output *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out_vmessage(o, "error", fmt, ap);
	va_end(ap);
	exit(1);
}

void out_error(const struct output *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out_vmessage(o, "error", fmt, ap);
	va_end(ap);
}

void out_note(const struct output *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out_vmessage(o, "note", fmt, ap);
	va_end(ap);
}

/*
 * libbpf_set_print()'s callback gets no context pointer: the one output
 * it prints for is kept here, set once by out_libbpf_print_init().  The
 * only file-static state of the output layer.
 */
static const struct output *libbpf_output;

/*
 * libbpf's messages: on stderr with -v, else nowhere (the errors kview
 * reports say what failed; a verifier log comes from the program's own
 * log buffer).
 */
static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	if (libbpf_output && libbpf_output->verbose && level != LIBBPF_DEBUG)
		return vfprintf(stderr, fmt, args);
	return 0;
}

void out_libbpf_print_init(const struct output *o)
{
	libbpf_output = o;
	libbpf_set_print(libbpf_print);
}
