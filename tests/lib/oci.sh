# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# oci.sh: real OCI containers in the guest, for the container tests
# (tests/guest/kview-container.sh) and the evaluation's containers
# (eval/guest/containers.sh).  Sourced.  Needs crun (for `crun spec`), jq
# and unshare; runc where the kernel has no user namespaces.
#
#   oci_runtime       $OCI_RT: crun, or runc where the kernel has no user
#                     namespaces (the test and debug kernels): crun 1.8
#                     cannot start a container there (it reads
#                     /proc/self/uid_map, which such a kernel does not
#                     have), runc can.  Both use their cgroupfs manager (no
#                     systemd in the guest).
#   oci_namespaces [TYPE...]
#                     $OCI_NS: the namespaces of `crun spec`'s (pid,
#                     network, ipc, uts, mount) that the kernel has, less
#                     TYPE... (e.g. network: the host's network), as a
#                     JSON array
#   oci_bundle DIR CGROUP [-b SRC[:DST]]... [-w SRC:DST]... -- ARGS...
#                     an OCI bundle in DIR: a root file system of symlinks
#                     (bin -> usr/bin, ...) with the guest's /usr
#                     bind-mounted read-only, each -b SRC read-only at DST
#                     (default: SRC) and each -w SRC read-write at DST, and
#                     a config.json from `crun spec` whose cgroup is
#                     /sys/fs/cgroup/CGROUP (CGROUP begins with /), whose
#                     namespaces are $OCI_NS (oci_namespaces first) and
#                     whose process runs ARGS
#   oci_controllers_save, oci_controllers_restore
#                     the root cgroup's subtree_control, which the runtime
#                     changes for its cgroups, saved and put back (status 1
#                     and a line on stderr for a controller it cannot
#                     disable)

# OCI_RT is the caller's.
# shellcheck disable=SC2034
oci_runtime() {
	OCI_RT=crun
	[ -e /proc/self/uid_map ] || OCI_RT=runc
}

oci_namespaces() {
	local ns
	OCI_NS=$(for ns in pid network ipc uts mount; do
		[[ " $* " == *" $ns "* ]] && continue
		case $ns in
		pid) unshare --pid --fork true ;;
		network) unshare --net true ;;
		*) unshare --"$ns" true ;;
		esac 2>/dev/null && echo "$ns"
	done | jq -R . | jq -sc .)
}

oci_bundle() {
	local d=$1 cg=$2 mounts='[]' src dst rw
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		case $1 in
		-b) src=${2%%:*} dst=${2#*:} rw=ro ;;
		-w) src=${2%%:*} dst=${2#*:} rw=rw ;;
		*) echo "oci_bundle: unknown option '$1'" >&2; return 1 ;;
		esac
		if [ -z "$src" ] || [ -z "$dst" ]; then
			echo "oci_bundle: $1 wants SRC[:DST]" >&2
			return 1
		fi
		mounts=$(jq -c --arg s "$src" --arg d "$dst" --arg rw "$rw" \
			'. + [{destination: $d, type: "bind", source: $s, options: ["rbind", $rw]}]' <<<"$mounts")
		shift 2
	done
	if [ "${1:-}" != -- ] || [ $# -lt 2 ]; then
		echo "oci_bundle: no command (-- ARGS...)" >&2
		return 1
	fi
	shift
	mkdir -p "$d/rootfs" && (cd "$d/rootfs" && mkdir -p usr proc dev sys tmp &&
		ln -s usr/bin bin && ln -s usr/sbin sbin && ln -s usr/lib lib &&
		ln -s usr/lib64 lib64) && (cd "$d" && crun spec) || return 1
	# The runtime mounts in order: a mount under another one's destination
	# (a tree cloned under /tmp, bound beside a writable /tmp) comes after
	# it, or that one would hide it.  Parents sort first.
	mounts=$(jq -c 'sort_by(.destination)' <<<"$mounts")
	# Mount points under the root, for the runtime (the root is read-only),
	# and under a writable mount's source for what is mounted inside it.
	jq -r '.[] | [.destination, .source, .options[1]] | @tsv' <<<"$mounts" |
	while IFS=$'\t' read -r dst src rw; do
		mkdir -p "$d/rootfs/$dst" || exit 1
		[ "$rw" = rw ] || continue
		jq -r --arg w "$dst" '.[].destination | select(startswith($w + "/")) | ltrimstr($w)' <<<"$mounts" |
		while read -r sub; do
			mkdir -p "$src$sub" || exit 1
		done || exit 1
	done || return 1
	jq --argjson args "$(printf '%s\n' "$@" | jq -R . | jq -s .)" --argjson ns "${OCI_NS:?oci_namespaces first}" \
		--arg cg "$cg" --argjson mounts "$mounts" '
		.process.terminal = false | .process.args = $args |
		.linux.namespaces |= map(select(.type as $t | ($ns | index($t)) != null)) |
		(if ($ns | index("uts")) != null then . else del(.hostname) end) |
		.linux.cgroupsPath = $cg |
		.mounts += [{destination: "/usr", type: "bind", source: "/usr", options: ["rbind", "ro"]}] + $mounts' \
		"$d/config.json" >"$d/config.json.new" && mv "$d/config.json.new" "$d/config.json"
}

oci_controllers_save() {
	OCI_ROOTCTL=$(cat /sys/fs/cgroup/cgroup.subtree_control)
}

oci_controllers_restore() {
	local c rc=0
	for c in $(</sys/fs/cgroup/cgroup.subtree_control); do
		[[ " ${OCI_ROOTCTL?oci_controllers_save first} " == *" $c "* ]] && continue
		echo "-$c" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || {
			echo "cannot disable the $c controller the OCI runtime enabled" >&2
			rc=1
		}
	done
	return $rc
}
