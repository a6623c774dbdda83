/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tiny helpers for kview's C tests: a test is a program that exits 0 on
 * success, 77 when it is skipped (the runner's SKIP, with the last line it
 * printed as the reason) and 1 on failure, printing why.  Diagnostics go
 * to stderr with the "# " prefix TAP uses, so the runner can show them as
 * they are.
 *
 *   check(cond, fmt, ...)   a failure ends the test: what follows needs it
 *   expect(cond, fmt, ...)  a failure is counted and the test goes on: for
 *                           independent checks (one errno each, say); main()
 *                           ends with "return check_status();"
 *   skip(fmt, ...)          what the test needs is not there (not a bug):
 *                           exit 77 with the reason
 */
#ifndef KVIEW_TESTS_CHECK_H
#define KVIEW_TESTS_CHECK_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#define fail(...)                                                     \
	do {                                                          \
		diag("FAIL %s:%d: ", __FILE__, __LINE__);             \
		diag(__VA_ARGS__);                                    \
		exit(1);                                              \
	} while (0)

#define check(cond, ...)                                              \
	do {                                                          \
		if (!(cond)) {                                        \
			diag("check failed: %s", #cond);              \
			fail(__VA_ARGS__);                            \
		}                                                     \
	} while (0)

/* Failed expect()s so far: check_status() makes them the exit status. */
static int check_failures;

#define expect(cond, ...)                                             \
	do {                                                          \
		if (!(cond)) {                                        \
			diag("expect failed: %s", #cond);             \
			diag("FAIL %s:%d: ", __FILE__, __LINE__);     \
			diag(__VA_ARGS__);                            \
			check_failures++;                             \
		}                                                     \
	} while (0)

/* main()'s return value: 1 if an expect() failed, else 0. */
static inline int check_status(void)
{
	if (check_failures)
		diag("%d expectation(s) failed", check_failures);
	return check_failures ? 1 : 0;
}

#define skip(...)                                                     \
	do {                                                          \
		diag("SKIP: " __VA_ARGS__);                           \
		exit(77);                                             \
	} while (0)

#define check_eq(a, b)                                                \
	do {                                                          \
		long long __a = (long long)(a), __b = (long long)(b); \
		if (__a != __b)                                       \
			fail("%s == %lld, expected %s == %lld", #a,   \
			     __a, #b, __b);                           \
	} while (0)

#endif
