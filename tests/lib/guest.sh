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
