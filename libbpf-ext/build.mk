# SPDX-License-Identifier: GPL-2.0
# libkview (libbpf-ext/): static and shared library, and its pkg-config
# files; make install installs them (kview.pc made for PREFIX and LIBDIR)
# and the kview tool.  Included by the top-level Makefile.

# The version: KVIEW_VERSION in userspace/kview-cli.h, the one place it is
# set, for the CLI and the library alike.  The shared library is
# libkview.so.VERSION (libkview.so.0.5.0), its soname libkview.so.MAJOR
# (libkview.so.0): 0.x versions keep soname 0.  Its symbols are versioned
# by libbpf-ext/libkview.map (KVIEW_0.1, ...).
VERSION := $(shell sed -n 's/^\#define KVIEW_VERSION "\(.*\)"/\1/p' $(ROOT)/userspace/kview-cli.h)
LIBKVIEW_SONAME := libkview.so.$(firstword $(subst ., ,$(VERSION)))
LIBKVIEW_MAP := $(ROOT)/libbpf-ext/libkview.map

LIBKVIEW_OUT := $(BUILD)/libbpf-ext
LIBKVIEW_A := $(LIBKVIEW_OUT)/libkview.a
LIBKVIEW_SO := $(LIBKVIEW_OUT)/libkview.so.$(VERSION)
LIBKVIEW_PC := $(LIBKVIEW_OUT)/kview.pc $(LIBKVIEW_OUT)/kview-uninstalled.pc
LIBKVIEW_CFLAGS := $(ALL_CFLAGS) -fPIC -I$(ROOT)/libbpf-ext/include -I$(UAPI_SRC)
LIBKVIEW_HDRS := $(ROOT)/libbpf-ext/include/kview/kview.h $(UAPI_SRC)/linux/kview.h

PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
MANDIR ?= $(PREFIX)/share/man
# <linux/kview.h> is the patched kernel's UAPI header (the copy vendored in
# include/uapi/); it goes beside libkview's own rather than into
# include/linux, where the kernel's headers package (linux-libc-dev) has
# its files.  kview.pc's Cflags point there.
UAPI_INCDIR = $(PREFIX)/include/kview/uapi

libbpf-ext: $(LIBKVIEW_A) $(LIBKVIEW_SO) $(LIBKVIEW_PC)

# src/kview.c: views and attaching; src/views.c: debugfs kview/views.
LIBKVIEW_OBJS := $(LIBKVIEW_OUT)/kview.o $(LIBKVIEW_OUT)/views.o

$(LIBKVIEW_OUT)/%.o: $(ROOT)/libbpf-ext/src/%.c $(LIBKVIEW_HDRS)
	@mkdir -p $(@D)
	@echo "  CC      libbpf-ext/src/$*.c"
	$(Q)$(CC) $(LIBKVIEW_CFLAGS) -c $< -o $@

$(LIBKVIEW_A): $(LIBKVIEW_OBJS)
	@echo "  AR      libkview.a"
	$(Q)rm -f $@ && ar rcs $@ $^

# The library, its soname link and the link a program's -lkview finds.
$(LIBKVIEW_SO): $(LIBKVIEW_OBJS) $(LIBKVIEW_MAP)
	@echo "  LD      $(notdir $@)"
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,$(LIBKVIEW_SONAME) \
		-Wl,--version-script=$(LIBKVIEW_MAP) -o $@ $(LIBKVIEW_OBJS) $(LDLIBS_BPF)
	$(Q)ln -sf $(notdir $@) $(LIBKVIEW_OUT)/$(LIBKVIEW_SONAME)
	$(Q)ln -sf $(LIBKVIEW_SONAME) $(LIBKVIEW_OUT)/libkview.so

# kview.pc for PREFIX and LIBDIR, the one make install installs, and
# kview-uninstalled.pc for this build tree (libbpf-ext/include,
# include/uapi, build/libbpf-ext), which pkg-config takes instead of
# kview.pc when PKG_CONFIG_PATH names build/libbpf-ext.  Rewritten when
# PREFIX, LIBDIR or the version changed.
# $(call libkview_pc,prefix,libdir,includedir,uapiincludedir)
libkview_pc = sed -e 's|@PREFIX@|$(1)|' -e 's|@LIBDIR@|$(2)|' \
	-e 's|@INCLUDEDIR@|$(3)|' -e 's|@UAPIINCLUDEDIR@|$(4)|' \
	-e 's|@VERSION@|$(VERSION)|' $< >$@.tmp; \
	if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; echo "  GEN     $(notdir $@)"; fi

$(LIBKVIEW_OUT)/kview.pc: $(ROOT)/libbpf-ext/kview.pc.in FORCE
	@mkdir -p $(@D)
	$(Q)$(call libkview_pc,$(PREFIX),$(LIBDIR),$${prefix}/include,$${includedir}/kview/uapi)

$(LIBKVIEW_OUT)/kview-uninstalled.pc: $(ROOT)/libbpf-ext/kview.pc.in FORCE
	@mkdir -p $(@D)
	$(Q)$(call libkview_pc,$(ROOT),$(LIBKVIEW_OUT),$${prefix}/libbpf-ext/include,$${prefix}/include/uapi)

.PHONY: FORCE
FORCE:

## install         install libkview (headers, libraries, pkg-config, man page)
##                 and kview (PREFIX=/usr/local, LIBDIR, MANDIR, DESTDIR)
install: libbpf-ext $(KVIEW_BIN)
	install -d $(DESTDIR)$(PREFIX)/include/kview $(DESTDIR)$(UAPI_INCDIR)/linux \
		$(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(PREFIX)/sbin \
		$(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man8
	install -m 0644 $(ROOT)/libbpf-ext/include/kview/kview.h $(DESTDIR)$(PREFIX)/include/kview/
	install -m 0644 $(UAPI_SRC)/linux/kview.h $(DESTDIR)$(UAPI_INCDIR)/linux/
	install -m 0644 $(LIBKVIEW_A) $(DESTDIR)$(LIBDIR)/
	install -m 0644 $(LIBKVIEW_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(LIBKVIEW_SO)) $(DESTDIR)$(LIBDIR)/$(LIBKVIEW_SONAME)
	ln -sf $(LIBKVIEW_SONAME) $(DESTDIR)$(LIBDIR)/libkview.so
	install -m 0644 $(LIBKVIEW_OUT)/kview.pc $(DESTDIR)$(LIBDIR)/pkgconfig/
	install -m 0755 $(KVIEW_BIN) $(DESTDIR)$(PREFIX)/sbin/
	install -m 0644 $(ROOT)/docs/man/libkview.3 $(DESTDIR)$(MANDIR)/man3/
	install -m 0644 $(ROOT)/docs/man/kview.8 $(DESTDIR)$(MANDIR)/man8/
