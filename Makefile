# cts — concurrency testing for uninstrumented Linux x86-64 programs.
# make            build ./cts-trace
# make check      build and run the whole TAP suite with prove
# make asan       the suite under address + undefined sanitizers
# make demo       find, save and replay a bug in a bundled example
# make deps       install the Debian packages the build and the tests need (as root)
# make fuzz       fuzz the schedule and command-line parsers (FUZZ_SECONDS each)
# make install    install cts-trace, its man page and bash completion, and the
#                 shard drivers (PREFIX=/usr/local, DESTDIR, BINDIR, MANDIR, BASHCOMPDIR)
# make uninstall  remove what make install installed (same variables)
# make package-check  build the Debian package (debian/), install it, run it

CC      ?= gcc
WERROR  ?= -Werror
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
           -Wimplicit-fallthrough -Wno-format-truncation
CFLAGS  ?= -O2 -g
# The flags cts needs whatever CFLAGS the caller passes (make asan overrides CFLAGS).
ALL_CFLAGS = -std=gnu11 $(WARN) $(if $(filter true,$(CI)),-Werror,$(WERROR)) -I. -D_GNU_SOURCE \
             $(CFLAGS)
LDLIBS  := -lcapstone -ldw -lelf -lseccomp -ljansson -lm
PROVE   ?= prove
JOBS    ?= 2
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR  ?= $(DATADIR)/man
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
INSTALL ?= install
# AUTO_DEPS=no: never run make deps from a build (debian/rules: the package
# build has its Build-Depends and must not apt-get anything).
AUTO_DEPS ?= yes

DEB_PKGS := libcapstone-dev libdw-dev libelf-dev libseccomp-dev libjansson-dev \
            clang libclang-rt-14-dev python3-jsonschema chromium
DEB_HDRS := /usr/include/capstone/capstone.h /usr/include/elfutils/libdwfl.h \
            /usr/include/gelf.h /usr/include/seccomp.h /usr/include/jansson.h
# What the tests need besides the build: compilers and libraries of the
# tests/corpus programs, the real programs of the corpus and their
# decompressors, jq for the JSON reports; GNU parallel, Slurm and munge for
# the scale-out drivers (tests/e2e/shard.t, tests/e2e/slurm.t); man-db and
# bash-completion for the installed tree, debhelper for the Debian package
# (tests/e2e/install.t, make package-check); gdb for --gdb and --core
# (tests/e2e/gdb.t).
TEST_PKGS := g++ pkg-config libglib2.0-dev pigz pbzip2 lbzip2 p7zip-full bzip2 xz-utils zstd gzip \
             python3 jq parallel slurm-wlm munge man-db bash-completion debhelper gdb
TEST_FILES := /usr/bin/g++ /usr/bin/pkg-config /usr/include/glib-2.0/glib.h /usr/bin/pigz \
              /usr/bin/pbzip2 /usr/bin/lbzip2 /usr/lib/p7zip/7z /usr/bin/bzip2 /usr/bin/xz /usr/bin/zstd /usr/bin/python3 /usr/bin/jq \
              /usr/bin/parallel /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/munged \
              /usr/bin/man /usr/share/bash-completion/bash_completion /usr/bin/dh /usr/bin/gdb

LIB_SRCS := $(wildcard models/*.c hw/*.c disasm/*.c strategies/*.c) \
            $(filter-out tracer/main.c,$(wildcard tracer/*.c))
LIB_OBJS := $(LIB_SRCS:.c=.o)
FUZZ_PKGS := clang libclang-rt-14-dev
# libFuzzer targets (tests/fuzz): built with clang when it has libFuzzer.
FUZZ_CC   ?= clang
FUZZ_CFLAGS = -std=gnu11 $(WARN) $(WERROR) -Wno-unknown-warning-option \
               -Wno-format-nonliteral -I. -D_GNU_SOURCE -g -O1 \
               -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_SCHEDULE_SRCS := tests/fuzz/fuzz_schedule.c models/schedule.c models/event.c models/error.c
FUZZ_CLI_SRCS := tests/fuzz/fuzz_cli.c tracer/cli.c hw/hw.c
FUZZ_BINS := tests/fuzz/fuzz_schedule tests/fuzz/fuzz_cli
FUZZ_SECONDS ?= 300
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:.c=)
PROG_SRCS := $(wildcard tests/programs/*.c)
PROG_BINS := $(PROG_SRCS:.c=)
PROG_CFLAGS := -g -O1 -pthread -std=gnu11 -w
CORPUS_BINS := tests/corpus/cxx_queue tests/corpus/omp_sum tests/corpus/glib_pool \
               tests/corpus/glib_seq tests/corpus/glib_seq_race tests/corpus/glib_reuse \
               tests/corpus/glib_reuse_race

all: deps-check cts-trace cts-trace.bash

# Headers missing: install (the build needs them). As root, also when the
# fuzzing packages are missing (without them only the fuzz test skips).
deps-check:
	@[ "$(AUTO_DEPS)" != no ] || exit 0; missing=""; for h in $(DEB_HDRS); do [ -e $$h ] || missing=1; done; \
	if [ -z "$$missing" ] && [ "$$(id -u)" = 0 ]; then \
	  dpkg -s $(FUZZ_PKGS) >/dev/null 2>&1 || missing=1; fi; \
	if [ -n "$$missing" ]; then $(MAKE) --no-print-directory deps; fi

test-deps-check: deps-check
	@[ "$(AUTO_DEPS)" != no ] || exit 0; missing=""; for f in $(TEST_FILES); do [ -e $$f ] || missing=1; done; \
	if [ -n "$$missing" ]; then $(MAKE) --no-print-directory deps; fi

deps:
	@need=""; for p in $(DEB_PKGS) $(TEST_PKGS); do dpkg -s $$p >/dev/null 2>&1 || need="$$need $$p"; done; \
	if [ -n "$$need" ]; then \
	  if [ "$$(id -u)" != 0 ]; then echo "make deps: need root to install:$$need" >&2; exit 1; fi; \
	  echo "installing:$$need"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$need) >/dev/null || exit 1; \
	fi

# Nothing compiles before the headers are there (make -j on a fresh machine).
$(LIB_OBJS) tracer/main.o: | deps-check

libcts.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

cts-trace: tracer/main.o libcts.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The bash completion, generated from --help: it cannot drift from the options.
cts-trace.bash: cts-trace scripts/gen-completion.sh
	sh scripts/gen-completion.sh ./cts-trace >$@.tmp && mv $@.tmp $@

install: cts-trace cts-trace.bash
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	$(INSTALL) -m 755 cts-trace $(DESTDIR)$(BINDIR)/cts-trace
	$(INSTALL) -m 755 scripts/cts-parallel.sh $(DESTDIR)$(BINDIR)/cts-parallel
	$(INSTALL) -m 755 scripts/cts-slurm.sh $(DESTDIR)$(BINDIR)/cts-slurm
	$(INSTALL) -m 644 docs/cts-trace.1 $(DESTDIR)$(MANDIR)/man1/cts-trace.1
	$(INSTALL) -m 644 cts-trace.bash $(DESTDIR)$(BASHCOMPDIR)/cts-trace

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/cts-trace $(DESTDIR)$(BINDIR)/cts-parallel \
	      $(DESTDIR)$(BINDIR)/cts-slurm $(DESTDIR)$(MANDIR)/man1/cts-trace.1 \
	      $(DESTDIR)$(BASHCOMPDIR)/cts-trace

%.o: %.c $(wildcard */*.h)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# Every header of tests/unit: a test includes tap.h, simload.h, traces.h...
tests/unit/test_%: tests/unit/test_%.c $(wildcard tests/unit/*.h) libcts.a
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< libcts.a $(LDLIBS)

tests/programs/%: tests/programs/%.c
	$(CC) $(PROG_CFLAGS) -o $@ $< -lm

# The attach race twins share their correct traffic.
tests/programs/attach_datarace tests/programs/attach_datarace_ok: tests/programs/attach_traffic.h
tests/programs/heap_pipe: tests/programs/heap_pipe_ok.c
tests/programs/alone_race_ok: tests/programs/alone_race.c
tests/programs/above_stack_race_ok: tests/programs/above_stack_race.c
tests/programs/lib_retired_ok tests/programs/lib_retired_tail: tests/programs/lib_retired.c

# A lock inside a stripped shared library (libsync.c's test).
tests/programs/lib/libspeclock.so: tests/programs/lib/speclock.c
	$(CC) -g -O2 -fPIC -shared -std=gnu11 -o $@ $< && strip $@

tests/programs/lib_lock tests/programs/lib_lock_ok: tests/programs/%: tests/programs/%.c \
		tests/programs/lib/libspeclock.so
	$(CC) $(PROG_CFLAGS) -o $@ $< -Ltests/programs/lib -lspeclock -Wl,-rpath,'$$ORIGIN/lib'

# A library that calls its own exported function through its PLT.
tests/programs/lib/libselfcall.so: tests/programs/lib/selfcall.c
	$(CC) -g -O2 -fPIC -shared -std=gnu11 -o $@ $<

tests/programs/lib_selfcall_ok: tests/programs/lib_selfcall_ok.c tests/programs/lib/libselfcall.so
	$(CC) $(PROG_CFLAGS) -o $@ $< -Ltests/programs/lib -lselfcall -Wl,-rpath,'$$ORIGIN/lib'

# Calls into libc through the GOT, no PLT stubs (as Rust code makes them).
tests/programs/got_reuse tests/programs/got_reuse_ok: tests/programs/%: tests/programs/%.c
	$(CC) $(PROG_CFLAGS) -fno-plt -o $@ $<

tests/corpus/cxx_queue: tests/corpus/cxx_queue.cpp | test-deps-check
	$(CXX) -std=c++17 -g -O1 -pthread -w -o $@ $<

tests/corpus/omp_sum: tests/corpus/omp_sum.c | test-deps-check
	$(CC) $(PROG_CFLAGS) -fopenmp -o $@ $<

tests/corpus/glib_pool: tests/corpus/glib_pool.c | test-deps-check
	$(CC) $(PROG_CFLAGS) $$(pkg-config --cflags glib-2.0) -o $@ $< $$(pkg-config --libs glib-2.0)

# libvips's sequential reader in miniature, and its twin without the lock.
tests/corpus/glib_seq: tests/corpus/glib_seq.c | test-deps-check
	$(CC) $(PROG_CFLAGS) $$(pkg-config --cflags glib-2.0) -o $@ $< $$(pkg-config --libs glib-2.0)

tests/corpus/glib_seq_race: tests/corpus/glib_seq.c | test-deps-check
	$(CC) $(PROG_CFLAGS) -DSEQ_NO_LOCK $$(pkg-config --cflags glib-2.0) -o $@ $< $$(pkg-config --libs glib-2.0)

# A block freed and allocated again through GLib by two threads, and the twin
# with a real race beside it.
tests/corpus/glib_reuse: tests/corpus/glib_reuse.c | test-deps-check
	$(CC) $(PROG_CFLAGS) $$(pkg-config --cflags glib-2.0) -o $@ $< $$(pkg-config --libs glib-2.0)

tests/corpus/glib_reuse_race: tests/corpus/glib_reuse.c | test-deps-check
	$(CC) $(PROG_CFLAGS) -DREUSE_NO_LOCK $$(pkg-config --cflags glib-2.0) -o $@ $< $$(pkg-config --libs glib-2.0)

programs: $(PROG_BINS) $(CORPUS_BINS)

tests/fuzz/fuzz_schedule: $(FUZZ_SCHEDULE_SRCS) $(wildcard */*.h)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(FUZZ_SCHEDULE_SRCS)

tests/fuzz/fuzz_cli: $(FUZZ_CLI_SRCS) $(wildcard */*.h)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(FUZZ_CLI_SRCS)

# The fuzzers when clang can link libFuzzer; otherwise tests/e2e/fuzz.t skips.
fuzzers:
	@if printf 'int LLVMFuzzerTestOneInput(const char *d, long n){return 0;}\n' | \
	   $(FUZZ_CC) -fsanitize=fuzzer -x c - -o /dev/null >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory $(FUZZ_BINS); \
	else echo "fuzzers: skipped ($(FUZZ_CC) with libFuzzer not found; make deps)"; fi

# A longer campaign: FUZZ_SECONDS per target; new inputs go to tests/fuzz/found/.
fuzz: fuzzers
	@for t in schedule cli; do \
	  mkdir -p tests/fuzz/found/$$t; \
	  echo "fuzz_$$t: $(FUZZ_SECONDS) s"; \
	  tests/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	    -dict=tests/fuzz/$$t.dict -artifact_prefix=tests/fuzz/found/ -print_final_stats=1 \
	    tests/fuzz/found/$$t tests/fuzz/corpus/$$t || exit 1; \
	done

# The longest files first (90-150 s each on a 2-core VM), so that prove -j
# does not end on one of them alone.
SLOW_TESTS := tests/e2e/stripped.t tests/e2e/classes.t tests/e2e/corpus.t tests/e2e/faults.t
check: all $(UNIT_BINS) programs fuzzers
	$(PROVE) -j$(JOBS) --exec tests/run-one $(SLOW_TESTS) $(UNIT_BINS) \
	  $(filter-out $(SLOW_TESTS),$(wildcard tests/e2e/*.t))

# The Debian package, built from a copy of the tree, installed and run
# (tests/e2e/package.t; about 2 minutes, so not in make check).
# PACKAGE_INSTALL=system (as root, .ci/run): into the system, then purged;
# otherwise unpacked into a temporary root.
PACKAGE_INSTALL ?= root
package-check: all programs test-deps-check
	CTS_PACKAGE_CHECK=1 CTS_PACKAGE_INSTALL=$(PACKAGE_INSTALL) JOBS=$(JOBS) \
	  $(PROVE) -v --exec tests/run-one tests/e2e/package.t

# A sanitized cts-trace runs 2-3 times slower: CTS_TEST_SLOW=3 scales every
# test's and every run's time limit (tests/run-one, tests/e2e/lib.sh).
asan:
	$(MAKE) clean
	CTS_TEST_SLOW=$${CTS_TEST_SLOW:-3} \
	$(MAKE) CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" \
	        LDFLAGS="-fsanitize=address,undefined" check

demo: all programs
	@sh docs/demo.sh

bench: all programs
	@sh benchmarks/run-all.sh full

bench-quick: all programs
	@sh benchmarks/run-all.sh quick

clean:
	rm -f cts-trace cts-trace.bash cts-trace.bash.tmp libcts.a */*.o tests/unit/*.o $(UNIT_BINS) $(PROG_BINS) $(CORPUS_BINS) $(FUZZ_BINS) \
	      tests/programs/lib/libspeclock.so tests/programs/lib/libselfcall.so
	rm -rf cts-out

.PHONY: all deps deps-check test-deps-check check asan demo bench bench-quick clean programs fuzzers fuzz \
        install uninstall package-check
