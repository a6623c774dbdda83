// SPDX-License-Identifier: GPL-2.0
/*
 * check-suite: the C tests' suites (tests/lib/harness.h, check.h) on a
 * suite of their own, whose setup, run and teardown write what they did
 * to a log: a case that passes; one whose check() fails in its run, or in
 * its setup, and one whose check_eq() fails (each still tears down, and
 * nothing after the failed check runs); one whose expect() fails and goes
 * on; one that skips with a reason, in its run or in its setup (torn down
 * too); one killed by a signal; one whose forked child fails a check()
 * (the child exits, the case goes on).  Each case alone, several at once, every
 * case, --list and an unknown name, with the exit statuses tests/lib/tap.sh
 * reads (0, 1, 77, 2 for bad usage); and check(), expect() and skip()
 * outside a suite, as before suites.  TAP on stdout.
 *
 * The program is both: run with $CHECK_SUITE_LOG set it is the suite (or,
 * with $CHECK_SUITE_PLAIN, a test without one), else it runs itself so.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

/* The suite. */

struct fix {
	int made;
	char scratch[64];
};

struct variant {
	bool fail_setup;
	bool skip_setup;
};

static void mark(const char *what, const char *name)
{
	char line[128];
	int fd = open(getenv("CHECK_SUITE_LOG"), O_WRONLY | O_APPEND);
	int n = snprintf(line, sizeof(line), "%s %s\n", what, name);

	if (fd < 0 || write(fd, line, n) != n)
		exit(3);
	close(fd);
}

/* The case's name: the variant's address says which. */
static const char *case_name(const void *variant);

static void fix_setup(void *fixture, const void *variant)
{
	struct fix *f = fixture;
	const struct variant *v = variant;
	size_t i;

	mark("setup", case_name(v));
	check_eq(f->made, 0);
	for (i = 0; i < sizeof(f->scratch); i++)
		check_eq(f->scratch[i], 0);
	f->made = 1;
	check(!v->fail_setup, "a check that fails in the setup");
	if (v->skip_setup)
		skip("nothing to set up here (setup %d)", 7);
}

static void fix_teardown(void *fixture, const void *variant)
{
	struct fix *f = fixture;

	mark(f->made ? "teardown" : "teardown-unmade", case_name(variant));
}

static void run_pass(void *fixture, const void *variant)
{
	struct fix *f = fixture;

	mark("run", case_name(variant));
	check_eq(f->made, 1);
	expect(f->made == 1, "made is %d", f->made);
}

static void run_check(void *fixture, const void *variant)
{
	(void)fixture;
	mark("run", case_name(variant));
	check(1 + 1 == 3, "a check that fails");
	mark("after", case_name(variant));
}

static void run_check_eq(void *fixture, const void *variant)
{
	(void)fixture;
	mark("run", case_name(variant));
	check_eq(1 + 1, 3);
	mark("after", case_name(variant));
}

static void run_expect(void *fixture, const void *variant)
{
	(void)fixture;
	mark("run", case_name(variant));
	expect(1 + 1 == 3, "an expect that fails");
	mark("after", case_name(variant));
}

static void run_skip(void *fixture, const void *variant)
{
	(void)fixture;
	mark("run", case_name(variant));
	skip("no such thing here (reason %d)", 42);
	mark("after", case_name(variant));
}

static void run_signal(void *fixture, const void *variant)
{
	(void)fixture;
	mark("run", case_name(variant));
	signal(SIGABRT, SIG_DFL);
	abort();
}

/* A child the case forks fails a check(): it exits, the case goes on. */
static void run_child_check(void *fixture, const void *variant)
{
	char what[32];
	pid_t pid;
	int st;

	(void)fixture;
	mark("run", case_name(variant));
	fflush(NULL);
	pid = fork();
	check(pid >= 0, "fork: %s", strerror(errno));
	if (!pid)
		check(0, "a check that fails in the case's child");
	check(waitpid(pid, &st, 0) == pid, "waitpid: %s", strerror(errno));
	snprintf(what, sizeof(what), "child-exit-%d",
		 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	mark(what, case_name(variant));
}

static const struct variant v_pass, v_check, v_check_eq, v_expect, v_skip,
	v_signal, v_child_check, v_setup_check = { .fail_setup = true },
	v_setup_skip = { .skip_setup = true };

static const struct check_case cases[] = {
	{ "pass", run_pass, &v_pass },
	{ "check", run_check, &v_check },
	{ "check-eq", run_check_eq, &v_check_eq },
	{ "expect", run_expect, &v_expect },
	{ "skip", run_skip, &v_skip },
	{ "setup-check", run_pass, &v_setup_check },
	{ "setup-skip", run_pass, &v_setup_skip },
	{ "signal", run_signal, &v_signal },
	{ "child-check", run_child_check, &v_child_check },
};

static const char *case_name(const void *variant)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (cases[i].variant == variant)
			return cases[i].name;
	return "?";
}

static const struct check_suite suite = {
	.fixture_size = sizeof(struct fix),
	.setup = fix_setup,
	.teardown = fix_teardown,
	CHECK_CASES(cases),
};

/* A test without a suite: check(), skip(), expect() as before suites. */
static int plain(const char *how)
{
	if (!strcmp(how, "check"))
		check(0, "a plain check that fails");
	if (!strcmp(how, "skip"))
		skip("a plain skip");
	expect(!strcmp(how, "pass"), "a plain expect that fails");
	mark("plain-end", how);
	return check_status();
}

/* The driver. */

static int n, fails;
static char self[PATH_MAX], logpath[] = "/tmp/check-suite-log-XXXXXX",
	outpath[] = "/tmp/check-suite-out-XXXXXX";

static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fails += !cond;
}

static char *slurp(const char *path)
{
	static char buf[16384];
	int fd = open(path, O_RDONLY);
	ssize_t len = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	buf[len > 0 ? len : 0] = '\0';
	return buf;
}

/*
 * Run the suite with @args (with $CHECK_SUITE_PLAIN=@plain if set): its
 * exit status; its output (stdout and stderr) in outpath, its log in
 * logpath.
 */
static int suite_run(const char *args, const char *plain_how)
{
	char cmd[PATH_MAX + 256];
	int st;

	if (truncate(logpath, 0))
		exit(2);
	if (plain_how)
		setenv("CHECK_SUITE_PLAIN", plain_how, 1);
	else
		unsetenv("CHECK_SUITE_PLAIN");
	snprintf(cmd, sizeof(cmd), "'%s' %s >%s 2>&1", self, args, outpath);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The last line of the output. */
static const char *last_line(void)
{
	char *out = slurp(outpath), *end = out + strlen(out);

	while (end > out && end[-1] == '\n')
		*--end = '\0';
	return strrchr(out, '\n') ? strrchr(out, '\n') + 1 : out;
}

/* One case alone: exit status @rc, @log what it did. */
static void one(const char *name, int rc, const char *log)
{
	int got = suite_run(name, NULL);

	ok(got == rc, "%s: exit %d (expected %d)", name, got, rc);
	ok(!strcmp(slurp(logpath), log), "%s: did what it should, in order", name);
}

static void each_case(void)
{
	one("pass", 0, "setup pass\nrun pass\nteardown pass\n");
	one("check", 1, "setup check\nrun check\nteardown check\n");
	one("check-eq", 1, "setup check-eq\nrun check-eq\nteardown check-eq\n");
	ok(strstr(slurp(outpath), "1 + 1 == 2, expected 3 == 3") != NULL,
	   "check-eq: prints both values");
	one("expect", 1, "setup expect\nrun expect\nafter expect\nteardown expect\n");
	ok(strstr(slurp(outpath), "# not ok 1 - expect # exit 1") != NULL,
	   "expect: the case fails");
	one("skip", 77, "setup skip\nrun skip\nteardown skip\n");
	ok(strstr(slurp(outpath), "# ok 1 - skip # SKIP no such thing here (reason 42)") != NULL,
	   "skip: the case's line has the reason");
	ok(!strcmp(last_line(), "# SKIP: no such thing here (reason 42)"),
	   "skip: the last line is the reason (%s)", last_line());
	one("setup-check", 1, "setup setup-check\nteardown setup-check\n");
	one("setup-skip", 77, "setup setup-skip\nteardown setup-skip\n");
	ok(!strcmp(last_line(), "# SKIP: nothing to set up here (setup 7)"),
	   "setup-skip: the last line is the reason (%s)", last_line());
	one("signal", 1, "setup signal\nrun signal\n");
	ok(strstr(slurp(outpath), "# not ok 1 - signal # exit 134") != NULL,
	   "signal: the case fails with the signal's status");
	one("child-check", 0, "setup child-check\nrun child-check\n"
	    "child-exit-1 child-check\nteardown child-check\n");
}

static void together(void)
{
	int rc;

	rc = suite_run("pass skip", NULL);
	ok(rc == 0, "pass and skip: exit %d (expected 0)", rc);
	ok(strstr(slurp(outpath), "# ok 2 - skip # SKIP") != NULL, "pass and skip: 2 lines");
	rc = suite_run("skip setup-skip", NULL);
	ok(rc == 77, "only skips: exit %d (expected 77)", rc);
	rc = suite_run("pass check pass", NULL);
	ok(rc == 1, "a failure among passes: exit %d (expected 1)", rc);
	ok(!strcmp(slurp(logpath), "setup pass\nrun pass\nteardown pass\n"
		   "setup check\nrun check\nteardown check\n"
		   "setup pass\nrun pass\nteardown pass\n"),
	   "a failure among passes: the next case still runs");
	rc = suite_run("", NULL);
	ok(rc == 1, "every case: exit %d (expected 1)", rc);
	ok(strstr(slurp(outpath), "# 1..9") && strstr(slurp(outpath), "# not ok 8 - signal") &&
	   strstr(slurp(outpath), "2 passed, 2 skipped, 5 failed"),
	   "every case: a plan, a line each and the count");
	rc = suite_run("--list", NULL);
	ok(rc == 0 && !strcmp(slurp(outpath), "pass\ncheck\ncheck-eq\nexpect\nskip\n"
			      "setup-check\nsetup-skip\nsignal\nchild-check\n"),
	   "--list: the names, one a line (exit %d)", rc);
	rc = suite_run("pass nope", NULL);
	ok(rc == 2 && strstr(slurp(outpath), "usage: check-suite [--list | CASE...], CASE: pass|check|"),
	   "an unknown name: usage, exit %d (expected 2)", rc);
	ok(!slurp(logpath)[0], "an unknown name: nothing runs");
}

static void plain_tests(void)
{
	int rc;

	rc = suite_run("", "check");
	ok(rc == 1 && !slurp(logpath)[0], "a plain check(): exit %d (expected 1)", rc);
	rc = suite_run("", "skip");
	ok(rc == 77 && !strcmp(last_line(), "# SKIP: a plain skip"),
	   "a plain skip(): exit %d (expected 77)", rc);
	rc = suite_run("", "expect");
	ok(rc == 1 && !strcmp(slurp(logpath), "plain-end expect\n"),
	   "a plain expect(): goes on, exit %d (expected 1)", rc);
	rc = suite_run("", "pass");
	ok(rc == 0, "a plain pass: exit %d (expected 0)", rc);
}

int main(int argc, char **argv)
{
	ssize_t len;
	int fd;

	if (getenv("CHECK_SUITE_LOG")) {
		if (getenv("CHECK_SUITE_PLAIN"))
			return plain(getenv("CHECK_SUITE_PLAIN"));
		return check_main(&suite, argc, argv);
	}
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0 || (fd = mkstemp(logpath)) < 0 || close(fd) ||
	    (fd = mkstemp(outpath)) < 0 || close(fd)) {
		perror("check-suite");
		return 2;
	}
	self[len] = '\0';
	setenv("CHECK_SUITE_LOG", logpath, 1);
	each_case();
	together();
	plain_tests();
	unlink(logpath);
	unlink(outpath);
	printf("1..%d\n", n);
	return fails ? 1 : 0;
}
