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

#include "dump.h"
#include "json.h"

/*
 * Where the BTF printer writes: text on @out, or JSON through @jw (NULL
 * for text), with the object's BTF; *@err becomes -ENOMEM if memory ran
 * out (the printing goes on without what needed it).
 */
struct printer {
	FILE *out;
	struct json_writer *jw;
	const struct btf *btf;
	int *err;
};

static void put_uint(const struct printer *p, unsigned long long v)
{
	if (p->jw)
		jw_uint(p->jw, v);
	else
		fprintf(p->out, "%llu", v);
}

static void put_int(const struct printer *p, long long v)
{
	if (p->jw)
		jw_int(p->jw, v);
	else
		fprintf(p->out, "%lld", v);
}

/* A name (an enum value's) or hex bytes: as it is in text, a JSON string. */
static void put_name(const struct printer *p, const char *s)
{
	if (p->jw)
		jw_string(p->jw, s);
	else
		fputs(s, p->out);
}

/* Bytes BTF does not describe: "01 02 ..", a string in JSON. */
static void hex(const struct printer *p, const void *data, size_t len)
{
	const unsigned char *b = data;
	char *s = malloc(len * 3 + 1);
	size_t i;

	if (!s) {
		*p->err = -ENOMEM;
		put_name(p, "?");
		return;
	}
	for (i = 0; i < len; i++)
		sprintf(s + 3 * i, "%02x ", b[i]);
	s[len ? 3 * len - 1 : 0] = '\0';	/* the last space */
	put_name(p, s);
	free(s);
}

/* An array's brackets; text separates its elements with ", " (@i: index). */
static void begin_list(const struct printer *p)
{
	if (p->jw)
		jw_begin_array(p->jw);
	else
		fputc('[', p->out);
}

static void list_item(const struct printer *p, size_t i)
{
	if (!p->jw && i)
		fputs(", ", p->out);
}

static void end_list(const struct printer *p)
{
	if (p->jw)
		jw_end_array(p->jw);
	else
		fputc(']', p->out);
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

static void put_value(const struct printer *p, __u32 id, const void *data,
		      size_t size, int depth);

/* The name of enum @t's value @v of @bits bits, or NULL. */
static const char *enum_name(const struct btf *btf, const struct btf_type *t,
			     unsigned long long v, __u32 bits)
{
	unsigned long long mask = bits < 64 ? (1ULL << bits) - 1 : ~0ULL;
	__u32 i;

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
		if ((v & mask) == (ev & mask))
			return btf__name_by_offset(btf, name);
	}
	return NULL;
}

/* An integer or enum of @bits bits at bit @off of @data. */
static void scalar(const struct printer *p, const struct btf_type *t,
		   const void *data, __u32 off, __u32 bits)
{
	unsigned long long v;
	const char *name;
	bool sign;

	if (btf_is_int(t)) {
		__u8 enc = btf_int_encoding(t);

		v = read_bits(data, off, bits, enc & BTF_INT_SIGNED);
		if (enc & BTF_INT_BOOL && p->jw)
			jw_bool(p->jw, v);
		else if (enc & BTF_INT_BOOL)
			fputs(v ? "true" : "false", p->out);
		else if (enc & BTF_INT_SIGNED)
			put_int(p, v);
		else
			put_uint(p, v);
		return;
	}
	/* An enum: its name, or the number if no name has that value. */
	sign = btf_kflag(t);
	v = read_bits(data, off, bits, sign);
	name = enum_name(p->btf, t, v, bits);
	if (name)
		put_name(p, name);
	else if (sign)
		put_int(p, v);
	else
		put_uint(p, v);
}

static bool is_char(const struct btf *btf, const struct btf_type *t)
{
	return btf_is_int(t) && t->size == 1 &&
	       (btf_int_encoding(t) & BTF_INT_CHAR ||
		!strcmp(btf__name_by_offset(btf, t->name_off), "char"));
}

/* The members of struct/union @t; an anonymous member's inline. */
static void members(const struct printer *p, const struct btf_type *t,
		    const void *data, int depth, bool *first)
{
	const struct btf *btf = p->btf;
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
			members(p, mt, (const char *)data + off / 8, depth + 1, first);
			continue;
		}
		if (p->jw)
			jw_key(p->jw, name ? name : "");
		else
			fprintf(p->out, "%s%s=", *first ? "" : ", ", name);
		*first = false;
		if (bits || off % 8) {
			if (btf_is_int(mt) || btf_is_any_enum(mt))
				scalar(p, mt, data, off, bits ? bits : msize * 8);
			else
				hex(p, (const char *)data + off / 8, msize);
			continue;
		}
		put_value(p, m[i].type, (const char *)data + off / 8, msize, depth + 1);
	}
}

/* A char array: up to its NUL; text escapes all but printable ASCII. */
static void put_chars(const struct printer *p, const char *s, __u32 n)
{
	__u32 i;

	if (p->jw) {
		jw_string_n(p->jw, s, n);
		return;
	}
	fputc('"', p->out);
	for (i = 0; i < n && s[i]; i++)
		fprintf(p->out, s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' &&
			s[i] != '\\' ? "%c" : "\\x%02x", (unsigned char)s[i]);
	fputc('"', p->out);
}

static void put_array(const struct printer *p, const struct btf_type *t,
		      const void *data, long tsize, int depth)
{
	const struct btf_array *arr = btf_array(t);
	__u32 eid = btf__resolve_type(p->btf, arr->type);
	const struct btf_type *et = btf__type_by_id(p->btf, eid);
	long esize = btf__resolve_size(p->btf, eid);
	__u32 i;

	if (!et || esize <= 0) {
		hex(p, data, tsize);
		return;
	}
	if (is_char(p->btf, et)) {
		put_chars(p, data, arr->nelems);
		return;
	}
	begin_list(p);
	for (i = 0; i < arr->nelems; i++) {
		list_item(p, i);
		put_value(p, eid, (const char *)data + i * esize, esize, depth + 1);
	}
	end_list(p);
}

static void put_double(const struct printer *p, double v)
{
	if (p->jw)
		jw_double(p->jw, v);	/* every digit */
	else
		fprintf(p->out, "%g", v);	/* for reading */
}

/*
 * kview's one BTF value printer, for map keys and values and streamed
 * records, in two styles: text (integers, enum names, "strings" for char
 * arrays, [a, b] arrays, {name=value, ...} structs; a union shows each
 * member) and JSON (the same as JSON values).  What BTF does not
 * describe, or nests too deep, is shown in hex.
 */
static void put_value(const struct printer *p, __u32 id, const void *data,
		      size_t size, int depth)
{
	const struct btf_type *t = NULL;
	long tsize = -1;
	bool first = true;

	if (p->btf && id) {
		id = btf__resolve_type(p->btf, id);
		t = btf__type_by_id(p->btf, id);
		tsize = btf__resolve_size(p->btf, id);
	}
	if (!t || tsize < 0 || (size_t)tsize > size || depth > MAX_DEPTH) {
		/* No type: a 4- or 8-byte value is most likely a count. */
		if (!t && (size == 4 || size == 8))
			put_uint(p, as_u64(data, size));
		else
			hex(p, data, size);
	} else if ((btf_is_int(t) && btf_int_bits(t) <= 64) || btf_is_any_enum(t)) {
		scalar(p, t, data, btf_is_int(t) ? btf_int_offset(t) : 0,
		       btf_is_int(t) ? btf_int_bits(t) : t->size * 8);
	} else if (btf_is_ptr(t) && p->jw) {
		jw_hex(p->jw, as_u64(data, tsize));
	} else if (btf_is_ptr(t)) {
		fprintf(p->out, "0x%llx", as_u64(data, tsize));
	} else if (btf_is_float(t) && (tsize == 4 || tsize == 8)) {
		put_double(p, tsize == 4 ? *(const float *)data : *(const double *)data);
	} else if (btf_is_array(t)) {
		put_array(p, t, data, tsize, depth);
	} else if (btf_is_composite(t) && p->jw) {
		jw_begin_object(p->jw);
		members(p, t, data, depth, &first);
		jw_end_object(p->jw);
	} else if (btf_is_composite(t)) {
		fputc('{', p->out);
		members(p, t, data, depth, &first);
		fputc('}', p->out);
	} else {
		hex(p, data, tsize);
	}
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
static void dump_log2_hist(const struct printer *p, struct bpf_map *map)
{
	unsigned int i, n = bpf_map__max_entries(map), last = 0;
	size_t vsz = bpf_map__value_size(map);
	unsigned long long v[64] = { 0 }, max = 0, total = 0;
	unsigned char buf[8];
	int fd = bpf_map__fd(map);
	struct json_writer *jw = p->jw;
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
	if (jw) {
		jw_key(jw, "histogram");
		jw_begin_object(jw);
		jw_key_uint(jw, "total", total);
		jw_key(jw, "buckets");
		jw_begin_array(jw);
		for (i = 0; total && i <= last; i++) {
			jw_begin_object(jw);
			jw_key_uint(jw, "low", i ? 1ULL << i : 0);
			jw_key_uint(jw, "high", (2ULL << i) - 1);
			jw_key_uint(jw, "count", v[i]);
			jw_end_object(jw);
		}
		jw_end_array(jw);
		jw_end_object(jw);
		return;
	}
	fprintf(p->out, "map %s (array, log2 histogram, %llu in all):\n",
		bpf_map__name(map), total);
	if (!total)
		return;
	fprintf(p->out, "  %24s : %-10s distribution\n", "value", "count");
	for (i = 0; i <= last; i++) {
		unsigned long long lo = i ? 1ULL << i : 0, hi = (2ULL << i) - 1;
		int bar = max ? (int)(v[i] * width / max) : 0;

		fprintf(p->out, "  %10llu -> %-10llu : %-10llu |%-*.*s|\n", lo, hi,
			v[i], width, bar,
			"****************************************");
	}
}

/* A map's entries are read with its key and value sizes, per CPU or not. */
struct map_reader {
	struct bpf_map *map;
	int fd, ncpus;
	size_t ksz, vsz, stride;
	__u32 kid, vid;
	bool percpu;
};

/*
 * One entry: text "  KEY: VALUE" (per CPU: "[a, b] sum N"), JSON
 * {"key":KEY,"value":VALUE} (per CPU: "values":[a,b],"sum":N).
 */
static void put_entry(const struct printer *p, const struct map_reader *r,
		      const void *key, const void *val)
{
	unsigned long long sum = 0;
	int cpu;

	if (p->jw) {
		jw_begin_object(p->jw);
		jw_key(p->jw, "key");
	} else {
		fputs("  ", p->out);
	}
	put_value(p, r->kid, key, r->ksz, 0);
	if (p->jw)
		jw_key(p->jw, r->percpu ? "values" : "value");
	else
		fputs(": ", p->out);
	if (!r->percpu) {
		put_value(p, r->vid, val, r->vsz, 0);
	} else {
		begin_list(p);
		for (cpu = 0; cpu < r->ncpus; cpu++) {
			const void *v = (const char *)val + cpu * r->stride;

			list_item(p, cpu);
			put_value(p, r->vid, v, r->vsz, 0);
			sum += as_u64(v, r->vsz);
		}
		end_list(p);
		if (is_int(p->btf, r->vid, r->vsz) && p->jw)
			jw_key_uint(p->jw, "sum", sum);
		else if (is_int(p->btf, r->vid, r->vsz))
			fprintf(p->out, " sum %llu", sum);
	}
	if (p->jw)
		jw_end_object(p->jw);
	else
		fputc('\n', p->out);
}

/*
 * Every entry of the map through put_entry(); *@entries counts them, and
 * *@zeroes the empty slots of an array, left out.
 */
static void put_entries(const struct printer *p, const struct map_reader *r,
			size_t *entries, size_t *zeroes)
{
	enum bpf_map_type type = bpf_map__type(r->map);
	void *key = calloc(1, r->ksz), *next = calloc(1, r->ksz);
	void *val = calloc(r->ncpus, r->stride);
	bool first = true;

	*entries = *zeroes = 0;
	if (!next || !key || !val) {
		*p->err = -ENOMEM;
		goto out;
	}
	while (bpf_map_get_next_key(r->fd, first ? NULL : key, next) == 0) {
		first = false;
		memcpy(key, next, r->ksz);
		if (bpf_map_lookup_elem(r->fd, key, val))
			continue;
		++*entries;
		/* Arrays have every slot: leave out the empty ones. */
		if ((type == BPF_MAP_TYPE_ARRAY || type == BPF_MAP_TYPE_PERCPU_ARRAY) &&
		    all_zero(val, r->percpu ? r->ncpus * r->stride : r->vsz)) {
			++*zeroes;
			continue;
		}
		put_entry(p, r, key, val);
	}
out:
	free(val);
	free(next);
	free(key);
}

/*
 * One map: text, "map NAME (TYPE, N entries):" then a line per entry;
 * JSON, its object {"name":...,"type":..., and "histogram", "streamed",
 * "not_dumped" or "entries" and "zero"}.
 */
static void dump_map(const struct printer *p, struct bpf_map *map)
{
	enum bpf_map_type type = bpf_map__type(map);
	const char *name = bpf_map__name(map);
	struct map_reader r = {
		.map = map, .fd = bpf_map__fd(map), .ncpus = 1,
		.ksz = bpf_map__key_size(map), .vsz = bpf_map__value_size(map),
		.kid = bpf_map__btf_key_type_id(map),
		.vid = bpf_map__btf_value_type_id(map),
		.percpu = is_percpu(type),
	};
	bool streams = type == BPF_MAP_TYPE_RINGBUF ||
		       type == BPF_MAP_TYPE_PERF_EVENT_ARRAY;
	struct json_writer *jw = p->jw;
	struct printer lines = *p;
	size_t entries, zeroes, llen = 0;
	char *lbuf = NULL;

	if (jw) {
		jw_begin_object(jw);
		jw_key_string(jw, "name", name);
		jw_key_string(jw, "type", map_type_name(type));
	}
	if (is_log2_hist(map, p->btf)) {
		dump_log2_hist(p, map);
	} else if ((streams || !dumpable(type)) && jw) {
		jw_key_bool(jw, streams ? "streamed" : "not_dumped", true);
	} else if (streams) {
		fprintf(p->out, "map %s (%s): its records are printed as they arrive\n",
			name, map_type_name(type));
	} else if (!dumpable(type)) {
		fprintf(p->out, "map %s (%s): not dumped\n", name, map_type_name(type));
	} else {
		r.stride = r.vsz;
		if (r.percpu) {
			r.ncpus = libbpf_num_possible_cpus();
			if (r.ncpus < 1)
				r.ncpus = 1;
			r.stride = (r.vsz + 7) & ~7UL;
		}
		if (jw) {
			jw_key(jw, "entries");
			jw_begin_array(jw);
			put_entries(p, &r, &entries, &zeroes);
			jw_end_array(jw);
			jw_key_uint(jw, "zero", zeroes);
		} else {
			/* The text's heading counts the entries: they go first. */
			lines.out = open_memstream(&lbuf, &llen);
			if (!lines.out) {
				*p->err = -ENOMEM;
				return;
			}
			put_entries(&lines, &r, &entries, &zeroes);
			fclose(lines.out);
			fprintf(p->out, "map %s (%s, %zu entr%s", name,
				map_type_name(type), entries, entries == 1 ? "y" : "ies");
			if (zeroes)
				fprintf(p->out, ", %zu zero", zeroes);
			fprintf(p->out, "):\n%s", lbuf);
			free(lbuf);
		}
	}
	if (jw)
		jw_end_object(jw);
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

int print_record(FILE *out, bool json, const char *map,
		 const struct btf *btf, __u32 id, const void *data,
		 size_t size)
{
	struct json_writer w;
	int err = 0;
	struct printer p = {
		.out = out, .jw = json ? &w : NULL, .btf = btf, .err = &err,
	};

	if (p.jw) {
		jw_begin_record(&w, out, "record");
		jw_key_string(&w, "map", map);
		jw_key(&w, "data");
	} else {
		fprintf(out, "%s: ", map);
	}
	/* A record shorter than its type is shown as it is: in hex. */
	put_value(&p, id, data, size, 0);
	if (p.jw)
		jw_end_object(&w);
	else
		fputc('\n', out);
	return err;
}

int dump_maps(FILE *out, bool json, struct bpf_object *obj,
	      const char *stamp)
{
	struct json_writer w;
	int err = 0;
	struct printer p = {
		.out = out, .jw = json ? &w : NULL, .btf = bpf_object__btf(obj),
		.err = &err,
	};
	struct bpf_map *map;

	if (p.jw) {
		jw_begin_record(&w, out, "maps");
		if (stamp)
			jw_key_string(&w, "time", stamp);
		else
			jw_key_bool(&w, "final", true);
		jw_key(&w, "maps");
		jw_begin_array(&w);
	} else if (stamp) {
		fprintf(out, "@ %s\n", stamp);
	}
	bpf_object__for_each_map(map, obj) {
		const char *name = bpf_map__name(map);

		/* Constants the program was loaded with are not results. */
		if (ends_with(name, ".rodata") || ends_with(name, ".kconfig"))
			continue;
		dump_map(&p, map);
	}
	if (p.jw) {
		jw_end_array(&w);
		jw_end_object(&w);
	}
	return err;
}
