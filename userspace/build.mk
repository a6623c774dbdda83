# SPDX-License-Identifier: GPL-2.0
# The kview CLI and the example BPF programs (userspace/).
# Included by the top-level Makefile.

KVIEW_OUT := $(BUILD)/userspace
KVIEW_BIN := $(KVIEW_OUT)/kview
KVIEW_SRCS := kview.c output.c attach.c exec.c command.c container.c list.c dump.c json.c json-read.c
KVIEW_OBJS := $(patsubst %.c,$(KVIEW_OUT)/%.o,$(KVIEW_SRCS))
KVIEW_CFLAGS := $(ALL_CFLAGS) -I$(ROOT)/userspace -I$(ROOT)/libbpf-ext/include -I$(UAPI_SRC)
EXAMPLES := $(patsubst $(ROOT)/%.bpf.c,$(BUILD)/%.bpf.o,$(wildcard $(ROOT)/userspace/examples/*.bpf.c))

userspace: $(KVIEW_BIN) $(EXAMPLES)

$(KVIEW_OBJS): $(KVIEW_OUT)/%.o: $(ROOT)/userspace/%.c $(ROOT)/userspace/kview-cli.h \
		$(ROOT)/userspace/output.h $(ROOT)/userspace/dump.h $(ROOT)/userspace/json.h $(ROOT)/userspace/json-read.h $(ROOT)/userspace/container.h \
		$(LIBKVIEW_HDRS)
	@mkdir -p $(@D)
	@echo "  CC      userspace/$*.c"
	$(Q)$(CC) $(KVIEW_CFLAGS) -c $< -o $@

$(KVIEW_BIN): $(KVIEW_OBJS) $(LIBKVIEW_A)
	@echo "  LD      kview"
	$(Q)$(CC) $(LDFLAGS) -o $@ $(KVIEW_OBJS) $(LIBKVIEW_A) $(LDLIBS_BPF)
