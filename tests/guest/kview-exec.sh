#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kview-exec.sh: unmodified tracing tools from Debian (bpftrace: tracepoint,
# kprobe, kretprobe, wildcard kprobe and kretprobe, interval; and bcc's
# libbpf-tools: opensnoop, runqlat, syscount, sigsnoop, bindsnoop,
# solisten, tcpconnect, tcptracer, execsnoop, exitsnoop) run under `kview
# exec` against a target
# and a decoy of the same name doing the same work: the tool shows the
# target's events and none of the decoy's, while the same tool run globally
# shows both.  Also:
# -c traces a command from its first instruction (exact count), bpftrace's
# kfunc/kretfunc (BPF trampolines) see the target only, a hook a view
# cannot scope is refused, kview exec names it, and nothing stays attached; uprobes (bpftrace's BEGIN and END too) work as without a view;
# the tool's exit status is kview's, bad input is a one-line error, and a
# hook whose events other tasks raise gets its one-line note.
#
#   kview-exec.sh [bpftrace|libbpf-tools]    default: both parts
set -u
B=${KVIEW_BUILD:?}
# shellcheck source=tests/lib/guest.sh
. "$(dirname "$0")/../lib/guest.sh"
K=$B/userspace/kview
W=$B/tests/guest/workload
R=$KVIEW_RESULTS

for tool in bpftrace opensnoop runqlat syscount sigsnoop bindsnoop solisten tcpconnect tcptracer execsnoop exitsnoop; do
	command -v $tool >/dev/null || { bad "no $tool (Debian's bpftrace, libbpf-tools)"; exit 1; }
done

# hooks: the attachments of every view (one view exists at a time here).
hooks() { views_hooks 2>/dev/null; }
# alive PID: PID (a child) runs, and is not a zombie yet.
alive() {
	local st
	read -r st 2>/dev/null <"/proc/$1/stat" || return 1
	st=${st##*) }
	[ "${st%% *}" != Z ]
}
# links: the BPF links of the machine.
links() { bpftool -j link show 2>/dev/null | grep -o '"id":' | wc -l; }

# traced NAME NHOOKS SECONDS CMD...: run CMD (a kview exec, or the tool
# alone for the global run) in the background with its output in
# $R/exec-NAME.out; with NHOOKS > 0, wait (up to 180 s: bpftrace starts
# slowly under TCG) until the view has NHOOKS hooks; let it trace for
# SECONDS; then SIGINT it, as a user's kill -INT would, and wait.  Sets $rc.
traced() {
	local name=$1 n=$2 secs=$3 pid links0 t0=$SECONDS
	shift 3
	links0=$(links)
	"$@" >"$R/exec-$name.out" 2>&1 &
	pid=$!
	local end=$((SECONDS + 180))
	if [ "$n" -gt 0 ]; then
		while [ $SECONDS -lt $end ]; do
			[ "$(hooks)" -ge "$n" ] && break
			kill -0 $pid 2>/dev/null || break
			sleep 0.1
		done
		[ "$(hooks)" -ge "$n" ] || bad "$name: the view never had $n hook(s)"
	else
		# A global tool: wait for its header line or, for tools whose
		# stdout is a buffered file, its BPF links.
		while [ $SECONDS -lt $end ]; do
			[ -s "$R/exec-$name.out" ] && break
			[ "$(links)" -gt "$links0" ] && break
			kill -0 $pid 2>/dev/null || break
			sleep 0.1
		done
		sleep 2
	fi
	sleep "$secs"
	kill -INT $pid
	# bpftrace (0.17) loses a SIGINT that comes before it polls: its
	# handler only sets a flag, which its poll loop looks at only when
	# epoll_wait() is interrupted.  A user presses Ctrl-C again; so
	# does this, every 10 s.
	local sent=$SECONDS resent=0
	while alive $pid; do
		sleep 0.1
		[ $((SECONDS - sent)) -ge 10 ] || continue
		[ $resent -lt 5 ] || break
		resent=$((resent + 1)) sent=$SECONDS
		say "$name: still running 10 s after SIGINT: SIGINT again"
		kill -INT $pid
	done
	wait $pid
	rc=$?
	say "$name: exit $rc after $((SECONDS - t0)) s; output:"
	sed 's/^/#   /' "$R/exec-$name.out" | head -n 40
}

# One part or both: the boot's tests run one part each, so that neither
# comes near the per-test timeout (the whole took 445 s alone on a host
# core, 600 s and more beside a kernel build and Bochs).
part=${1:-all}
case $part in
all | bpftrace | libbpf-tools) ;;
*)
	echo "usage: kview-exec.sh [bpftrace|libbpf-tools]" >&2
	exit 2
	;;
esac
want() { [ "$part" = all ] || [ "$part" = "$1" ]; }

"$W" trickle & T=$!
"$W" trickle & D=$!
"$W" openspin & O=$!
"$W" openspin & P=$!
say "target $T and decoy $D (marked reads); target $O and decoy $P (opens), all named workload"

# target_only NAME MAP...: in bpftrace's output of run NAME, each @MAP
# (keyed by pid) has events of the target $T and of no other process.
target_only() {
	local out=$R/exec-$1.out m
	shift
	for m in "$@"; do
		grep -Eq "^@$m\[$T\]: [1-9]" "$out" || bad "bpftrace @$m: no events of the target"
		grep -q "^@$m\[$D\]" "$out" && bad "bpftrace @$m: events of the decoy"
		grep "^@$m\[" "$out" | grep -Ev "^@$m\[$T\]" |
			sed 's/^/#   not the target: /' | grep . && bad "bpftrace @$m: events of other processes"
	done
}
# target_and_decoy NAME MAP...: each @MAP has events of $T and of $D.
target_and_decoy() {
	local out=$R/exec-$1.out m
	shift
	for m in "$@"; do
		if ! grep -Eq "^@$m\[$T\]: [1-9]" "$out" || ! grep -Eq "^@$m\[$D\]: [1-9]" "$out"; then
			bad "bpftrace globally @$m: not both the target's and the decoy's events"
		fi
	done
}

# bpftrace (kview exec --pid, -c, kfunc, refusals, uprobes).
if want bpftrace; then
	# bpftrace: a tracepoint, a kprobe and a kretprobe in one script, keyed by pid.
	script='tracepoint:syscalls:sys_enter_read /args->count == 7/ { @tp[pid] = count(); }
	kprobe:ksys_read /comm == "workload"/ { @kp[pid] = count(); }
	kretprobe:ksys_read /comm == "workload"/ { @kr[pid] = count(); }'
	traced bpftrace-view 3 3 "$K" exec --pid $T -- bpftrace -e "$script"
	[ $rc = 0 ] || bad "bpftrace under kview exec: exit $rc"
	target_only bpftrace-view tp kp kr
	stats_clean "bpftrace in a view"
	global_script=$script

	# bpftrace's wildcard kprobe (one kprobe_multi link where the kernel has
	# fprobe, as the test kernel does; one kprobe per function where it has
	# not) with a wildcard kretprobe, and an interval probe (a sampling event,
	# not a kernel hook: it passes the scope).  Debian's bpftrace 0.17 has no
	# rawtracepoint probe ("Invalid probe type"): raw tracepoints in views are
	# kview-tp-raw-tracepoint's, through libbpf.
	say "bpftrace's kprobe_multi: $(bpftrace --info 2>&1 | sed -n 's/^ *kprobe_multi: //p')"
	wild='kprobe:vfs_read* /comm == "workload"/ { @kw[pid] = count(); }
	kretprobe:vfs_read* /comm == "workload"/ { @krw[pid] = count(); }'
	traced bpftrace-wild-view 2 3 "$K" exec --pid $T -- bpftrace -e "$wild
	interval:s:1 { @ticks = count(); }"
	[ $rc = 0 ] || bad "bpftrace (wildcards, interval) under kview exec: exit $rc"
	target_only bpftrace-wild-view kw krw
	grep -Eq '^@ticks: [1-9]' "$R/exec-bpftrace-wild-view.out" || bad "bpftrace's interval probe did not fire"
	grep -q 'refused' "$R/exec-bpftrace-wild-view.out" && bad "a hook of the script was refused"
	stats_clean "bpftrace wildcard in a view"
	# The control, both scripts' probes in one global run (bpftrace takes
	# half a minute to start under TCG): globally, each map has the
	# decoy's events too.
	traced bpftrace-global 0 3 bpftrace -e "$global_script
	$wild"
	target_and_decoy bpftrace-global tp kp kr kw krw

	# -c: the command runs once the hook is in, and every marked read is seen.
	"$K" exec -c "$W reads 500" -- bpftrace -e \
		'tracepoint:syscalls:sys_enter_read /args->count == 7/ { @reads = count(); }' \
		>"$R/exec-c.out" 2>&1
	rc=$?
	say "kview exec -c '$W reads 500' -- bpftrace: exit $rc"
	sed 's/^/#   /' "$R/exec-c.out"
	[ $rc = 0 ] || bad "-c: exit $rc"
	grep -qx '@reads: 500' "$R/exec-c.out" || bad "-c: bpftrace did not count exactly the command's 500 marked reads"
	stats_clean "-c"

	# bpftrace kfunc:/kretfunc: (BPF trampolines) in the view: the target's
	# reads, none of the decoy's (both read).
	traced kfunc-view 2 3 "$K" exec --pid $T -- bpftrace -e \
		'kfunc:vfs_read { @enter[pid] = count(); } kretfunc:vfs_read /retval == 7/ { @ret7[pid] = count(); }'
	[ $rc = 0 ] || bad "bpftrace kfunc under kview exec: exit $rc"
	grep -Eq "^@enter\[$T\]: [1-9]" "$R/exec-kfunc-view.out" || bad "kfunc: no reads of the target"
	grep -Eq "^@ret7\[$T\]: [1-9]" "$R/exec-kfunc-view.out" || bad "kretfunc: no marked reads of the target"
	others=$(grep -E '^@(enter|ret7)\[' "$R/exec-kfunc-view.out" | grep -Evc "^@(enter|ret7)\[$T\]")
	[ "$others" = 0 ] || bad "kfunc: $others line(s) of other processes (decoy $D)"
	grep -q "refused" "$R/exec-kfunc-view.out" && bad "kfunc: a hook was refused"
	stats_clean "bpftrace kfunc in a view"

	# What a view cannot scope is refused, and nothing is attached globally:
	# a trampoline on a module's function.
	modprobe -d "$KVIEW_MODROOT" trace-events-sample || bad "cannot load trace-events-sample"
	"$K" exec --pid $T -- bpftrace -e 'kfunc:trace_events_sample:foo_bar_reg { @ = count(); }' \
		>"$R/exec-kfunc.out" 2>&1
	rc=$?
	say "bpftrace kfunc on a module function under kview exec: exit $rc"
	sed 's/^/#   /' "$R/exec-kfunc.out"
	[ $rc != 0 ] || bad "bpftrace kfunc: in a view did not fail"
	grep -q "kview: bpftrace exited: exit $rc" "$R/exec-kfunc.out" || bad "kview exec did not exit with bpftrace's status"
	# bpftrace and kview share stderr, and bpftrace writes its "ERROR: ..." and
	# the newline after it apart: a line of kview's (written whole) can follow
	# bpftrace's text on the same line.  Hence no ^ or -x below.
	grep -q "kview: the view refused bpftrace's hook fentry foo_bar_reg: a view's BPF trampolines are on core kernel functions with an ftrace site" \
		"$R/exec-kfunc.out" || bad "kview exec did not name the refused hook"
	grep -qF "kview: bpftrace did not go on without the refused hook(s): it ended with exit $rc" \
		"$R/exec-kfunc.out" || bad "kview exec did not say that bpftrace gave up after the refusal"
	grep -q 'went on without' "$R/exec-kfunc.out" && bad "kview exec said bpftrace went on"
	left=$(bpftool -j link show 2>/dev/null | grep -o '"type":"tracing"' | wc -l)
	[ "$left" = 0 ] || bad "$left tracing link(s) left after the refusal"
	stats_clean "a refused kfunc"

	# The same refusal with -j: one JSON line naming the hook.
	"$K" exec -j -q --pid $T -- bpftrace -e 'kfunc:trace_events_sample:foo_bar_reg { @ = count(); }' \
		>/dev/null 2>"$R/exec-kfunc-json.err"
	say "bpftrace kfunc on a module function under kview exec -j -q:"
	sed 's/^/#   /' "$R/exec-kfunc-json.err"
	grep -qF '{"type":"refused","tool":"bpftrace","hook":"fentry foo_bar_reg","why":"a view'"'"'s BPF trampolines are on core kernel functions with an ftrace site"}' \
		"$R/exec-kfunc-json.err" || bad "kview exec -j: no JSON line naming the refused hook"
	rmmod trace_events_sample || bad "cannot unload trace-events-sample"
	grep -Eq '\{"type":"refusal_outcome","tool":"bpftrace","went_on":false,"status":"exit [0-9]+"\}$' \
		"$R/exec-kfunc-json.err" || bad "kview exec -j: no JSON line saying bpftrace gave up"
	stats_clean "a refused kfunc, -j"

	# Uprobes are not kernel hooks: bpftrace's BEGIN and END (uprobes on
	# bpftrace itself) and a uprobe on a program run as without a view; the
	# uprobe fires for a process outside the view too, as it would globally.
	"$K" exec --pid $T -- bpftrace -e 'BEGIN { printf("begin\n"); }
		uprobe:'"$W"':main { printf("main %d\n", pid); exit(); }
		END { printf("end\n"); }' >"$R/exec-uprobe.out" 2>&1 &
	E=$!
	for _ in $(seq 1800); do
		grep -q '^begin$' "$R/exec-uprobe.out" && break
		kill -0 $E 2>/dev/null || break
		sleep 0.1
	done
	"$W" reads 1 & U=$!
	wait $U
	wait $E
	rc=$?
	say "bpftrace BEGIN, uprobe, END under kview exec: exit $rc"
	sed 's/^/#   /' "$R/exec-uprobe.out"
	[ $rc = 0 ] || bad "bpftrace with BEGIN/uprobe/END under kview exec: exit $rc"
	grep -qx "main $U" "$R/exec-uprobe.out" || bad "the uprobe did not fire for pid $U"
	grep -qx 'end' "$R/exec-uprobe.out" || bad "END did not run"
	grep -q 'refused' "$R/exec-uprobe.out" && bad "a uprobe was refused"
	stats_clean "uprobes pass through"
fi

# libbpf-tools, and kview exec's status and errors.
if want libbpf-tools; then
	# opensnoop (libbpf-tools): its tracepoints on openat in the target's view.
	traced opensnoop-view 2 3 "$K" exec --pid $O -- opensnoop
	[ $rc = 0 ] || bad "opensnoop under kview exec: exit $rc"
	grep -Eq "^$O +workload .*/dev/null" "$R/exec-opensnoop-view.out" || bad "opensnoop: no opens of the target"
	grep -Eq "^$P " "$R/exec-opensnoop-view.out" && bad "opensnoop: opens of the decoy"
	others=$(grep -E '^[0-9]+ ' "$R/exec-opensnoop-view.out" | grep -Evc "^$O ")
	[ "$others" = 0 ] || bad "opensnoop: $others line(s) of other processes"
	stats_clean "opensnoop in a view"
	traced opensnoop-global 0 3 opensnoop
	if ! grep -Eq "^$O " "$R/exec-opensnoop-global.out" || ! grep -Eq "^$P " "$R/exec-opensnoop-global.out"; then
		bad "opensnoop globally: not both the target's and the decoy's opens"
	fi

	# More of bcc's libbpf-tools, unmodified, on a target and a decoy that both
	# signal themselves, read, bind, listen and connect over loopback and fork
	# children that exec /bin/true (workload toolspin): under kview exec
	# (--follow-fork --follow-exec: the children and what they exec too) each
	# shows the target's events and none of the decoy's; run globally, both.
	# matrix NAME TARGET_RE DECOY_RE TOOL [ARGS]: the regexes find a line of
	# the target's, of the decoy's.
	"$W" toolspin & T2=$!
	"$W" toolspin & D2=$!
	say "target $T2 and decoy $D2 (workload toolspin)"
	# A tool Debian built for 6.1 that cannot load on the running kernel at
	# all (bindsnoop on 6.12: inet_sock.freebind is gone) is said so, with
	# libbpf's reason, and has nothing of kview's to compare.
	matrix() {
		local name=$1 tre=$2 dre=$3 why
		shift 3
		traced "$name-global" 0 3 "$@"
		why=$(grep -m1 -o 'failed to resolve CO-RE relocation.*' "$R/exec-$name-global.out")
		if [ -n "$why" ]; then
			say "$name: Debian's build does not load on this kernel, globally either ($why)"
			return
		fi
		if ! grep -Eq "$tre" "$R/exec-$name-global.out" || ! grep -Eq "$dre" "$R/exec-$name-global.out"; then
			bad "$name globally: not both the target's and the decoy's events"
		fi
		traced "$name-view" 1 3 "$K" exec --follow-fork --follow-exec --pid $T2 -- "$@"
		[ $rc = 0 ] || bad "$name under kview exec: exit $rc"
		grep -Eq "$tre" "$R/exec-$name-view.out" || bad "$name: no events of the target"
		grep -Eq "$dre" "$R/exec-$name-view.out" && bad "$name: events of the decoy"
		# A tool that got past a refusal (an fentry it probed for) is
		# said to have gone on without it.
		if grep -q '^kview: the view refused' "$R/exec-$name-view.out" &&
			! grep -Eq "^kview: $1 went on without the refused hook\(s\): [1-9][0-9]* hook\(s\) in the view" \
				"$R/exec-$name-view.out"; then
			bad "$name: a refusal the tool went on after, not said"
		fi
		stats_clean "$name in a view"
	}
	matrix syscount "(^| )$T2 +workload" "(^| )$D2 +workload" syscount -P
	matrix sigsnoop "(^| )$T2 +workload" "(^| )$D2 +workload" sigsnoop
	matrix bindsnoop "(^| )$T2 +workload" "(^| )$D2 +workload" bindsnoop
	matrix solisten "(^| )$T2 +workload" "(^| )$D2 +workload" solisten
	# solisten probes for fentry on inet_listen first, and takes it: the view
	# holds its fexit now, where it used to refuse it (solisten then fell back
	# to kprobes).
	grep -q "^kview: the view refused" "$R/exec-solisten-view.out" &&
		bad "solisten: a hook was refused"
	matrix tcpconnect "(^| )$T2 +workload" "(^| )$D2 +workload" tcpconnect
	matrix tcptracer "(^| )$T2 +workload" "(^| )$D2 +workload" tcptracer
	matrix execsnoop "^true +[0-9]+ +$T2 " "^true +[0-9]+ +$D2 " execsnoop
	matrix exitsnoop "^true +[0-9]+ +$T2 " "^true +[0-9]+ +$D2 " exitsnoop
	kill $T2 $D2

	# runqlat: its sched_wakeup hooks run in the waker: kview exec says so.
	traced runqlat-view 3 2 "$K" exec --pid $T -- runqlat
	[ $rc = 0 ] || bad "runqlat under kview exec: exit $rc"
	grep -q "^kview: note: runqlat's hook on sched_wakeup.*: runs in the task that wakes" "$R/exec-runqlat-view.out" ||
		bad "no note on runqlat's wakeup hooks"
	stats_clean "runqlat in a view"

	# The tool's status is kview's; bad input is one line and exit 1.
	"$K" exec -q --pid $T -- sh -c 'exit 3'
	rc=$?
	[ $rc = 3 ] || bad "sh -c 'exit 3' under kview exec: exit $rc"
	"$K" exec -q --pid $T -- /nonexistent-tool 2>"$R/exec-enoent.err"
	rc=$?
	[ $rc = 127 ] || bad "a missing tool: exit $rc, expected 127"
	grep -q "cannot run /nonexistent-tool: No such file or directory" "$R/exec-enoent.err" || bad "a missing tool: no clear error"
	expect_error() {
		local what=$1 out rc
		shift
		out=$("$K" "$@" 2>&1)
		rc=$?
		say "$what: exit $rc: $out"
		if [ $rc != 1 ] || [ "$(echo "$out" | wc -l)" != 1 ]; then
			bad "$what: not a one-line error with exit 1"
		fi
	}
	expect_error "no target" exec -- true
	expect_error "two targets" exec --pid $T -c true -- true
	expect_error "no tool" exec --pid $T
	expect_error "no such process" exec --pid 999999 -- true
	expect_error "a kernel thread" exec --pid 2 -- true
	expect_error "a target already in a view" exec -q --pid $T -- "$K" exec -q --pid $T -- true
	stats_clean "the errors"
fi

kill $T $D $O $P
wait 2>/dev/null
[ $fails = 0 ]
