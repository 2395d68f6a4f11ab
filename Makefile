# tichaos — plain Makefile.
#
#   make            build ./tichaos
#   make deps       install what the build and the tests need (Debian)
#   make run        deps + build + the default suite on the local cluster
#   make test       deps + build + every test under prove
#   make asan       the tests again, built with address + undefined sanitizers
#   make valgrind   the unit tests under valgrind
#   make stress     deps + build + 100 up/down cycles, a 30-minute load run
#   make bench      deps + build + the benchmarks against sysbench and
#                   percona-toolkit (bench/README.md; BENCH_QUICK=1: short)
#   make fuzz       the libFuzzer harnesses (tests/fuzz/), FUZZ_SECONDS each
#   make install    the binary, the suites and the man pages under
#                   $(DESTDIR)$(PREFIX) (PREFIX=/usr/local)
#   make deb        tichaos_<version>_<arch>.deb, dependencies declared
#   make V=1        show the commands
#   make DEVELOPER=1  warnings are errors

PROG = tichaos
CC ?= cc
PKG_CONFIG ?= pkg-config
PKGS = mysqlclient yaml-0.1 libcurl libssh2 jansson
PROVE ?= prove
# The Go helpers of the tests (tests/helpers/fake-autoid, fake-cdc-sink,
# go-probe):
# any Go >= 1.19 builds them, Debian 12's golang-go (1.19) too, which make
# deps installs where no go is on PATH; their modules come from the Go
# module proxy (GOPROXY) into the module cache on the first build, checked
# against their go.sum. No VCS stamp: a tree without git (or owned by another
# user) builds the same.
GO ?= go
# Four test files at a time: each has its own scratch directory, takes
# its ports from a per-run base and keeps its faults' records in a state
# root of its own (TICHAOS_STATE_DIR), so none collide; and most of a
# functional test's time is a run's duration, waited for, not CPU (on 2
# cores, prove took 1270 s with -j2 and 651 s with -j4, the cores busy a
# third of that time).
PROVE_OPTS ?= -j4
DEFAULT_SUITE = suites/fail_over_ddl_mix.yaml
# make run: the default suite cut to 150 s (five of its 30 s cycles), to
# finish in about three minutes.
RUN_OPTS = --duration 150s --port-base auto

CFLAGS ?= -O2 -g
BASIC_CFLAGS = -std=c11 -D_GNU_SOURCE -I. -MMD -MP -pthread \
	$(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
LIBS = $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -pthread -lm

ifdef DEVELOPER
BASIC_CFLAGS += -Wall -Wextra -Werror -Wstrict-prototypes -Wvla \
	-Wwrite-strings -Wno-unused-parameter -Wmissing-prototypes
endif

ifdef SANITIZE
BASIC_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
LIBS += -fsanitize=address,undefined
endif

ifndef V
QUIET_CC = @echo '   ' CC $@;
QUIET_LINK = @echo '   ' LINK $@;
QUIET_GO = @echo '   ' GO $@;
endif

LIB_OBJS += lib/buf.o
LIB_OBJS += lib/cancel.o
LIB_OBJS += lib/clock.o
LIB_OBJS += lib/err.o
LIB_OBJS += lib/faultspan.o
LIB_OBJS += lib/etcd.o
LIB_OBJS += lib/hist.o
LIB_OBJS += lib/histread.o
LIB_OBJS += lib/histrec.o
LIB_OBJS += lib/history.o
LIB_OBJS += lib/http.o
LIB_OBJS += lib/intern.o
LIB_OBJS += lib/jsonscan.o
LIB_OBJS += lib/log.o
LIB_OBJS += lib/netns.o
LIB_OBJS += lib/nettool.o
LIB_OBJS += lib/throughput.o
LIB_OBJS += lib/trace.o
LIB_OBJS += lib/netcls.o
LIB_OBJS += lib/optspec.o
LIB_OBJS += lib/parse.o
LIB_OBJS += lib/svg.o
LIB_OBJS += lib/proc.o
LIB_OBJS += lib/rand.o
LIB_OBJS += lib/skew.o
LIB_OBJS += lib/skew_code.o
LIB_OBJS += lib/sql.o
LIB_OBJS += lib/ssh.o
LIB_OBJS += lib/ynode.o
LIB_OBJS += lib/toml.o

CORE_OBJS += core/kind.o
CORE_OBJS += core/plan.o
CORE_OBJS += core/suite.o
CORE_OBJS += core/worker.o

KIND_OBJS += clusters/api.o
KIND_OBJS += clusters/cluster.o
KIND_OBJS += clusters/ddlwatch.o
KIND_OBJS += clusters/exitwatch.o
KIND_OBJS += clusters/host.o
KIND_OBJS += clusters/lifecycle.o
KIND_OBJS += clusters/local.o
KIND_OBJS += clusters/local_ssh.o
KIND_OBJS += clusters/local_suite.o
KIND_OBJS += clusters/pid.o
KIND_OBJS += clusters/playground.o
KIND_OBJS += clusters/ports.o
KIND_OBJS += clusters/preflight.o
KIND_OBJS += clusters/ready.o
KIND_OBJS += clusters/replica.o
KIND_OBJS += clusters/static.o
KIND_OBJS += clusters/supervise.o
KIND_OBJS += clusters/tiupcluster.o
KIND_OBJS += clusters/topology.o

KIND_OBJS += clusters/registry.o
KIND_OBJS += workloads/append.o
KIND_OBJS += workloads/autoid.o
KIND_OBJS += workloads/bank.o
KIND_OBJS += workloads/common.o
KIND_OBJS += workloads/dml.o
KIND_OBJS += workloads/insert.o
KIND_OBJS += workloads/partition_ddl.o
KIND_OBJS += workloads/registry.o
KIND_OBJS += workloads/table_ddl.o
KIND_OBJS += reports/html.o
KIND_OBJS += reports/index.o
KIND_OBJS += reports/junit.o
KIND_OBJS += reports/points.o
KIND_OBJS += reports/registry.o
KIND_OBJS += reports/report.o
KIND_OBJS += reports/summary.o
KIND_OBJS += reports/timeline.o
KIND_OBJS += faults/changefeed.o
KIND_OBJS += faults/clock.o
KIND_OBJS += faults/disk.o
KIND_OBJS += faults/diskplace.o
KIND_OBJS += faults/failpoint.o
KIND_OBJS += faults/failpoint_term.o
KIND_OBJS += faults/fault.o
KIND_OBJS += faults/hog.o
KIND_OBJS += faults/kill.o
KIND_OBJS += faults/netem.o
KIND_OBJS += faults/partition.o
KIND_OBJS += faults/pause.o
KIND_OBJS += faults/registry.o
KIND_OBJS += faults/region.o
KIND_OBJS += faults/resign.o
KIND_OBJS += faults/tamper.o
KIND_OBJS += faults/trigger.o
KIND_OBJS += checkers/append.o
KIND_OBJS += checkers/bank.o
KIND_OBJS += checkers/bankdiff.o
KIND_OBJS += checkers/bankfit.o
KIND_OBJS += checkers/bankops.o
KIND_OBJS += checkers/barrier.o
KIND_OBJS += checkers/diffconfig.o
KIND_OBJS += checkers/checker.o
KIND_OBJS += checkers/consistency.o
KIND_OBJS += checkers/elle.o
KIND_OBJS += checkers/faultwindow.o
KIND_OBJS += checkers/idevents.o
KIND_OBJS += checkers/idjudge.o
KIND_OBJS += checkers/idplot.o
KIND_OBJS += checkers/ids.o
KIND_OBJS += checkers/idset.o
KIND_OBJS += checkers/idverdict.o
KIND_OBJS += checkers/idwindow.o
KIND_OBJS += checkers/logscan.o
KIND_OBJS += checkers/progress.o
KIND_OBJS += checkers/registry.o
KIND_OBJS += checkers/syncpoint.o
KIND_OBJS += checkers/syncpoint_store.o
KIND_OBJS += checkers/tabledef.o
KIND_OBJS += checkers/tablediff.o
KIND_OBJS += checkers/tableshow.o
KIND_OBJS += checkers/tablepool.o
KIND_OBJS += checkers/tablerange.o
KIND_OBJS += checkers/tablerows.o

RUNNER_OBJS += runner/batch.o
RUNNER_OBJS += runner/checks.o
RUNNER_OBJS += runner/cmd_check.o
RUNNER_OBJS += runner/cmd_cluster.o
RUNNER_OBJS += runner/cmd_list.o
RUNNER_OBJS += runner/cmd_replay.o
RUNNER_OBJS += runner/cmd_report.o
RUNNER_OBJS += runner/cmd_run.o
RUNNER_OBJS += runner/cmd_shrink.o
RUNNER_OBJS += runner/cmd_validate.o
RUNNER_OBJS += runner/job.o
RUNNER_OBJS += runner/kinds.o
RUNNER_OBJS += runner/main.o
RUNNER_OBJS += runner/monitor.o
RUNNER_OBJS += runner/nemesis.o
RUNNER_OBJS += runner/opts.o
RUNNER_OBJS += runner/progress.o
RUNNER_OBJS += runner/repeat.o
RUNNER_OBJS += runner/resolve.o
RUNNER_OBJS += runner/results.o
RUNNER_OBJS += runner/run.o
RUNNER_OBJS += runner/rundir.o

UNIT_TESTS = $(patsubst %.c,%,$(wildcard tests/unit/t-*.c))
UNIT_OBJS = $(addsuffix .o,$(UNIT_TESTS))
TEST_HELPERS = tests/helpers/campaigner tests/helpers/core-drive \
	tests/helpers/float-text tests/helpers/ssh-exec
# A Go helper NAME is tests/helpers/NAME/, a module of its own, built
# into tests/helpers/NAME/NAME.
GO_HELPERS = tests/helpers/fake-autoid/fake-autoid \
	tests/helpers/fake-cdc-sink/fake-cdc-sink \
	tests/helpers/go-probe/go-probe

# The fuzz harnesses (tests/fuzz/fuzz-NAME.c), their shared helpers, and
# what they link besides lib/: the loaders they call, without main().
FUZZ_HARNESSES = suite topology history
FUZZ_OBJS = $(patsubst %,tests/fuzz/fuzz-%.o,$(FUZZ_HARNESSES)) \
	tests/fuzz/fuzz.o
FUZZ_DEPS = $(CORE_OBJS) $(KIND_OBJS) runner/checks.o runner/kinds.o

# tichaos-diskfs: the FUSE file system that loses unsynced writes
# (Debian's libfuse3), a program of its own beside tichaos.
DISKFS = diskfs/tichaos-diskfs
DISKFS_OBJS = diskfs/main.o diskfs/overlay.o diskfs/mode.o \
	diskfs/journal.o
FUSE_CFLAGS = $(shell $(PKG_CONFIG) --cflags fuse3 2>/dev/null)
FUSE_LIBS = $(shell $(PKG_CONFIG) --libs fuse3 2>/dev/null)

OBJS = $(LIB_OBJS) $(CORE_OBJS) $(KIND_OBJS) $(RUNNER_OBJS) $(UNIT_OBJS) \
	$(DISKFS_OBJS) \
	$(addsuffix .o,$(TEST_HELPERS)) $(FUZZ_OBJS)

all: $(PROG) $(DISKFS)

$(PROG): $(LIB_OBJS) $(CORE_OBJS) $(KIND_OBJS) $(RUNNER_OBJS)
	$(QUIET_LINK)$(CC) $(CFLAGS) $(BASIC_CFLAGS) -o $@ $^ $(LIBS)

%.o: %.c
	$(QUIET_CC)$(CC) $(CFLAGS) $(BASIC_CFLAGS) -c -o $@ $<

diskfs/main.o: diskfs/main.c
	$(QUIET_CC)$(CC) $(CFLAGS) $(BASIC_CFLAGS) $(FUSE_CFLAGS) -c -o $@ $<

$(DISKFS): $(DISKFS_OBJS) $(LIB_OBJS)
	$(QUIET_LINK)$(CC) $(CFLAGS) $(BASIC_CFLAGS) -o $@ $^ $(FUSE_LIBS) $(LIBS)

# lib/skew_code.c is copied into other processes and runs there: nothing
# in it may refer outside its section (no GOT, stack protector, sanitizer,
# jump table or library call), whatever the build's own flags.
SKEW_CODE_CFLAGS = -O2 -fPIC -fno-stack-protector -fno-sanitize=all \
	-fcf-protection=none -fno-jump-tables -fno-builtin \
	-fno-tree-loop-distribute-patterns -mgeneral-regs-only
lib/skew_code.o: lib/skew_code.c
	$(QUIET_CC)$(CC) $(CFLAGS) $(BASIC_CFLAGS) $(SKEW_CODE_CFLAGS) -c -o $@ $<

tests/unit/t-%: tests/unit/t-%.o $(LIB_OBJS)
	$(QUIET_LINK)$(CC) $(CFLAGS) $(BASIC_CFLAGS) -o $@ $^ $(LIBS)

# tichaos-diskfs's file state, fault modes and directory entries,
# tested apart from FUSE.
tests/unit/t-overlay: tests/unit/t-overlay.o diskfs/overlay.o $(LIB_OBJS)
	$(QUIET_LINK)$(CC) $(CFLAGS) $(BASIC_CFLAGS) -o $@ $^ $(LIBS)
tests/unit/t-diskmode: tests/unit/t-diskmode.o diskfs/mode.o $(LIB_OBJS)
	$(QUIET_LINK)$(CC) $(CFLAGS) $(BASIC_CFLAGS) -o $@ $^ $(LIBS)
tests/unit/t-journal: tests/unit/t-journal.o diskfs/journal.o $(LIB_OBJS)
	$(QUIET_LINK)$(CC) $(CFLAGS) $(BASIC_CFLAGS) -o $@ $^ $(LIBS)

# Unit tests of the core and the kinds (the suite, the plan, a kind's
# hooks; the component model on this machine), no cluster: linked with
# them, without main().
CORE_UNIT_TESTS = tests/unit/t-bankdiff tests/unit/t-bankfit \
	tests/unit/t-bankops tests/unit/t-faultwindow tests/unit/t-figure \
	tests/unit/t-holds tests/unit/t-idevents tests/unit/t-idjudge \
	tests/unit/t-ids tests/unit/t-idset tests/unit/t-idverdict \
	tests/unit/t-idwindow tests/unit/t-lifecycle tests/unit/t-local-suite \
	tests/unit/t-pid tests/unit/t-plan tests/unit/t-ports tests/unit/t-ready \
	tests/unit/t-replica tests/unit/t-tabledef tests/unit/t-tablerange \
	tests/unit/t-tablerows tests/unit/t-trigger tests/unit/t-failpoint \
	tests/unit/t-elle
$(CORE_UNIT_TESTS) tests/helpers/float-text: %: %.o $(FUZZ_DEPS) $(LIB_OBJS)
	$(QUIET_LINK)$(CC) $(CFLAGS) $(BASIC_CFLAGS) -o $@ $^ $(LIBS)

# Replays tests/data/fuzz-regressions/ through the harnesses' entry points.
tests/unit/t-fuzz-regress: tests/unit/t-fuzz-regress.o $(FUZZ_OBJS) \
		$(FUZZ_DEPS) $(LIB_OBJS)
	$(QUIET_LINK)$(CC) $(CFLAGS) $(BASIC_CFLAGS) -o $@ $^ $(LIBS)

# A workload and a fault through the core API: linked without the runner,
# which proves the core and the kinds need none of it.
tests/helpers/core-drive: tests/helpers/core-drive.o $(CORE_OBJS) \
		$(KIND_OBJS) $(LIB_OBJS)
	$(QUIET_LINK)$(CC) $(CFLAGS) $(BASIC_CFLAGS) -o $@ $^ $(LIBS)

tests/helpers/%: tests/helpers/%.o $(LIB_OBJS)
	$(QUIET_LINK)$(CC) $(CFLAGS) $(BASIC_CFLAGS) -o $@ $^ $(LIBS)

tests/helpers/fake-autoid/fake-autoid: $(wildcard tests/helpers/fake-autoid/*.go) \
		tests/helpers/fake-autoid/go.mod tests/helpers/fake-autoid/go.sum
	$(QUIET_GO)cd $(@D) && $(GO) build -buildvcs=false -o $(@F) .

tests/helpers/fake-cdc-sink/fake-cdc-sink: \
		$(wildcard tests/helpers/fake-cdc-sink/*.go) \
		tests/helpers/fake-cdc-sink/go.mod tests/helpers/fake-cdc-sink/go.sum
	$(QUIET_GO)cd $(@D) && $(GO) build -buildvcs=false -o $(@F) .

tests/helpers/go-probe/go-probe: $(wildcard tests/helpers/go-probe/*.go) \
		tests/helpers/go-probe/go.mod tests/helpers/go-probe/go.sum
	$(QUIET_GO)cd $(@D) && $(GO) build -buildvcs=false -o $(@F) .

unit-tests: $(UNIT_TESTS) $(TEST_HELPERS) $(GO_HELPERS) $(DISKFS)

deps:
	@scripts/install-deps

run: deps
	@$(MAKE) --no-print-directory $(PROG)
	./$(PROG) run $(DEFAULT_SUITE) $(RUN_OPTS)

# The build is a separate make so that it sees the flags of what deps
# installed (pkg-config is evaluated when make starts).
test: deps
	@$(MAKE) --no-print-directory $(PROG) unit-tests
	@$(MAKE) --no-print-directory prove

prove:
	$(PROVE) $(PROVE_OPTS) $(UNIT_TESTS) $(wildcard tests/func/t[0-9]*.sh)

# make valgrind: every unit test under valgrind (memcheck); any error or
# definite leak fails it.
valgrind:
	@scripts/install-deps valgrind
	@$(MAKE) --no-print-directory unit-tests
	@for t in $(UNIT_TESTS); do \
		valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
			--error-exitcode=99 $$t >/dev/null || \
			{ echo "valgrind: $$t failed"; exit 1; }; \
	done; echo "valgrind: $(words $(UNIT_TESTS)) unit tests clean"

# make stress: 100 cluster up/down cycles and a 30-minute run under load
# (tests/stress/stress.sh; STRESS_CYCLES, STRESS_DURATION, STRESS_THREADS).
stress: deps
	@$(MAKE) --no-print-directory $(PROG)
	tests/stress/stress.sh

bench:
	@scripts/install-deps bench
	@$(MAKE) --no-print-directory $(PROG)
	bench/bench.pl

asan: deps
	@$(MAKE) --no-print-directory clean >/dev/null
	@$(MAKE) --no-print-directory SANITIZE=1 DEVELOPER=1 $(PROG) $(DISKFS) unit-tests
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	 $(MAKE) --no-print-directory prove
	@$(MAKE) --no-print-directory clean >/dev/null

# make fuzz: every harness for FUZZ_SECONDS on one core, built with clang,
# libFuzzer, ASan and UBSan into $(FUZZ_BUILD)/ (objects never land next to
# the sources, where the normal build keeps its own). The corpus grows in
# $(FUZZ_BUILD)/corpus/NAME from the seeds in tests/data; crashes, leaks and
# hangs are saved in $(FUZZ_BUILD)/artifacts/NAME/ (docs/reliability.md).
FUZZ_CC = clang
FUZZ_SECONDS = 60
FUZZ_OPTS =
FUZZ_BUILD = fuzz-build
FUZZ_CFLAGS = -O1 -g -fno-omit-frame-pointer -DLIBFUZZER \
	-fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=undefined
FUZZ_PROGS = $(patsubst %,$(FUZZ_BUILD)/fuzz-%,$(FUZZ_HARNESSES))
FUZZ_LINK = $(addprefix $(FUZZ_BUILD)/,tests/fuzz/fuzz.o $(FUZZ_DEPS) \
	$(LIB_OBJS))
FUZZ_SEEDS_suite = tests/data/good-suites tests/data/bad-suites \
	tests/data/suites suites
FUZZ_SEEDS_topology = tests/data/topologies
FUZZ_SEEDS_history = tests/data/histories

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(QUIET_CC)$(FUZZ_CC) $(CFLAGS) $(BASIC_CFLAGS) $(FUZZ_CFLAGS) -c -o $@ $<

$(FUZZ_BUILD)/fuzz-%: $(FUZZ_BUILD)/tests/fuzz/fuzz-%.o $(FUZZ_LINK)
	$(QUIET_LINK)$(FUZZ_CC) $(CFLAGS) $(BASIC_CFLAGS) $(FUZZ_CFLAGS) \
		-fsanitize=fuzzer -o $@ $^ $(LIBS)

fuzz-programs: $(FUZZ_PROGS)

fuzz:
	@scripts/install-deps fuzz
	@$(MAKE) --no-print-directory fuzz-programs
	@$(MAKE) --no-print-directory fuzz-run

fuzz-run: $(addprefix fuzz-run-,$(FUZZ_HARNESSES))

fuzz-run-%: $(FUZZ_BUILD)/fuzz-%
	@mkdir -p $(FUZZ_BUILD)/corpus/$* $(FUZZ_BUILD)/artifacts/$*
	./$< -max_total_time=$(FUZZ_SECONDS) -timeout=10 -print_final_stats=1 \
		-dict=tests/fuzz/$*.dict \
		-artifact_prefix=$(FUZZ_BUILD)/artifacts/$*/ $(FUZZ_OPTS) \
		$(FUZZ_BUILD)/corpus/$* tests/data/fuzz-regressions/$* \
		$(FUZZ_SEEDS_$*)

# Not part of clean, which `make asan` runs: the corpus is worth keeping.
fuzz-clean:
	$(RM) -r $(FUZZ_BUILD)

# Installed as git and curl install: PREFIX, DESTDIR.
PREFIX ?= /usr/local
VERSION = $(shell sed -n 's/^\#define TICHAOS_VERSION "\(.*\)"/\1/p' runner/runner.h)
MANPAGES = man/tichaos.1 man/tichaos-suite.5

# The man pages are generated from what they document (the binary's help,
# docs/suite-format.md), so that they cannot drift from it.
$(MANPAGES): $(PROG) docs/suite-format.md scripts/gen-man
	@mkdir -p man
	scripts/gen-man ./$(PROG) docs man $(VERSION)

man: $(MANPAGES)

install: $(PROG) $(DISKFS) $(MANPAGES)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/tichaos/suites \
		$(DESTDIR)$(PREFIX)/share/tichaos/topologies \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5
	install -m 755 $(PROG) $(DESTDIR)$(PREFIX)/bin/$(PROG)
	install -m 755 $(DISKFS) $(DESTDIR)$(PREFIX)/bin/tichaos-diskfs
	install -m 644 suites/*.yaml $(DESTDIR)$(PREFIX)/share/tichaos/suites/
	install -m 644 topologies/*.yaml \
		$(DESTDIR)$(PREFIX)/share/tichaos/topologies/
	install -m 644 man/tichaos.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 man/tichaos-suite.5 $(DESTDIR)$(PREFIX)/share/man/man5/

# A Debian package: the libraries the binary links to, each as the package
# installed here that holds it (dpkg -S), with its version as the floor;
# the servers of the local cluster recommended.
DEB_DIR ?= .
deb: $(PROG) $(DISKFS) $(MANPAGES)
	scripts/make-deb $(PROG) $(VERSION) $(DEB_DIR) $(DISKFS)

clean:
	$(RM) $(PROG) $(OBJS) $(OBJS:.o=.d) $(UNIT_TESTS) $(TEST_HELPERS) \
		$(GO_HELPERS) $(DISKFS)
	$(RM) -r man

.PHONY: all deps run test prove asan valgrind bench stress clean unit-tests fuzz \
	man install deb \
	fuzz-programs fuzz-run fuzz-clean
.SECONDARY: $(UNIT_OBJS) $(addsuffix .o,$(TEST_HELPERS)) $(FUZZ_LINK) \
	$(addprefix $(FUZZ_BUILD)/,$(FUZZ_OBJS))

-include $(OBJS:.o=.d)
-include $(addprefix $(FUZZ_BUILD)/,$(OBJS:.o=.d))
