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
 *   check_eq(a, b)          check(a == b), printing both values
 *
 * A test of several cases that share their setup and teardown is a suite
 * (harness.h, included here): main() returns check_main(&suite, argc,
 * argv).  There a failed check() or a skip() in a case's setup or run ends
 * that case (check_exit() jumps back to the runner), its teardown still
 * runs; outside a suite they exit as above.
 */
#ifndef KVIEW_TESTS_CHECK_H
#define KVIEW_TESTS_CHECK_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * Where a failed check() or a skip() goes: set by check_main() (harness.h)
 * around a case's setup and run, which then goes on to the teardown with
 * check_exit_status; NULL elsewhere, where the test exits with it.  Only
 * in the case's own process (check_jump_pid): a child the case forked
 * exits, as outside a suite, and leaves the teardown to the case.
 */
static jmp_buf *check_jump;
static pid_t check_jump_pid;
static int check_exit_status;

static inline __attribute__((noreturn)) void check_exit(int status)
{
	jmp_buf *to = check_jump;

	if (!to || getpid() != check_jump_pid)
		exit(status);
	check_jump = NULL;
	check_exit_status = status;
	longjmp(*to, 1);
}

#define fail(...)                                                     \
	do {                                                          \
		diag("FAIL %s:%d: ", __FILE__, __LINE__);             \
		diag(__VA_ARGS__);                                    \
		check_exit(1);                                        \
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

/* The reason of the last skip(); check_main() points it at a page its cases share with it. */
static char check_skip_buf[256];
static char *check_skip_reason = check_skip_buf;
#define CHECK_SKIP_REASON_SIZE sizeof(check_skip_buf)

#define skip(...)                                                     \
	do {                                                          \
		snprintf(check_skip_reason, CHECK_SKIP_REASON_SIZE,   \
			 __VA_ARGS__);                                \
		diag("SKIP: %s", check_skip_reason);                  \
		check_exit(77);                                       \
	} while (0)

#define check_eq(a, b)                                                \
	do {                                                          \
		long long __a = (long long)(a), __b = (long long)(b); \
		if (__a != __b)                                       \
			fail("%s == %lld, expected %s == %lld", #a,   \
			     __a, #b, __b);                           \
	} while (0)

#include "harness.h"

#endif
