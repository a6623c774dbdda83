#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# platform-modes.sh: the guest runs the paging mode and the page table
# isolation that kvm/run was asked for (--paging, --pti), through the
# firmware it was asked for (--firmware: EFI runtime services), and kernel views
# are available in it, so that the rest of the suite tests what the
# harness says it tests.
set -u
fail=0
flags=$(grep -m1 '^flags' /proc/cpuinfo)
has() { grep -qw "$1" <<<"$flags"; }

# With no5lvl, or on a CPU without LA57, the kernel clears the la57 flag:
# it is in /proc/cpuinfo only while the kernel runs 5-level paging.
levels=4
has la57 && levels=5
pti=off
has pti && pti=on
firmware=bios
[ -d /sys/firmware/efi ] && firmware=efi
echo "# $(uname -r): $levels-level paging, PTI $pti, $firmware firmware (asked: paging ${KVIEW_PAGING:-any}, PTI ${KVIEW_PTI:-any}, ${KVIEW_FIRMWARE:-any} firmware)"
if [ -n "${KVIEW_PAGING:-}" ] && [ "$KVIEW_PAGING" != "$levels" ]; then
	echo "# asked for $KVIEW_PAGING-level paging, the kernel runs $levels"
	fail=1
fi
if [ -n "${KVIEW_PTI:-}" ] && [ "$KVIEW_PTI" != "$pti" ]; then
	echo "# asked for PTI $KVIEW_PTI, the kernel has it $pti"
	fail=1
fi
if [ -n "${KVIEW_FIRMWARE:-}" ] && [ "$KVIEW_FIRMWARE" != "$firmware" ]; then
	echo "# asked for $KVIEW_FIRMWARE firmware, the kernel booted from $firmware"
	fail=1
fi
if [ "$firmware" = efi ] && ! dmesg | grep -q 'efi: EFI v'; then
	echo "# booted from EFI firmware, but the kernel does not use it: $(dmesg | grep -m1 -i 'efi' || echo 'no EFI line in the kernel log')"
	fail=1
fi
if [ ! -c /dev/kview ]; then
	echo "# no /dev/kview: $(dmesg | grep -m1 'kview:' || echo 'no kview line in the kernel log')"
	fail=1
fi
dmesg | grep -m1 'kview: kernel views' | sed 's/^/# /'
exit $fail
