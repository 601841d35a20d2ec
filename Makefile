# SPDX-License-Identifier: GPL-2.0-only
# rtthrottle: realtime CPU throttling stress and regression suite.
# WITH_TRACEFS=0 builds without libtracefs/libtraceevent (e.g. a static binary: they ship no
# archives); each result's trace block then says "built without libtracefs".
WITH_TRACEFS ?= 1
PKGS    := json-c numa zlib $(if $(filter 1,$(WITH_TRACEFS)),libtracefs libtraceevent)
CC      ?= cc
CFLAGS  ?= -O2 -g
# harness/ by layer, top to bottom (harness/README.md); each folder is on the include path.
HARNESS := $(addprefix harness/,cli compare run output judge measure common)
CFLAGS  += -std=c11 -Wall -Wextra -Werror -D_GNU_SOURCE $(addprefix -I,$(HARNESS)) -Iworkloads \
           $(shell pkg-config --cflags $(PKGS))
LDLIBS  += $(shell pkg-config --libs $(PKGS)) -lm
GIT_COMMIT := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
CFLAGS  += -DRTT_GIT_COMMIT='"$(GIT_COMMIT)"'
BUILD   := build
PYTHON  := /usr/bin/python3

# The sched_switch recorder: libtracefs, or the stub that says why there is no trace.
TRACE_OFF := $(if $(filter 1,$(WITH_TRACEFS)),harness/measure/trace_none.c,harness/measure/trace_tracefs.c)
LIB_SRC  := $(filter-out harness/cli/main.c $(TRACE_OFF),$(wildcard $(HARNESS:%=%/*.c))) $(wildcard workloads/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
# The unit tests, in folders named as harness/'s layers; unit.h and its helpers sit above them.
UNIT_SRC := $(wildcard tests/unit/*.c tests/unit/*/*.c)
UNIT_OBJ := $(UNIT_SRC:%.c=$(BUILD)/%.o)
$(UNIT_OBJ): CFLAGS += -Itests/unit

.PHONY: all deps run test unit clean
all: $(BUILD)/rtthrottle

$(BUILD)/%.o: %.c $(wildcard $(HARNESS:%=%/*.h) workloads/*.h tests/unit/*.h tests/unit/*/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/rtthrottle: $(BUILD)/harness/cli/main.o $(LIB_OBJ)
	@echo "  LD      $@"
	@$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/unit-tests: $(UNIT_OBJ) $(LIB_OBJ)
	@echo "  LD      $@"
	@$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# Installs what the build, the runs and the tests need (Debian packages; root).
deps:
	ci/install-deps.sh

# The quick suite: results/<time>-<host>.json plus a summary table and the report. Exits 0
# when nothing failed or erred and every knob was restored (rtthrottle run's 125 for an
# unjudged result is for scripts); the last line counts the results by verdict.
run: deps all
	@out=results/$$(date -u +%Y%m%dT%H%M%SZ)-$$(hostname -s).json; \
	$(BUILD)/rtthrottle run --suite quick --output $$out; status=$$?; \
	$(MAKE) --no-print-directory report; $(PYTHON) ci/run-status.py $$status $$out

unit: $(BUILD)/unit-tests
	$(BUILD)/unit-tests

test: deps deps-kernel all $(BUILD)/unit-tests
	$(PYTHON) tests/run_tests.py

clean:
	rm -rf $(BUILD)

# Sanitizers and valgrind. `make sanitize` builds the binary and the unit tests with
# ASan+UBSan into build-asan/ and runs the unit tests plus the CLI cases of tests/memcheck.sh;
# any sanitizer report fails. `make valgrind` runs the same on build/ under memcheck.
# SANITIZE is appended here (recipes expand CFLAGS late), so `make BUILD=x SANITIZE=...` works.
ASAN_BUILD := build-asan
SAN_FLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
CFLAGS     += $(SANITIZE)
VALGRIND   := valgrind -q --leak-check=full --error-exitcode=1 --errors-for-leak-kinds=definite,indirect
.PHONY: sanitize valgrind clean-asan

sanitize: deps
	@$(MAKE) --no-print-directory BUILD=$(ASAN_BUILD) SANITIZE="$(SAN_FLAGS)" \
		$(ASAN_BUILD)/rtthrottle $(ASAN_BUILD)/unit-tests
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		tests/memcheck.sh $(ASAN_BUILD)

valgrind: deps all $(BUILD)/unit-tests
	tests/memcheck.sh $(BUILD) $(VALGRIND)

clean: clean-asan
clean-asan:
	rm -rf $(ASAN_BUILD)

# The HTML report of the newest results/*.json, where `make run` ends:
# results/report/index.html. BASELINE=FILE (e.g. a run in results/reference/) adds the verdicts.
.PHONY: report
report: all
	@latest=$$(ls -t results/*.json 2>/dev/null | head -1); \
	if [ -z "$$latest" ]; then echo "report: no results/*.json yet; make run first" >&2; exit 2; fi; \
	$(BUILD)/rtthrottle report --out results/report $(if $(BASELINE),--baseline $(BASELINE)) "$$latest"

# Fuzzing of the two JSON loaders: libFuzzer targets tests/fuzz/fuzz_scenario.c
# (scenario_parse_file) and tests/fuzz/fuzz_results.c (result_file_read, then the exports), built
# with clang and ASan+UBSan into build-fuzz/, each run FUZZ_SECONDS from seeds copied at run time
# into build-fuzz/seeds/<name>/ from the files the tests use (each kept once in git): the
# scenarios of workloads/scenarios/ and tests/bad-input/scenarios/ (as bad-*.json), the results
# fixtures of tests/fixtures/.
# New corpus entries and crash-*/leak-*/timeout-* files land in build-fuzz/, never in the repo;
# any crash, leak, sanitizer report or timeout fails. Replay one: build-fuzz/fuzz_<name> FILE.
FUZZ_BUILD   := build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_TARGETS := scenario results
FUZZ_CFLAGS   = $(filter-out -Werror -DRTT_GIT_COMMIT=%,$(CFLAGS)) -O1 -g -fno-omit-frame-pointer \
                -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_OBJ     := $(LIB_SRC:%.c=$(FUZZ_BUILD)/%.o)
.PHONY: fuzz fuzz-build fuzz-seeds clean-fuzz

$(FUZZ_BUILD)/%.o: %.c $(wildcard $(HARNESS:%=%/*.h) workloads/*.h tests/fuzz/*.h)
	@mkdir -p $(dir $@)
	@echo "  FUZZCC  $<"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -DRTT_GIT_COMMIT='"fuzz"' -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_OBJ)
	@echo "  LD      $@"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

.SECONDARY: $(FUZZ_OBJ) $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/tests/fuzz/fuzz_%.o)
fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

# The seeds, fresh each run (a fixture removed from the tests leaves the seeds too).
fuzz-seeds:
	@rm -rf $(FUZZ_BUILD)/seeds && mkdir -p $(FUZZ_BUILD)/seeds/scenario $(FUZZ_BUILD)/seeds/results
	@cp workloads/scenarios/*.json $(FUZZ_BUILD)/seeds/scenario/
	@for f in tests/bad-input/scenarios/*.json; do cp $$f $(FUZZ_BUILD)/seeds/scenario/bad-$${f##*/}; done
	@cp tests/fixtures/*.json $(FUZZ_BUILD)/seeds/results/

fuzz: deps fuzz-build fuzz-seeds
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_BUILD)/corpus/$$t $(FUZZ_BUILD)/artifacts/$$t; \
		echo "fuzz: $$t for $(FUZZ_SECONDS) s (corpus $(FUZZ_BUILD)/corpus/$$t + seeds $(FUZZ_BUILD)/seeds/$$t)"; \
		ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		$(FUZZ_BUILD)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
			-max_len=65536 -dict=tests/fuzz/json.dict -print_final_stats=1 \
			-artifact_prefix=$(FUZZ_BUILD)/artifacts/$$t/ \
			$(FUZZ_BUILD)/corpus/$$t $(FUZZ_BUILD)/seeds/$$t \
			> $(FUZZ_BUILD)/fuzz_$$t.log 2>&1; status=$$?; \
		grep -E '^(Done|stat::number_of_executed_units|stat::average_exec_per_sec|stat::new_units_added)' \
			$(FUZZ_BUILD)/fuzz_$$t.log | sed "s/^/fuzz: $$t: /"; \
		if [ $$status -ne 0 ]; then \
			tail -n 60 $(FUZZ_BUILD)/fuzz_$$t.log >&2; \
			echo "fuzz: $$t FAILED (exit $$status); log $(FUZZ_BUILD)/fuzz_$$t.log," \
			     "input in $(FUZZ_BUILD)/artifacts/$$t/" >&2; \
			exit 1; \
		fi; \
	done

clean: clean-fuzz
clean-fuzz:
	rm -rf $(FUZZ_BUILD)

# False alarms on this kernel: `make soak` runs the quick suite SOAK times (default 10, ~100 s
# each here) and writes results/soak-<UTC time>/ with each suite's results, soak.txt and
# soak.json (per check and per scenario: windows judged, false alarms, unjudged, not measured,
# margins) and soak.png. SOAK_ARGS go to `rtthrottle soak` (e.g. SOAK_ARGS="-- --load hackbench").
SOAK ?= 10
.PHONY: soak
soak: deps all
	$(BUILD)/rtthrottle soak --runs $(SOAK) $(SOAK_ARGS)

# What each check catches: `make power` puts defects of the size checks exist to detect (RT 5
# points short, a throttle 2-5 ticks late, carried or not, a missed throttle, a CFS slot short,
# RT refilled on a wrong period, a fair server serving half)
# into recorded healthy windows and judges them again offline (`rtthrottle judge --inject`):
# detection rate per defect and check, and the false alarms of the unchanged recordings, in
# results/power-<UTC time>/. RECORDINGS: recording or soak folders (default: the newest soak
# made with `make soak SOAK_ARGS=--record`). Needs no root.
.PHONY: power
power: all
	@recs="$(RECORDINGS)"; \
	[ -n "$$recs" ] || recs=$$(for d in $$(ls -d results/soak-*/ 2>/dev/null); do \
		ls "$$d" | grep -q '^suite-.*\.rec$$' && echo "$$d"; done | tail -n 1); \
	if [ -z "$$recs" ]; then echo "make power: no recordings: run 'make soak SOAK_ARGS=--record' first, or give RECORDINGS=DIR" >&2; exit 2; fi; \
	$(PYTHON) ci/power.py --rtthrottle $(BUILD)/rtthrottle $$recs

# Accuracy benchmark: `make bench` measures how precisely rtthrottle measures (loop
# resolution, share vs the sched_switch trace, probe vs cyclictest, calibration, overhead,
# memory) and writes results/bench-<UTC time>.json; every figure printed is judged and any miss
# exits 1. Runs on the real knobs as root, under flock /tmp/rtt-machine.lock.
.PHONY: bench
$(BUILD)/tests/bench/loop_cost: tests/bench/loop_cost.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -o $@ $<

bench: all $(BUILD)/tests/bench/loop_cost
	RTT_BUILD=$(BUILD) $(PYTHON) ci/bench.py

# doc/evidence.md from the results files under results/ alone (no root, nothing measured): the
# newest soak, mutants, matrix, power and bench results, each with its commit, date, kernel and
# machine, and a warning where the judging code changed in git since that commit.
.PHONY: evidence
evidence:
	$(PYTHON) ci/evidence.py

# Installation: `make install` (PREFIX=/usr/local, DESTDIR for staging) puts the binary in
# PREFIX/bin, the scenario catalogue and the plot script in PREFIX/share/rtthrottle (where the
# binary looks, relative to itself), the man page in PREFIX/share/man/man1 and the docs in
# PREFIX/share/doc/rtthrottle. `make uninstall` removes exactly those files.
PREFIX  ?= /usr/local
BINDIR  := $(PREFIX)/bin
DATADIR := $(PREFIX)/share/rtthrottle
MANDIR  := $(PREFIX)/share/man/man1
DOCDIR  := $(PREFIX)/share/doc/rtthrottle
SCENARIO_FILES := $(wildcard workloads/scenarios/*.json) workloads/scenarios/README.md
.PHONY: install uninstall

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR)/scenarios $(DESTDIR)$(MANDIR) $(DESTDIR)$(DOCDIR)
	install -m 0755 $(BUILD)/rtthrottle $(DESTDIR)$(BINDIR)/rtthrottle
	install -m 0644 $(SCENARIO_FILES) $(DESTDIR)$(DATADIR)/scenarios/
	install -m 0755 harness/output/rtthrottle_plot.py $(DESTDIR)$(DATADIR)/rtthrottle_plot.py
	install -m 0644 doc/rtthrottle.1 $(DESTDIR)$(MANDIR)/rtthrottle.1
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/README.md
	install -m 0644 results/README.md $(DESTDIR)$(DOCDIR)/results.md

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/rtthrottle $(DESTDIR)$(DATADIR)/rtthrottle_plot.py \
		$(DESTDIR)$(MANDIR)/rtthrottle.1 $(DESTDIR)$(DOCDIR)/README.md $(DESTDIR)$(DOCDIR)/results.md
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/scenarios/,$(notdir $(SCENARIO_FILES)))
	-rmdir $(DESTDIR)$(DATADIR)/scenarios $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR) 2>/dev/null

# A statically linked binary for a bare initramfs: build-static/rtthrottle, without libtracefs
# (make matrix, lava and mutants ship build/rtthrottle with the libraries ldd lists instead, so
# guests have the sched_switch trace). json-c, libnuma and zlib all ship static archives on
# Debian; the binary needs nothing else at run time but the scenario files.
STATIC_BUILD := build-static
.PHONY: static clean-static
static:
	@$(MAKE) --no-print-directory BUILD=$(STATIC_BUILD) LDFLAGS=-static WITH_TRACEFS=0 \
		LDLIBS="$$(pkg-config --static --libs json-c numa zlib) -lm" $(STATIC_BUILD)/rtthrottle

clean: clean-static
clean-static:
	rm -rf $(STATIC_BUILD)

# The kernel matrix: boots each kernel of ci/kernels.list (Debian packages, fetched with apt-get
# and cached in /var/cache/rtthrottle-matrix; 7.x from sid and experimental through a private apt
# configuration in /var/cache/rtthrottle-kernels/archive) under QEMU, runs the quick suite inside and writes
# results/matrix/<UTC time>/ with one results file per kernel, table.txt and matrix.png. Takes
# /tmp/rtt-machine.lock for each guest. MATRIX_ARGS go to ci/matrix/matrix.py (see its --help),
# e.g. MATRIX_ARGS="--kernels 6.1,6.12 -- --suite debate". LAB=URL (or a lavacli identity, or
# `local`: the lab `make lab` stands up) runs the guests as jobs on that LAVA lab instead, LAB_TOKEN
# its API token when lavacli's ~/.config/lavacli.yaml has none (doc/lava-lab.md).
LAB_OPTS = $(if $(LAB),--lab $(LAB)) $(if $(LAB_TOKEN),--lab-token $(LAB_TOKEN))
.PHONY: matrix
matrix: deps all
	$(PYTHON) ci/matrix/matrix.py $(LAB_OPTS) $(MATRIX_ARGS)

# The fair server's trade-off where it can be set (6.12+ guests: this host's debugfs refuses
# it): the debate's scenarios with RT at the default and at -1, each with the fair server off
# and at 10, 50 and 100 ms of every second; each kernel's debate table names the setting
# (ci/matrix/summary.py --debate DIR prints them as markdown, the sched_ext server beside).
# Debian's packaged kernels first (6.12, 6.12-rt, 7.2, 7.2-rt), then 6.12 built from Debian's linux-source with RT group
# scheduling and ci/kernel-patches/fair-server-bandwidth-kept-on-domain-rebuild.patch
# (ci/kernels-source.list): Debian's 6.12.118 loses its servers' deadline bandwidth at boot and
# refuses every fair-server change but at -1, so only the built ones run every cell (with RT
# groups, and PREEMPT_RT without them, where the fair server alone limits RT). All run; any
# failing fails the target.
# FAIR_SERVER_MATRIX_ARGS / FAIR_SERVER_SOURCE_ARGS go to ci/matrix/matrix.py before the run's
# arguments (FAIR_SERVER_SOURCE_ARGS= skips the built kernel).
FAIR_SERVER_MATRIX_ARGS ?= --kernels 6.12,6.12-rt,7.2,7.2-rt
FAIR_SERVER_SOURCE_ARGS ?= --list ci/kernels-source.list --kernels 6.12-src-fair-server,6.12-src-rt-fair-server
FAIR_SERVER_RUN_ARGS = --scenario fifo-hog-share,admin-recovery,ninety-percent-app,rt-probe-collateral \
	--policy default,unlimited --fair-server 0,10ms/1s,50ms/1s,100ms/1s
.PHONY: matrix-fair-server
matrix-fair-server: deps all
	status=0; $(PYTHON) ci/matrix/matrix.py $(FAIR_SERVER_MATRIX_ARGS) -- $(FAIR_SERVER_RUN_ARGS) || status=1; \
	if [ -n "$(FAIR_SERVER_SOURCE_ARGS)" ]; then \
		$(PYTHON) ci/matrix/matrix.py $(FAIR_SERVER_SOURCE_ARGS) -- $(FAIR_SERVER_RUN_ARGS) || status=1; \
	fi; exit $$status

# LAVA: ci/lava/qemu-job.yaml.in run by lava-run (lava-dispatcher, no server) on the qemu device
# ci/lava/qemu-device.yaml: a Debian kernel (as make matrix caches it) boots with a busybox
# ramdisk holding rtthrottle and cyclictest with their libraries, lava-test-shell runs ci/lava/rtthrottle.yaml (the quick
# suite) and ci/lava/lava.py checks LAVA's results against the KTAP; results/lava/<UTC time>/.
# LAVA_ARGS go to ci/lava/lava.py (see its --help), e.g. LAVA_ARGS="--image
# /var/cache/rtthrottle-kernels/images/KEY" for a kernel built from source, or --no-lock under
# flock /tmp/rtt-machine.lock. The job clones this repository's committed HEAD for the test
# definition. `make lava-validate` only validates the job (lava-run --validate).
.PHONY: lava lava-validate
lava: deps all
	$(PYTHON) ci/lava/lava.py $(LAVA_ARGS)

lava-validate: deps
	$(PYTHON) ci/lava/lava.py --validate --out $(BUILD)/lava-validate

# A LAVA lab on this machine (ci/lava/lab-up.sh): Debian's lava-server, PostgreSQL, the scheduler,
# one lava-worker with LAB_DEVICES (default 2) QEMU devices, a user and an API token as the lavacli
# identity rtthrottle-lab (LAB=local), all started without systemd. `make lab-stop` stops every
# service it started (ci/lava/lab-down.sh); the database and devices stay for the next make lab.
.PHONY: lab lab-stop
lab:
	ci/lava/lab-up.sh

lab-stop:
	ci/lava/lab-down.sh

# Mutants: does the suite catch a broken throttle? Builds Debian's linux-source-6.12 (apt) with
# ci/kconfig/base.config + rt-group.config, unmodified and with each ci/mutants/*.patch (builds
# cached in /var/cache/rtthrottle-kernels), boots each under QEMU, runs --suite mutants inside (the
# quick suite and fair-server-defer) and writes results/mutants/<UTC time>/ with table.txt and table.json (caught or not, by what).
# MUTANTS_ARGS go to ci/mutants/run.py (see its --help), e.g.
# MUTANTS_ARGS="--patch ci/mutants/rt-throttle-never-set.patch -- --scenario fifo-hog-share".
# `make mutants-ci` is the CI's share: the unmodified kernel and one mutant, one scenario each.
.PHONY: mutants mutants-ci deps-kernel
deps-kernel:
	ci/install-deps.sh --kernel-build

mutants: deps deps-kernel all
	$(PYTHON) ci/mutants/run.py --unmodified-runs 3 $(LAB_OPTS) $(MUTANTS_ARGS)

# The CI runs .ci/run under the machine lock (as make test's kernel tests need): no second flock.
MUTANTS_CI_PATCH := ci/mutants/rt-throttle-never-set.patch
MUTANTS_CI_LOCK  ?= --no-lock
mutants-ci: deps deps-kernel all
	$(PYTHON) ci/mutants/run.py $(MUTANTS_CI_LOCK) --patch $(MUTANTS_CI_PATCH) \
		-- --scenario fifo-hog-share --policy default,half

# The Debian package: `make deb` copies the files git knows (tracked, and new ones not ignored)
# into build-deb/rtthrottle-<version>/, runs `dpkg-buildpackage -us -uc -b` there (debian/: the
# binary in /usr/bin, the catalogue and plot script in /usr/share/rtthrottle, the man page) and
# lintian on the result: build-deb/rtthrottle_<version>_<arch>.deb; nothing lands in the tree.
# `make deb-test` (root; writes the knobs for one short scenario, so under the machine lock like
# make test) installs that .deb, runs the installed binary and removes the package again.
DEB_BUILD   := build-deb
DEB_VERSION := $(shell sed -n '1s/.*(\(.*\)).*/\1/p' debian/changelog)
.PHONY: deb deb-test clean-deb
deb:
	rm -rf $(DEB_BUILD) && mkdir -p $(DEB_BUILD)/rtthrottle-$(DEB_VERSION)
	git ls-files -z --cached --others --exclude-standard | \
		tar --null --ignore-failed-read -T - -cf - | tar -xf - -C $(DEB_BUILD)/rtthrottle-$(DEB_VERSION)
	cd $(DEB_BUILD)/rtthrottle-$(DEB_VERSION) && dpkg-buildpackage -us -uc -b
	lintian --fail-on error,warning --info $(DEB_BUILD)/rtthrottle_$(DEB_VERSION)_*.changes

deb-test: deb
	ci/deb-test.sh $(DEB_BUILD)/rtthrottle_$(DEB_VERSION)_*.deb

clean: clean-deb
clean-deb:
	rm -rf $(DEB_BUILD)
