# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# deb-chroot.sh: run a script in a throw-away copy of this machine, to
# install packages there with apt without touching the machine itself.
#
#   deb_chroot DIR SCRIPT [NAME=VALUE...]
#
# A private mount namespace gets an overlay of / (the machine's files
# read-only below, a tmpfs on top), with /proc, /dev and a tmpfs /tmp, and
# DIR/debs/*.deb copied to /debs; SCRIPT (a file on the machine) then runs
# in a chroot into it, as root, with the NAME=VALUE pairs in its
# environment.  Everything goes when SCRIPT exits; its status is returned.
# apt resolves dependencies from what the machine has installed, so
# nothing is downloaded.  Needs root.

deb_chroot() {
	local dir=$1 script=$2
	shift 2
	[ "$(id -u)" = 0 ] || { echo "FAIL: needs root (a mount namespace and a chroot)"; return 1; }
	unshare --mount --propagation private bash -s "$dir" "$script" "$@" <<'INNER'
set -u
dir=$1 script=$2
shift 2
mkdir -p "$dir/rw" "$dir/root"
mount -t tmpfs kview-deb "$dir/rw" || { echo "FAIL: tmpfs"; exit 1; }
mkdir -p "$dir/rw/upper" "$dir/rw/work"
mount -t overlay kview-deb -o "lowerdir=/,upperdir=$dir/rw/upper,workdir=$dir/rw/work" "$dir/root" ||
	{ echo "FAIL: cannot mount an overlay of / (overlayfs)"; exit 1; }
mount -t proc proc "$dir/root/proc"
mount --rbind /dev "$dir/root/dev"
mount -t tmpfs tmpfs "$dir/root/tmp"
mkdir -p "$dir/root/debs"
cp "$dir"/debs/*.deb "$dir/root/debs/"
cp "$script" "$dir/root/tmp/inside.sh"
env "$@" chroot "$dir/root" /bin/bash /tmp/inside.sh
INNER
}
