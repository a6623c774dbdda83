# SPDX-License-Identifier: GPL-2.0
#
# kview: per-process kernel views for scoped eBPF tracing.
#
#   make demo      install what is missing, build, boot, run the demo
#   make test      install what is missing, build, run the whole suite
#
# See README.md for the rest (make help lists the targets).

ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
BUILD ?= $(ROOT)/build
export KVIEW_BUILD := $(BUILD)

KOBJ := $(BUILD)/kobj
BZIMAGE := $(BUILD)/bzImage
INCDIR := $(BUILD)/include
VMLINUX_H := $(INCDIR)/vmlinux.h
# The kernel's UAPI header <linux/kview.h>, vendored (as libbpf-tools
# vendor vmlinux.h), so that the C code builds without a kernel tree;
# tests/host/uapi-header checks it is the series' (make uapi-header).
UAPI_SRC := $(ROOT)/include/uapi

# The C compiler and its flags are the caller's: CC (gcc unless set, in
# the environment or on the command line), CFLAGS (-O2 -g unless set),
# EXTRA_CFLAGS (added after the rest) and LDFLAGS.  What kview's C code
# needs, REQUIRED_CFLAGS, is on every compile line whatever they say:
# `make CFLAGS=-O0` keeps -std=gnu11 and the warnings (EXTRA_CFLAGS, last
# on the line, can still turn one off).
ifeq ($(origin CC),default)
CC := gcc
endif
CLANG ?= clang
BPFTOOL ?= bpftool
CFLAGS ?= -O2 -g
REQUIRED_CFLAGS := -std=gnu11 -D_GNU_SOURCE -Wall -Wextra -Werror
ALL_CFLAGS := $(strip $(CFLAGS) $(REQUIRED_CFLAGS) $(EXTRA_CFLAGS))
LDLIBS_BPF := $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz)
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror -I$(INCDIR)

Q := $(if $(V),,@)

.PHONY: all help deps kernel kernel-debug kernel-debian kernel-base test-debian libbpf-ext userspace tests tests-host test test-host test-guest demo soak repeat deb deb-userspace vm install \
	eval-build eval eval-quick eval-kprobe \
	kernel-config kernel-reset kernel-status export-patches uapi-header check-apply check-series check-configs \
	checkpatch clean distclean

all: kernel libbpf-ext userspace tests

help:
	@sed -n 's/^## \{0,1\}//p' $(MAKEFILE_LIST)

## deps            install the Debian packages kview needs (no-op if present)
deps:
	$(Q)$(ROOT)/scripts/deps

## kernel          extract linux-source (the release of patches/BASE-VERSION),
##                 apply patches/, build build/bzImage
kernel:
	$(Q)$(ROOT)/scripts/kernel-tree build
	$(Q)$(ROOT)/scripts/update-vmlinux-h $(KOBJ)/vmlinux $(VMLINUX_H)

## kernel-debug    the debug kernel (KASAN, lockdep, kmemleak, UBSAN, fault
##                 injection) from the same tree: build/bzImage-debug
kernel-debug:
	$(Q)KVIEW_KERNEL=debug $(ROOT)/scripts/kernel-tree build

## kernel-debian   Debian's whole cloud-amd64 configuration plus kview, from the
##                 same tree (1,100 modules; slow): build/bzImage-debian
kernel-debian:
	$(Q)KVIEW_KERNEL=debian $(ROOT)/scripts/kernel-tree build

## kernel-base     the test kernel's options on Debian's source without the
##                 series (an unmodified kernel to compare with, e.g.
##                 eval/qemu-stale-int3): build/bzImage-base
kernel-base:
	$(Q)KVIEW_KERNEL=base $(ROOT)/scripts/kernel-tree build

## kernel-config   regenerate the kernel .config from kernel-config/
kernel-config:
	$(Q)$(ROOT)/scripts/kernel-tree config

## kernel-reset    throw away edits in build/linux, re-apply patches/
kernel-reset:
	$(Q)$(ROOT)/scripts/kernel-tree reset

## kernel-status   what the generated tree holds relative to patches/
kernel-status:
	$(Q)$(ROOT)/scripts/kernel-tree status

## export-patches  write the tree's commits (base..HEAD) into patches/
export-patches:
	$(Q)$(ROOT)/scripts/kernel-tree export

## uapi-header     copy the patch series' include/uapi/linux/kview.h into the
##                 repository's (after a patch changed it)
uapi-header:
	$(Q)$(ROOT)/scripts/series-file include/uapi/linux/kview.h >$(UAPI_SRC)/linux/kview.h.tmp
	$(Q)if cmp -s $(UAPI_SRC)/linux/kview.h.tmp $(UAPI_SRC)/linux/kview.h; then \
		rm $(UAPI_SRC)/linux/kview.h.tmp; echo "include/uapi/linux/kview.h: unchanged"; \
	else \
		mv $(UAPI_SRC)/linux/kview.h.tmp $(UAPI_SRC)/linux/kview.h; \
		echo "include/uapi/linux/kview.h: updated from patches/ (commit it)"; \
	fi

## check-apply     apply patches/ onto a fresh checkout of the pristine base
check-apply:
	$(Q)$(ROOT)/scripts/kernel-tree check-apply

## check-series    build every patch of the series on its own (slow;
##                 KVIEW_SERIES_PATCHES="1 19" or KVIEW_SERIES_FROM=N for part)
check-series:
	$(Q)$(ROOT)/scripts/kernel-tree check-series

## check-configs   build the series in the config variants of
##                 kernel-config/variants/ (KVIEW=n, KPROBES=n, ...; slow)
check-configs:
	$(Q)$(ROOT)/scripts/kernel-tree check-configs

## checkpatch      scripts/checkpatch.pl --strict on every patch
checkpatch:
	$(Q)$(ROOT)/tests/host/checkpatch

# Pattern rules shared by the userspace, library and test builds.
$(BUILD)/%.bpf.o: $(ROOT)/%.bpf.c $(VMLINUX_H)
	@mkdir -p $(@D)
	@echo "  BPF     $*.bpf.o"
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	@echo "  SKEL    $*.skel.h"
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$(notdir $*)) > $@.tmp && mv $@.tmp $@

# Keep generated BPF objects and skeletons (they are intermediates).
.SECONDARY:

$(VMLINUX_H):
	@echo "$(VMLINUX_H) missing: run 'make kernel' first" >&2; exit 1

include $(ROOT)/libbpf-ext/build.mk
include $(ROOT)/userspace/build.mk
include $(ROOT)/tests/build.mk
include $(ROOT)/eval/build.mk

## test            build everything, run host tests and the in-guest suite on
##                 the test kernel, then on the debug kernel (built alongside)
test: deps
	$(Q)$(ROOT)/scripts/kernel-tree prepare
	$(Q)$(ROOT)/tests/run --build

test-host:
	$(Q)$(ROOT)/tests/run --host-only

test-guest:
	$(Q)$(ROOT)/tests/run --guest-only

## test-debian     the in-guest suite on Debian's whole configuration plus
##                 kview (make kernel-debian), with 5-level paging, PTI on and
##                 EFI firmware, then its packages (make deb) installed with
##                 apt (tests/host/deb-install-kernel); not part of make test
##                 (the kernel takes too long to build)
test-debian: deps
	$(Q)$(MAKE) --no-print-directory all eval-build kernel-debian
	$(Q)$(ROOT)/kvm/run --kernel debian --smp 2 --mem 3072 --paging 5 --pti on --firmware efi \
		--timeout 3600 --results $(BUILD)/test-results/guest-debian -- \
		$(ROOT)/tests/run-guest "" $(ROOT)/tests/guest.list
	$(Q)$(MAKE) --no-print-directory deb
	$(Q)$(ROOT)/tests/host/deb-install-kernel $(BUILD)/deb

## soak            the randomized stress for an hour on the debug kernel,
##                 a new seed each run (tests/soak-guest; SOAK_SECONDS=N
##                 for another length, SOAK_OPS=N per run, SOAK_SEEDS="S..."
##                 to replay seeds first, SOAK_KERNEL=test for the test
##                 kernel, SOAK_ACCEL=bochs for Bochs, SOAK_KVM_ARGS for
##                 more kvm/run options, e.g. "--pti off"); every violation,
##                 with its context, in build/soak-results/violations.log
SOAK_SECONDS ?= 3600
SOAK_OPS ?= 1000
SOAK_KERNEL ?= debug
soak: deps
	$(Q)$(MAKE) --no-print-directory all $(if $(filter debug,$(SOAK_KERNEL)),kernel-debug)
	$(Q)$(ROOT)/kvm/run --kernel $(SOAK_KERNEL) --smp 2 \
		--mem $(if $(filter bochs,$(SOAK_ACCEL)),1024,3072) \
		$(if $(SOAK_ACCEL),--accel $(SOAK_ACCEL)) $(SOAK_KVM_ARGS) \
		--timeout $$(( $(SOAK_SECONDS) + 1800 )) --results $(BUILD)/soak-results -- \
		$(ROOT)/tests/soak-guest $(SOAK_SECONDS) $(SOAK_OPS) $(SOAK_SEEDS)

## repeat          boot the test kernel again and again (REPEAT_BOOTS, default
##                 10; REPEAT_SECONDS to stop starting boots) on 2 vCPUs, each
##                 running the evaluation's smoke test and the stress with a
##                 new seed, every console log kept in build/repeat/ (for a
##                 failure one boot does not show; REPEAT_KERNEL=debug)
REPEAT_BOOTS ?= 10
REPEAT_KERNEL ?= test
repeat: deps
	$(Q)$(MAKE) --no-print-directory all eval-build $(if $(filter debug,$(REPEAT_KERNEL)),kernel-debug)
	$(Q)$(ROOT)/tests/repeat-guest -n $(REPEAT_BOOTS) $(if $(REPEAT_SECONDS),-t $(REPEAT_SECONDS)) -- \
		--kernel $(REPEAT_KERNEL) --smp 2 --mem 3072 --timeout 1800 -- \
		bash -c '$(ROOT)/tests/guest/eval-smoke.sh && $(BUILD)/tests/guest/kview-stress --ops 400'

## deb             Debian packages in build/deb/: the kernel (Debian's whole
##                 cloud-amd64 configuration plus kview, linux-image and
##                 linux-headers, by the kernel's bindeb-pkg; slow) and the
##                 userspace (kview, libkview0, libkview-dev); docs/usage.md
##                 says how to install them
## deb-userspace   the userspace packages only
deb: deb-userspace
	$(Q)KVIEW_KERNEL=debian $(ROOT)/scripts/kernel-tree deb $(BUILD)/deb

deb-userspace: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(ROOT)/scripts/make-deb $(BUILD)/deb

## demo            build, boot the kernel and run the demo
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(ROOT)/kvm/run -- $(ROOT)/userspace/demo

## vm              interactive shell in the guest (poweroff to leave)
vm:
	$(Q)$(ROOT)/kvm/run --shell

## clean           remove userspace and test builds (keep the kernel)
clean:
	rm -rf $(BUILD)/userspace $(BUILD)/libbpf-ext $(BUILD)/tests $(BUILD)/vm \
		$(BUILD)/vm-results $(BUILD)/test-results

## distclean       remove build/ entirely (kernel tree included)
distclean:
	rm -rf $(BUILD)
