# evroute — build, demo, test.
#
#   make demo      install what is missing, build, and show evroute on the shipped demo layout
#                  and recordings (`evroute --dry-run`)
#   make test      install what is missing and run every test
#   make build     debug build            make release   optimized, static Swift runtime
#   make install   installs the release build (make release first; no build, no apt-get) / make uninstall
#                  (PREFIX, DESTDIR honoured)
#
# System packages are installed with apt-get when missing (as root, or through sudo).

SWIFT      ?= swift
PREFIX     ?= /usr/local
DESTDIR    ?=
BUILD      ?= .build
APT_DEPS   := libevdev-dev libudev-dev libyaml-dev libxkbcommon-dev xkb-data pkg-config python3
# What the tests run besides the build: a C compiler (test-unit's close check), the shells whose
# completions are tested, man(1) for the pages, what `make deb` and its check use (dpkg-shlibdeps,
# strip, lintian), and xmllint and rsvg-convert for the tree's SVG, and libX11's compose tables
# (libx11-data) for the dead-key and compose tests of text.
TEST_DEPS  := gcc bash zsh fish man-db dpkg-dev binutils lintian libxml2-utils librsvg2-bin libx11-data prometheus prometheus-node-exporter curl
EVROUTE     = $(BUILD)/debug/evroute
DEMO_CONFIG     := config/demo.yaml
DEMO_RECORDINGS := --replay demo/touchscreen.events --replay demo/keyboard.events

.PHONY: all deps test-deps build release demo test test-unit install uninstall deb deb-check fuzz clean bench soak soak-release

all: build

# Installs the Debian packages the build needs (and, for test-deps, what the tests run), only those missing.
deps test-deps: PACKAGES = $(APT_DEPS)
test-deps: PACKAGES = $(APT_DEPS) $(TEST_DEPS)
deps test-deps:
	@missing=""; for p in $(PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing || \
		{ $$sudo apt-get update && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; }; \
	fi
	@command -v $(SWIFT) >/dev/null || { echo "swift is not on PATH: install the Swift toolchain (6.2 or newer: the decoders use InlineArray) first"; exit 1; }

build: deps
	$(SWIFT) build --scratch-path $(BUILD) --product evroute

# The release build: the Swift runtime linked in; every function in a section of its own, linked
# by lld. (No linker order file: laying the live path's functions side by side bought nothing that
# counts on the host's CPU, scripts/bench-order-file.sh; docs/performance.md.)
RELEASE_FLAGS = -c release --static-swift-stdlib --product evroute \
	-Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xswiftc -use-ld=lld \
	-Xlinker -z -Xlinker now

release: deps
	$(SWIFT) build --scratch-path $(BUILD) $(RELEASE_FLAGS)

demo: build
	@echo "== evroute check: the demo layout"
	$(EVROUTE) check --config $(DEMO_CONFIG)
	@echo; echo "== evroute tree: regions, frames and responder chains"
	$(EVROUTE) tree --config $(DEMO_CONFIG)
	@echo; echo "== evroute hit 640 400 --format json"
	$(EVROUTE) hit --config $(DEMO_CONFIG) 640 400 --format json
	@echo; echo "== evroute --dry-run on the demo recordings (scripts/make-demo-recordings.py made them)"
	$(EVROUTE) --config $(DEMO_CONFIG) --dry-run $(DEMO_RECORDINGS)
	@echo; echo "== the same as JSON (first 12 lines of the docs/events.md contract)"
	$(EVROUTE) --config $(DEMO_CONFIG) --dry-run $(DEMO_RECORDINGS) --format json | head -n 12

# Unit, config, input, replay and CLI tests (replay tests read the real recordings in Tests/Fixtures/recordings).
# Nothing may be left under /tmp or /run/evroute afterwards (scripts/left-behind.sh).
# test-build compiles them (and the binary), test-unit runs them (after building what changed).
.PHONY: test-build
# With TEST_BINARY given, only the test bundle is built (the debug evroute is not needed).
test-build: test-deps
	$(SWIFT) build --scratch-path $(BUILD) $(if $(TEST_BINARY),--product evroutePackageTests,--build-tests) $(if $(TEST_BUILD_JOBS),-j $(TEST_BUILD_JOBS))
# The run (and test-soak's) preloads scripts/close-check.c: a descriptor closed twice aborts the
# test process or the evroute it started with a backtrace (between two closes another thread may
# have been given the number; the second close takes it from under that thread).
CLOSE_CHECK = $(BUILD)/close-check.so
$(CLOSE_CHECK): scripts/close-check.c
	@mkdir -p $(BUILD)
	$(CC) -shared -fPIC -O2 -Wall -o $@ $< -ldl
# TEST_BINARY: the evroute the process tests and the soak start (EVROUTE_TEST_BINARY; default: the
# debug build next to the test bundle). `make test` gives them the release build it makes for the VMs.
test-unit: test-build $(CLOSE_CHECK) | $(TEST_AFTER)
	@mkdir -p $(BUILD) && scripts/left-behind.sh before $(BUILD)/left-behind.txt
	$(if $(TEST_BINARY),EVROUTE_TEST_BINARY=$(abspath $(TEST_BINARY))) LD_PRELOAD=$(abspath $(CLOSE_CHECK)) $(SWIFT) test --scratch-path $(BUILD) --skip-build
	scripts/left-behind.sh after $(BUILD)/left-behind.txt

# The real-kernel tests (vm/) run too when this host can run them: an x86_64 machine where
# qemu can be installed. EVROUTE_SKIP_VM=1 skips them (say so when you report results).
VM_CAPABLE := $(shell [ "$$(uname -m)" = x86_64 ] && command -v apt-get >/dev/null 2>&1 && echo yes)

TEST_SOAK_SECONDS ?= 60
# The VMs are the longest part, and they wait for the release build (static runtime) and their
# image: that build goes first, the tests' debug build beside it on one job (TEST_BUILD_JOBS), and
# what runs the tests waits for both (TEST_AFTER), so that on a busy machine the release build is
# not starved. Then the real-kernel scenarios (three VMs side by side, VM_JOBS, each mostly waiting
# on replays at their recorded pace) and the package check, beside the rest of the tests' build,
# then the unit tests (their process tests start that release binary, as the soak does: the build
# that ships, cheaper to run than the debug one, which is then not built), the soak (60 s of
# real-time replay) and the fuzz targets
# (their own build; a fixed number of inputs each: the same work and the same result however busy
# the machine is). Each part's output is printed whole when it ends (make --output-sync).
# Packages are installed first, one apt-get at a time, and the Swift packages resolved once
# (Package.resolved written before two builds read it).
TEST_PARALLEL = $(MAKE) --no-print-directory -j6 --output-sync=target
test: test-deps
ifeq ($(EVROUTE_SKIP_VM),1)
	$(TEST_PARALLEL) test-unit test-soak test-fuzz
	@echo "real-kernel tests skipped (EVROUTE_SKIP_VM=1)"
else ifeq ($(VM_CAPABLE),yes)
	$(MAKE) --no-print-directory vm-host-tools
	$(SWIFT) package --scratch-path $(BUILD) resolve
	$(TEST_PARALLEL) TEST_BUILD_JOBS=1 TEST_AFTER=vm-evroute TEST_BINARY=$(if $(filter none,$(VM_EVROUTE)),,$(VM_EVROUTE)) \
		test-unit test-soak test-fuzz test-vm-run test-deb-check
else
	$(TEST_PARALLEL) test-unit test-soak test-fuzz
	@echo "real-kernel tests skipped: they need an x86_64 host with apt-get to install qemu"
endif

.PHONY: test-soak test-fuzz test-deb-check test-vm-run
test-soak: SOAK_EVROUTE = $(or $(TEST_BINARY),$(EVROUTE))
test-soak: test-build $(CLOSE_CHECK) | $(TEST_AFTER)
	LD_PRELOAD=$(abspath $(CLOSE_CHECK)) $(SOAK_RUN) --seconds $(TEST_SOAK_SECONDS)
test-fuzz: | test-build $(TEST_AFTER)
	$(MAKE) fuzz FUZZ_RUNS=$(TEST_FUZZ_RUNS)
test-deb-check: vm-evroute
	$(MAKE) deb-check BIN=$(VM_SCRATCH)/release/evroute
test-vm-run: vm-prepare
	$(MAKE) --no-print-directory vm-run-all

# soak: the real daemon for SOAK_SECONDS (default 600) replaying every device's real recordings,
# looped, at real time, with declining and churning ui socket clients, a process helper that
# times out and dies, `evroute ctl` commands, good and broken reloads and `evroute status` probes;
# checks no unexpected exit, RSS and fd count flat, status p50/p99, every touch each client saw
# began and ended once (scripts/soak.py; docs/daemon.md#soak). `make test` runs it for
# TEST_SOAK_SECONDS (60), on the release build it makes for the VMs (with EVROUTE_SKIP_VM=1 or
# without qemu, on the debug build). `make soak` soaks the debug build: the binary `make build` makes,
# so no extra optimized static build is needed; unoptimized, it spends more time per event, so the
# same real-time input leaves the loop less slack (answer deadlines, status latency), and its
# assert()s are live (exclusivity and overflow checks are on in both builds). RSS drift, not its level, is
# what is checked. SOAK_EVROUTE=$(BUILD)/release/evroute (after `make release`) soaks the release
# binary instead. SOAK_RECORDINGS: another recordings folder.
SOAK_SECONDS    ?= 600
SOAK_EVROUTE    ?= $(EVROUTE)
SOAK_RECORDINGS ?=
SOAK_RUN = python3 scripts/soak.py --evroute $(SOAK_EVROUTE) $(if $(SOAK_RECORDINGS),--recordings "$(SOAK_RECORDINGS)")
soak: build
	$(SOAK_RUN) --seconds $(SOAK_SECONDS)

# soak-release: the same soak on the release binary (`make release`: optimized, the static
# Swift runtime, the build that ships), after building it.
soak-release: SOAK_EVROUTE = $(BUILD)/release/evroute
soak-release: release
	$(SOAK_RUN) --seconds $(SOAK_SECONDS)

# install: installs an existing build (`make release` builds one; BIN= picks another binary) and
# never builds or calls apt-get. The binary to $(PREFIX)/bin; man pages (evroute(1), one per
# command) to $(MANDIR)/man1, the layout file's evroute.yaml(5) to $(MANDIR)/man5, and bash/zsh/fish
# completions under $(PREFIX)/share, all made by the binary from its command table and layout schema; the unit to $(UNITDIR) (default $(PREFIX)/lib/systemd/system; use
# UNITDIR=/lib/systemd/system or /usr/lib/systemd/system for a distribution layout), with ExecStart
# pointing at the installed binary; sysusers.d, tmpfiles.d, the /dev/uinput udev rule and the uinput
# modules-load.d entry under $(PREFIX)/lib; the
# example layouts, the Grafana dashboard and the Prometheus alert rules under $(DOCDIR)/examples,
# README.md, CHANGELOG.md and docs/*.md under $(DOCDIR); config/minimal.yaml as /etc/evroute/evroute.yaml only
# when that file is absent. DESTDIR is prepended to every path (staged installs, packaging).
BIN         ?= $(BUILD)/release/evroute
UNITDIR     ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
CATALOGDIR  ?= $(PREFIX)/lib/systemd/catalog
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
MODULESLOADDIR ?= $(PREFIX)/lib/modules-load.d
MANDIR      ?= $(PREFIX)/share/man
DOCDIR      ?= $(PREFIX)/share/doc/evroute
SYSCONFDIR  ?= /etc
EXAMPLE_CONFIG ?= config/minimal.yaml
COMPLETIONS := bash:share/bash-completion/completions/evroute zsh:share/zsh/vendor-completions/_evroute \
               fish:share/fish/vendor_completions.d/evroute.fish

install:
	@test -x $(BIN) || { echo "make install: no $(BIN) to install; run 'make release' first (or give BIN=path/to/evroute)"; exit 1; }
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(CATALOGDIR) \
		$(DESTDIR)$(UDEVRULESDIR) $(DESTDIR)$(MODULESLOADDIR) $(DESTDIR)$(SYSCONFDIR)/evroute $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(DOCDIR)/examples
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/evroute
	$(BIN) __generate man $(DESTDIR)$(MANDIR)/man1
	mv $(DESTDIR)$(MANDIR)/man1/evroute.yaml.5 $(DESTDIR)$(MANDIR)/man5/evroute.yaml.5
	@for entry in $(COMPLETIONS); do \
		shell=$${entry%%:*}; path=$(DESTDIR)$(PREFIX)/$${entry#*:}; \
		install -d $$(dirname $$path) && $(BIN) __generate $$shell > $$path && chmod 0644 $$path && echo "completion: $$path" || exit 1; \
	done
	sed -e 's|/usr/bin/evroute|$(PREFIX)/bin/evroute|' -e 's|/etc/evroute/|$(SYSCONFDIR)/evroute/|' \
		systemd/evroute.service > $(DESTDIR)$(UNITDIR)/evroute.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/evroute.service
	install -m 0644 systemd/evroute.sysusers $(DESTDIR)$(SYSUSERSDIR)/evroute.conf
	install -m 0644 systemd/evroute.tmpfiles $(DESTDIR)$(TMPFILESDIR)/evroute.conf
	install -m 0644 systemd/evroute.catalog $(DESTDIR)$(CATALOGDIR)/evroute.catalog
	install -m 0644 systemd/evroute-uinput.rules $(DESTDIR)$(UDEVRULESDIR)/70-evroute-uinput.rules
	install -m 0644 systemd/evroute.modules-load $(DESTDIR)$(MODULESLOADDIR)/evroute.conf
	install -m 0644 config/*.yaml examples/*.yaml examples/*.events $(DESTDIR)$(DOCDIR)/examples/
	install -m 0644 examples/*.yml examples/*.json $(DESTDIR)$(DOCDIR)/examples/
	install -m 0755 examples/*.py $(DESTDIR)$(DOCDIR)/examples/
	install -d $(DESTDIR)$(DOCDIR)/docs
	install -m 0644 README.md CHANGELOG.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 docs/*.md $(DESTDIR)$(DOCDIR)/docs/
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/evroute/evroute.yaml ]; then \
		echo "keeping the existing $(DESTDIR)$(SYSCONFDIR)/evroute/evroute.yaml"; \
	else \
		install -m 0644 $(EXAMPLE_CONFIG) $(DESTDIR)$(SYSCONFDIR)/evroute/evroute.yaml; \
	fi
	@echo "installed; for the service: systemd-sysusers; systemd-tmpfiles --create; journalctl --update-catalog; systemctl daemon-reload; systemctl enable --now evroute"

# uninstall: removes what install put there, except /etc/evroute/evroute.yaml (a config is the user's).
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/evroute
	rm -f $(DESTDIR)$(MANDIR)/man1/evroute.1 $(DESTDIR)$(MANDIR)/man1/evroute-*.1
	rm -f $(DESTDIR)$(MANDIR)/man5/evroute.yaml.5
	@for entry in $(COMPLETIONS); do rm -f $(DESTDIR)$(PREFIX)/$${entry#*:}; done
	rm -rf $(DESTDIR)$(DOCDIR)
	rm -f $(DESTDIR)$(UNITDIR)/evroute.service
	rm -f $(DESTDIR)$(SYSUSERSDIR)/evroute.conf $(DESTDIR)$(TMPFILESDIR)/evroute.conf $(DESTDIR)$(CATALOGDIR)/evroute.catalog
	rm -f $(DESTDIR)$(UDEVRULESDIR)/70-evroute-uinput.rules $(DESTDIR)$(MODULESLOADDIR)/evroute.conf

# deb: the binary Debian package evroute_VERSION-1_ARCH.deb in $(DEB_DIR), from the release build
# (built first when BIN is the release binary; BIN=path packages another), by dpkg-deb on a staged
# install: the stripped binary, the unit, sysusers.d, tmpfiles.d, man pages, completions, the
# example layouts under /usr/share/doc/evroute/examples, /etc/evroute/evroute.yaml as a conffile;
# maintainer scripts create the user and /run/evroute and reload systemd, and start nothing.
# `lintian DEB` checks it (docs/deployment.md).
DEB_DIR ?= $(BUILD)/deb
deb: $(if $(filter $(BUILD)/release/evroute,$(BIN)),release)
	scripts/make-deb.sh $(BIN) $(DEB_DIR)

# deb-check: the package of a release build (static Swift runtime), linted: no lintian error.
# Then what lintian does not fail on: the binary linked with BIND_NOW (-z now: relocations
# resolved at start, so RELRO covers them), md5sums, and the documentation, dashboard and alert
# rules in the package.
deb-check: deb
	deb=$$(ls $(DEB_DIR)/evroute_*_$$(dpkg --print-architecture).deb) && \
	lintian --pedantic --tag-display-limit 0 --fail-on error $$deb && \
	scripts/check-deb.sh $$deb

# fuzz: every libFuzzer target of Fuzz/ (the evemu parser, the config reader, control requests,
# the decoders fed arbitrary event streams, the router as a state machine) for FUZZ_SECONDS each,
# from the corpus kept in Fuzz/Corpus (new inputs go to .build-fuzz/corpus, not into the repo),
# each with its coverage (libFuzzer's `cov:`) from the seed corpus, at the start and at the end.
# A crash, a trap, a leak of the RSS limit or a broken invariant fails it and leaves the input
# in .build-fuzz/artifacts; a target whose coverage does not grow beyond its seed corpus's fails
# too (scripts/fuzz-target.sh). Every target runs; any failure fails `make fuzz`.
# FUZZ_RUNS=N runs N inputs per target from a fixed seed instead of a time (the same inputs each
# time, whatever the machine's load): `make test` runs each for TEST_FUZZ_RUNS. See docs/fuzzing.md.
FUZZ_SECONDS      ?= 60
FUZZ_RUNS         ?=
TEST_FUZZ_RUNS    ?= 5000
FUZZ_TARGETS      := FuzzEvemu FuzzConfig FuzzControl FuzzDecoders FuzzRouter
fuzz: deps
	$(SWIFT) build --package-path Fuzz --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer
	@failed=""; for t in $(FUZZ_TARGETS); do \
		scripts/fuzz-target.sh $$t $(FUZZ_SECONDS) $(FUZZ_RUNS) || failed="$$failed $$t"; \
	done; \
	if [ -n "$$failed" ]; then echo "fuzz: FAILED:$$failed"; exit 1; fi

# Benchmarks (the targets of docs/performance.md): a separate package in Benchmarks/ (package-benchmark, malloc counters on).
# Prints every figure; see docs/performance.md. A few seconds per benchmark, plus the first build.
bench: deps
	@missing=""; for p in libjemalloc-dev valgrind; do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing || \
		{ $$sudo apt-get update && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; }; \
	fi
	cd Benchmarks && $(SWIFT) package --disable-sandbox benchmark --no-progress
	$(MAKE) release
	@echo "== daemon: start-up to READY=1, idle RSS and CPU (release, static Swift runtime)"
	python3 scripts/bench-daemon.py $(BUILD)/release/evroute config/minimal.yaml
	@echo "== the live path's instructions per event: decode, route, dispatch, log line (callgrind)"
	scripts/bench-live-path.sh $(BUILD)/release/evroute
	@echo "== a linker order file (the live path's functions side by side) on this CPU: full-speed replay, with and without"
	scripts/bench-order-file.sh
	@echo "== daemon: reload of a 4 MiB config (40,001 regions) - the loop's longest silence meanwhile, the reload's time"
	python3 scripts/bench-reload.py $(BUILD)/release/evroute
ifeq ($(VM_CAPABLE),yes)
	@echo "== in a real-kernel guest: latency kernel timestamp -> handler, CPU per 10,000 events vs libinput, evtest, evemu-record, python-evdev"
	$(MAKE) vm-perf VM_EVROUTE=$(abspath $(BUILD))/release/evroute
	@cat vm/out/perf.txt
else
	@echo "VM figures skipped: they need an x86_64 host with apt-get to install qemu"
endif

clean:
	rm -rf $(BUILD)

include vm/vm.mk
