#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kview-perf.sh: a program in one process's view does not silence a global
# perf user of the same tracepoint.  Debian's `perf stat -a` counts the
# marked reads (read(fd, buf, 7)) of a workload it runs, while `kview
# attach` holds a syscalls/sys_enter_read program in the view of another
# process doing marked reads forever: perf must count exactly the
# workload's reads (the traced process's are its view program's to drop,
# as any program returning 0 drops them in mainline).  Then the same
# without the view: perf counts the workload's and the traced process's.
set -u
B=${KVIEW_BUILD:?}
# shellcheck source=tests/lib/guest.sh
. "$(dirname "$0")/../lib/guest.sh"
K=$B/userspace/kview
OBJ=$B/tests/bpf/readtp.bpf.o
W=$B/tests/guest/workload
N=3000

command -v perf >/dev/null || { bad "no perf (Debian's linux-perf)"; exit 1; }

# perf stat -a on sys_enter_read, marked reads only, around `workload reads N`.
perf_count() {
	perf stat -x, -a -e syscalls:sys_enter_read --filter 'count == 7' \
		-- "$W" reads $N 2>&1 >/dev/null |
		awk -F, '/sys_enter_read/ { print $1 }'
}

"$W" spin & T=$!
"$K" attach --pid "$T" --duration 600 "$OBJ" >"$KVIEW_RESULTS/perf-attach.out" 2>&1 &
A=$!
views_wait 'any(.[].attachments[]; .kind == "tracepoint")' || bad "the view program did not attach"

with=$(perf_count)
say "perf stat -a, marked reads of a $N-read workload, while $T's view traces the tracepoint: $with"
[ "$with" = "$N" ] || bad "perf counted '$with' marked reads, expected $N (the workload's)"

kill -INT $A
wait $A
say "kview attach: exit $?"
sed 's/^/#   /' "$KVIEW_RESULTS/perf-attach.out"
grep -q "{$T}: [1-9]\|: [1-9]" "$KVIEW_RESULTS/perf-attach.out" || bad "the view program counted nothing"

without=$(perf_count)
say "the same without the view: $without"
[ -n "$without" ] && [ "$without" -gt "$N" ] 2>/dev/null ||
	bad "without the view perf counted '$without', expected more than $N"

kill $T
wait $T 2>/dev/null
[ $fails = 0 ]
