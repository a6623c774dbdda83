# SPDX-License-Identifier: GPL-2.0
# libkview (libbpf-ext/): static and shared library, pkg-config file.
# Included by the top-level Makefile.

LIBKVIEW_OUT := $(BUILD)/libbpf-ext
LIBKVIEW_A := $(LIBKVIEW_OUT)/libkview.a
LIBKVIEW_SO := $(LIBKVIEW_OUT)/libkview.so.0
LIBKVIEW_PC := $(LIBKVIEW_OUT)/kview.pc
LIBKVIEW_CFLAGS := $(CFLAGS) -fPIC -I$(ROOT)/libbpf-ext/include -I$(INCDIR)
LIBKVIEW_HDRS := $(ROOT)/libbpf-ext/include/kview/kview.h $(INCDIR)/linux/kview.h

libbpf-ext: $(LIBKVIEW_A) $(LIBKVIEW_SO) $(LIBKVIEW_PC)

$(LIBKVIEW_OUT)/kview.o: $(ROOT)/libbpf-ext/src/kview.c $(LIBKVIEW_HDRS)
	@mkdir -p $(@D)
	@echo "  CC      libbpf-ext/src/kview.c"
	$(Q)$(CC) $(LIBKVIEW_CFLAGS) -c $< -o $@

$(LIBKVIEW_A): $(LIBKVIEW_OUT)/kview.o
	@echo "  AR      libkview.a"
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBKVIEW_SO): $(LIBKVIEW_OUT)/kview.o
	@echo "  LD      libkview.so.0"
	$(Q)$(CC) -shared -Wl,-soname,libkview.so.0 -o $@ $^ $(LDLIBS_BPF)
	$(Q)ln -sf libkview.so.0 $(LIBKVIEW_OUT)/libkview.so

$(LIBKVIEW_PC): $(ROOT)/libbpf-ext/kview.pc.in
	@mkdir -p $(@D)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' $< > $@

PREFIX ?= /usr/local

## install         install libkview (headers, libraries, pkg-config) and kview
install: libbpf-ext userspace
	install -d $(DESTDIR)$(PREFIX)/include/kview $(DESTDIR)$(PREFIX)/include/linux \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/sbin
	install -m 0644 $(ROOT)/libbpf-ext/include/kview/kview.h $(DESTDIR)$(PREFIX)/include/kview/
	install -m 0644 $(INCDIR)/linux/kview.h $(DESTDIR)$(PREFIX)/include/linux/
	install -m 0644 $(LIBKVIEW_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 0755 $(LIBKVIEW_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libkview.so.0 $(DESTDIR)$(PREFIX)/lib/libkview.so
	install -m 0644 $(LIBKVIEW_PC) $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	install -m 0755 $(KVIEW_BIN) $(DESTDIR)$(PREFIX)/sbin/
