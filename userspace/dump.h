/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kview's BTF printer (dump.c): maps and streamed records, as text or as
 * JSON lines.  It writes where it is told, in the form it is told, and
 * returns its errors: it knows nothing of the CLI's options or messages.
 */
#ifndef KVIEW_DUMP_H
#define KVIEW_DUMP_H

#include <stdbool.h>
#include <stdio.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

/*
 * Print the maps of @obj (BTF-decoded where possible) on @out, after
 * "@ @stamp" if @stamp (an interval's dump); with @json one JSON line.
 * 0, or -ENOMEM (what could be printed was).
 */
int dump_maps(FILE *out, bool json, struct bpf_object *obj,
	      const char *stamp);
/* The BTF type of ring buffer @map's records (0: none, hex). */
__u32 record_type(const struct btf *btf, const char *map, bool only);
/*
 * One record of ring buffer @map: "map: {field=value, ...}" on @out, or
 * with @json {"type":"record","map":...,"data":...}.  0, or -ENOMEM.
 */
int print_record(FILE *out, bool json, const char *map,
		 const struct btf *btf, __u32 id, const void *data,
		 size_t size);

#endif
