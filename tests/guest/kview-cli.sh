#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kview-cli.sh: the kview command line tool in the guest.  Bad input gets a
# clear one-line error and exit 1, and nothing stays attached; a real attach
# prints only the target's events, kview list shows it, and the target's
# exit or SIGTERM ends it cleanly.
set -u
B=${KVIEW_BUILD:?}
# shellcheck source=tests/lib/guest.sh
. "$(dirname "$0")/../lib/guest.sh"
K=$B/userspace/kview
OBJ=$B/userspace/examples/read_count.bpf.o
W=$B/tests/guest/workload

# The syscall_count attach started as $A ends: exit 0, the target's
# syscalls and nobody else's in its output, no syscall-work flag left.
# $1: the mode ("" for a kernel view), $2: the output files' name, $3: the
# stats_clean label.
syscall_attach_done() {
	local p=${1:+$1: } out=$KVIEW_RESULTS/$2.out rc
	wait $A
	rc=$?
	say "attach${1:+ --mode $1}: exit $rc"
	sed 's/^/#   /' "$KVIEW_RESULTS/$2.err" "$out"
	[ $rc = 0 ] || bad "attach${1:+ --mode $1} exited $rc"
	grep -q "^  {pid=$T, nr=[0-9]*}: [1-9]" "$out" || bad "${p}no syscalls of the target"
	grep -v "pid=$T," "$out" | grep -q "^  {pid=" && bad "${p}syscalls of other processes"
	[ -s /sys/kernel/debug/kview/syscall_work ] && bad "${p}syscall-work flags left after the detach"
	stats_clean "$3"
}

# Wait (up to 30 s) until the attach started as $A shows $1 attachment(s)
# in kview list, then leave it running:
# the checks end it with SIGINT.
attached() {
	local i
	for i in $(seq 300); do
		[ "$(views_hooks)" = "$1" ] && return 0
		kill -0 $A 2>/dev/null || break
		sleep 0.1
	done
	bad "the attach did not show $1 attachment(s) in kview list"
}

# expect_error "what" "message regex" kview-args...: exit 1, one line.
expect_error() {
	local what=$1 re=$2 out rc lines
	shift 2
	out=$("$@" 2>&1 >/dev/null)
	rc=$?
	lines=$(printf '%s\n' "$out" | wc -l)
	say "$what: exit $rc: $out"
	[ $rc = 1 ] || bad "$what: exit $rc, expected 1"
	[ "$lines" = 1 ] || bad "$what: $lines lines of error, expected 1"
	[[ $out =~ ^kview:\ .*$re ]] || bad "$what: message does not match '$re'"
	sleep 0.2
	stats_clean "$what"
}

$W trickle & T=$!
$W trickle & D=$!
sleep 0.3

"$K" --help >/dev/null && "$K" attach --help >/dev/null && "$K" list --help >/dev/null ||
	bad "--help failed"
expect_error "no such pid" "no process with pid 999999" "$K" attach --pid 999999 "$OBJ"
expect_error "kernel thread" "pid 2 is a kernel thread" "$K" attach --pid 2 "$OBJ"
expect_error "no privileges" "permission denied" \
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$K" attach --pid "$T" "$OBJ"
expect_error "missing file" "/nonexistent.bpf.o: No such file or directory" \
	"$K" attach --pid "$T" /nonexistent.bpf.o
expect_error "not BPF (ELF)" "not a BPF ELF object \(ELF for machine 62" "$K" attach --pid "$T" /bin/true
expect_error "not BPF (text)" "not a BPF ELF object \(no ELF header\)" "$K" attach --pid "$T" /etc/hostname
expect_error "unscopable section" "SEC\(\"lsm/file_open\"\)\) cannot be scoped to a process: LSM programs" \
	"$K" attach --pid "$T" "$B/tests/bpf/unscopable.bpf.o"
modprobe -d "$KVIEW_MODROOT" trace-events-sample || bad "cannot load trace-events-sample"
expect_error "module tracepoint" "tracepoint/sample-trace/foo_bar.*Operation not supported \(kernel views scope hooks in core kernel text, not in modules\)" \
	"$K" attach --pid "$T" "$B/tests/bpf/module_tp.bpf.o"
rmmod trace_events_sample || bad "cannot unload trace-events-sample"
expect_error "bad pid" "--pid wants a positive number, got 'x'" "$K" attach --pid x "$OBJ"
expect_error "no pid" "attach needs one of --pid N, -c COMMAND, --cgroup PATH or --container ID" "$K" attach "$OBJ"
expect_error "two targets" "attach needs one of --pid N, -c COMMAND, --cgroup PATH or --container ID" "$K" attach --pid "$T" -c true "$OBJ"
expect_error "empty command" "-c wants a command" "$K" attach -c '' "$OBJ"
expect_error "two objects" "exactly one BPF object" "$K" attach --pid "$T" "$OBJ" "$OBJ"
expect_error "bad mode" "--mode wants kview, pre or global" "$K" attach --mode post --pid "$T" "$OBJ"
expect_error "unknown command" "unknown command 'frob'" "$K" frob

# Verifier rejection: the error line, then the tail of the verifier log.
out=$("$K" attach --pid "$T" "$B/tests/bpf/bad_verifier.bpf.o" 2>&1)
rc=$?
say "verifier: exit $rc"
printf '%s\n' "$out" | sed 's/^/#   /'
[ $rc = 1 ] || bad "verifier: exit $rc"
[[ $(printf '%s\n' "$out" | head -1) =~ ^kview:\ .*the\ verifier\ rejected\ program\ \'unchecked_lookup\' ]] ||
	bad "verifier: no one-line verdict first"
printf '%s\n' "$out" | grep -q '^  | .*invalid mem access' || bad "verifier: no log tail"
stats_clean verifier

# A real attach: only the target's reads are counted; list shows it.
"$K" attach --pid "$T" --duration 60 "$OBJ" >"$KVIEW_RESULTS/cli.out" 2>"$KVIEW_RESULTS/cli.err" &
A=$!
attached 2
sleep 1
list=$("$K" list)
json=$("$K" list -j)
say "kview list:"
printf '%s\n' "$list" | sed 's/^/#   /'
printf '%s\n' "$list" | grep -q "process $T (workload)" || bad "list does not show pid $T"
printf '%s\n' "$list" | grep -q "kprobe ksys_read" || bad "list does not show the kprobe"
python3 -c '
import json, sys
views = [json.loads(l) for l in sys.argv[1].split("\n")]
assert len(views) == 1, views
v = views[0]
assert v["type"] == "view", v
assert [m["pid"] for m in v["members"]] == [int(sys.argv[2])], v
assert sorted(a["kind"] for a in v["attachments"]) == ["kprobe", "kretprobe"], v
assert v["probe_sites"] == 1 and v["text_pages"] == 1, v
' "$json" "$T" || bad "kview list -j: $json"
kill -INT $A
wait $A
rc=$?
say "attach: exit $rc"
sed 's/^/#   /' "$KVIEW_RESULTS/cli.err" "$KVIEW_RESULTS/cli.out"
[ $rc = 0 ] || bad "attach exited $rc"
grep -q "^  {pid=$T, comm=\"workload\"}: [1-9]" "$KVIEW_RESULTS/cli.out" || bad "no events of the target"
grep -q "pid=$D," "$KVIEW_RESULTS/cli.out" && bad "events of the decoy"
[ "$(grep -c '^  {pid=' "$KVIEW_RESULTS/cli.out")" = 1 ] || bad "events of other processes"
# bytes_log2, a log2 histogram: the target's marked reads return 7 bytes.
grep -q '^map bytes_log2 (array, log2 histogram, [1-9][0-9]* in all):$' "$KVIEW_RESULTS/cli.out" ||
	bad "bytes_log2 is not drawn as a log2 histogram"
grep -Eq '^ +4 -> 7 +: [1-9][0-9]* +\|\*{40}\|$' "$KVIEW_RESULTS/cli.out" ||
	bad "the histogram has no full bar for 4 -> 7 bytes (the marked reads)"
stats_clean attach

# -c: the command runs once the program is in, traced from its first
# instruction: exactly its 500 marked reads, and nobody else's; kview
# detaches when it exits and says how it ended.
"$K" attach -c "$W reads 500" "$B/tests/bpf/readtp.bpf.o" >"$KVIEW_RESULTS/cli-c.out" 2>"$KVIEW_RESULTS/cli-c.err"
rc=$?
say "attach -c '$W reads 500' readtp.bpf.o: exit $rc"
sed 's/^/#   /' "$KVIEW_RESULTS/cli-c.err" "$KVIEW_RESULTS/cli-c.out"
[ $rc = 0 ] || bad "attach -c exited $rc"
grep -Eq '^  [0-9]+: 500$' "$KVIEW_RESULTS/cli-c.out" || bad "-c: not exactly the command's 500 marked reads"
[ "$(grep -Ec '^  [0-9]+: ' "$KVIEW_RESULTS/cli-c.out")" = 1 ] || bad "-c: marked reads of other processes"
grep -qx 'kview: the command exited (exit 0): detaching' "$KVIEW_RESULTS/cli-c.err" ||
	bad "-c: kview did not say that the command exited"
stats_clean attach-c
# -c and a duration shorter than the command: the command is stopped,
# the shell and what it started (a sleep in the background, and one that
# ignores SIGTERM, which gets SIGKILL 10 s later).  With -j, the detached
# record says how the command ended.
"$K" attach -j -d 2 -c "sleep 600 & (trap '' TERM; sleep 601) & wait" "$B/tests/bpf/readtp.bpf.o" \
	>"$KVIEW_RESULTS/cli-c-stop.out" 2>"$KVIEW_RESULTS/cli-c-stop.err"
rc=$?
say "attach -j -d 2 -c 'sleep 600 & (trap \"\" TERM; sleep 601) & wait': exit $rc"
sed 's/^/#   /' "$KVIEW_RESULTS/cli-c-stop.err" "$KVIEW_RESULTS/cli-c-stop.out"
[ $rc = 0 ] || bad "attach -d 2 -c exited $rc"
grep -Eq '^\{"type":"detached","reason":"the duration is over","command":\{"pid":[0-9]+,"stopped":true,"status":"killed by signal (15|9) \([A-Za-z]+\)"\}\}$' \
	"$KVIEW_RESULTS/cli-c-stop.out" || bad "-c -j: no detached record saying the command was stopped"
grep -q 'still running 10 s after SIGTERM: SIGKILL' "$KVIEW_RESULTS/cli-c-stop.err" ||
	bad "-c: the member that ignores SIGTERM was not killed after 10 s"
for _ in $(seq 50); do
	pgrep -a -x sleep | grep -Eq ' 60[01]$' || break
	sleep 0.1
done
pgrep -a -x sleep | grep -Eq ' 60[01]$' && bad "-c: a process the command started outlived kview attach"
stats_clean attach-c-stop
# -c with a program the verifier rejects: exit 1, and the command never ran.
rm -f "$KVIEW_RESULTS/cli-c-ran"
"$K" attach -c "touch $KVIEW_RESULTS/cli-c-ran" "$B/tests/bpf/bad_verifier.bpf.o" >/dev/null 2>&1
rc=$?
say "attach -c 'touch ...' bad_verifier.bpf.o: exit $rc"
[ $rc = 1 ] || bad "attach -c with a rejected program: exit $rc, expected 1"
[ -e "$KVIEW_RESULTS/cli-c-ran" ] && bad "attach -c: the command ran though nothing was attached"
stats_clean attach-c-rejected

# --interval: the maps every second while tracing, each after "@ HH:MM:SS",
# counts growing, then the final maps.
"$K" attach -q --pid "$T" --duration 4 --interval 1 "$OBJ" >"$KVIEW_RESULTS/cli-interval.out" 2>&1
rc=$?
say "attach --interval 1 --duration 4: exit $rc"
sed 's/^/#   /' "$KVIEW_RESULTS/cli-interval.out"
[ $rc = 0 ] || bad "attach --interval exited $rc"
stamps=$(grep -c '^@ [0-2][0-9]:[0-5][0-9]:[0-5][0-9]$' "$KVIEW_RESULTS/cli-interval.out")
[ "$stamps" -ge 2 ] || bad "--interval 1 over 4 s printed $stamps time stamps"
counts=$(grep "^  {pid=$T, comm=\"workload\"}: " "$KVIEW_RESULTS/cli-interval.out" | awk '{ print $NF }')
if [ "$(echo "$counts" | wc -l)" -lt 3 ] ||
	[ "$(echo "$counts" | sort -n | tr '\n' ' ')" != "$(echo "$counts" | tr '\n' ' ')" ] ||
	[ "$(echo "$counts" | head -1)" -ge "$(echo "$counts" | tail -1)" ]; then
	bad "--interval: the target's counts do not grow from dump to dump: $(echo "$counts" | tr '\n' ' ')"
fi
stats_clean attach-interval

# Ring buffer and perf event array records, printed as they arrive and
# decoded with BTF: exactly the 300 marked reads of a target that reads
# after the attach, in each.
streamed() {
	local obj=$1 what=$2 type=$3 n others
	"$W" -s reads 300 & E=$!
	for _ in $(seq 500); do
		[[ $(cat /proc/$E/stat 2>/dev/null) =~ ^$E\ \(workload\)\ T ]] && break
		sleep 0.01
	done
	"$K" attach -q --pid "$E" --duration 120 "$obj" >"$KVIEW_RESULTS/cli-$what.out" 2>&1 &
	A=$!
	attached 1
	kill -CONT $E
	wait $A
	rc=$?
	say "attach $(basename "$obj") ($what) on a 300-read target: exit $rc; $(wc -l <"$KVIEW_RESULTS/cli-$what.out") lines, the first and last 3:"
	head -n 3 "$KVIEW_RESULTS/cli-$what.out" | sed 's/^/#   /'
	tail -n 3 "$KVIEW_RESULTS/cli-$what.out" | sed 's/^/#   /'
	[ $rc = 0 ] || bad "$what attach exited $rc"
	n=$(grep -c "^events: {pid=$E, fd=[0-9]*, count=7, comm=\"workload\"}$" "$KVIEW_RESULTS/cli-$what.out")
	[ "$n" = 300 ] || bad "$what: $n records of the target's marked reads, expected 300"
	others=$(grep '^events: ' "$KVIEW_RESULTS/cli-$what.out" | grep -vc "pid=$E,")
	[ "$others" = 0 ] || bad "$what: $others records of other processes"
	grep -q "^map events ($type): its records are printed as they arrive$" "$KVIEW_RESULTS/cli-$what.out" ||
		bad "$what: the final maps do not say where the records went"
	stats_clean "attach-$what"
}
streamed "$B/userspace/examples/read_events.bpf.o" ringbuf ringbuf
streamed "$B/tests/bpf/perf_events.bpf.o" perfbuf perf_event_array

# -j: JSON lines.  Errors, of attach and exec, as one JSON line on stderr;
# the verifier's log inside it.
expect_json_error() {
	local what=$1 re=$2 out rc
	shift 2
	out=$("$@" 2>&1 >/dev/null)
	rc=$?
	say "$what: exit $rc: $out"
	[ $rc = 1 ] || [ $rc = 125 ] || bad "$what: exit $rc, expected 1"
	python3 -c '
import json, re, sys
lines = sys.argv[1].split("\n")
assert len(lines) == 1, lines
e = json.loads(lines[0])
assert e["type"] == "error", e
assert re.search(sys.argv[2], e["message"]), e
if len(sys.argv) > 3:
    assert re.search(sys.argv[3], e["log"]), e
' "$out" "$re" ${LOG_RE:+"$LOG_RE"} || bad "$what: not one JSON error line matching '$re'"
	sleep 0.2
	stats_clean "$what"
}
expect_json_error "json: no such pid" "no process with pid 999999" "$K" -j attach --pid 999999 "$OBJ"
expect_json_error "json: bad option value" "--pid wants a positive number" "$K" attach -j --pid x "$OBJ"
expect_json_error "json: unscopable" "cannot be scoped to a process" \
	"$K" attach -j --pid "$T" "$B/tests/bpf/unscopable.bpf.o"
LOG_RE="invalid mem access" expect_json_error "json: verifier" "the verifier rejected program 'unchecked_lookup'" \
	"$K" attach -j --pid "$T" "$B/tests/bpf/bad_verifier.bpf.o"
expect_json_error "json: exec, no such pid" "no process with pid 999999" "$K" exec -j --pid 999999 -- true
expect_json_error "json: list, bad argument" "unknown argument" "$K" -j list --frob

# Records, an interval's maps, the final maps and the status as JSON lines
# on stdout, every one of them JSON: the 300 marked reads as records of the
# target only; a map dump every second; the log2 histogram as buckets.
"$W" -s reads 300 & E=$!
for _ in $(seq 500); do
	[[ $(cat /proc/$E/stat 2>/dev/null) =~ ^$E\ \(workload\)\ T ]] && break
	sleep 0.01
done
"$K" attach -j --pid "$E" --duration 120 "$B/userspace/examples/read_events.bpf.o" \
	>"$KVIEW_RESULTS/cli-json-events.out" 2>"$KVIEW_RESULTS/cli-json-events.err" &
A=$!
attached 1
kill -CONT $E
wait $A
rc=$?
say "attach -j (ring buffer) on a 300-read target: exit $rc; $(wc -l <"$KVIEW_RESULTS/cli-json-events.out") lines, the first 2 and last 2:"
head -n 2 "$KVIEW_RESULTS/cli-json-events.out" | sed 's/^/#   /'
tail -n 2 "$KVIEW_RESULTS/cli-json-events.out" | sed 's/^/#   /'
[ $rc = 0 ] || bad "attach -j exited $rc"
[ -s "$KVIEW_RESULTS/cli-json-events.err" ] && bad "attach -j wrote to stderr: $(cat "$KVIEW_RESULTS/cli-json-events.err")"
python3 -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
pid = int(sys.argv[2])
att = lines[0]
assert att["type"] == "attached" and att["mode"] == "kview" and att["pid"] == pid, att
assert att["view"] > 0 and att["memory"]["probe_sites"] >= 1, att
assert [p["section"] for p in att["programs"]] == ["tracepoint/syscalls/sys_enter_read"], att
recs = [l for l in lines if l["type"] == "record"]
mine = [r for r in recs if r["map"] == "events" and r["data"]["pid"] == pid and
        r["data"]["count"] == 7 and r["data"]["comm"] == "workload"]
assert len(mine) == 300, "%d records of the marked reads" % len(mine)
assert all(r["data"]["pid"] == pid for r in recs), "records of other processes"
final = [l for l in lines if l["type"] == "maps"]
assert len(final) == 1 and final[0]["final"], final
assert {"name": "events", "type": "ringbuf", "streamed": True} in final[0]["maps"], final
assert lines[-1] == {"type": "detached", "reason": "the process exited"}, lines[-1]
' "$KVIEW_RESULTS/cli-json-events.out" "$E" || bad "attach -j: the JSON lines are not what they should be"
stats_clean attach-json-events

"$K" -j attach -q --pid "$T" --duration 4 --interval 1 "$OBJ" >"$KVIEW_RESULTS/cli-json-interval.out" 2>&1
rc=$?
say "attach -j -q --interval 1 --duration 4: exit $rc; the last line:"
tail -n 1 "$KVIEW_RESULTS/cli-json-interval.out" | cut -c 1-600 | sed 's/^/#   /'
[ $rc = 0 ] || bad "attach -j --interval exited $rc"
python3 -c '
import json, re, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
pid = int(sys.argv[2])
assert all(l["type"] == "maps" for l in lines), "-q: only maps lines"
stamped = [l for l in lines if "time" in l]
assert len(stamped) >= 2 and all(re.match(r"\d\d:\d\d:\d\d$", l["time"]) for l in stamped), stamped
assert lines[-1].get("final"), lines[-1]
counts = []
for l in lines:
    m = {x["name"]: x for x in l["maps"]}
    e = [x for x in m["reads"]["entries"] if x["key"] == {"pid": pid, "comm": "workload"}]
    assert len(m["reads"]["entries"]) == 1 and len(e) == 1, m["reads"]
    counts.append(e[0]["value"])
assert counts == sorted(counts) and counts[0] < counts[-1], counts
h = m["bytes_log2"]["histogram"]
assert h["total"] > 0 and any(b["low"] == 4 and b["high"] == 7 and b["count"] > 0
                              for b in h["buckets"]), h
' "$KVIEW_RESULTS/cli-json-interval.out" "$T" || bad "attach -j --interval: the JSON lines are not what they should be"
stats_clean attach-json-interval

# -j passes UTF-8 through.  A target run by a non-ASCII path, whose comm
# is that name, and BPF objects under a non-ASCII path: kview list -j, the
# comm in the final maps' keys, and the errors that name an object's path
# (a missing file, a verifier rejection) decode with jq to the same bytes.
U=/tmp/kview-cli-utf8 NAME=café-日本
{ mkdir -p "$U/日本" && ln -sf "$W" "$U/$NAME" && cp "$OBJ" "$U/日本/café.bpf.o" &&
	cp "$B/tests/bpf/bad_verifier.bpf.o" "$U/日本/bad-café.bpf.o"; } ||
	bad "cannot make the non-ASCII paths under $U"
"$U/$NAME" -s reads 300 & E=$!
for _ in $(seq 500); do
	[[ $(cat /proc/$E/stat 2>/dev/null) =~ ^$E\ \(.*\)\ T ]] && break
	sleep 0.01
done
[ "$(cat /proc/$E/comm)" = "$NAME" ] || bad "the target's comm is '$(cat /proc/$E/comm)', not '$NAME'"
"$K" attach -j --pid "$E" --duration 120 "$U/日本/café.bpf.o" \
	>"$KVIEW_RESULTS/cli-json-utf8.out" 2>"$KVIEW_RESULTS/cli-json-utf8.err" &
A=$!
attached 2
list=$("$K" list -j)
kill -CONT $E
wait $A
rc=$?
say "attach -j $U/日本/café.bpf.o on $U/$NAME (pid $E): exit $rc; kview list -j, then the final maps:"
printf '%s\n' "$list" | sed 's/^/#   /'
grep '"final":true' "$KVIEW_RESULTS/cli-json-utf8.out" | cut -c 1-400 | sed 's/^/#   /'
[ $rc = 0 ] || bad "attach -j (UTF-8) exited $rc"
got=$(printf '%s\n' "$list" | jq -r --argjson pid "$E" 'select(.type == "view") | .members[] | select(.pid == $pid) | .comm')
[ "$got" = "$NAME" ] || bad "kview list -j: the target's comm decodes as '$got', not '$NAME'"
got=$(jq -r --argjson pid "$E" 'select(.type == "maps" and .final) | .maps[] | select(.name == "reads") |
	.entries[] | select(.key.pid == $pid) | .key.comm' "$KVIEW_RESULTS/cli-json-utf8.out")
[ "$got" = "$NAME" ] || bad "attach -j: the map key's comm decodes as '$got', not '$NAME'"
got=$("$K" -j attach --pid "$T" "$U/日本/missing-café.bpf.o" 2>&1 >/dev/null | jq -r .message)
say "a missing object: $got"
[ "$got" = "$U/日本/missing-café.bpf.o: No such file or directory" ] ||
	bad "the error naming a missing non-ASCII path decodes as '$got'"
got=$("$K" -j attach --pid "$T" "$U/日本/bad-café.bpf.o" 2>&1 >/dev/null | jq -r .message)
say "a rejected object: $got"
[[ $got == "$U/日本/bad-café.bpf.o: the verifier rejected program 'unchecked_lookup' "* ]] ||
	bad "the verifier's error naming a non-ASCII path decodes as '$got'"
rm -rf "$U"
stats_clean attach-json-utf8

# A syscall tracepoint program: the same, and kview list names the event.
SC=$B/userspace/examples/syscall_count.bpf.o
"$K" attach --pid "$T" --duration 60 "$SC" >"$KVIEW_RESULTS/cli-tp.out" 2>"$KVIEW_RESULTS/cli-tp.err" &
A=$!
attached 1
sleep 1
list=$("$K" list)
say "kview list:"
printf '%s\n' "$list" | sed 's/^/#   /'
printf '%s\n' "$list" | grep -q "tracepoint raw_syscalls:sys_enter at 0x" ||
	bad "list does not show the tracepoint"
work=$(awk '{print $2}' /sys/kernel/debug/kview/syscall_work | sort -u | tr '\n' ' ')
say "processes with the syscall-work flag: $work"
[ "$work" = "$T " ] || bad "syscall-work flag on '$work', expected the target $T only"
kill -INT $A
syscall_attach_done "" cli-tp attach-tracepoint

# --mode pre (the pre-eBPF filter): the hook is armed for everybody, so the
# decoy takes the syscall tracing path too, but only the target's events
# reach the program.
"$K" attach --mode pre --pid "$T" --duration 60 "$SC" >"$KVIEW_RESULTS/cli-pre.out" 2>"$KVIEW_RESULTS/cli-pre.err" &
A=$!
attached 1
sleep 1
list=$("$K" list)
say "kview list:"
printf '%s\n' "$list" | sed 's/^/#   /'
printf '%s\n' "$list" | grep -q "^[0-9]* *filter " || bad "list does not show a filter view"
work=" $(awk '{print $2}' /sys/kernel/debug/kview/syscall_work | sort -u | tr '\n' ' ')"
say "processes with the syscall-work flag: $work"
[[ $work == *" $T "* && $work == *" $D "* ]] ||
	bad "pre: the syscall-work flag is not on target and decoy (hook not global)"
kill -INT $A
syscall_attach_done pre cli-pre attach-pre

# The target's exit ends the attach (exit 0), and so does SIGTERM.
# The target stops itself before its first read (workload -s), kview
# attaches, and then the target goes on: its reads end after the attach
# whatever the machine's speed (a million reads, 100 s under TCG, stood in
# for that before).
"$W" -s reads 20000 & E=$!
for i in $(seq 500); do
	[[ $(cat /proc/$E/stat 2>/dev/null) =~ ^$E\ \(workload\)\ T ]] && break
	sleep 0.01
done
[[ $(cat /proc/$E/stat 2>/dev/null) =~ ^$E\ \(workload\)\ T ]] ||
	bad "the exit target is not a stopped workload: $(cat /proc/$E/stat 2>&1)"
"$K" attach -q --pid "$E" "$OBJ" >"$KVIEW_RESULTS/cli-exit.out" 2>&1 &
A=$!
attached 2
kill -CONT $E
wait $A
rc=$?
say "attach until the target exits: exit $rc"
[ $rc = 0 ] || bad "attach until exit: exit $rc"
grep -q "^  {pid=$E, comm=\"workload\"}: 20000$" "$KVIEW_RESULTS/cli-exit.out" ||
	bad "not the target's 20000 reads before its exit"
"$K" attach --pid "$T" "$OBJ" >"$KVIEW_RESULTS/cli-term.out" 2>&1 &
A=$!
attached 2
kill -TERM $A
wait $A
rc=$?
say "attach then SIGTERM: exit $rc"
[ $rc = 0 ] || bad "SIGTERM: exit $rc"
grep -q "interrupted: detaching" "$KVIEW_RESULTS/cli-term.out" || bad "SIGTERM: no detach message"
sleep 0.2
stats_clean sigterm

kill $T $D
wait 2>/dev/null
[ $fails = 0 ] || { echo "# $fails failure(s)"; exit 1; }
