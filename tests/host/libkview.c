// SPDX-License-Identifier: GPL-2.0
/*
 * libkview's options under libbpf's rules, through the shared library
 * (tests/host/libkview builds it with the build tree's kview.pc): a struct
 * with sz smaller than a size_t, or larger than the library's with a
 * non-zero byte beyond its fields, is EINVAL, before anything else is
 * looked at; a larger struct whose extra bytes are zero is taken.  No
 * kernel views are needed: the calls fail before /dev/kview is opened, or
 * fail there with ENOENT/ENODEV (or make a view, on a kview kernel).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <kview/kview.h>

static int failures;

#define CHECK(cond, ...) do {						\
	if (cond) {							\
		printf("ok: ");						\
	} else {							\
		printf("FAIL: ");					\
		failures++;						\
	}								\
	printf(__VA_ARGS__);						\
	putchar('\n');							\
} while (0)

/* A caller's kview_opts from a newer libkview, with a field we lack. */
struct newer_opts {
	struct kview_opts o;
	long newer_field;
};

static void create(const char *what, const struct kview_opts *opts,
		   bool want_einval)
{
	struct kview *kv;

	errno = 0;
	kv = kview__create(0, opts);
	if (want_einval)
		CHECK(!kv && errno == EINVAL, "kview__create(%s): %s", what,
		      kv ? "a view" : strerror(errno));
	else
		CHECK(kv || errno != EINVAL, "kview__create(%s): %s", what,
		      kv ? "a view" : strerror(errno));
	kview__destroy(kv);
}

int main(void)
{
	struct kview_opts zero = { .sz = 0 };
	struct kview_opts small = { .sz = sizeof(size_t) - 1 };
	struct newer_opts newer = { .o.sz = sizeof(newer) };
	struct kview_attach_opts azero = { .sz = 0 };
	struct kview_links *links;
	int err;

	setvbuf(stdout, NULL, _IONBF, 0);
	create("sz 0", &zero, true);
	create("sz 7", &small, true);
	newer.newer_field = 1;
	create("larger, non-zero tail", &newer.o, true);
	newer.newer_field = 0;
	create("larger, zero tail", &newer.o, false);
	create("NULL opts", NULL, false);

	err = kview__attach_skeleton(NULL, NULL, &azero);
	CHECK(err == -EINVAL && errno == EINVAL,
	      "kview__attach_skeleton(opts sz 0): %d", err);
	errno = 0;
	links = kview__attach_object_opts(NULL, NULL, &azero);
	CHECK(!links && errno == EINVAL,
	      "kview__attach_object_opts(opts sz 0): %s", strerror(errno));
	printf("%s\n", failures ? "FAILED" : "all passed");
	return failures ? 1 : 0;
}
