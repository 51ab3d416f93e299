# evroute — build, demo, test.
#
#   make demo      install what is missing, build, and show evroute on the shipped demo layout
#                  and recordings (`evroute --dry-run`)
#   make test      install what is missing and run every test
#   make build     debug build            make release   optimized, static Swift runtime
#   make install   / make uninstall (PREFIX, DESTDIR honoured)
#
# System packages are installed with apt-get when missing (as root, or through sudo).

SWIFT      ?= swift
PREFIX     ?= /usr/local
DESTDIR    ?=
BUILD      ?= .build
APT_DEPS   := libevdev-dev libudev-dev libyaml-dev pkg-config python3
EVROUTE     = $(BUILD)/debug/evroute
DEMO_CONFIG     := config/demo.yaml
DEMO_RECORDINGS := --replay demo/touchscreen.events --replay demo/keyboard.events

.PHONY: all deps build release demo test test-unit install uninstall clean bench

all: build

# Installs the Debian packages the build needs, only those missing.
deps:
	@missing=""; for p in $(APT_DEPS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing || \
		{ $$sudo apt-get update && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; }; \
	fi
	@command -v $(SWIFT) >/dev/null || { echo "swift is not on PATH: install the Swift toolchain (6.1 or newer) first"; exit 1; }

build: deps
	$(SWIFT) build --scratch-path $(BUILD) --product evroute

release: deps
	$(SWIFT) build --scratch-path $(BUILD) -c release --static-swift-stdlib --product evroute

demo: build
	@echo "== evroute check: the demo layout"
	$(EVROUTE) check --config $(DEMO_CONFIG)
	@echo; echo "== evroute tree: regions, frames and responder chains"
	$(EVROUTE) tree --config $(DEMO_CONFIG)
	@echo; echo "== evroute hit 640 400 --format json"
	$(EVROUTE) hit --config $(DEMO_CONFIG) 640 400 --format json
	@echo; echo "== evroute --dry-run on the demo recordings (scripts/make-demo-recordings.py made them)"
	$(EVROUTE) --config $(DEMO_CONFIG) --dry-run $(DEMO_RECORDINGS)
	@echo; echo "== the same as JSON (first 12 lines of the SPEC §4 contract)"
	$(EVROUTE) --config $(DEMO_CONFIG) --dry-run $(DEMO_RECORDINGS) --format json | head -n 12

# Unit, config, input, replay and CLI tests (replay tests read ../shared/recordings when present).
test-unit: deps
	$(SWIFT) build --scratch-path $(BUILD)
	$(SWIFT) test --scratch-path $(BUILD)

# The real-kernel tests (vm/) run too when this host can run them: an x86_64 machine where
# qemu can be installed. EVROUTE_SKIP_VM=1 skips them (say so when you report results).
VM_CAPABLE := $(shell [ "$$(uname -m)" = x86_64 ] && command -v apt-get >/dev/null 2>&1 && echo yes)

test: test-unit
ifeq ($(EVROUTE_SKIP_VM),1)
	@echo "real-kernel tests skipped (EVROUTE_SKIP_VM=1)"
else ifeq ($(VM_CAPABLE),yes)
	$(MAKE) test-vm
else
	@echo "real-kernel tests skipped: they need an x86_64 host with apt-get to install qemu"
endif

# install: the binary to $(PREFIX)/bin; the unit to $(UNITDIR) (default $(PREFIX)/lib/systemd/system;
# use UNITDIR=/lib/systemd/system or /usr/lib/systemd/system for a distribution layout), with
# ExecStart pointing at the installed binary; sysusers.d and tmpfiles.d entries under
# $(PREFIX)/lib; config/minimal.yaml as /etc/evroute/evroute.yaml only when that file is absent.
# DESTDIR is prepended to every path (staged installs, packaging).
UNITDIR     ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
SYSCONFDIR  ?= /etc
EXAMPLE_CONFIG ?= config/minimal.yaml

install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(SYSCONFDIR)/evroute
	install -m 0755 $(BUILD)/release/evroute $(DESTDIR)$(PREFIX)/bin/evroute
	sed -e 's|/usr/bin/evroute|$(PREFIX)/bin/evroute|' -e 's|/etc/evroute/|$(SYSCONFDIR)/evroute/|' \
		systemd/evroute.service > $(DESTDIR)$(UNITDIR)/evroute.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/evroute.service
	install -m 0644 systemd/evroute.sysusers $(DESTDIR)$(SYSUSERSDIR)/evroute.conf
	install -m 0644 systemd/evroute.tmpfiles $(DESTDIR)$(TMPFILESDIR)/evroute.conf
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/evroute/evroute.yaml ]; then \
		echo "keeping the existing $(DESTDIR)$(SYSCONFDIR)/evroute/evroute.yaml"; \
	else \
		install -m 0644 $(EXAMPLE_CONFIG) $(DESTDIR)$(SYSCONFDIR)/evroute/evroute.yaml; \
	fi
	@echo "installed; for the service: systemd-sysusers; systemd-tmpfiles --create; systemctl daemon-reload; systemctl enable --now evroute"

# uninstall: removes what install put there, except /etc/evroute/evroute.yaml (a config is the user's).
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/evroute
	rm -f $(DESTDIR)$(UNITDIR)/evroute.service
	rm -f $(DESTDIR)$(SYSUSERSDIR)/evroute.conf $(DESTDIR)$(TMPFILESDIR)/evroute.conf

# Benchmarks (SPEC §7): a separate package in Benchmarks/ (package-benchmark, malloc counters on).
# Prints every figure; see docs/performance.md. A few seconds per benchmark, plus the first build.
bench: deps
	@dpkg-query -W -f='$${Status}' libjemalloc-dev 2>/dev/null | grep -q "ok installed" || { \
		echo "installing: libjemalloc-dev"; \
		if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libjemalloc-dev || \
		{ $$sudo apt-get update && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libjemalloc-dev; }; \
	}
	cd Benchmarks && $(SWIFT) package --disable-sandbox benchmark --no-progress
	$(MAKE) release
	@echo "== daemon: start-up to READY=1, idle RSS and CPU (release, static Swift runtime)"
	python3 scripts/bench-daemon.py $(BUILD)/release/evroute config/minimal.yaml
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
