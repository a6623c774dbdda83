#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hook-path, guest side (eval/hook-path boots it): a dd whose reads hit a
# kprobe on FUNC attached globally by bpftrace, then a dd traced by the
# same bpftrace program in its kernel view (kview exec).  The host, attached
# with gdb, single-steps hits of each: the dds are told apart by name.
#
#   hook-path.sh FUNC GOFILE [PROBE] [COUNT]     (PROBE: kprobe, kfunc or tracepoint)
set -eu
func=$1 go=$2 probe=${3:-kprobe} count=${4:-3000}
root=$(cd "$(dirname "$0")/../.." && pwd)
kview=$root/build/userspace/kview
prog="$probe:$func { @ = count(); }"

cp /bin/dd /tmp/hp-global
cp /bin/dd /tmp/hp-view

echo "hook-path: ready"
for _ in $(seq 600); do [ -e "$go" ] && break; sleep 1; done
[ -e "$go" ] || { echo "hook-path: the host never attached" >&2; exit 1; }

echo "hook-path: global"
bpftrace -e "$prog" >/tmp/hp-bpftrace.out 2>&1 &
bt=$!
for _ in $(seq 120); do grep -q '^Attaching' /tmp/hp-bpftrace.out && break; sleep 1; done
grep -q '^Attaching' /tmp/hp-bpftrace.out || { cat /tmp/hp-bpftrace.out >&2; exit 1; }
sleep 1
/tmp/hp-global if=/dev/zero of=/dev/null bs=1 count="$count" 2>/dev/null
kill -INT $bt
wait $bt

echo "hook-path: view"
"$kview" exec -c "/tmp/hp-view if=/dev/zero of=/dev/null bs=1 count=$count 2>/dev/null" \
	-- bpftrace -e "$prog" >/tmp/hp-bpftrace.out 2>&1 ||
	{ cat /tmp/hp-bpftrace.out >&2; exit 1; }
echo "hook-path: done"
