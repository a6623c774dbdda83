// SPDX-License-Identifier: GPL-2.0
/*
 * Print the maps of a BPF object and the records it streams: keys, values
 * and records decoded with the object's BTF where it describes them, hex
 * otherwise, as text or (kview -j) as JSON, by one printer (put_value()).
 * Per-CPU values are shown per CPU and summed when they are integers.  An array of integers whose name ends in "log2" or "hist" is
 * a log2 histogram, as bcc's tools keep them (slot i counts values in
 * [2^i, 2^(i+1)), slot 0 also 0), and is drawn as one.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "kview-cli.h"

void json_string_n(FILE *out, const char *s, size_t max)
{
	size_t i;

	fputc('"', out);
	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void json_string(FILE *out, const char *s)
{
	json_string_n(out, s, SIZE_MAX);
}

/* Bytes BTF does not describe: "01 02 ..", a string in JSON. */
static void hex(FILE *out, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i;

	if (json_output)
		fprintf(out, "\"");
	for (i = 0; i < len; i++)
		fprintf(out, "%s%02x", i ? " " : "", p[i]);
	if (json_output)
		fprintf(out, "\"");
}

static bool is_int(const struct btf *btf, __u32 id, size_t size)
{
	const struct btf_type *t;

	if (!btf || !id)
		return size == 4 || size == 8;
	id = btf__resolve_type(btf, id);
	t = btf__type_by_id(btf, id);
	return t && (btf_is_int(t) || btf_is_any_enum(t));
}

static unsigned long long as_u64(const void *data, size_t size)
{
	if (size == 8)
		return *(const __u64 *)data;
	if (size == 4)
		return *(const __u32 *)data;
	if (size == 2)
		return *(const __u16 *)data;
	return *(const __u8 *)data;
}

static bool all_zero(const void *data, size_t size)
{
	const unsigned char *p = data;

	while (size--)
		if (*p++)
			return false;
	return true;
}

/*
 * @bits bits at bit @off of @data (x86: little endian), sign-extended if
 * @sign.  A bitfield's storage can straddle 8 bytes: read it bytewise.
 */
static unsigned long long read_bits(const void *data, __u32 off, __u32 bits,
				    bool sign)
{
	const unsigned char *p = data;
	unsigned long long v = 0;
	__u32 i;

	for (i = 0; i < bits; i++)
		if (p[(off + i) / 8] >> ((off + i) % 8) & 1)
			v |= 1ULL << i;
	if (sign && bits < 64 && v >> (bits - 1) & 1)
		v |= ~0ULL << bits;
	return v;
}

#define MAX_DEPTH 8

static void put_value(FILE *out, const struct btf *btf, __u32 id,
		  const void *data, size_t size, int depth);

/* An integer or enum of @bits bits at bit @off of @data. */
static void scalar(FILE *out, const struct btf *btf,
		   const struct btf_type *t, const void *data, __u32 off,
		   __u32 bits)
{
	unsigned long long v;
	__u32 i;

	if (btf_is_int(t)) {
		__u8 enc = btf_int_encoding(t);

		v = read_bits(data, off, bits, enc & BTF_INT_SIGNED);
		if (enc & BTF_INT_BOOL)
			fprintf(out, "%s", v ? "true" : "false");
		else if (enc & BTF_INT_SIGNED)
			fprintf(out, "%lld", (long long)v);
		else
			fprintf(out, "%llu", v);
		return;
	}
	/* An enum: its name, or the number if no name has that value. */
	v = read_bits(data, off, bits, btf_kflag(t));
	for (i = 0; i < btf_vlen(t); i++) {
		unsigned long long ev;
		__u32 name;

		if (btf_is_enum64(t)) {
			ev = btf_enum64_value(&btf_enum64(t)[i]);
			name = btf_enum64(t)[i].name_off;
		} else {
			ev = btf_kflag(t) ? (unsigned long long)(long long)btf_enum(t)[i].val :
					    (__u32)btf_enum(t)[i].val;
			name = btf_enum(t)[i].name_off;
		}
		if (bits < 64)
			ev &= (1ULL << bits) - 1;
		if ((bits < 64 ? v & ((1ULL << bits) - 1) : v) == ev) {
			if (json_output)
				json_string_n(out, btf__name_by_offset(btf, name), SIZE_MAX);
			else
				fprintf(out, "%s", btf__name_by_offset(btf, name));
			return;
		}
	}
	fprintf(out, btf_kflag(t) ? "%lld" : "%llu", v);
}

static bool is_char(const struct btf *btf, const struct btf_type *t)
{
	return btf_is_int(t) && t->size == 1 &&
	       (btf_int_encoding(t) & BTF_INT_CHAR ||
		!strcmp(btf__name_by_offset(btf, t->name_off), "char"));
}

/* The members of struct/union @t; an anonymous member's inline. */
static void members(FILE *out, const struct btf *btf,
		    const struct btf_type *t, const void *data, int depth,
		    bool *first)
{
	const struct btf_member *m = btf_members(t);
	__u32 i;

	for (i = 0; i < btf_vlen(t); i++) {
		const char *name = btf__name_by_offset(btf, m[i].name_off);
		__u32 off = btf_member_bit_offset(t, i);
		__u32 bits = btf_member_bitfield_size(t, i);
		__u32 mid = btf__resolve_type(btf, m[i].type);
		const struct btf_type *mt = btf__type_by_id(btf, mid);
		long msize = btf__resolve_size(btf, mid);

		if (!mt || msize < 0 || (size_t)(off + bits + 7) / 8 > t->size)
			continue;
		if ((!name || !*name) && btf_is_composite(mt)) {
			members(out, btf, mt, (const char *)data + off / 8,
				depth + 1, first);
			continue;
		}
		if (json_output) {
			fprintf(out, "%s", *first ? "" : ",");
			json_string_n(out, name, SIZE_MAX);
			fprintf(out, ":");
		} else {
			fprintf(out, "%s%s=", *first ? "" : ", ", name);
		}
		*first = false;
		if (bits || off % 8) {
			if (btf_is_int(mt) || btf_is_any_enum(mt))
				scalar(out, btf, mt, data, off, bits ? bits : msize * 8);
			else
				hex(out, (const char *)data + off / 8, msize);
			continue;
		}
		put_value(out, btf, m[i].type, (const char *)data + off / 8, msize,
		      depth + 1);
	}
}

/*
 * kview's one BTF value printer, for map keys and values and streamed
 * records, in two styles: text (integers, enum names, "strings" for char
 * arrays, [a, b] arrays, {name=value, ...} structs; a union shows each
 * member) and JSON (the same as JSON values).  What BTF does not
 * describe, or nests too deep, is shown in hex.
 */
static void put_value(FILE *out, const struct btf *btf, __u32 id,
		  const void *data, size_t size, int depth)
{
	const struct btf_type *t = NULL;
	long tsize = -1;

	if (btf && id) {
		id = btf__resolve_type(btf, id);
		t = btf__type_by_id(btf, id);
		tsize = btf__resolve_size(btf, id);
	}
	if (!t || tsize < 0 || (size_t)tsize > size || depth > MAX_DEPTH) {
		/* No type: a 4- or 8-byte value is most likely a count. */
		if (!t && (size == 4 || size == 8))
			fprintf(out, "%llu", as_u64(data, size));
		else
			hex(out, data, size);
		return;
	}
	if ((btf_is_int(t) && btf_int_bits(t) <= 64) || btf_is_any_enum(t)) {
		scalar(out, btf, t, data, btf_is_int(t) ? btf_int_offset(t) : 0,
		       btf_is_int(t) ? btf_int_bits(t) : t->size * 8);
		return;
	}
	if (btf_is_ptr(t)) {
		fprintf(out, json_output ? "\"0x%llx\"" : "0x%llx", as_u64(data, tsize));
		return;
	}
	if (btf_is_float(t) && (tsize == 4 || tsize == 8)) {
		double v = tsize == 4 ? *(const float *)data : *(const double *)data;

		if (json_output && (v != v || v - v != 0))
			fprintf(out, "\"%g\"", v);	/* NaN, inf */
		else	/* JSON: every digit; text: for reading */
			fprintf(out, json_output ? "%.17g" : "%g", v);
		return;
	}
	if (btf_is_array(t)) {
		const struct btf_array *arr = btf_array(t);
		__u32 eid = btf__resolve_type(btf, arr->type);
		const struct btf_type *et = btf__type_by_id(btf, eid);
		long esize = btf__resolve_size(btf, eid);
		__u32 i;

		if (!et || esize <= 0) {
			hex(out, data, tsize);
			return;
		}
		if (is_char(btf, et)) {
			const char *s = data;

			if (json_output) {
				json_string_n(out, s, arr->nelems);
				return;
			}
			fprintf(out, "\"");
			for (i = 0; i < arr->nelems && s[i]; i++)
				fprintf(out, s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' &&
					  s[i] != '\\' ? "%c" : "\\x%02x", (unsigned char)s[i]);
			fprintf(out, "\"");
			return;
		}
		fprintf(out, "[");
		for (i = 0; i < arr->nelems; i++) {
			fprintf(out, "%s", !i ? "" : json_output ? "," : ", ");
			put_value(out, btf, eid, (const char *)data + i * esize, esize,
			      depth + 1);
		}
		fprintf(out, "]");
		return;
	}
	if (btf_is_composite(t)) {
		bool first = true;

		fprintf(out, "{");
		members(out, btf, t, data, depth, &first);
		fprintf(out, "}");
		return;
	}
	hex(out, data, tsize);
}

static const char *map_type_name(enum bpf_map_type type)
{
	const char *name = libbpf_bpf_map_type_str(type);

	return name ? name : "?";
}

static bool is_percpu(enum bpf_map_type type)
{
	return type == BPF_MAP_TYPE_PERCPU_HASH ||
	       type == BPF_MAP_TYPE_PERCPU_ARRAY ||
	       type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

static bool dumpable(enum bpf_map_type type)
{
	switch (type) {
	case BPF_MAP_TYPE_HASH:
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
	case BPF_MAP_TYPE_LRU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
		return true;
	default:
		return false;
	}
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

static bool is_log2_hist(struct bpf_map *map, const struct btf *btf)
{
	const char *name = bpf_map__name(map);

	return bpf_map__type(map) == BPF_MAP_TYPE_ARRAY &&
	       bpf_map__key_size(map) == 4 &&
	       bpf_map__max_entries(map) <= 64 &&
	       is_int(btf, bpf_map__btf_value_type_id(map), bpf_map__value_size(map)) &&
	       (ends_with(name, "log2") || ends_with(name, "hist"));
}

/* Bucket ranges and bars, as bcc's print_log2_hist() draws them. */
static void dump_log2_hist(FILE *out, struct bpf_map *map)
{
	unsigned int i, n = bpf_map__max_entries(map), last = 0;
	size_t vsz = bpf_map__value_size(map);
	unsigned long long v[64] = { 0 }, max = 0, total = 0;
	unsigned char buf[8];
	int fd = bpf_map__fd(map);
	const int width = 40;

	for (i = 0; i < n; i++) {
		memset(buf, 0, sizeof(buf));
		if (bpf_map_lookup_elem(fd, &i, buf))
			continue;
		v[i] = as_u64(buf, vsz);
		total += v[i];
		if (v[i] > max)
			max = v[i];
		if (v[i])
			last = i;
	}
	if (json_output) {
		fprintf(out, "\"histogram\":{\"total\":%llu,\"buckets\":[", total);
		for (i = 0; total && i <= last; i++)
			fprintf(out, "%s{\"low\":%llu,\"high\":%llu,\"count\":%llu}",
				  i ? "," : "", i ? 1ULL << i : 0, (2ULL << i) - 1, v[i]);
		fprintf(out, "]}");
		return;
	}
	fprintf(out, "map %s (array, log2 histogram, %llu in all):\n",
		  bpf_map__name(map), total);
	if (!total)
		return;
	fprintf(out, "  %24s : %-10s distribution\n", "value", "count");
	for (i = 0; i <= last; i++) {
		unsigned long long lo = i ? 1ULL << i : 0, hi = (2ULL << i) - 1;
		int bar = max ? (int)(v[i] * width / max) : 0;

		fprintf(out, "  %10llu -> %-10llu : %-10llu |%-*.*s|\n", lo, hi,
			  v[i], width, bar,
			  "****************************************");
	}
}

/*
 * One map into @out: text, "map NAME (TYPE, N entries):" then a line per
 * entry; JSON, the members of the map's object.
 */
static void dump_map(FILE *out, struct bpf_map *map,
		     const struct btf *btf)
{
	enum bpf_map_type type = bpf_map__type(map);
	size_t ksz = bpf_map__key_size(map), vsz = bpf_map__value_size(map);
	__u32 kid = bpf_map__btf_key_type_id(map);
	__u32 vid = bpf_map__btf_value_type_id(map);
	int fd = bpf_map__fd(map), ncpus = 1, cpu;
	bool percpu = is_percpu(type), first = true, json = json_output;
	size_t stride = vsz, entries = 0, zeroes = 0;
	void *key = NULL, *next, *val;
	char *lbuf = NULL;
	size_t llen = 0;
	FILE *lines = open_memstream(&lbuf, &llen);
	unsigned long long sum;

	if (json) {
		fprintf(out, "{\"name\":");
		json_string_n(out, bpf_map__name(map), SIZE_MAX);
		fprintf(out, ",\"type\":\"%s\",", map_type_name(type));
	}
	if (is_log2_hist(map, btf)) {
		dump_log2_hist(out, map);
		if (json)
			fprintf(out, "}");
		return;
	}
	if (type == BPF_MAP_TYPE_RINGBUF || type == BPF_MAP_TYPE_PERF_EVENT_ARRAY ||
	    !dumpable(type)) {
		bool streams = type == BPF_MAP_TYPE_RINGBUF ||
			       type == BPF_MAP_TYPE_PERF_EVENT_ARRAY;

		if (json)
			fprintf(out, "\"%s\":true}", streams ? "streamed" : "not_dumped");
		else if (streams)
			fprintf(out, "map %s (%s): its records are printed as they arrive\n",
				  bpf_map__name(map), map_type_name(type));
		else
			fprintf(out, "map %s (%s): not dumped\n", bpf_map__name(map),
				  map_type_name(type));
		return;
	}
	if (percpu) {
		ncpus = libbpf_num_possible_cpus();
		if (ncpus < 1)
			ncpus = 1;
		stride = (vsz + 7) & ~7UL;
	}
	next = calloc(1, ksz);
	key = calloc(1, ksz);
	val = calloc(ncpus, stride);
	if (!next || !key || !val || !lines)
		die("out of memory");

	while (bpf_map_get_next_key(fd, first ? NULL : key, next) == 0) {
		first = false;
		memcpy(key, next, ksz);
		if (bpf_map_lookup_elem(fd, key, val))
			continue;
		entries++;
		/* Arrays have every slot: leave out the empty ones. */
		if ((type == BPF_MAP_TYPE_ARRAY || type == BPF_MAP_TYPE_PERCPU_ARRAY) &&
		    all_zero(val, percpu ? ncpus * stride : vsz)) {
			zeroes++;
			continue;
		}
		if (json)
			fprintf(lines, "%s{\"key\":", entries - zeroes > 1 ? "," : "");
		else
			fprintf(lines, "  ");
		put_value(lines, btf, kid, key, ksz, 0);
		fprintf(lines, json ? percpu ? ",\"values\":" : ",\"value\":" : ": ");
		if (!percpu) {
			put_value(lines, btf, vid, val, vsz, 0);
		} else {
			sum = 0;
			fprintf(lines, "[");
			for (cpu = 0; cpu < ncpus; cpu++) {
				void *v = (char *)val + cpu * stride;

				fprintf(lines, "%s", !cpu ? "" : json ? "," : ", ");
				put_value(lines, btf, vid, v, vsz, 0);
				sum += as_u64(v, vsz);
			}
			fprintf(lines, "]");
			if (is_int(btf, vid, vsz))
				fprintf(lines, json ? ",\"sum\":%llu" : " sum %llu", sum);
		}
		fprintf(lines, json ? "}" : "\n");
	}
	fclose(lines);
	if (json) {
		fprintf(out, "\"entries\":[%s],\"zero\":%zu}", lbuf, zeroes);
	} else {
		fprintf(out, "map %s (%s, %zu entr%s", bpf_map__name(map),
			  map_type_name(type), entries, entries == 1 ? "y" : "ies");
		if (zeroes)
			fprintf(out, ", %zu zero", zeroes);
		fprintf(out, "):\n%s", lbuf);
	}
	free(lbuf);
	free(val);
	free(key);
	free(next);
}

/*
 * The type of a streamed map's records (ring buffer, perf event array):
 * the struct named <map>_event, or "event" if @only (the object streams
 * through one map).  0: none, hex.
 */
__u32 record_type(const struct btf *btf, const char *map, bool only)
{
	char name[128];
	int id;

	if (!btf)
		return 0;
	snprintf(name, sizeof(name), "%s_event", map);
	id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	if (id <= 0 && only)
		id = btf__find_by_name_kind(btf, "event", BTF_KIND_STRUCT);
	return id > 0 ? id : 0;
}

void print_record(FILE *out, const char *map, const struct btf *btf,
		  __u32 id, const void *data, size_t size)
{
	if (json_output) {
		fprintf(out, "{\"type\":\"record\",\"map\":");
		json_string(out, map);
		fprintf(out, ",\"data\":");
	} else {
		fprintf(out, "%s: ", map);
	}
	/* A record shorter than its type is shown as it is: in hex. */
	put_value(out, btf, id, data, size, 0);
	fprintf(out, "%s\n", json_output ? "}" : "");
}

void dump_maps(FILE *out, struct bpf_object *obj, const char *stamp)
{
	struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map;
	bool first = true;

	if (json_output) {
		fprintf(out, "{\"type\":\"maps\",");
		if (stamp)
			fprintf(out, "\"time\":\"%s\",", stamp);
		else
			fprintf(out, "\"final\":true,");
		fprintf(out, "\"maps\":[");
	} else if (stamp) {
		fprintf(out, "@ %s\n", stamp);
	}
	bpf_object__for_each_map(map, obj) {
		const char *name = bpf_map__name(map);

		/* Constants the program was loaded with are not results. */
		if (ends_with(name, ".rodata") || ends_with(name, ".kconfig"))
			continue;
		if (json_output && !first)
			fprintf(out, ",");
		first = false;
		dump_map(out, map, btf);
	}
	if (json_output)
		fprintf(out, "]}\n");
}
