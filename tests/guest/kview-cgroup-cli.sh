#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kview-cgroup-cli.sh: kview exec --cgroup and kview attach --cgroup.  Two
# cgroups, a and b under /sys/fs/cgroup/kview-cli, run the same workload
# (workload openspin: opens /dev/null every 10 ms).  Unmodified bpftrace
# under `kview exec --cgroup kview-cli/a` counts a's opens only: a's
# process, one started in a after bpftrace attached, and the first no more
# once it is moved to b (its events are keyed by bpftrace's `cgroup`, so a
# single one of them after the move shows up as b's cgroup id).  opensnoop
# on b then shows b's processes, the moved one included; -m pre (a filter
# view on a cgroup) a's only; kview attach --cgroup a's only, its -j record
# naming the cgroup, and not a process of a pid view moved into a, which
# stays in its view and is counted as skipped.  kview list shows each
# cgroup view's cgroup (path, id) and skipped count.  Bad input and
# what the kernel refuses (the root cgroup, a threaded cgroup, nested
# cgroup views, no CAP_SYS_ADMIN) are one-line errors naming the cgroup.
set -u
B=${KVIEW_BUILD:?}
# shellcheck source=tests/lib/guest.sh
. "$(dirname "$0")/../lib/guest.sh"
K=$B/userspace/kview
W=$B/tests/guest/workload
R=$KVIEW_RESULTS
TOOL_OUT=$R/cgcli
CG=/sys/fs/cgroup
P=$CG/kview-cli CA=$CG/kview-cli/a CB=$CG/kview-cli/b TH=$CG/kview-cli-t
PIDS=()

for tool in bpftrace opensnoop jq setpriv; do
	command -v $tool >/dev/null || { bad "no $tool"; exit 1; }
done

cleanup() {
	local d
	[ ${#PIDS[@]} = 0 ] || kill -9 "${PIDS[@]}" 2>/dev/null
	wait 2>/dev/null
	for d in "$CA/sub" "$CA" "$CB" "$P" "$TH/x" "$TH"; do
		[ ! -d "$d" ] || rmdir "$d" || bad "cannot remove cgroup $d"
	done
}
trap cleanup EXIT

# in_cgroup DIR: start workload openspin in cgroup DIR; $! is its pid (the
# shell moves itself in, then becomes the workload).
in_cgroup() {
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" openspin' sh "$1" "$W" &
	PIDS+=($!)
}

# expect_error "what" "message regex" kview-args...: exit 1, one line.
# (stats_clean after them: a view is up during the nesting checks.)
expect_error() {
	local what=$1 re=$2 out rc
	shift 2
	out=$("$K" "$@" 2>&1 >/dev/null)
	rc=$?
	say "$what: exit $rc: $out"
	[ $rc = 1 ] || bad "$what: exit $rc, expected 1"
	[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || bad "$what: not one line of error"
	[[ $out =~ ^kview:\ .*$re ]] || bad "$what: message does not match '$re'"
}

mkdir -p "$CA" "$CB" || { bad "cannot make the cgroups under $P"; exit 1; }
IDA=$(stat -c %i "$CA") IDB=$(stat -c %i "$CB")
in_cgroup "$CA"
A1=$!
in_cgroup "$CB"
B1=$!
say "cgroup a (id $IDA): pid $A1; cgroup b (id $IDB): pid $B1"

# The options, and what the kernel refuses.
"$K" exec --help | grep -q -- '--cgroup PATH' || bad "kview exec --help says nothing of --cgroup"
"$K" attach --help | grep -q -- '--cgroup PATH' || bad "kview attach --help says nothing of --cgroup"
O=$B/userspace/examples/syscall_count.bpf.o
expect_error "cgroup and pid" "exec needs one of --pid N, -c COMMAND, --cgroup PATH or --container ID" \
	exec --pid $A1 --cgroup kview-cli/a -- true
expect_error "cgroup and -c" "attach needs one of --pid N, -c COMMAND, --cgroup PATH or --container ID" \
	attach -c true --cgroup kview-cli/a "$O"
expect_error "cgroup and --follow-fork" "--follow-fork and --follow-exec do not go with --cgroup" \
	exec --cgroup kview-cli/a --follow-fork -- true
expect_error "cgroup and --follow-exec" "--follow-fork and --follow-exec do not go with --cgroup" \
	attach -e --cgroup kview-cli/a "$O"
expect_error "empty cgroup" "--cgroup wants a cgroup directory, got an empty path" exec --cgroup '' -- true
expect_error "no such cgroup" "cgroup $P/nope: No such file or directory" exec --cgroup kview-cli/nope -- true
expect_error "a file" "$CA/cgroup.procs is not a cgroup v2 directory \(not a directory\)" \
	exec --cgroup kview-cli/a/cgroup.procs -- true
expect_error "not cgroup2" "/tmp is not a cgroup v2 directory \(not on a cgroup2 file system\)" \
	attach --cgroup /tmp "$O"
expect_error "the root cgroup" "$CG is the root cgroup" exec --cgroup $CG -- true
{ mkdir -p "$TH/x" && echo threaded >"$TH/x/cgroup.type"; } || bad "cannot make the threaded cgroup $TH/x"
expect_error "a threaded cgroup" "$TH/x is a threaded cgroup" exec --cgroup kview-cli-t/x -- true
out=$(setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin "$K" exec --cgroup kview-cli/a -- true 2>&1)
say "without CAP_SYS_ADMIN: $out"
[[ $out == "kview: permission denied: a view on cgroup $CA needs CAP_SYS_ADMIN" ]] ||
	bad "without CAP_SYS_ADMIN: not the permission error"
out=$("$K" -j exec --cgroup kview-cli-t/x -- true 2>&1)
[ "$(jq -r .message <<<"$out")" = "$TH/x is a threaded cgroup: a view takes whole processes, whose threads may sit in different cgroups there (trace its threaded domain)" ] ||
	bad "-j: not one JSON error naming the threaded cgroup: $out"
stats_clean "the refusals"
# Cgroup views do not nest: with a view on a, none on a, on a's child or
# on a's parent.
mkdir "$CA/sub" || bad "cannot make $CA/sub"
"$K" exec -q --cgroup kview-cli/a -- sleep 600 &
E=$!
views_wait 'length == 1' || bad "no view for the nesting checks"
expect_error "the same cgroup twice" "$CA is, or is within or above, the cgroup of another cgroup view" \
	exec --cgroup kview-cli/a -- true
expect_error "a cgroup within" "$CA/sub is, or is within or above" exec --cgroup kview-cli/a/sub -- true
expect_error "a cgroup above" "$P is, or is within or above" attach --cgroup kview-cli "$O"
kill -TERM $E
wait $E
rc=$?
[ $rc = 143 ] || bad "kview exec -- sleep, SIGTERM: exit $rc, expected 143 (the tool's SIGTERM)"
rmdir "$CA/sub"
stats_clean "nesting"

# bpftrace on a: a1, then a2 started after the attach, then a1 moved to b
# (stopped while it moves: a process leaves the view before the write to
# cgroup.procs returns, not at the instant its cgroup changes).
tool_start bpftrace-a 1 "$K" exec --cgroup kview-cli/a -- bpftrace -e \
	'tracepoint:syscalls:sys_enter_openat { @[pid, cgroup] = count(); }'
cgroup_member $A1
cgroup_member $B1 not
list=$("$K" list)
say "kview list:"
printf '%s\n' "$list" | sed 's/^/#   /'
printf '%s\n' "$list" | grep -Eq '^[0-9]+ +cgroup ' || bad "kview list: no view with the flag cgroup"
printf '%s\n' "$list" | grep -qxF "      cgroup $CA (id $IDA), 0 skipped (in a pid view)" ||
	bad "kview list: not the view's cgroup"
views_wait ".[0] | .cgroup == {\"id\": $IDA, \"path\": \"$CA\", \"skipped\": 0} and
	(.filter | not) and (.follow_fork | not)" || bad "kview list -j: not a cgroup view on a: $(views_json)"
in_cgroup "$CA"
A2=$!
cgroup_member $A2
sleep 2
kill -STOP $A1
echo $A1 >"$CB/cgroup.procs" || bad "cannot move $A1 to b"
cgroup_member $A1 not
kill -CONT $A1
sleep 2
tool_stop bpftrace-a
out=$R/cgcli-bpftrace-a.out
grep -Eq "runs in the attach scope of view [0-9]+ on cgroup $CA \(id $IDA\)" "$out" ||
	bad "kview exec did not name the cgroup and its id"
grep -Eq "^@\[$A1, $IDA\]: [1-9]" "$out" || bad "bpftrace: no opens of a's process $A1 before its move"
grep -Eq "^@\[$A2, $IDA\]: [1-9]" "$out" || bad "bpftrace: no opens of $A2, started in a after the attach"
grep -E '^@\[' "$out" | grep -Ev "^@\[($A1|$A2), $IDA\]: " | sed 's/^/#   not a'"'"'s: /' | grep . &&
	bad "bpftrace: events of other processes or cgroups (b's id is $IDB)"
stats_clean "bpftrace on a cgroup"

# opensnoop_only NAME FLAGS "PID..." KVIEW-EXEC-OPTIONS...: opensnoop
# (libbpf-tools) under kview exec, for 2 s: kview list shows a view with
# FLAGS, and opensnoop the opens of each PID and of no other process.
opensnoop_only() {
	local name=$1 flags=$2 pids=$3 p out=$R/cgcli-$1.out
	shift 3
	tool_start "$name" 2 "$K" exec "$@" -- opensnoop
	"$K" list | grep -Eq "^[0-9]+ +$flags " || bad "$name: kview list shows no view with the flags $flags"
	sleep 2
	tool_stop "$name"
	for p in $pids; do
		grep -Eq "^$p +workload " "$out" || bad "$name: no opens of $p"
	done
	grep -E '^[0-9]+ ' "$out" | grep -Ev "^(${pids// /|}) " | sed 's/^/#   not expected: /' | grep . &&
		bad "$name: opens of other processes than $pids"
	stats_clean "$name"
}
# On b: b's process and the one moved in from a, not a2.
opensnoop_only opensnoop-b cgroup "$B1 $A1" --cgroup kview-cli/b
# -m pre: a filter view on a: the hooks are global, the programs run for
# a's processes only (a2 now).
opensnoop_only opensnoop-pre cgroup,filter "$A2" -m pre --cgroup kview-cli/a
grep -qF "runs in the attach scope of filter view" "$R/cgcli-opensnoop-pre.out" || bad "-m pre: not a filter view"

# kview attach --cgroup: until the duration (-j: the cgroup and its id in
# the attached record), and until SIGINT.
"$K" attach -j --cgroup kview-cli/a -d 3 "$O" >"$R/cgcli-attach.out" 2>"$R/cgcli-attach.err"
rc=$?
say "attach -j --cgroup kview-cli/a -d 3: exit $rc"
cut -c 1-300 "$R/cgcli-attach.out" "$R/cgcli-attach.err" | sed 's/^/#   /'
[ $rc = 0 ] || bad "attach --cgroup -d 3: exit $rc"
jq -e -s --arg cg "$CA" --argjson id "$IDA" --argjson a2 "$A2" '
	(.[0] | .type == "attached" and .mode == "kview" and .cgroup == $cg and
		.cgroup_id == $id and (has("pid") | not)) and
	(.[-1] == {"type": "detached", "reason": "the duration is over"}) and
	([.[] | select(.type == "maps") | .maps[] | select(.name == "syscalls") |
		.entries[].key.pid] | unique == [$a2])' "$R/cgcli-attach.out" >/dev/null ||
	bad "attach -j --cgroup: not the attached record of a, or syscalls of others than $A2"
stats_clean "attach --cgroup -d"
# With it, a process in a pid view moved into a stays in its view, and
# the cgroup view counts it as skipped.
tool_start attach-int 1 "$K" attach --cgroup kview-cli/a "$O"
"$W" openspin &
A3=$!
PIDS+=("$A3")
"$K" exec -q --pid $A3 -- sleep 600 &
E=$!
views_wait "length == 2 and any(.[]; .members == [{\"pid\": $A3, \"comm\": \"workload\"}])" ||
	bad "no pid view on $A3: $(views_json)"
echo $A3 >"$CA/cgroup.procs" || bad "cannot move $A3 to a"
views_wait "any(.[]; .cgroup.skipped == 1)" || bad "kview list -j: $A3 not counted as skipped: $(views_json)"
cgroup_member $A3 not
views_wait "any(.[]; (.cgroup | not) and .members[0].pid == $A3)" || bad "$A3 left its pid view"
sleep 1
kill -TERM $E
wait $E
tool_stop attach-int
out=$R/cgcli-attach-int.out
grep -qF "kview: attached 1 program(s) in the kernel view of cgroup $CA (view " "$out" ||
	bad "attach --cgroup: did not say the cgroup it attached in"
grep -qx "kview: tracing until Ctrl-C" "$out" || bad "attach --cgroup: did not say it traces until Ctrl-C"
grep -qx "kview: interrupted: detaching" "$out" || bad "attach --cgroup: not detached on SIGINT"
grep -Eq "^  \{pid=$A2, nr=[0-9]+\}: [1-9]" "$out" || bad "attach --cgroup: no syscalls of $A2"
grep -E '^  \{pid=' "$out" | grep -Ev "^  \{pid=$A2," | grep -q . && bad "attach --cgroup: syscalls of others"
stats_clean "attach --cgroup, SIGINT"

trap - EXIT
cleanup
[ $fails = 0 ] || { echo "# $fails failure(s)"; exit 1; }
