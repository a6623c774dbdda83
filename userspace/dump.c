// SPDX-License-Identifier: GPL-2.0
/*
 * Print the maps of a BPF object: keys and values decoded with the
 * object's BTF (btf_dump__dump_type_data()) where it describes them, hex
 * otherwise.  Per-CPU values are shown per CPU and summed when they are
 * integers.  An array of integers whose name ends in "log2" or "hist" is
 * a log2 histogram, as bcc's tools keep them (slot i counts values in
 * [2^i, 2^(i+1)), slot 0 also 0), and is drawn as one.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "kview-cli.h"

struct strbuf {
	char *s;
	size_t len, cap;
};

static void sb_vprintf(struct strbuf *sb, const char *fmt, va_list args)
{
	va_list copy;
	int n;

	va_copy(copy, args);
	n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		return;
	if (sb->len + n + 1 > sb->cap) {
		size_t cap = (sb->len + n + 1) * 2;
		char *s = realloc(sb->s, cap);

		if (!s)
			return;
		sb->s = s;
		sb->cap = cap;
	}
	vsnprintf(sb->s + sb->len, n + 1, fmt, args);
	sb->len += n;
}

static void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(sb, fmt, ap);
	va_end(ap);
}

/* Where btf_dump's output goes: the buffer of the line being built. */
static struct strbuf *btf_out;

static void btf_print(void *ctx, const char *fmt, va_list args)
{
	(void)ctx;
	if (btf_out)
		sb_vprintf(btf_out, fmt, args);
}

static void hex(struct strbuf *sb, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < len; i++)
		sb_printf(sb, "%s%02x", i ? " " : "", p[i]);
}

static bool is_int(const struct btf *btf, __u32 id, size_t size)
{
	const struct btf_type *t;

	if (!btf || !id)
		return size == 4 || size == 8;
	id = btf__resolve_type(btf, id);
	t = btf__type_by_id(btf, id);
	return t && (btf_is_int(t) || btf_is_enum(t));
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
 * The common shapes, compactly: integers, enums, char arrays as strings,
 * arrays, structs as {name=value, ...}.  false: leave it to btf_dump.
 */
static bool fmt_btf(struct strbuf *sb, const struct btf *btf, __u32 id,
		    const void *data, int depth)
{
	const struct btf_type *t;
	const struct btf_member *m;
	const struct btf_array *arr;
	const struct btf_type *et;
	__u32 i, n, esz;

	id = btf__resolve_type(btf, id);
	t = btf__type_by_id(btf, id);
	if (!t || depth > 4)
		return false;
	if (btf_is_int(t)) {
		__u8 enc = btf_int_encoding(t);

		if (btf_int_offset(t) || btf_int_bits(t) != t->size * 8)
			return false;
		if (enc & BTF_INT_BOOL)
			sb_printf(sb, "%s", as_u64(data, t->size) ? "true" : "false");
		else if (enc & BTF_INT_SIGNED)
			sb_printf(sb, "%lld", t->size == 8 ? *(const long long *)data :
				  t->size == 4 ? *(const int *)data :
				  t->size == 2 ? *(const short *)data :
				  *(const signed char *)data);
		else
			sb_printf(sb, "%llu", as_u64(data, t->size));
		return true;
	}
	if (btf_is_enum(t)) {
		const struct btf_enum *e = btf_enum(t);
		unsigned long long v = as_u64(data, t->size);

		for (i = 0; i < btf_vlen(t); i++) {
			if ((__u32)v == (__u32)e[i].val) {
				sb_printf(sb, "%s", btf__name_by_offset(btf, e[i].name_off));
				return true;
			}
		}
		sb_printf(sb, "%llu", v);
		return true;
	}
	if (btf_is_ptr(t)) {
		sb_printf(sb, "0x%llx", as_u64(data, 8));
		return true;
	}
	if (btf_is_array(t)) {
		arr = btf_array(t);
		et = btf__type_by_id(btf, btf__resolve_type(btf, arr->type));
		n = arr->nelems;
		if (!et)
			return false;
		esz = btf__resolve_size(btf, arr->type);
		if (btf_is_int(et) && et->size == 1 &&
		    (btf_int_encoding(et) & BTF_INT_CHAR ||
		     !strcmp(btf__name_by_offset(btf, et->name_off), "char"))) {
			const char *s = data;

			sb_printf(sb, "\"");
			for (i = 0; i < n && s[i]; i++)
				sb_printf(sb, s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' ?
					  "%c" : "\\x%02x", (unsigned char)s[i]);
			sb_printf(sb, "\"");
			return true;
		}
		sb_printf(sb, "[");
		for (i = 0; i < n; i++) {
			sb_printf(sb, "%s", i ? ", " : "");
			if (!fmt_btf(sb, btf, arr->type, (const char *)data + i * esz,
				     depth + 1))
				return false;
		}
		sb_printf(sb, "]");
		return true;
	}
	if (btf_is_struct(t)) {
		m = btf_members(t);
		sb_printf(sb, "{");
		for (i = 0; i < btf_vlen(t); i++) {
			if (btf_member_bitfield_size(t, i) ||
			    btf_member_bit_offset(t, i) % 8)
				return false;
			sb_printf(sb, "%s%s=", i ? ", " : "",
				  btf__name_by_offset(btf, m[i].name_off));
			if (!fmt_btf(sb, btf, m[i].type, (const char *)data +
				     btf_member_bit_offset(t, i) / 8, depth + 1))
				return false;
		}
		sb_printf(sb, "}");
		return true;
	}
	return false;
}

/* One key or value: BTF-decoded if we can, hex if not. */
static void show(struct strbuf *sb, const struct btf *btf, struct btf_dump *d,
		 __u32 id, const void *data, size_t size)
{
	const struct btf_type *t;
	size_t start = sb->len;

	if (btf && id) {
		if (fmt_btf(sb, btf, id, data, 0))
			return;
		sb->len = start;
		if (sb->s)
			sb->s[start] = '\0';
	}
	if (btf && d && id) {
		LIBBPF_OPTS(btf_dump_type_data_opts, o, .compact = true,
			    .emit_zeroes = true);
		__u32 rid = btf__resolve_type(btf, id);

		t = btf__type_by_id(btf, rid);
		/* Scalars without the "(type)" prefix; names for structs. */
		o.skip_names = t && (btf_is_int(t) || btf_is_enum(t) ||
				     btf_is_ptr(t));
		btf_out = sb;
		if (btf_dump__dump_type_data(d, id, data, size, &o) >= 0) {
			btf_out = NULL;
			return;
		}
		btf_out = NULL;
		sb->len = start;
		if (sb->s)
			sb->s[start] = '\0';
	}
	if (size == 4 || size == 8)
		sb_printf(sb, "%llu", as_u64(data, size));
	else
		hex(sb, data, size);
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

static void dump_map(FILE *out, struct bpf_map *map, const struct btf *btf,
		     struct btf_dump *d)
{
	enum bpf_map_type type = bpf_map__type(map);
	size_t ksz = bpf_map__key_size(map), vsz = bpf_map__value_size(map);
	__u32 kid = bpf_map__btf_key_type_id(map);
	__u32 vid = bpf_map__btf_value_type_id(map);
	int fd = bpf_map__fd(map), ncpus = 1, cpu;
	bool percpu = is_percpu(type), first = true;
	size_t stride = vsz, entries = 0, zeroes = 0;
	void *key = NULL, *next, *value;
	struct strbuf sb = { 0 };
	unsigned long long sum;

	if (is_log2_hist(map, btf)) {
		dump_log2_hist(out, map);
		return;
	}
	if (type == BPF_MAP_TYPE_RINGBUF || type == BPF_MAP_TYPE_PERF_EVENT_ARRAY) {
		fprintf(out, "map %s (%s): its records are printed as they arrive\n",
			bpf_map__name(map), map_type_name(type));
		return;
	}
	if (!dumpable(type)) {
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
	value = calloc(ncpus, stride);
	if (!next || !key || !value)
		die("out of memory");

	while (bpf_map_get_next_key(fd, first ? NULL : key, next) == 0) {
		first = false;
		memcpy(key, next, ksz);
		if (bpf_map_lookup_elem(fd, key, value))
			continue;
		entries++;
		/* Arrays have every slot: leave out the empty ones. */
		if ((type == BPF_MAP_TYPE_ARRAY || type == BPF_MAP_TYPE_PERCPU_ARRAY) &&
		    all_zero(value, percpu ? ncpus * stride : vsz)) {
			zeroes++;
			continue;
		}
		sb_printf(&sb, "  ");
		show(&sb, btf, d, kid, key, ksz);
		sb_printf(&sb, ": ");
		if (!percpu) {
			show(&sb, btf, d, vid, value, vsz);
		} else {
			sum = 0;
			sb_printf(&sb, "[");
			for (cpu = 0; cpu < ncpus; cpu++) {
				void *v = (char *)value + cpu * stride;

				sb_printf(&sb, "%s", cpu ? ", " : "");
				show(&sb, btf, d, vid, v, vsz);
				sum += as_u64(v, vsz);
			}
			sb_printf(&sb, "]");
			if (is_int(btf, vid, vsz))
				sb_printf(&sb, " sum %llu", sum);
		}
		sb_printf(&sb, "\n");
	}
	fprintf(out, "map %s (%s, %zu entr%s", bpf_map__name(map),
		map_type_name(type), entries, entries == 1 ? "y" : "ies");
	if (zeroes)
		fprintf(out, ", %zu zero", zeroes);
	fprintf(out, "):\n%s", sb.s ? sb.s : "");
	free(sb.s);
	free(value);
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
	static const struct btf *dumped;
	static struct btf_dump *d;
	struct strbuf sb = { 0 };

	if (btf && btf != dumped) {
		btf_dump__free(d);
		d = btf_dump__new(btf, btf_print, NULL, NULL);
		dumped = btf;
	}
	/* A record shorter than its type is shown as it is: in hex. */
	if (id && btf__resolve_size(btf, id) > (long)size)
		id = 0;
	show(&sb, btf, d, id, data, size);
	fprintf(out, "%s: %s\n", map, sb.s ? sb.s : "");
	free(sb.s);
}

void dump_maps(FILE *out, struct bpf_object *obj)
{
	struct btf *btf = bpf_object__btf(obj);
	struct btf_dump *d = NULL;
	struct bpf_map *map;

	if (btf)
		d = btf_dump__new(btf, btf_print, NULL, NULL);
	bpf_object__for_each_map(map, obj) {
		const char *name = bpf_map__name(map);
		size_t len = strlen(name);

		/* Constants the program was loaded with are not results. */
		if (len > 7 && !strcmp(name + len - 7, ".rodata"))
			continue;
		if (len > 6 && !strcmp(name + len - 6, ".kconfig"))
			continue;
		dump_map(out, map, btf, d);
	}
	btf_dump__free(d);
}
