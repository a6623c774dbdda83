#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# eval-smoke.sh: the evaluation's guest drivers, at the smallest scale, so
# that `make eval` cannot rot unnoticed.  Behaviour only, no timings: each
# driver exits 0 (they check themselves that every program or tool saw the
# traced process's events, and that script 09 in a view counted exactly the
# traced dd's reads), writes the rows it should, and leaves no view behind.
set -u
B=${KVIEW_BUILD:?}
# shellcheck source=tests/lib/guest.sh
. "$(dirname "$0")/../lib/guest.sh"
E=$B/eval/guest
out=$(mktemp -d)
rows() { awk -F, -v m="$2" 'NR > 1 && $0 ~ m' "$1" | wc -l; }
# phase WHAT: how long the part before took (the test's time goes to make
# test's 60 minutes).
t0=$SECONDS
phase() { say "$1: $((SECONDS - t0)) s"; t0=$SECONDS; }

# The warm-up round alone (ROUNDS 0): 5 runs at N=16, whose census names
# every hook; the measured rounds and other Ns run the same code.
"$E/memcached" 0 1 16 none,post,in,pre,kview "$out/mc.csv" "$out/census.csv" >/dev/null ||
	bad "memcached driver failed"
[ "$(rows "$out/mc.csv" .)" = 5 ] || bad "memcached: $(rows "$out/mc.csv" .) rows, expected 5"
[ "$(rows "$out/census.csv" .)" = 16 ] || bad "census: $(rows "$out/census.csv" .) hooks, expected 16"
awk -F, 'NR > 1 && $3 == "kview" && ($22 == 0 || $25 == 0) { exit 1 }' "$out/mc.csv" ||
	bad "memcached: a kview run without patched sites or view memory"
phase "memcached, 5 modes"

# The controls: each runs, writes its row, attaches nothing (the warm-up
# round alone: ROUNDS 0).
"$E/memcached" 0 1 1 loaded,maps,ringbuf,arrays,unloaded,rawmap,mmapmap,btf "$out/mcc.csv" >/dev/null ||
	bad "memcached driver failed on the controls"
[ "$(rows "$out/mcc.csv" .)" = 8 ] || bad "memcached controls: $(rows "$out/mcc.csv" .) rows, expected 8"
awk -F, 'NR > 1 && ($16 != 0 || $22 != 0) { exit 1 }' "$out/mcc.csv" ||
	bad "memcached: a control run counted events or patched text"
# The other BTF controls share these two's code (smallbtf, btf2k: btf4k's),
# the other key controls key1k's; with the slab census and the ballast
# (two rounds: the second holds objs_per_slab / 2 kmalloc-1k objects).
"$E/memcached" --slabs "$out/slabs.csv" --ballast 2 1 1 opened,btf4k,key1k "$out/mcb.csv" >/dev/null ||
	bad "memcached driver failed on the BTF and key controls"
[ "$(rows "$out/mcb.csv" .)" = 9 ] || bad "memcached BTF and key controls: $(rows "$out/mcb.csv" .) rows, expected 9"
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ b[$c["round"]] += $c["ballast"] } END { exit !(b[0] == 0 && b[1] == 0 && b[2] > 0) }' "$out/mcb.csv" ||
	bad "memcached --ballast: round 2 held no ballast, or rounds 0 and 1 did"
# The census saw memcached's requests: an allocation size every request
# takes (the skb heads: kmalloc-1k on 6.1, skbuff_small_head since 6.3)
# and SLUB's slow paths, by cache name.
awk -F, '($5 == "kmalloc" || $5 == "kmem_cache_alloc") && $7 > $8 { k = 1 }
	$5 ~ /^slab_/ && $6 ~ /^[a-z]/ && $7 > 0 { s = 1 } END { exit !(k && s) }' "$out/slabs.csv" ||
	bad "memcached --slabs: no allocation per request or no slow path by cache in $(wc -l <"$out/slabs.csv") rows"
! grep -q kview_slab /sys/kernel/tracing/kprobe_events ||
	bad "memcached --slabs left its kprobe events behind"
phase "memcached, controls"

# The fentry hook set: the function hooks as BPF trampolines, N = 16 (all
# 16 hooks, 8 of them fentry programs: 8 trampoline sites in the view); the
# warm-up round alone.
"$E/memcached" --fentry 0 1 16 in,kview "$out/mcf.csv" "$out/censusf.csv" >/dev/null ||
	bad "memcached --fentry driver failed"
[ "$(rows "$out/mcf.csv" .)" = 2 ] || bad "memcached --fentry: $(rows "$out/mcf.csv" .) rows, expected 2"
[ "$(rows "$out/censusf.csv" ',fentry,')" = 8 ] ||
	bad "census --fentry: $(rows "$out/censusf.csv" ',fentry,') fentry hooks, expected 8"
awk -F, 'NR > 1 && $3 == "kview" && $4 == 16 && $22 < 8 { exit 1 }' "$out/mcf.csv" ||
	bad "memcached --fentry: a kview run with fewer than 8 patched sites"
phase "memcached --fentry"

"$E/per-event" 1 2000 "$out/pe.csv" 02 06 09 20 >/dev/null || bad "per-event driver failed"
# control + 02 (global, kview) + 06 (global only) + 09 (global, kview) +
# 20 (fexit: global, kview), twice.
[ "$(rows "$out/pe.csv" .)" = 16 ] || bad "per-event: $(rows "$out/pe.csv" .) rows, expected 16"
[ "$(rows "$out/pe.csv" ',06,uprobe,kview,')" = 0 ] || bad "per-event: uprobe ran in a view"
phase "per-event"

"$E/attach" 1 4 "$out/at.csv" "$out/text.csv" >/dev/null || bad "attach driver failed"
# 2 rounds x 5 series x N in 1,2,4 x 2 modes; 4 series on a kernel without
# kprobe_multi (no fprobe: Debian's 6.1).
series=5
grep -q ' register_fprobe$' /proc/kallsyms || series=4
[ "$(rows "$out/at.csv" .)" = $((series * 12)) ] ||
	bad "attach: $(rows "$out/at.csv" .) rows, expected $((series * 12))"
awk -F, 'NR > 1 && $3 == "spread" && $4 == "kview" && $11 != $5 { exit 1 }' "$out/at.csv" ||
	bad "attach: a spread view without one private page per probe"
awk -F, 'NR > 1 && $3 == "multi" && $4 == "kview" && $10 != $5 { exit 1 }' "$out/at.csv" ||
	bad "attach: a kprobe_multi link in a view without one site per function"
awk -F, 'NR > 1 && $3 == "fentry" && $4 == "kview" && $10 != $5 { exit 1 }' "$out/at.csv" ||
	bad "attach: fentry programs in a view without one site per function"
awk -F, 'NR > 1 && $3 == "fentry-same" && $4 == "kview" && $10 != 1 { exit 1 }' "$out/at.csv" ||
	bad "attach: fentry programs on one function in a view without exactly one site"
phase "attach"

# Debian's bpftrace (a kprobe:tcp_* wildcard) and opensnoop, with their own
# filter and under kview exec: the driver checks each run's output (the
# traced process's events and no other process's) and that each exits 0.
# The warm-up round alone.
"$E/tools" 0 1 bpftrace-wild,opensnoop filter,kview "$out/tools.csv" >/dev/null ||
	bad "tools driver failed"
# none + 2 tools x 2 modes.
[ "$(rows "$out/tools.csv" .)" = 5 ] || bad "tools: $(rows "$out/tools.csv" .) rows, expected 5"
awk -F, 'NR > 1 && $3 != "*" && $16 == 0 { exit 1 }' "$out/tools.csv" ||
	bad "tools: a run whose tool saw no event of the traced process"
phase "tools"

# The containers part (eval/bench-containers): memcached in one runc
# container while syscount's own cgroup filter, then kview exec
# --container, trace the other; the warm-up round alone.
"$(dirname "$0")/../../eval/guest/containers.sh" 0 1 syscount filter,kview "$out/ctr.csv" >/dev/null ||
	bad "containers driver failed"
[ "$(rows "$out/ctr.csv" .)" = 3 ] || bad "containers: $(rows "$out/ctr.csv" .) rows, expected 3"
awk -F, 'NR > 1 && $3 != "*" && $16 == 0 { exit 1 }' "$out/ctr.csv" ||
	bad "containers: a run whose tool saw no event of the traced container"
phase "containers"

for i in $(seq 50); do
	grep -q '^views 0$' /sys/kernel/debug/kview/stats && break
	sleep 0.1
done
grep -q '^views 0$' /sys/kernel/debug/kview/stats ||
	bad "views left behind: $(tr '\n' ' ' </sys/kernel/debug/kview/stats)"
rm -rf "$out"
[ "$fails" = 0 ]
