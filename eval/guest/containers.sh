#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# containers.sh: the guest side of eval/bench-containers.  Makes the OCI
# bundles of two containers with tests/lib/oci.sh (the bundles of
# tests/guest/kview-container.sh: /usr, and here /etc and the eval's
# build/eval/guest, bind-mounted read-only; the host's network, no network
# namespace) and runs build/eval/guest/tools --containers on them, which
# starts and deletes the containers run by run:
#
#   A  kview-eval-a, cgroup /sys/fs/cgroup/kview-eval/a: memcached
#      (`tools --in-container memcached` execs it; memcached wants /etc's
#      passwd for -u root)
#   B  kview-eval-b, cgroup /sys/fs/cgroup/kview-eval/b: the traced
#      process (`tools --in-container traced`), its /tmp the driver's
#      $CT/b-tmp (read-write: the file it opens, its iteration counter)
#
#   containers.sh ROUNDS SECONDS TOOLS MODES OUT.csv   (tools' arguments)
#
# The runtime is crun, or runc where the kernel has no user namespaces
# (tests/lib/oci.sh), and kview exec --container asks the same one
# ($KVIEW_OCI_RUNTIME).  Containers, cgroups, bundles and the root cgroup's
# controllers the runtime enabled go on every exit.
set -u
B=${KVIEW_BUILD:?}
# shellcheck source=tests/lib/oci.sh
. "$(dirname "$0")/../../tests/lib/oci.sh"
E=$B/eval/guest
CT=/tmp/kview-eval-ctr
CG=/sys/fs/cgroup/kview-eval

for t in crun runc jq unshare memcached memcaslap; do
	command -v $t >/dev/null || { echo "containers.sh: no $t in the guest" >&2; exit 1; }
done
oci_runtime
export KVIEW_OCI_RUNTIME=$OCI_RT
oci_controllers_save
# memcaslap, outside both containers, reaches memcached on 127.0.0.1.
oci_namespaces network

cleanup() {
	local id d
	for id in kview-eval-a kview-eval-b; do
		"$OCI_RT" delete -f "$id" >/dev/null 2>&1
	done
	for d in $CG/a $CG/b $CG; do
		for _ in $(seq 50); do
			[ -d "$d" ] || break
			rmdir "$d" 2>/dev/null && break
			sleep 0.1
		done
		[ ! -d "$d" ] || echo "containers.sh: cannot remove cgroup $d" >&2
	done
	oci_controllers_restore
	rm -rf "$CT"
}
trap cleanup EXIT
trap 'exit 1' TERM INT HUP

mkdir -p $CT/b-tmp || exit 1
echo "$OCI_RT runs the containers (namespaces: $OCI_NS)"
oci_bundle $CT/a /kview-eval/a -b /etc -b "$E" -- "$E/tools" --in-container memcached || exit 1
oci_bundle $CT/b /kview-eval/b -b /etc -b "$E" -w $CT/b-tmp:/tmp -- "$E/tools" --in-container traced ||
	exit 1
"$E/tools" --containers $CT "$@"
rc=$?
[ $rc = 0 ] || [ ! -s $CT/runtime.log ] || { echo "containers.sh: the end of $OCI_RT's log:"; tail -n 5 $CT/runtime.log; }
exit $rc
