/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Suites for kview's C tests (included by check.h): the cases of a test
 * program that share their setup and teardown, run from a table, each in
 * a child process of its own.
 *
 *   struct check_suite s = {
 *           .fixture_size = sizeof(struct fix),
 *           .setup = fix_setup, .teardown = fix_teardown,
 *           CHECK_CASES(cases),
 *   };
 *   int main(int argc, char **argv) { return check_main(&s, argc, argv); }
 *
 * with cases[] = { { "name", run, &variant }, ... }.  setup(fixture,
 * variant), run(fixture, variant) and teardown(fixture, variant) get a
 * fixture of fixture_size bytes, zeroed, and the case's variant (what the
 * case's name selects: program names, flags; NULL if it has none).
 *
 *   prog CASE...   runs those cases, in that order
 *   prog           runs every case
 *   prog --list    prints the case names, one a line
 *   anything else  a usage line with the case names, exit 2
 *
 * A case runs in a forked child: setup, then run, then teardown.  A failed
 * check()/check_eq()/fail() in setup or run ends them and the case fails;
 * a skip() ends them and the case is skipped, with its reason; either way
 * teardown runs, so it must take a fixture that setup left half made (what
 * is still NULL or 0 was not made).  A failed expect() anywhere makes the
 * case fail; a failed check() in teardown exits at once (the case fails).
 * Only check()s in the test's own source jump back to the teardown: one in
 * another object file (a test of several files) exits as outside a suite,
 * and so does one in a child the case forked (a workload that pins itself,
 * say): that child exits with the status, and the case goes on.
 *
 * Each case's result is a TAP line behind the "# " diagnostic prefix on
 * stderr ("# ok 1 - name", "# not ok 2 - name # exit 1", "# ok 3 - name #
 * SKIP reason"), after a "# 1..N" plan, then a count.  The program's exit
 * status is the runner's (tests/lib/tap.sh): 1 if a case failed, else 77
 * if every case was skipped (the last line is then "# SKIP: reason", the
 * reason the runner shows), else 0.
 */
#ifndef KVIEW_TESTS_HARNESS_H
#define KVIEW_TESTS_HARNESS_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

struct check_case {
	const char *name;
	void (*run)(void *fixture, const void *variant);
	const void *variant;
};

struct check_suite {
	size_t fixture_size;
	void (*setup)(void *fixture, const void *variant);	/* or NULL */
	void (*teardown)(void *fixture, const void *variant);	/* or NULL */
	const struct check_case *cases;
	size_t nr_cases;
};

/* .cases and .nr_cases of a suite, from an array of cases. */
#define CHECK_CASES(array) \
	.cases = (array), .nr_cases = sizeof(array) / sizeof((array)[0])

/*
 * In the case's child: setup and run with check_exit() armed to come back
 * here, then teardown.  The child's exit status.
 */
static inline int check_case_status(const struct check_suite *s,
				    const struct check_case *c, void *fixture)
{
	jmp_buf back;

	/* Set by check_exit() (a static: longjmp() keeps it). */
	check_exit_status = 0;
	if (!setjmp(back)) {
		check_jump_pid = getpid();
		check_jump = &back;
		if (s->setup)
			s->setup(fixture, c->variant);
		c->run(fixture, c->variant);
		check_jump = NULL;
	}
	if (s->teardown)
		s->teardown(fixture, c->variant);
	if (check_failures && check_exit_status != 1) {
		diag("%d expectation(s) failed", check_failures);
		return 1;
	}
	return check_exit_status;
}

/*
 * Run case @c in a child; its exit status as the runner reads one (a
 * signal is a failure), and a skip's reason in @reason.
 */
static inline int check_fork_case(const struct check_suite *s,
				  const struct check_case *c, char *reason)
{
	pid_t pid;
	int st;

	reason[0] = '\0';
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		diag("fork: %s", strerror(errno));
		return 1;
	}
	if (!pid) {
		void *fixture = calloc(1, s->fixture_size ? s->fixture_size : 1);

		check_skip_reason = reason;
		check(fixture, "a fixture of %zu bytes: %s", s->fixture_size,
		      strerror(errno));
		exit(check_case_status(s, c, fixture));
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			diag("waitpid %d: %s", pid, strerror(errno));
			return 1;
		}
	if (WIFSIGNALED(st)) {
		diag("%s: killed by signal %d (%s)", c->name, WTERMSIG(st),
		     strsignal(WTERMSIG(st)));
		return 128 + WTERMSIG(st);
	}
	return WEXITSTATUS(st);
}

static inline void check_usage(const struct check_suite *s, const char *prog)
{
	size_t i;

	fprintf(stderr, "usage: %s [--list | CASE...], CASE: ", prog);
	for (i = 0; i < s->nr_cases; i++)
		fprintf(stderr, "%s%s", i ? "|" : "", s->cases[i].name);
	fprintf(stderr, " (none: every case)\n");
}

static inline const struct check_case *check_case_named(const struct check_suite *s,
							const char *name)
{
	size_t i;

	for (i = 0; i < s->nr_cases; i++)
		if (!strcmp(s->cases[i].name, name))
			return &s->cases[i];
	return NULL;
}

/*
 * The cases that @argv names (all of them if none) into @todo; false if it
 * names one there is not.
 */
static inline bool check_select(const struct check_suite *s, int argc,
				char **argv, const struct check_case **todo)
{
	int i;

	if (argc < 2) {
		for (i = 0; i < (int)s->nr_cases; i++)
			todo[i] = &s->cases[i];
		todo[i] = NULL;
		return true;
	}
	for (i = 1; i < argc; i++)
		if (!(todo[i - 1] = check_case_named(s, argv[i])))
			return false;
	todo[i - 1] = NULL;
	return true;
}

/* main()'s: run the cases @argv names (see the top of this file). */
static inline int check_main(const struct check_suite *s, int argc, char **argv)
{
	const char *prog = argc > 0 ? argv[0] : "test";
	const struct check_case **todo;
	int n, rc, pass = 0, skipped = 0, failed = 0;
	char *reason, last[CHECK_SKIP_REASON_SIZE] = "";

	if (strrchr(prog, '/'))
		prog = strrchr(prog, '/') + 1;
	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (n = 0; n < (int)s->nr_cases; n++)
			printf("%s\n", s->cases[n].name);
		return 0;
	}
	todo = calloc(s->nr_cases + argc + 1, sizeof(*todo));
	check(todo, "calloc: %s", strerror(errno));
	if (!check_select(s, argc, argv, todo)) {
		check_usage(s, prog);
		return 2;
	}
	/* Shared with the cases' children: where a skip() writes its reason. */
	reason = mmap(NULL, CHECK_SKIP_REASON_SIZE, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	check(reason != MAP_FAILED, "mmap: %s", strerror(errno));
	for (n = 0; todo[n]; n++)
		;
	diag("1..%d", n);
	for (n = 0; todo[n]; n++) {
		diag("RUN %s", todo[n]->name);
		rc = check_fork_case(s, todo[n], reason);
		if (rc == 0) {
			pass++;
			diag("ok %d - %s", n + 1, todo[n]->name);
		} else if (rc == 77) {
			skipped++;
			snprintf(last, sizeof(last), "%s", reason);
			diag("ok %d - %s # SKIP %s", n + 1, todo[n]->name, reason);
		} else {
			failed++;
			diag("not ok %d - %s # exit %d", n + 1, todo[n]->name, rc);
		}
	}
	diag("cases: %d passed, %d skipped, %d failed", pass, skipped, failed);
	munmap(reason, CHECK_SKIP_REASON_SIZE);
	free(todo);
	if (failed)
		return 1;
	if (!pass) {
		diag("SKIP: %s", last);
		return 77;
	}
	return 0;
}

#endif
