#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kview-container.sh: kview exec --container and kview attach --container
# on real OCI containers, run by crun, or by runc where the kernel has no
# user namespaces (the test and debug kernels): crun 1.8 cannot start a
# container there (it reads /proc/self/uid_map, which such a kernel does
# not have), runc can; both are asked the same way (list --format json,
# state ID), through $KVIEW_OCI_RUNTIME.  Both use their cgroupfs manager
# (no systemd in the guest).  Each container's bundle is made here under
# /tmp by tests/lib/oci.sh: a root file system of symlinks (bin -> usr/bin,
# ...) with the guest's /usr and the build's tests/guest (the workload)
# bind-mounted read-only, and a config.json from `crun spec` whose cgroup
# is /sys/fs/cgroup/kview-ctr/X, whose namespaces are those of the spec
# the kernel has (the test kernel has no PID or UTS namespaces) and whose
# process is `workload openspin` (opens /dev/null every 10 ms).
#
# Containers kview-a1 and kview-b1 run it.  Unmodified bpftrace under
# `kview exec --container kview-a` (an id prefix) counts the opens in a1's
# cgroup only, keyed by bpftrace's `cgroup`: of its init process, of a
# process exec'd into it (RUNTIME exec) before and one after bpftrace
# attached, and of the first no more once it is moved out of the
# container's cgroup.  opensnoop (line by line, through stdbuf) under
# --container kview-a1 --runtime PATH the same: a process exec'd in after
# it attached shows, one moved out stops showing; on b1 (-j: the note
# names the container) b1's only.  (An exec runs the runtime's own code
# in the container's cgroup before the program, as runc's "runc:[2:INIT]"
# under the exec'd process's pid: it is the container's too, allowed and
# shown.)  kview attach
# --container: the -j attached record names the container and its cgroup;
# a created container (RUNTIME create) is traced from its start.
# What kview refuses: no such container, an ambiguous id prefix (the
# candidates named), a stopped container (in another runtime root:
# --runtime-root), no runtime, two targets, --follow-*, --runtime without
# --container; one line each, exit 1, nothing left.  Containers, cgroups
# and bundles go on every exit, and the root cgroup's controllers the
# runtime enabled.
set -u
B=${KVIEW_BUILD:?}
# shellcheck source=tests/lib/guest.sh
. "$(dirname "$0")/../lib/guest.sh"
# shellcheck source=tests/lib/oci.sh
. "$(dirname "$0")/../lib/oci.sh"
K=$B/userspace/kview
TG=$B/tests/guest
W=$TG/workload
O=$B/userspace/examples/syscall_count.bpf.o
R=$KVIEW_RESULTS
TOOL_OUT=$R/ctr
CG=/sys/fs/cgroup
P=$CG/kview-ctr OUT=$CG/kview-ctr-out
CT=/tmp/kview-ctr
# A second runtime root, for --runtime-root.
RT2=/run/kview-ctr-root
CA=kview-a1 CB=kview-b1 CC=kview-c1 CS=kview-s1
PIDS=()
oci_controllers_save

for tool in crun runc bpftrace opensnoop jq stdbuf unshare; do
	command -v $tool >/dev/null || { bad "no $tool"; exit 1; }
done
oci_runtime
RT=$OCI_RT
[ $RT = crun ] ||
	say "no user namespaces in this kernel: crun 1.8 cannot start a container (it reads /proc/self/uid_map); runc runs them"
export KVIEW_OCI_RUNTIME=$RT
# The comm of the runtime's processes that an exec passes through in the
# container's cgroup before its program runs (runc:[0:PARENT], ...).
RT_EXEC="$RT(:\[[0-9]:[A-Z]+\])?"

cleanup() {
	local id c d
	[ ${#PIDS[@]} = 0 ] || kill -9 "${PIDS[@]}" 2>/dev/null
	wait 2>/dev/null
	for id in $CA $CB $CC; do
		$RT delete -f $id >/dev/null 2>&1
	done
	$RT --root $RT2 delete -f $CS >/dev/null 2>&1
	# What was moved out of a container: not the runtime's any more.
	# shellcheck disable=SC2046
	[ ! -e $OUT/cgroup.procs ] || kill -9 $(cat $OUT/cgroup.procs) 2>/dev/null
	for d in $P/a $P/b $P/c $P/s $P $OUT; do
		for _ in $(seq 50); do
			[ -d $d ] || break
			rmdir $d 2>/dev/null && break
			sleep 0.1
		done
		[ ! -d $d ] || bad "cannot remove cgroup $d"
	done
	# The runtime enabled the root's controllers for its cgroups: as
	# they were.
	c=$(oci_controllers_restore 2>&1) || bad "$c"
	rm -rf $CT $RT2
}
trap cleanup EXIT
trap 'exit 1' TERM INT HUP

oci_namespaces

# bundle NAME ARGS...: an OCI bundle $CT/NAME whose process runs ARGS in
# cgroup kview-ctr/NAME.
bundle() {
	local name=$1
	shift
	oci_bundle "$CT/$name" "/kview-ctr/$name" -b "$TG" -- "$@"
}

# ctr_run [runtime options] ID NAME: run container ID of bundle NAME,
# detached; $CPID is its init process.
ctr_run() {
	local n=$(($# - 1))
	$RT "${@:1:n-1}" run -d --pid-file "$CT/${!n}.pid" --bundle "$CT/${!#}" "${!n}" \
		</dev/null >>"$R/ctr-${!#}.log" 2>&1 || { bad "$RT run ${!n} failed: $(tail -n 3 "$R/ctr-${!#}.log")"; return 1; }
	CPID=$(cat "$CT/${!n}.pid")
}

# ctr_exec ID: another workload openspin in container ID (RUNTIME exec);
# $CPID is it.
ctr_exec() {
	$RT exec -d --pid-file "$CT/exec.pid" "$1" "$W" openspin </dev/null >>"$R/ctr-exec.log" 2>&1 ||
		{ bad "$RT exec $1 failed: $(tail -n 3 "$R/ctr-exec.log")"; return 1; }
	CPID=$(cat "$CT/exec.pid")
}

# move_out PID: to cgroup kview-ctr-out (stopped while it moves: a process
# leaves the view before the write to cgroup.procs returns).
move_out() {
	kill -STOP "$1"
	echo "$1" >$OUT/cgroup.procs || bad "cannot move $1 out of its container's cgroup"
	cgroup_member "$1" not
	kill -CONT "$1"
}

# expect_error "what" "message regex" CMD...: exit 1, one line of error,
# nothing left behind.
expect_error() {
	local what=$1 re=$2 out rc
	shift 2
	out=$("$@" 2>&1 >/dev/null)
	rc=$?
	say "$what: exit $rc: $out"
	[ $rc = 1 ] || bad "$what: exit $rc, expected 1"
	[ "$(printf '%s\n' "$out" | wc -l)" = 1 ] || bad "$what: not one line of error"
	[[ $out =~ ^kview:\ .*$re ]] || bad "$what: message does not match '$re'"
	stats_clean "$what"
}

# The containers: a1 and b1 run the workload; s1 (in runtime root $RT2)
# ran /bin/true and is stopped.
mkdir -p $CT $OUT || { bad "cannot make $CT and $OUT"; exit 1; }
say "namespaces of the containers: $OCI_NS"
for n in a b c; do
	bundle $n "$W" openspin || { bad "cannot make the bundle $CT/$n"; exit 1; }
done
bundle s /bin/true || { bad "cannot make the bundle $CT/s"; exit 1; }
ctr_run $CA a || exit 1
A1=$CPID
ctr_run $CB b || exit 1
B1=$CPID
ctr_exec $CA || exit 1
A3=$CPID
ctr_run --root $RT2 $CS s || exit 1
for _ in $(seq 100); do
	[ "$($RT --root $RT2 state $CS | jq -r .status)" = stopped ] && break
	sleep 0.1
done
IDA=$(stat -c %i $P/a) IDB=$(stat -c %i $P/b) IDOUT=$(stat -c %i $OUT)
$RT list | sed 's/^/#   /'
say "$CA (cgroup id $IDA): init $A1, exec'd $A3; $CB (cgroup id $IDB): init $B1; out of them: id $IDOUT"
[ "$(cat $P/a/cgroup.procs | sort -n | tr '\n' ' ')" = "$(printf '%s\n' $A1 $A3 | sort -n | tr '\n' ' ')" ] ||
	bad "$P/a does not hold $A1 and $A3: $(cat $P/a/cgroup.procs | tr '\n' ' ')"

# The options, and what kview refuses.
"$K" exec --help | grep -q -- '--container NAME|ID' || bad "kview exec --help says nothing of --container"
"$K" attach --help | grep -q -- '--container NAME|ID' || bad "kview attach --help says nothing of --container"
expect_error "no such container" "no container 'kview-nope': none of the 2 container\(s\) $RT lists has that id or one beginning with it" \
	"$K" exec --container kview-nope -- true
expect_error "an ambiguous prefix" "container id prefix 'kview-' is ambiguous, 2 of $RT's containers begin with it: $CA, $CB$" \
	"$K" attach --container kview- "$O"
expect_error "a stopped container" "container $CS is stopped: it has no process to trace \($RT state $CS\)" \
	"$K" attach --container kview-s --runtime-root $RT2 "$O"
expect_error "not in the runtime's default root" "no container '$CS'" "$K" exec --container $CS -- true
expect_error "an empty runtime root" "no container '$CA': $RT lists no container at all" \
	"$K" exec --container $CA --runtime-root $CT/none -- true
expect_error "no runtime (KVIEW_OCI_RUNTIME)" "the OCI runtime kview-no-runtime is not installed \(not found in PATH\)" \
	env KVIEW_OCI_RUNTIME=kview-no-runtime "$K" exec --container $CA -- true
expect_error "no runtime (--runtime)" "cannot run the OCI runtime /nonexistent/crun: No such file or directory" \
	"$K" exec --container $CA --runtime /nonexistent/crun -- true
expect_error "a runtime that fails" "/bin/false list --format json failed \(exit 1\)" \
	"$K" exec --container $CA --runtime /bin/false -- true
expect_error "container and pid" "exec needs one of --pid N, -c COMMAND, --cgroup PATH or --container ID" \
	"$K" exec --container $CA --pid $A1 -- true
expect_error "container and --follow-fork" "--follow-fork and --follow-exec do not go with --container" \
	"$K" attach --container $CA -f "$O"
expect_error "--runtime without --container" "--runtime and --runtime-root go with --container" \
	"$K" exec --pid $A1 --runtime crun -- true
expect_error "empty container" "--container wants a container id or the beginning of one, got an empty one" \
	"$K" exec --container '' -- true
out=$("$K" -j exec --container kview- -- true 2>&1)
[ "$(jq -r .message <<<"$out")" = "container id prefix 'kview-' is ambiguous, 2 of $RT's containers begin with it: $CA, $CB" ] ||
	bad "-j: not one JSON error naming the candidates: $out"

# bpftrace on a1, by a prefix of its id: its init and a3, then a2 exec'd
# in after the attach, then a3 moved out.
tool_start bpftrace-a 1 "$K" exec --container kview-a -- bpftrace -e \
	'tracepoint:syscalls:sys_enter_openat { @[pid, comm, cgroup] = count(); }'
cgroup_member $A1
cgroup_member $A3
cgroup_member $B1 not
ctr_exec $CA
A2=$CPID
cgroup_member $A2
sleep 2
move_out $A3
sleep 2
tool_stop bpftrace-a
out=$R/ctr-bpftrace-a.out
grep -Eq "runs in the attach scope of view [0-9]+ on container $CA in cgroup $P/a \(id $IDA\)" "$out" ||
	bad "kview exec did not name the container, its cgroup and its id"
for p in $A1 $A2 $A3; do
	grep -Eq "^@\[$p, workload, $IDA\]: [1-9]" "$out" || bad "bpftrace: no opens of $p in $CA"
done
grep -E '^@\[' "$out" | grep -Ev ", $IDA\]: [0-9]+$" | sed 's/^/#   not in a1'"'"'s cgroup: /' | grep . &&
	bad "bpftrace: events outside $CA's cgroup (b1's id is $IDB, out is $IDOUT)"
grep -E '^@\[' "$out" | grep -Ev "^@\[($A1|$A2|$A3), workload, " | sed 's/^/#   of the exec: /'
grep -E '^@\[' "$out" | grep -Ev "^@\[($A1|$A2|$A3), " | grep -Ev "^@\[[0-9]+, $RT_EXEC, " |
	sed 's/^/#   not expected: /' | grep . && bad "bpftrace: events of other processes than a1's and $RT's exec"
stats_clean "bpftrace on a container"

# opensnoop on a1 (its whole id, the runtime by path): a4 exec'd in after the
# attach shows, a2 moved out stops showing.  a2 stays stopped after its move
# until opensnoop's count of its lines has not changed for 2 s: what drains
# then are events from before the move (opensnoop polls its buffer every
# 100 ms, and a debug kernel is slow), since a stopped a2 opens nothing.
# Then a2 runs on for 2 s, where a2 still traced would add 100 a second.
count_of() { grep -Ec "^$1 +workload " "$R/ctr-$2.out"; }
tool_start opensnoop-a 2 "$K" exec --container $CA --runtime "$(command -v $RT)" -- stdbuf -oL opensnoop
cgroup_member $A2
ctr_exec $CA
A4=$CPID
cgroup_member $A4
sleep 2
kill -STOP $A2
echo $A2 >$OUT/cgroup.procs || bad "cannot move $A2 out of its container's cgroup"
cgroup_member $A2 not
n1=$(count_of $A2 opensnoop-a) settle=0 same=0
while [ $settle -lt 30 ] && [ $same -lt 2 ]; do
	sleep 1
	settle=$((settle + 1))
	n=$(count_of $A2 opensnoop-a)
	if [ "$n" = "$n1" ]; then same=$((same + 1)); else same=0; n1=$n; fi
done
kill -CONT $A2
sleep 2
n2=$(count_of $A2 opensnoop-a)
tool_stop opensnoop-a
say "opensnoop: $A2's opens: $n1 once settled ${settle} s after its move (stopped), $n2 after it ran 2 s more"
[ "$n1" -gt 0 ] && [ "$n1" = "$n2" ] || bad "opensnoop: $A2's opens did not stop with its move ($n1, then $n2)"
for p in $A1 $A4; do
	[ "$(count_of $p opensnoop-a)" -gt 0 ] || bad "opensnoop: no opens of $p in $CA"
done
grep -E '^[0-9]+ ' "$R/ctr-opensnoop-a.out" | grep -Ev "^($A1|$A2|$A4) " | grep -Ev "^[0-9]+ +$RT_EXEC " |
	sed 's/^/#   not expected: /' | grep . &&
	bad "opensnoop on $CA: opens of other processes than $A1 $A2 $A4 and $RT's exec"
stats_clean "opensnoop on a container"

# opensnoop on b1, -j: b1's init only; the note names the container.
tool_start opensnoop-b 2 "$K" -j exec --container $CB -- opensnoop
sleep 2
tool_stop opensnoop-b
out=$R/ctr-opensnoop-b.out
grep -Eq "^$B1 +workload " "$out" || bad "opensnoop: no opens of $B1 in $CB"
grep -E '^[0-9]+ ' "$out" | grep -Ev "^$B1 " | sed 's/^/#   not expected: /' | grep . &&
	bad "opensnoop on $CB: opens of other processes than $B1"
grep '^{' "$out" | jq -e -s --arg c "$CB" --arg cg "$P/b" --argjson id "$IDB" '
	any(.[]; .type == "note" and .container == $c and .cgroup == $cg and .cgroup_id == $id and
		(.message | test("runs in the attach scope of view [0-9]+ on container " + $c)))' >/dev/null ||
	bad "kview -j exec: no note naming the container $CB, its cgroup and id"
stats_clean "opensnoop -j on a container"

# kview attach -j --container: the attached record names it; a1's
# processes, a4 and its init (a2 and a3 are out), only.  Asked of the
# default runtime (crun), or runc by --runtime.
rtopt=()
[ $RT = crun ] || rtopt=(--runtime "$RT")
env -u KVIEW_OCI_RUNTIME "$K" attach -j --container $CA "${rtopt[@]}" -d 3 "$O" \
	>"$R/ctr-attach.out" 2>"$R/ctr-attach.err"
rc=$?
say "attach -j --container $CA -d 3: exit $rc"
cut -c 1-300 "$R/ctr-attach.out" "$R/ctr-attach.err" | sed 's/^/#   /'
[ $rc = 0 ] || bad "attach --container -d 3: exit $rc"
jq -e -s --arg cg "$P/a" --argjson id "$IDA" --arg c "$CA" --argjson pids "[$A1, $A4]" '
	(.[0] | .type == "attached" and .mode == "kview" and .cgroup == $cg and
		.cgroup_id == $id and .container == $c and (has("pid") | not)) and
	(.[-1] == {"type": "detached", "reason": "the duration is over"}) and
	([.[] | select(.type == "maps") | .maps[] | select(.name == "syscalls") |
		.entries[].key.pid] | unique == ($pids | sort))' "$R/ctr-attach.out" >/dev/null ||
	bad "attach -j --container: not the attached record of $CA, or not the syscalls of $A1 and $A4 only"
stats_clean "attach --container -d"

# A created container (RUNTIME create): its process waits to be started;
# the view is on its cgroup already, and sees it from its start.
$RT create --pid-file $CT/$CC.pid --bundle $CT/c $CC </dev/null >>"$R/ctr-c.log" 2>&1 ||
	bad "$RT create $CC failed: $(tail -n 3 "$R/ctr-c.log")"
C1=$(cat $CT/$CC.pid)
tool_start attach-created 1 "$K" attach --container $CC -d 4 "$O"
$RT start $CC || bad "$RT start $CC failed"
wait $TP
rc=$?
out=$R/ctr-attach-created.out
say "attach --container $CC (created, then started): exit $rc"
sed 's/^/#   /' "$out" | head -n 30
[ $rc = 0 ] || bad "attach --container on a created container: exit $rc"
grep -qF "kview: attached 1 program(s) in the kernel view of container $CC in cgroup $P/c (view " "$out" ||
	bad "attach --container: did not say the container and cgroup it attached in"
grep -Eq "^  \{pid=$C1, nr=59\}: [1-9]" "$out" || bad "attach --container: not $C1's execve (nr 59), its start"
grep -E '^  \{pid=' "$out" | grep -Ev "^  \{pid=$C1," | grep -q . && bad "attach --container: syscalls of others than $C1"
stats_clean "attach --container, created"

trap - EXIT
cleanup
[ $fails = 0 ] || { echo "# $fails failure(s)"; exit 1; }
