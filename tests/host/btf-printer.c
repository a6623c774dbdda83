// SPDX-License-Identifier: GPL-2.0
/*
 * btf-printer: kview's one BTF value printer (userspace/dump.c), text and
 * JSON, on a record type built with libbpf's BTF writer that has every
 * shape the printer handles: integers signed and unsigned, bool, char
 * arrays as strings, enums (32- and 64-bit, by name and unnamed values),
 * bitfields (signed too), an anonymous union, a nested struct, a pointer,
 * a double (finite and not); and the hex fallbacks (no type, record
 * shorter than its type); a char array of UTF-8, valid or not, escaped
 * in text and passed through (or U+FFFD) in JSON.
 * Each case is compared with the exact line expected; the JSON lines are
 * also parsed by the test script (tests/host/btf-printer).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "dump.h"

/* The test's own setup failed: say what, and stop. */
static void __attribute__((format(printf, 1, 2), noreturn))
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static int fails;
static bool json;	/* the form expect() asks the printer for */

static void expect(const char *what, const struct btf *btf, __u32 id,
		   const void *data, size_t size, const char *want)
{
	char *got = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);

	if (!f)
		die("open_memstream failed");
	if (print_record(f, json, "events", btf, id, data, size))
		die("print_record: out of memory");
	fclose(f);
	if (strcmp(got, want)) {
		printf("# %s (%s):\n#   want %s#   got  %s", what,
		       json ? "json" : "text", want, got);
		fails++;
	} else if (json) {
		/* The script parses these. */
		printf("JSON %s", got);
	}
	free(got);
}

/* Adds a type, or dies: the test's own setup must not fail quietly. */
static int ok(int id, const char *what)
{
	if (id < 0)
		die("btf: cannot add %s: %d", what, id);
	return id;
}

int main(void)
{
	struct btf *btf = btf__new_empty();
	int u32, s64, s32, chr, u8, boolean, dbl, color, big, comm, u8x3, u8x4;
	int uni, inner, ptr, ev;
	unsigned char rec[64] = { 0 };
	unsigned int v32;
	long long v64;
	double ratio = 0.5, inf = -1.0 / 0.0;
	unsigned long long p = 0xffff888000001000ULL;

	if (!btf)
		die("btf__new_empty failed");
	u32 = ok(btf__add_int(btf, "unsigned int", 4, 0), "u32");
	s64 = ok(btf__add_int(btf, "long long", 8, BTF_INT_SIGNED), "s64");
	s32 = ok(btf__add_int(btf, "int", 4, BTF_INT_SIGNED), "s32");
	chr = ok(btf__add_int(btf, "char", 1, BTF_INT_SIGNED), "char");
	u8 = ok(btf__add_int(btf, "unsigned char", 1, 0), "u8");
	boolean = ok(btf__add_int(btf, "_Bool", 1, BTF_INT_BOOL), "bool");
	dbl = ok(btf__add_float(btf, "double", 8), "double");
	color = ok(btf__add_enum(btf, "color", 4), "enum color");
	ok(btf__add_enum_value(btf, "RED", 0), "RED");
	ok(btf__add_enum_value(btf, "BLUE", 7), "BLUE");
	big = ok(btf__add_enum64(btf, "big", 8, false), "enum big");
	ok(btf__add_enum64_value(btf, "HUGE", 1ULL << 40), "HUGE");
	comm = ok(btf__add_array(btf, u32, chr, 8), "char[8]");
	u8x3 = ok(btf__add_array(btf, u32, u8, 3), "u8[3]");
	u8x4 = ok(btf__add_array(btf, u32, u8, 4), "u8[4]");
	uni = ok(btf__add_union(btf, NULL, 4), "union");
	ok(btf__add_field(btf, "a", u32, 0, 0), "a");
	ok(btf__add_field(btf, "b", u8x4, 0, 0), "b");
	inner = ok(btf__add_struct(btf, "inner", 4), "struct inner");
	ok(btf__add_field(btf, "x", u32, 0, 0), "x");
	ptr = ok(btf__add_ptr(btf, 0), "void *");
	ev = ok(btf__add_struct(btf, "event", 64), "struct event");
	ok(btf__add_field(btf, "pid", u32, 0, 0), "pid");
	ok(btf__add_field(btf, "comm", comm, 32, 0), "comm");
	ok(btf__add_field(btf, "c", color, 96, 0), "c");
	ok(btf__add_field(btf, "delta", s64, 128, 0), "delta");
	ok(btf__add_field(btf, "flags", u32, 192, 3), "flags");
	ok(btf__add_field(btf, "mode", u32, 195, 5), "mode");
	ok(btf__add_field(btf, "level", s32, 200, 4), "level");
	ok(btf__add_field(btf, "", uni, 224, 0), "anonymous union");
	ok(btf__add_field(btf, "ptr", ptr, 256, 0), "ptr");
	ok(btf__add_field(btf, "ratio", dbl, 320, 0), "ratio");
	ok(btf__add_field(btf, "ok", boolean, 384, 0), "ok");
	ok(btf__add_field(btf, "arr", u8x3, 392, 0), "arr");
	ok(btf__add_field(btf, "in", inner, 416, 0), "in");
	ok(btf__add_field(btf, "big", big, 448, 0), "big");

	v32 = 42;
	memcpy(rec, &v32, 4);
	memcpy(rec + 4, "dd\n", 3);
	v32 = 7;
	memcpy(rec + 12, &v32, 4);
	v64 = -5;
	memcpy(rec + 16, &v64, 8);
	rec[24] = 5 | 17 << 3;		/* flags 5, mode 17 */
	rec[25] = 0x0d;			/* level -3 */
	memcpy(rec + 28, "\x01\x02\x03\x04", 4);
	memcpy(rec + 32, &p, 8);
	memcpy(rec + 40, &ratio, 8);
	rec[48] = 1;
	memcpy(rec + 49, "\x07\x08\x09", 3);
	v32 = 9;
	memcpy(rec + 52, &v32, 4);
	v64 = 1LL << 40;
	memcpy(rec + 56, &v64, 8);

	expect("every shape", btf, ev, rec, sizeof(rec),
	       "events: {pid=42, comm=\"dd\\x0a\", c=BLUE, delta=-5, flags=5, mode=17, "
	       "level=-3, a=67305985, b=[1, 2, 3, 4], ptr=0xffff888000001000, "
	       "ratio=0.5, ok=true, arr=[7, 8, 9], in={x=9}, big=HUGE}\n");
	expect("no type, 8 bytes", btf, 0, rec, 8, "events: 2925130426613802\n");
	expect("no type, 5 bytes", btf, 0, rec + 28, 5, "events: 01 02 03 04 00\n");
	expect("shorter than its type", btf, ev, rec, 6,
	       "events: 2a 00 00 00 64 64\n");
	rec[12] = 3;	/* an enum value without a name */
	expect("unnamed enum value", btf, color, rec + 12, 4, "events: 3\n");
	rec[12] = 7;
	/* Text escapes all but printable ASCII; JSON passes UTF-8 through. */
	expect("UTF-8 comm", btf, comm, "caf\xc3\xa9\0\0", 8, "events: \"caf\\xc3\\xa9\"\n");
	expect("infinite double", btf, dbl, &inf, sizeof(inf), "events: -inf\n");

	json = true;
	expect("every shape", btf, ev, rec, sizeof(rec),
	       "{\"type\":\"record\",\"map\":\"events\",\"data\":{\"pid\":42,"
	       "\"comm\":\"dd\\n\",\"c\":\"BLUE\",\"delta\":-5,\"flags\":5,"
	       "\"mode\":17,\"level\":-3,\"a\":67305985,\"b\":[1,2,3,4],"
	       "\"ptr\":\"0xffff888000001000\",\"ratio\":0.5,\"ok\":true,"
	       "\"arr\":[7,8,9],\"in\":{\"x\":9},\"big\":\"HUGE\"}}\n");
	expect("no type, 5 bytes", btf, 0, rec + 28, 5,
	       "{\"type\":\"record\",\"map\":\"events\",\"data\":\"01 02 03 04 00\"}\n");
	expect("shorter than its type", btf, ev, rec, 6,
	       "{\"type\":\"record\",\"map\":\"events\",\"data\":\"2a 00 00 00 64 64\"}\n");
	expect("UTF-8 comm", btf, comm, "caf\xc3\xa9\0\0", 8,
	       "{\"type\":\"record\",\"map\":\"events\",\"data\":\"caf\xc3\xa9\"}\n");
	expect("invalid UTF-8 comm", btf, comm, "caf\xe9\0\0\0", 8,
	       "{\"type\":\"record\",\"map\":\"events\",\"data\":\"caf\xef\xbf\xbd\"}\n");
	expect("comm cut in a character", btf, comm, "abcdefg\xc3", 8,
	       "{\"type\":\"record\",\"map\":\"events\",\"data\":\"abcdefg\xef\xbf\xbd\"}\n");
	/* JSON has no infinities: a string, as kview always printed them. */
	expect("infinite double", btf, dbl, &inf, sizeof(inf),
	       "{\"type\":\"record\",\"map\":\"events\",\"data\":\"-inf\"}\n");

	btf__free(btf);
	printf("# %d case(s) failed\n", fails);
	return fails ? 1 : 0;
}
