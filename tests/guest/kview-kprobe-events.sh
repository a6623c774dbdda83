#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kview-kprobe-events.sh: tracefs kprobe and kretprobe events with fetch
# arguments (as perf probe and the tracing documentation make them), made,
# hit, deleted and made again on a kview kernel, with a view alive and
# without.  struct trace_kprobe keeps the view of the perf event that made
# it; its tp.args[] run past the end of the structure, so a field after tp
# is the first argument's memory: deleting such an event dropped a "view"
# reference on the argument's fetch code (an Oops in __queue_work() from
# kview_put(), found by the memcached driver's slab census).  Any Oops,
# refcount warning or KASAN report fails the run.
set -u
B=${KVIEW_BUILD:?}
# shellcheck source=tests/lib/guest.sh
. "$(dirname "$0")/../lib/guest.sh"
T=/sys/kernel/tracing

# shellcheck disable=SC2016 # $retval is tracefs's, not the shell's
defs=(
	'p:kvtest/deref vfs_read s=+0(+96(%di)):string'
	'p:kvtest/regs vfs_read file=%di:x64 count=%dx:u64'
	'r:kvtest/ret vfs_read ret=$retval:s64'
	'p:kvtest/many ksys_read fd=%di:s32 buf=%si:x64 n=%dx:u64 s=+0(%si):string c=+0(%si):u8'
)

# One round: make the events, hit them, check the trace, delete them.
round() {
	local d n
	for d in "${defs[@]}"; do
		echo "$d" >>$T/kprobe_events || bad "$1: cannot make '$d'"
	done
	echo 1 >$T/events/kvtest/enable || bad "$1: cannot enable kvtest"
	dd if=/dev/zero of=/dev/null bs=1 count=16 2>/dev/null
	echo 0 >$T/events/kvtest/enable
	for n in deref regs ret many; do
		grep -q " $n: " $T/trace || bad "$1: no $n event in the trace"
	done
	for d in "${defs[@]}"; do
		n=${d%% *}
		echo "-:${n#*:}" >>$T/kprobe_events || bad "$1: cannot delete ${n#*:}"
	done
	[ -d $T/events/kvtest ] && bad "$1: kvtest events left after the delete"
	echo >$T/trace
}

for i in 1 2 3; do
	round "without a view, round $i"
done

# The same with a view alive: a sleeping process's, held by kview exec
# while its "tool" (another sleep) runs.
sleep 60 &
P=$!
"$B/userspace/kview" exec -q --pid $P -- sleep 30 &
V=$!
views_wait 'length > 0' || bad "no view came up"
for i in 1 2 3; do
	round "with a view, round $i"
done
kill $V $P 2>/dev/null
wait $V $P 2>/dev/null
say "kprobe events with arguments made and deleted 6 times"
[ $fails = 0 ]
