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
