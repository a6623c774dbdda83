# SPDX-License-Identifier: GPL-2.0
# Shared by the eval/bench-* scripts (sourced).

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${KVIEW_BUILD:-$ROOT/build}

# The clock guest time is read with: icount unless EVAL_CLOCK=wall, which
# boots under KVM (and fails where KVM is not usable).
EVAL_CLOCK=${EVAL_CLOCK:-icount}
export EVAL_CLOCK
case $EVAL_CLOCK in
icount) VMARGS=(--icount) ;;
wall) VMARGS=(--accel kvm --smp 1) ;;
*) echo "eval: EVAL_CLOCK must be icount or wall, not '$EVAL_CLOCK'" >&2; exit 2 ;;
esac

clock_text() {
	if [ "$EVAL_CLOCK" = icount ]; then
		echo "Clock: QEMU TCG \`-icount shift=0,sleep=off\`, one vCPU: guest time counts"
		echo "instructions (1 ns each), so \"ns\" below are guest instructions, not host"
		echo "nanoseconds; when the guest idles the clock jumps to the next timer."
	else
		echo "Clock: wall time under KVM, one vCPU (host: $(nproc) CPUs)."
	fi
}

kernel_text() {
	echo "Kernel: $(cat "$B/kobj/include/config/kernel.release"), QEMU $(qemu-system-x86_64 --version | head -1 | awk '{print $4}'), host $(nproc) CPUs."
}

# Boot the guest once and run a driver in it, prefixing its lines.
boot_and_run() {
	local out=$1 timeout=$2
	shift 2
	"$ROOT/kvm/run" "${VMARGS[@]}" --timeout "$timeout" --results "$out" -- "$@" |
		sed -u 's/^/[eval] /'
	local rc=${PIPESTATUS[0]}
	rm -f "$out/console.log"
	[ "$rc" = 0 ] || { echo "eval: guest run failed ($rc): $*" >&2; exit 1; }
	date -u +%Y-%m-%dT%H:%MZ >"$out/measured-at"
}

# awk helpers: t95(df), the two-sided 95% Student t quantile; ci(sum,
# sumsq, n), the half-width of the 95% confidence interval of a mean.
AWK_STATS='function t95(df) {
	split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262 2.228 2.201 2.179 2.160 2.145 2.131 2.120 2.110 2.101 2.093 2.086 2.080 2.074 2.069 2.064 2.060 2.056 2.052 2.048 2.045 2.042", T, " ")
	return df < 1 ? 0 : (df <= 30 ? T[df] : 1.96)
}
function ci(sum, sq, m,   mean, var) {
	mean = sum / m; var = m > 1 ? (sq - m * mean * mean) / (m - 1) : 0
	return m > 1 ? t95(m - 1) * sqrt(var > 0 ? var : 0) / sqrt(m) : 0
}'

# The tools parts (eval/bench-tools, eval/bench-containers): their runs.csv
# has one row per run (bench,clock,tool,mode,round,warmup,tps,...).
# tools_tables OUT: table-tps.md and table-cpu.md (summarize, change vs
# none per tool), their .dat files tps.dat and cpu.dat.
tools_tables() {
	local out=$1
	"$B/eval/summarize" "$out/runs.csv" tps none tool >"$out/table-tps.md"
	mv "$out/runs.csv.dat" "$out/tps.dat"
	"$B/eval/summarize" "$out/runs.csv" memcached_ns_per_op none tool >"$out/table-cpu.md"
	mv "$out/runs.csv.dat" "$out/cpu.dat"
}

# tools_plot OUT NAME MODES TITLE: NAME.dat (one line per tool: the change
# vs none and its CI in each of MODES, comma-separated) and NAME.png, its
# bars; no plot of the warm-up round alone (ROUNDS=0, a smoke test).
tools_plot() {
	local out=$1 name=$2 modes=$3 title=$4 ncols
	awk -v modes="${modes//,/ }" '$1 != "*" { pct[$1, $3] = $6; ci[$1, $3] = $7;
			if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
		END { m = split(modes, M, " ");
			for (i = 1; i <= n; i++) { line = order[i];
				for (j = 1; j <= m; j++)
					line = line " " (((order[i], M[j]) in pct) ? pct[order[i], M[j]] " " ci[order[i], M[j]] : "NaN NaN");
				print line } }' "$out/tps.dat" >"$out/$name.dat"
	if ! awk -F, 'NR > 1 && !$6 { found = 1 } END { exit !found }' "$out/runs.csv"; then
		echo "[eval] $name: the warm-up round alone, nothing to plot"
		return
	fi
	ncols=$(tr , '\n' <<<"$modes" | wc -l)
	gnuplot <<GP
set terminal pngcairo size 900,520 font ",11" noenhanced
set output "$out/$name.png"
set title "$title\n($EVAL_CLOCK clock; mean of the runs, 95% CI; change vs no tool in the same boot)"
set ylabel "memcaslap ops/s, change vs no tool (%)"
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.7 border -1
set grid ytics
set key outside right
set xtics rotate by -20
modes = "${modes//,/ }"
plot for [i=1:$ncols] "$out/$name.dat" using (column(2*i)):(column(2*i+1)):xtic(1) title word(modes, i)
GP
}

# tools_means OUT: the markdown table of each (tool, mode)'s means over
# the measured runs: attach time, the tool's CPU, traced events, the traced
# process's CPU.
tools_means() {
	echo "| tool | mode | attach (s) | tool CPU (ms) | traced events | traced process CPU (ms) |"
	echo "|---|---|---|---|---|---|"
	awk -F, 'NR > 1 && !$6 && $3 != "*" { k = $3 "," $4; if (!(k in n)) order[++no] = k; n[k]++;
		at[k] += $15; tc[k] += $14; ev[k] += $16; pc[k] += $13 }
		END { for (i = 1; i <= no; i++) { k = order[i]; split(k, a, ",");
			printf "| %s | %s | %.1f | %.0f | %.0f | %.0f |\n", a[1], a[2],
			at[k]/n[k]/1e9, tc[k]/n[k]/1e6, ev[k]/n[k], pc[k]/n[k]/1e6 } }' \
		"$1/runs.csv" | sort -t'|' -k2,2 -s
}
