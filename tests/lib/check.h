/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tiny helpers for kview's C tests: a test is a program that exits 0 on
 * success and non-zero on failure, printing why.  Diagnostics go to stderr
 * with the "# " prefix TAP uses, so the runner can show them as they are.
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

#define check_eq(a, b)                                                \
	do {                                                          \
		long long __a = (long long)(a), __b = (long long)(b); \
		if (__a != __b)                                       \
			fail("%s == %lld, expected %s == %lld", #a,   \
			     __a, #b, __b);                           \
	} while (0)

#endif
