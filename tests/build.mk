# SPDX-License-Identifier: GPL-2.0
# Test programs: C tests run in the guest, and the BPF objects they load.
# Included by the top-level Makefile.

TEST_BPF_OUT := $(BUILD)/tests/bpf
TEST_GUEST_OUT := $(BUILD)/tests/guest
TEST_CFLAGS := $(CFLAGS) -I$(ROOT)/tests/lib -I$(TEST_BPF_OUT)

# name of a guest test -> the skeletons it includes
TEST_GUEST_PROGS := bpf-smoke
skels_bpf-smoke := smoke

tests: $(addprefix $(TEST_GUEST_OUT)/,$(TEST_GUEST_PROGS))

.SECONDEXPANSION:
$(TEST_GUEST_OUT)/%: $(ROOT)/tests/guest/%.c $$(addprefix $(TEST_BPF_OUT)/,$$(addsuffix .skel.h,$$(skels_$$*))) \
		$(wildcard $(ROOT)/tests/lib/*.h)
	@mkdir -p $(@D)
	@echo "  CC      tests/guest/$*"
	$(Q)$(CC) $(TEST_CFLAGS) $< -o $@ $(LDLIBS_BPF)
