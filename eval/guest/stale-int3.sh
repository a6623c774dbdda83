#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# eval/guest/stale-int3.sh SECONDS: the guest side of eval/qemu-stale-int3.
#
# No kview here: a tracefs kprobe on ksys_read, whose first instruction is
# the function's ftrace site, so the kprobe is armed and disarmed through
# ftrace, i.e. by text_poke_bp()'s protocol (int3 on the first byte, the
# rest, the first byte; every CPU serialized after each step).  It is
# enabled and disabled in a loop for SECONDS while a dd on each CPU runs
# ksys_read a byte at a time.  The kprobe stays registered the whole time,
# so an int3 a CPU executes at ksys_read after text_poke_bp() has finished
# reaches kprobe_int3_handler() with a kprobe that has no instruction slot
# (an ftrace-based one): mainline 6.1 single-steps it from address 0.  On
# hardware no CPU can execute that int3 once text_poke_bp() has returned.
#
# Prints "stale-int3: N enable/disable cycles in Ss" and exits 0 when the
# guest survived.
set -eu
secs=${1:?usage: stale-int3.sh SECONDS}
T=/sys/kernel/tracing
ev=$T/events/staleint3/ksys_read

echo 'p:staleint3/ksys_read ksys_read' >>"$T/kprobe_events"
echo 1 >"$ev/enable"
# The probe must be one ftrace arms, or this measures something else.
if ! grep -q 'ksys_read+0x0 .*\[FTRACE\]' /sys/kernel/debug/kprobes/list; then
	echo "stale-int3: the kprobe on ksys_read is not ftrace-based:" >&2
	cat /sys/kernel/debug/kprobes/list >&2
	exit 1
fi
echo 0 >"$ev/enable"
echo 0 >"$T/tracing_on"	# the records are not the point; keep the buffer idle

readers=()
for cpu in 0 1; do
	taskset -c "$cpu" dd if=/dev/zero of=/dev/null bs=1 2>/dev/null &
	readers+=($!)
done

n=0
end=$((SECONDS + secs))
while [ "$SECONDS" -lt "$end" ]; do
	echo 1 >"$ev/enable"
	echo 0 >"$ev/enable"
	n=$((n + 1))
done

kill "${readers[@]}"
wait "${readers[@]}" 2>/dev/null || true
echo "-:staleint3/ksys_read" >>"$T/kprobe_events"
echo 1 >"$T/tracing_on"
echo "stale-int3: $n enable/disable cycles in ${secs}s"
