# SPDX-License-Identifier: GPL-2.0
# libkview (libbpf-ext/): static and shared library; make install installs
# it (with its pkg-config file, made for PREFIX and LIBDIR) and the kview tool.
# Included by the top-level Makefile.

LIBKVIEW_OUT := $(BUILD)/libbpf-ext
LIBKVIEW_A := $(LIBKVIEW_OUT)/libkview.a
LIBKVIEW_SO := $(LIBKVIEW_OUT)/libkview.so.0
LIBKVIEW_CFLAGS := $(ALL_CFLAGS) -fPIC -I$(ROOT)/libbpf-ext/include -I$(UAPI_SRC)
LIBKVIEW_HDRS := $(ROOT)/libbpf-ext/include/kview/kview.h $(UAPI_SRC)/linux/kview.h

libbpf-ext: $(LIBKVIEW_A) $(LIBKVIEW_SO)

$(LIBKVIEW_OUT)/kview.o: $(ROOT)/libbpf-ext/src/kview.c $(LIBKVIEW_HDRS)
	@mkdir -p $(@D)
	@echo "  CC      libbpf-ext/src/kview.c"
	$(Q)$(CC) $(LIBKVIEW_CFLAGS) -c $< -o $@

$(LIBKVIEW_A): $(LIBKVIEW_OUT)/kview.o
	@echo "  AR      libkview.a"
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIBKVIEW_SO): $(LIBKVIEW_OUT)/kview.o
	@echo "  LD      libkview.so.0"
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,libkview.so.0 -o $@ $^ $(LDLIBS_BPF)
	$(Q)ln -sf libkview.so.0 $(LIBKVIEW_OUT)/libkview.so

# The version: KVIEW_VERSION in userspace/kview-cli.h, the one place it is set.
VERSION := $(shell sed -n 's/^\#define KVIEW_VERSION "\(.*\)"/\1/p' $(ROOT)/userspace/kview-cli.h)
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
MANDIR ?= $(PREFIX)/share/man
# <linux/kview.h> is the patched kernel's UAPI header (the copy vendored in
# include/uapi/); it goes beside libkview's own rather than into
# include/linux, where the kernel's headers package (linux-libc-dev) has
# its files.  kview.pc's Cflags point there.
UAPI_INCDIR = $(PREFIX)/include/kview/uapi

## install         install libkview (headers, libraries, pkg-config, man page)
##                 and kview (PREFIX=/usr/local, LIBDIR, MANDIR, DESTDIR)
install: libbpf-ext userspace
	install -d $(DESTDIR)$(PREFIX)/include/kview $(DESTDIR)$(UAPI_INCDIR)/linux \
		$(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(PREFIX)/sbin \
		$(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man8
	install -m 0644 $(ROOT)/libbpf-ext/include/kview/kview.h $(DESTDIR)$(PREFIX)/include/kview/
	install -m 0644 $(UAPI_SRC)/linux/kview.h $(DESTDIR)$(UAPI_INCDIR)/linux/
	install -m 0644 $(LIBKVIEW_A) $(DESTDIR)$(LIBDIR)/
	install -m 0644 $(LIBKVIEW_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libkview.so.0 $(DESTDIR)$(LIBDIR)/libkview.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@VERSION@|$(VERSION)|' \
		$(ROOT)/libbpf-ext/kview.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/kview.pc
	install -m 0755 $(KVIEW_BIN) $(DESTDIR)$(PREFIX)/sbin/
	install -m 0644 $(ROOT)/docs/man/libkview.3 $(DESTDIR)$(MANDIR)/man3/
	install -m 0644 $(ROOT)/docs/man/kview.8 $(DESTDIR)$(MANDIR)/man8/
