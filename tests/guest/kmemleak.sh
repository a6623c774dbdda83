#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kmemleak.sh: after the suite on the debug kernel, kmemleak finds no leak.
# (tests/run-guest forgot what it suspected at boot before the first test.)
# Two scans, apart: kmemleak reports an object only once it is older than
# 5 s and was unreferenced in a scan.
set -u
f=/sys/kernel/debug/kmemleak
[ -w $f ] || { echo "# no kmemleak in $(uname -r) (the debug kernel has it)"; exit 1; }
echo scan >$f
sleep 6
echo scan >$f
leaks=$(cat $f)
if [ -n "$leaks" ]; then
	echo "# kmemleak: $(grep -c '^unreferenced object' <<<"$leaks") suspected leak(s):"
	head -n 200 <<<"$leaks" | sed 's/^/#   /'
	exit 1
fi
echo "# kmemleak: no leak"
