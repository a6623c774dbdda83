# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# tap.sh: run a list of tests and print TAP (one line per test, then a
# closing "N passed, N skipped, N failed" line).  A list file has one test
# a line, "name  [@tag,...]  command...", the command evaluated by bash;
# '#' starts a comment.  Tags say where a test runs (tests/run reads them:
# tap_tagged); tap_run_list passes over them.  A test passes when its
# command exits 0, is skipped when it exits 77 (TAP "ok N - name # SKIP",
# with the last line of its output as the reason: a tool or a kernel
# feature it needs is missing), and fails otherwise.  Its output is shown,
# as TAP diagnostics, when it fails or when $V is set.  Results are
# appended to $TAP_OUT if set, and every test's whole output, passed or
# not, is kept beside it in logs/NAME.log.
#
#   tap_run_list LIST [FILTER]     FILTER: extended regex on test names;
#                                  $TAP_SKIP: a regex of names to leave out;
#                                  $TAP_ONLY: a regex of the only names
#                                  to run
#   tap_tagged TAG LIST...         the names of the tests tagged TAG, as
#                                  a regex ("^(a|b)$"; "^()$" if none)
#
# $TAP_REAP=1 (in the guest only, where nothing else runs): after each
# test, kill the user processes it left running, so that a failed test's
# workloads do not disturb the next tests; they are named in a diagnostic.
# There, too, a test that is about to time out is looked at first: what
# each of its processes is doing (state, wait channel, kernel stack of
# every thread) goes into its output, and the kernel's blocked tasks
# (sysrq w) into the console log, so that a hang says where it hangs.

tap_tagged() {
	local tag=$1
	shift
	sed 's/#.*//' "$@" |
		awk -v t="$tag" 'NF > 1 && $2 ~ /^@/ { n = split(substr($2, 2), a, ",");
			for (i = 1; i <= n; i++) if (a[i] == t) print $1 }' |
		paste -sd '|' | sed 's/.*/^(&)$/'
}

tap_run_list() {
	local list=$1 filter=${2:-} name cmd n=0 pass=0 skipped=0 failed=0 names=() cmds=()
	local t0 dt rc out wd tmo=${KVIEW_TEST_TIMEOUT:-600}

	while IFS= read -r line; do
		line=${line%%#*}
		[[ $line =~ ^[[:space:]]*$ ]] && continue
		read -r name cmd <<<"$line"
		# The tags, for tap_tagged.
		[[ $cmd != @* ]] || read -r _ cmd <<<"$cmd"
		[ -z "$filter" ] || [[ $name =~ $filter ]] || continue
		[ -z "${TAP_SKIP:-}" ] || ! [[ $name =~ $TAP_SKIP ]] || continue
		[ -z "${TAP_ONLY:-}" ] || [[ $name =~ $TAP_ONLY ]] || continue
		names+=("$name")
		cmds+=("$cmd")
	done <"$list"

	_tap "TAP version 13"
	_tap "1..${#names[@]}"
	out=$(mktemp)
	for ((n = 0; n < ${#names[@]}; n++)); do
		name=${names[n]} cmd=${cmds[n]}
		wd=
		if [ "${TAP_REAP:-0}" = 1 ]; then
			_tap_procs
			rm -f "$out.hang"
			# The watchdog: 20 s before the timeout, a snapshot.
			(
				trap 'kill $s 2>/dev/null; exit 0' TERM
				sleep $((tmo > 40 ? tmo - 20 : tmo / 2)) &
				s=$!
				wait $s && _tap_hang_dump "$name" >"$out.hang" 2>&1
			) &
			wd=$!
		fi
		t0=$(date +%s.%N)
		if [ -n "${V:-}" ]; then
			echo "# --- $name: $cmd"
			timeout -k 10 "$tmo" bash -c "$cmd" 2>&1 | tee "$out" | sed -u 's/^/#   /'
			rc=${PIPESTATUS[0]}
		else
			timeout -k 10 "$tmo" bash -c "$cmd" >"$out" 2>&1
			rc=$?
		fi
		dt=$(echo "$(date +%s.%N) - $t0" | bc)
		if [ -n "$wd" ]; then
			kill "$wd" 2>/dev/null
			wait "$wd" 2>/dev/null
			[ ! -s "$out.hang" ] || cat "$out.hang" >>"$out"
			rm -f "$out.hang"
		fi
		if [ -n "${TAP_OUT:-}" ]; then
			mkdir -p "$(dirname "$TAP_OUT")/logs"
			cp "$out" "$(dirname "$TAP_OUT")/logs/$name.log"
		fi
		if [ $rc = 0 ]; then
			pass=$((pass + 1))
			_tap "$(printf 'ok %d - %s # %.1fs' $((n + 1)) "$name" "$dt")"
		elif [ $rc = 77 ]; then
			skipped=$((skipped + 1))
			_tap "$(printf 'ok %d - %s # SKIP %s' $((n + 1)) "$name" \
				"$(grep -v '^[[:space:]]*$' "$out" | tail -n 1 | sed 's/^#* *//')")"
		else
			failed=$((failed + 1))
			[ -n "${V:-}" ] || sed 's/^/#   /' "$out" | tail -n 40
			[ $rc = 124 ] && echo "#   (timed out after ${tmo}s)"
			_tap "$(printf 'not ok %d - %s # exit %d, %.1fs' $((n + 1)) "$name" $rc "$dt")"
		fi
		[ "${TAP_REAP:-0}" = 1 ] && _tap_reap "$name"
	done
	rm -f "$out"
	_tap "# $pass passed, $skipped skipped, $failed failed"
	[ $failed = 0 ]
}

_tap() {
	printf '%s\n' "$1"
	[ -z "${TAP_OUT:-}" ] || printf '%s\n' "$1" >>"$TAP_OUT"
}

# The user processes running now (kernel threads have no command line),
# into _tap_before.
_tap_procs() {
	local p c
	_tap_before=()
	for p in /proc/[0-9]*; do
		p=${p#/proc/} c=
		read -r -d '' c 2>/dev/null <"/proc/$p/cmdline" || [ -n "$c" ] || continue
		_tap_before[p]=1
	done
}

# What the processes that appeared since _tap_procs are doing, for a test
# about to time out: one line each (pid, parent, state, wait channel,
# command line), then the kernel stack of each of its threads.
_tap_hang_dump() {
	local p c t st
	echo "# --- $1 is about to time out; its processes:"
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[ -z "${_tap_before[p]:-}" ] || continue
		[ "$p" != $$ ] && [ "$p" != "$BASHPID" ] || continue
		c=
		read -r -d '' c 2>/dev/null <"/proc/$p/cmdline" || [ -n "$c" ] || continue
		c=$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-100)
		st=$(awk '/^(State|PPid):/ { printf "%s %s ", $1, $2 }' "/proc/$p/status" 2>/dev/null)
		echo "# pid $p ${st}wchan $(cat "/proc/$p/wchan" 2>/dev/null): $c"
		for t in /proc/"$p"/task/*; do
			# A running thread's stack is not there to read (and
			# the unwinder WARNs on one with a kretprobe pending).
			if grep -q '^State:.R' "$t/status" 2>/dev/null; then
				echo "#   thread ${t##*/} ($(cat "$t/comm" 2>/dev/null)): running"
				continue
			fi
			echo "#   thread ${t##*/} ($(cat "$t/comm" 2>/dev/null)):"
			sed 's/^/#     /' "$t/stack" 2>/dev/null
		done
	done
	if [ -w /proc/sysrq-trigger ]; then
		echo w >/proc/sysrq-trigger
		echo "# blocked tasks (sysrq w): see the console log"
	fi
}

# Kill the user processes that appeared since _tap_procs (but this shell).
_tap_reap() {
	local p c left=()
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		[ -z "${_tap_before[p]:-}" ] || continue
		[ "$p" != $$ ] && [ "$p" != "$BASHPID" ] || continue
		c=
		read -r -d '' c 2>/dev/null <"/proc/$p/cmdline" || [ -n "$c" ] || continue
		kill -KILL "$p" 2>/dev/null && left+=("$p:${c##*/}")
	done
	[ ${#left[@]} = 0 ] || echo "# $1 left ${#left[@]} process(es) running, killed: ${left[*]}"
}
