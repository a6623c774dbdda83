# SPDX-License-Identifier: GPL-2.0
# Evaluation programs (eval/): guest drivers, their BPF objects, and the
# host-side summarizer.  Included by the top-level Makefile.

EVAL_OUT := $(BUILD)/eval
EVAL_BPF_OUT := $(EVAL_OUT)/bpf
EVAL_CFLAGS := $(ALL_CFLAGS) -I$(ROOT)/tests/lib -I$(EVAL_BPF_OUT) -I$(ROOT)/eval/bpf \
	-I$(ROOT)/libbpf-ext/include -I$(UAPI_SRC)

EVAL_GUEST_PROGS := untraced-kprobe memcached per-event attach tools hwcost switch scale
skels_attach := kprobe_count
skels_per-event := per_event
skels_untraced-kprobe := kprobe_count
skels_memcached := memcached_hooks
skels_hwcost := hwcost
skels_switch := hwcost
skels_scale := hwcost scalehit

eval-build: $(addprefix $(EVAL_OUT)/guest/,$(EVAL_GUEST_PROGS)) $(EVAL_OUT)/summarize

$(EVAL_OUT)/guest/%: $(ROOT)/eval/guest/%.c $$(addprefix $(EVAL_BPF_OUT)/,$$(addsuffix .skel.h,$$(skels_$$*))) \
		$(wildcard $(ROOT)/tests/lib/*.h $(ROOT)/eval/guest/*.h $(ROOT)/eval/bpf/*.h) \
		$(LIBKVIEW_A) $(LIBKVIEW_HDRS)
	@mkdir -p $(@D)
	@echo "  CC      eval/guest/$*"
	$(Q)$(CC) $(EVAL_CFLAGS) $(LDFLAGS) $< -o $@ $(LIBKVIEW_A) $(LDLIBS_BPF) -lpthread

$(EVAL_OUT)/summarize: $(ROOT)/eval/tools/summarize.c
	@mkdir -p $(@D)
	@echo "  CC      eval/tools/summarize"
	$(Q)$(CC) $(ALL_CFLAGS) $(LDFLAGS) $< -o $@ -lm

## eval            the whole evaluation (about an hour): eval/results/<date>-full/
eval: all eval-build
	$(Q)$(ROOT)/eval/run full

## eval-quick      a short evaluation (under 40 minutes, 7 more for many views
##                 at once, and the containers part, not timed):
##                 eval/results/<date>-quick/
eval-quick: all eval-build
	$(Q)$(ROOT)/eval/run quick

## eval-kprobe     untraced cost of a kprobe traced for another process (icount)
eval-kprobe: all eval-build
	$(Q)$(ROOT)/eval/bench-kprobe-untraced
