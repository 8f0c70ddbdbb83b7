# epdbg -- debugger and profiler for PyTorch exported programs (.pt2)
#
#   make            build ./epdbg (installs missing Debian packages when root)
#   make demo       build, write the example models, open one in the debugger
#   make check      the layers check, unit + corpus tests, then the same suite
#                   under ASan+UBSan
#   make layers     only the layers check (scripts/check-layers.sh)
#   make bench      speed and memory measurements (README: Speed and memory)
#   make install    PREFIX=/usr/local DESTDIR= (the binary and the man page)
#   make uninstall  removes what install put there
#   make install-check  install and uninstall under a temporary DESTDIR
#   make clean
#   V=1             show full compiler command lines

# The version, defined here only: main.c prints it (--version, --help), the
# installed man page carries it.
VERSION := 0.1.0

PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
VARIANT ?= release

PKGS := ncursesw libzip libcjson openblas libpcre2-8

# build/config.mk holds the pkg-config flags.  Making it first runs
# scripts/deps.sh (which installs missing packages as root); make then
# re-reads this Makefile with the flags in place.
-include build/config.mk
build/config.mk: scripts/deps.sh
	@scripts/deps.sh
	@mkdir -p build
	@{ echo "PKG_CFLAGS := $$(pkg-config --cflags $(PKGS))"; \
	   echo "PKG_LIBS := $$(pkg-config --libs $(PKGS))"; \
	   echo "CHECK_CFLAGS := $$(pkg-config --cflags check)"; \
	   echo "CHECK_LIBS := $$(pkg-config --libs check)"; } > $@

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wwrite-strings -Wundef -Wold-style-definition -Wvla
# -fno-math-errno: nothing reads errno after a libm call, and with it set
# sqrtf is one instruction the vectorizer can use.  -fno-trapping-math:
# nothing reads the floating-point exception flags, and with it set GCC may
# compute both sides of a ternary and select (x > 0 ? x : x * slope as a
# vector blend, not a branch on the data).  Neither changes a value: IEEE
# results are the same; -ffast-math's value-changing parts stay off.
BASE_CFLAGS := -std=c11 -D_DEFAULT_SOURCE -D_GNU_SOURCE -fno-math-errno -fno-trapping-math -g -MMD -MP $(WARN) -I.

# The asan variant is also the debug build: EPDBG_CHECK_CONTRACTS turns on
# the contract checks that cost time on every node (interp/ops/kernel.h:
# each argument read through the accessor of its schema kind), so `make
# check` runs every kernel with them while a release run pays nothing.
ifeq ($(VARIANT),asan)
  OPT := -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all \
         -DEPDBG_CHECK_CONTRACTS
  LDOPT := -fsanitize=address,undefined
else
  OPT := -O2
  LDOPT :=
endif

ALL_CFLAGS = $(BASE_CFLAGS) $(OPT) $(PKG_CFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(LDOPT) $(LDFLAGS)
LIBS = $(PKG_LIBS) -lm -pthread

B := build/$(VARIANT)

LIB_SRCS := $(sort $(wildcard symbolic/*.c interp/*.c interp/ops/*.c profiler/*.c debugger/*.c cli/*.c tui/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o)
MAIN_OBJ := $(B)/main.o
GEN_SRCS := $(sort $(wildcard examples/gen/*.c))
GEN_OBJS := $(GEN_SRCS:%.c=$(B)/%.o)
TEST_SRCS := $(sort $(wildcard tests/*.c))
TEST_OBJS := $(TEST_SRCS:%.c=$(B)/%.o)
BENCH_SRCS := $(sort $(wildcard bench/*.c))

ifeq ($(V),1)
  Q :=
else
  Q := @
endif

.PHONY: all demo check layers test examples fixtures bench install uninstall install-check clean
.DEFAULT_GOAL := all

all: epdbg

epdbg: $(B)/epdbg
	$(Q)cp $< $@

$(MAIN_OBJ): ALL_CFLAGS += -DEPDBG_VERSION='"$(VERSION)"'
$(MAIN_OBJ): Makefile

$(B)/%.o: %.c build/config.mk
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(B)/libepdbg.a: $(LIB_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/epdbg: $(MAIN_OBJ) $(B)/libepdbg.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# ---- example models (written by our own generator) --------------------------

$(B)/make-examples: $(GEN_OBJS) $(B)/libepdbg.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

EXAMPLES := examples/mlp.pt2 examples/mlp_legacy.pt2 examples/cnn.pt2 examples/cnn_legacy.pt2

examples: $(EXAMPLES)
$(EXAMPLES) &: $(B)/make-examples
	$(Q)$(B)/make-examples examples

# Test fixtures: archives of every era and layout, written by the same
# generator (tests/refs/README.md).
FIXTURES_STAMP := build/fixtures/.stamp
fixtures: $(FIXTURES_STAMP)
$(FIXTURES_STAMP): $(B)/make-examples
	@mkdir -p build/fixtures
	$(Q)$(B)/make-examples --fixtures build/fixtures && touch $@

demo: epdbg examples
	./epdbg examples/cnn.pt2 --source-dir examples/src

# ---- tests ------------------------------------------------------------------

# Every tests/*.c that defines "Suite *suite_NAME(void)" joins the runner.
$(B)/tests/suites.inc: $(TEST_SRCS)
	@mkdir -p $(dir $@)
	$(Q)grep -ho 'Suite \*suite_[a-z0-9_]*(void)' $(TEST_SRCS) | \
	    sed 's/Suite \*\(suite_[a-z0-9_]*\)(void)/SUITE(\1)/' > $@.tmp && mv $@.tmp $@

$(B)/tests/check_main.o: $(B)/tests/suites.inc
$(B)/tests/%.o: ALL_CFLAGS += $(CHECK_CFLAGS) -I$(B)/tests

$(B)/run-tests: $(TEST_OBJS) $(GEN_OBJS:$(B)/examples/gen/make_examples.o=) $(B)/libepdbg.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) $(CHECK_LIBS)

test: examples fixtures $(B)/run-tests $(B)/epdbg
	EPDBG_BIN=$(B)/epdbg $(B)/run-tests

# symbolic <- interp <- profiler <- debugger <- {tui, cli} <- main.c: every
# include and every call between objects points down the stack.
layers: $(B)/libepdbg.a $(MAIN_OBJ)
	$(Q)scripts/check-layers.sh $(B)

check: all examples fixtures
	$(Q)$(MAKE) --no-print-directory layers VARIANT=release
	$(Q)$(MAKE) --no-print-directory install-check
	$(Q)$(MAKE) --no-print-directory test VARIANT=release
	$(Q)$(MAKE) --no-print-directory test VARIANT=asan \
	    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1

# ---- benchmarks ---------------------------------------------------------------

$(B)/bench/%: $(B)/bench/%.o $(GEN_OBJS:$(B)/examples/gen/make_examples.o=) $(B)/libepdbg.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $(filter %.o %.a,$^) $(LIBS)

bench: epdbg $(BENCH_SRCS:bench/%.c=$(B)/bench/%)
	bench/run.sh $(B)

# ---- fuzzing (fuzz/README.md; not part of check) ---------------------------

# Every fuzz/fuzz_NAME.c is a libFuzzer harness, built with clang against
# the library compiled for fuzzing (coverage, ASan, UBSan) in build/fuzz/,
# then run for FUZZ_SECONDS each, one after another, at low priority, on
# seed corpora fuzz/seeds.sh writes into build/fuzz/corpus/NAME.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FB := build/fuzz
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS = $(BASE_CFLAGS) -O1 -fno-omit-frame-pointer $(FUZZ_SAN) -fsanitize=fuzzer-no-link $(PKG_CFLAGS)
FUZZ_NAMES := $(sort $(patsubst fuzz/fuzz_%.c,%,$(wildcard fuzz/fuzz_*.c)))

.PHONY: fuzz fuzz-build
.SECONDARY: $(FUZZ_NAMES:%=$(FB)/obj/fuzz/fuzz_%.o)
$(FB)/obj/%.o: %.c build/config.mk
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $< (fuzz)")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@

$(FB)/libepdbg.a: $(LIB_SRCS:%.c=$(FB)/obj/%.o)
	$(Q)rm -f $@ && ar rcs $@ $^

$(FB)/fuzz_%: $(FB)/obj/fuzz/fuzz_%.o $(FB)/libepdbg.a
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(LIBS)

fuzz-build: $(FUZZ_NAMES:%=$(FB)/fuzz_%)

fuzz: fuzz-build examples fixtures
	$(Q)fuzz/seeds.sh $(FB)/corpus
	$(Q)fuzz/run.sh $(FB) $(FUZZ_SECONDS) $(FUZZ_NAMES)

# ---- install -----------------------------------------------------------------

MAN1 := $(DESTDIR)$(PREFIX)/share/man/man1

install: epdbg
	install -d $(DESTDIR)$(PREFIX)/bin $(MAN1)
	install -m 755 epdbg $(DESTDIR)$(PREFIX)/bin/epdbg
	sed 's/@VERSION@/$(VERSION)/g' doc/epdbg.1 > $(MAN1)/epdbg.1
	chmod 644 $(MAN1)/epdbg.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/epdbg $(MAN1)/epdbg.1

# install and uninstall into a scratch DESTDIR: the files land where they
# should, the installed binary runs and its version is the man page's, and
# uninstall leaves nothing behind.
install-check: epdbg
	$(Q)d=build/install-check; rm -rf $$d && \
	$(MAKE) --no-print-directory -s install DESTDIR=$$d PREFIX=/usr >/dev/null && \
	test -x $$d/usr/bin/epdbg && test -f $$d/usr/share/man/man1/epdbg.1 && \
	test "$$($$d/usr/bin/epdbg --version)" = "epdbg $(VERSION)" && \
	grep -q '^\.TH EPDBG 1 .*"epdbg $(VERSION)"' $$d/usr/share/man/man1/epdbg.1 && \
	! grep -q @VERSION@ $$d/usr/share/man/man1/epdbg.1 && \
	$(MAKE) --no-print-directory -s uninstall DESTDIR=$$d PREFIX=/usr && \
	test -z "$$(find $$d -type f)" && rm -rf $$d && echo "install-check: ok" || \
	{ echo "install-check: FAILED (see $$d)"; exit 1; }

clean:
	rm -rf build epdbg $(EXAMPLES)

-include $(shell find build -name '*.d' 2>/dev/null)
