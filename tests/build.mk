# SPDX-License-Identifier: GPL-2.0
# Test programs: C tests run in the guest, and the BPF objects they load.
# Included by the top-level Makefile.

TEST_BPF_OUT := $(BUILD)/tests/bpf
TEST_GUEST_OUT := $(BUILD)/tests/guest
# The series' UAPI headers (headers_install of the tree, below)
KHDR := $(BUILD)/khdr
TEST_CFLAGS := $(ALL_CFLAGS) -I$(ROOT)/tests/lib -I$(TEST_BPF_OUT) \
	-I$(ROOT)/libbpf-ext/include -I$(UAPI_SRC)

# name of a guest test -> the skeletons it includes
TEST_GUEST_PROGS := bpf-smoke workload kview-isolation kview-lifecycle kview-errors \
	kview-tracepoint kview-mirror untraced-syscalls kview-pre kview-scope kview-faults kview-stress \
	kview-skeleton kview-multi kview-trampoline kview-tlb kview-explicit kview-cgroup
skels_bpf-smoke := smoke
skels_kview-isolation := count
skels_kview-lifecycle := count
skels_kview-errors := count lsmcg
skels_kview-tracepoint := tpcount
skels_kview-mirror := count tpcount sysprog
skels_untraced-syscalls := tpcount
skels_kview-pre := count tpcount
skels_kview-scope := scope
skels_kview-faults := count multi tpcount
skels_kview-stress := stress
skels_kview-skeleton := skel
skels_kview-multi := multi session
skels_kview-trampoline := tramp
skels_kview-tlb := tlb
skels_kview-explicit := explicit
skels_kview-cgroup := cgcount
# Tests built of more than one file: the other sources
srcs_kview-stress := $(sort $(wildcard $(ROOT)/tests/guest/stress/*.c))
deps_kview-stress := $(srcs_kview-stress) $(ROOT)/tests/guest/stress/stress.h
# Tests that need the series' own UAPI (bpf.h's BPF_F_KVIEW_FD), which
# Debian's linux-libc-dev (6.1) does not have: build/khdr first.
khdr_kview-explicit := 1
# BPF objects the tests load by path
TEST_BPF_OBJS := $(patsubst $(ROOT)/%.bpf.c,$(BUILD)/%.bpf.o,$(wildcard $(ROOT)/tests/bpf/*.bpf.c))

# Objects built on the shared counting code
$(TEST_BPF_OUT)/count.bpf.o $(TEST_BPF_OUT)/tpcount.bpf.o $(TEST_BPF_OUT)/tramp.bpf.o: \
	$(ROOT)/tests/bpf/pidcount.h

tests: $(addprefix $(TEST_GUEST_OUT)/,$(TEST_GUEST_PROGS)) $(TEST_BPF_OBJS)

.SECONDEXPANSION:
$(TEST_GUEST_OUT)/%: $(ROOT)/tests/guest/%.c $$(addprefix $(TEST_BPF_OUT)/,$$(addsuffix .skel.h,$$(skels_$$*))) \
		$(wildcard $(ROOT)/tests/lib/*.h) $(LIBKVIEW_A) $(LIBKVIEW_HDRS) \
		$$(if $$(khdr_$$*),$(KHDR)/usr/include/linux/kview.h) $$(deps_$$*)
	@mkdir -p $(@D)
	@echo "  CC      tests/guest/$*"
	$(Q)$(CC) $(TEST_CFLAGS) $(if $(khdr_$*),-isystem $(KHDR)/usr/include) $(LDFLAGS) $< $(srcs_$*) -o $@ \
		$(LIBKVIEW_A) $(LDLIBS_BPF) -lpthread

# The series' kselftests (tools/testing/selftests/kview/ in the generated
# tree), built by the kernel's own selftest makefile against the series'
# UAPI headers (headers_install of the tree into build/khdr: no .config
# needed), run in the guest by tests/guest.list.
KSELFTEST_OUT := $(BUILD)/tests/kselftest
KSELFTEST_SRC := $(BUILD)/linux/tools/testing/selftests/kview
tests: $(KSELFTEST_OUT)/kview_test
$(KHDR)/usr/include/linux/kview.h: $(BUILD)/linux.stamp
	@echo "  HDRINST build/khdr (the series' UAPI headers)"
	$(Q)$(MAKE) -s -C $(BUILD)/linux O=$(KHDR) ARCH=x86 headers_install \
		INSTALL_HDR_PATH=$(KHDR)/usr >/dev/null
	$(Q)touch $@
$(KSELFTEST_OUT)/kview_test: $(KSELFTEST_SRC)/kview_test.c $(KHDR)/usr/include/linux/kview.h
	@mkdir -p $(@D)
	@echo "  CC      tools/testing/selftests/kview/kview_test"
	$(Q)$(MAKE) -s -C $(KSELFTEST_SRC) OUTPUT=$(KSELFTEST_OUT) \
		KHDR_INCLUDES="-isystem $(KHDR)/usr/include"

# Host unit tests of the CLI's BTF printer, JSON writer and reader
# (--container's matching with it), of libkview's kview/views parser and
# of the C tests' suites (tests/host/).
TEST_HOST_OUT := $(BUILD)/tests/host
tests: tests-host
tests-host: $(TEST_HOST_OUT)/btf-printer $(TEST_HOST_OUT)/json-writer $(TEST_HOST_OUT)/views-parser \
	$(TEST_HOST_OUT)/check-suite $(TEST_HOST_OUT)/container-match
$(TEST_HOST_OUT)/btf-printer: $(ROOT)/tests/host/btf-printer.c $(ROOT)/userspace/dump.c \
		$(ROOT)/userspace/json.c $(ROOT)/userspace/json.h $(ROOT)/userspace/dump.h
	@mkdir -p $(@D)
	@echo "  CC      tests/host/btf-printer"
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -I$(ROOT)/userspace -I$(ROOT)/libbpf-ext/include -I$(UAPI_SRC) $(ROOT)/tests/host/btf-printer.c \
		$(ROOT)/userspace/dump.c $(ROOT)/userspace/json.c -o $@ $(LDLIBS_BPF)
$(TEST_HOST_OUT)/json-writer: $(ROOT)/tests/host/json-writer.c $(ROOT)/userspace/json.c \
		$(ROOT)/userspace/json.h
	@mkdir -p $(@D)
	@echo "  CC      tests/host/json-writer"
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -I$(ROOT)/userspace $(ROOT)/tests/host/json-writer.c \
		$(ROOT)/userspace/json.c -o $@
$(TEST_HOST_OUT)/container-match: $(ROOT)/tests/host/container-match.c $(ROOT)/userspace/container.c \
		$(ROOT)/userspace/container.h $(ROOT)/userspace/json-read.c $(ROOT)/userspace/json-read.h \
		$(ROOT)/userspace/output.c $(ROOT)/userspace/output.h $(ROOT)/userspace/json.c \
		$(ROOT)/userspace/json.h $(ROOT)/userspace/kview-cli.h
	@mkdir -p $(@D)
	@echo "  CC      tests/host/container-match"
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -I$(ROOT)/userspace -I$(ROOT)/libbpf-ext/include -I$(UAPI_SRC) \
		$(ROOT)/tests/host/container-match.c $(ROOT)/userspace/container.c \
		$(ROOT)/userspace/json-read.c $(ROOT)/userspace/output.c $(ROOT)/userspace/json.c \
		-o $@ $(LDLIBS_BPF)
$(TEST_HOST_OUT)/views-parser: $(ROOT)/tests/host/views-parser.c $(LIBKVIEW_A) \
		$(ROOT)/libbpf-ext/include/kview/kview.h
	@mkdir -p $(@D)
	@echo "  CC      tests/host/views-parser"
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -I$(ROOT)/libbpf-ext/include -I$(UAPI_SRC) \
		$(ROOT)/tests/host/views-parser.c -o $@ $(LIBKVIEW_A) $(LDLIBS_BPF)
$(TEST_HOST_OUT)/check-suite: $(ROOT)/tests/host/check-suite.c $(wildcard $(ROOT)/tests/lib/*.h)
	@mkdir -p $(@D)
	@echo "  CC      tests/host/check-suite"
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -I$(ROOT)/tests/lib $(ROOT)/tests/host/check-suite.c -o $@
