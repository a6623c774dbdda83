/* SPDX-License-Identifier: GPL-2.0 */
/* kview command line tool: shared declarations. */
#ifndef KVIEW_CLI_H
#define KVIEW_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <bpf/libbpf.h>

#define KVIEW_VERSION "0.1.0"

extern bool verbose;

/* Print "kview: <message>" on stderr and exit 1. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Print "kview: <message>" on stderr. */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int cmd_attach(int argc, char **argv);
int cmd_list(int argc, char **argv);

/* libbpf messages: kept for error reports, shown with -v. */
void libbpf_capture_init(void);
const char *libbpf_captured(void);
void libbpf_capture_reset(void);

/* Print the maps of @obj (BTF-decoded where possible) on @out. */
void dump_maps(FILE *out, struct bpf_object *obj);

/* JSON string with escapes. */
void json_string(FILE *out, const char *s);

#endif
