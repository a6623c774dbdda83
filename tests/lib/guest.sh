# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# guest.sh: what the in-guest shell tests share.  A test sources it, calls
# say and bad as it goes, and ends with [ $fails = 0 ].
#
#   say MSG...        a TAP diagnostic line
#   bad MSG...        a failure: a "FAIL:" diagnostic, counted in $fails
#   stats_clean WHAT  kview/stats must show no view, member, patch, page or
#                     page-table page left (after WHAT)
#   views_json        kview list -j, one JSON line per view (debugfs
#                     kview/views, read by libkview's parser)
#   views_hooks       the hooks attached in all views together
#   views_wait JQ [N] wait up to N tenths of a second (default 100) until
#                     the jq filter JQ, given the array of views, is true
#                     (jq -e); status 0 if it was
#   tool_start NAME NHOOKS CMD...
#                     CMD in the background ($TP), its output in
#                     $TOOL_OUT-NAME.out; wait until the views have NHOOKS
#                     hooks
#   tool_stop NAME    stop $TP, wait; $rc is its status; show its output
#   cgroup_member PID [not]
#                     kview list -j shows PID in a cgroup view (or not)

fails=0

say() { echo "# $*"; }
bad() { echo "# FAIL: $*"; fails=$((fails + 1)); }

stats_clean() {
	local s
	s=$(head -n 5 /sys/kernel/debug/kview/stats | tr '\n' ' ')
	case $s in
	"views 0 members 0 patches 0 pages 0 pt_pages 0 ") ;;
	*) bad "after '$1': kview left something behind: $s" ;;
	esac
}

views_json() { "${KVIEW_BUILD:?}/userspace/kview" list -j; }

views_hooks() { views_json | jq -s '[.[].attachments | length] | add // 0'; }

views_wait() {
	local _
	for _ in $(seq "${2:-100}"); do
		views_json 2>/dev/null | jq -e -s "$1" >/dev/null && return 0
		sleep 0.1
	done
	views_json | jq -e -s "$1" >/dev/null
}

# tool_start NAME NHOOKS CMD...: CMD in the background ($TP), its output in
# $TOOL_OUT-NAME.out; wait (up to 180 s: bpftrace starts slowly under TCG)
# until the views have NHOOKS hooks.
tool_start() {
	local name=$1 n=$2 h _
	shift 2
	"$@" >"${TOOL_OUT:?}-$name.out" 2>&1 &
	TP=$!
	for _ in $(seq 1800); do
		h=$(views_hooks 2>/dev/null)
		[ "${h:-0}" -ge "$n" ] && return 0
		kill -0 $TP 2>/dev/null || break
		sleep 0.1
	done
	bad "$name: the view never had $n hook(s)"
}

# tool_stop NAME: SIGINT $TP (again every 10 s: bpftrace 0.17 loses one
# that comes before it polls; SIGKILL after a minute), wait; $rc is its
# status; show its output.
tool_stop() {
	local i
	kill -INT $TP
	for i in $(seq 600); do
		kill -0 $TP 2>/dev/null || break
		[ $((i % 100)) != 0 ] || kill -INT $TP
		sleep 0.1
	done
	kill -0 $TP 2>/dev/null && kill -KILL $TP
	wait $TP
	rc=$?
	say "$1: exit $rc; output:"
	sed 's/^/#   /' "${TOOL_OUT:?}-$1.out" | head -n 40
	[ $rc = 0 ] || bad "$1: exit $rc"
}

# cgroup_member PID [not]: kview list -j shows PID in a cgroup view (or not).
cgroup_member() {
	local q="any(.[] | select(.cgroup) | .members[]; .pid == $1)"
	[ "${2:-}" != not ] || q="($q | not)"
	views_wait "$q" || bad "kview list -j: pid $1 is${2:+ not} expected in the cgroup view: $(views_json)"
}
