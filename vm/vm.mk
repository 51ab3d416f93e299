# vm/vm.mk — the real-kernel test VM, included from the top-level Makefile
# (`include vm/vm.mk`); targets run from the repo root.
#
#   make test-vm                          everything: host tools, fetch, evroute, image, run all
#   make test-vm VM_SCENARIOS="00 10"     only these scenarios (names or prefixes)
#   make test-vm VM_EVROUTE=none          without building/including evroute (its scenarios SKIP)
#   make test-vm VM_EVROUTE=path/to/bin   with a given binary instead of building one
#   make test-vm VM_RUN_ARGS=--debug      sh -x traces + udevd debug log in the console log
#   make test-vm VM_JOBS=1                one VM for all scenarios (default 3 side by side)
#   make vm-shell                         boot, run VM_SCENARIOS, then a shell on the console
#   make vm-perf                          90-evroute-perf on the perf image (python3-evdev); vm/out/perf.txt
#   make vm-image / vm-fetch / vm-evroute / vm-clean
# See vm/README.md.

VM_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
VM_SCENARIOS ?=
VM_RUN_ARGS ?=
# VMs booted side by side by `make test-vm`, each with a share of the scenarios (vm/run.sh --jobs)
VM_JOBS ?= 3
VM_SWIFT ?= swift
VM_SCRATCH ?= .build-vm
VM_EVROUTE ?= $(VM_SCRATCH)/release/evroute
# host commands and the Debian packages that provide them
VM_HOST_TOOLS := qemu-system-x86_64:qemu-system-x86 cpio:cpio xz:xz-utils apt-get:apt dpkg-deb:dpkg

.PHONY: test-vm vm-prepare vm-run-all vm-host-tools vm-fetch vm-evroute vm-image vm-run vm-shell vm-clean vm-distclean

test-vm: vm-prepare
	$(MAKE) --no-print-directory vm-run-all

# everything a run needs (`make test` builds it beside the soak and the fuzzing), then the run
vm-prepare: vm-host-tools vm-fetch vm-evroute vm-image
vm-run-all:
	$(VM_DIR)/run.sh --jobs $(VM_JOBS) $(VM_RUN_ARGS) $(VM_SCENARIOS)

vm-host-tools:
	@missing=""; for t in $(VM_HOST_TOOLS); do \
		command -v $${t%%:*} >/dev/null 2>&1 || missing="$$missing $${t#*:}"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "vm: installing host packages:$$missing"; \
		if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing || \
		{ $$sudo apt-get update && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; }; \
	fi

vm-fetch: vm-host-tools
	$(VM_DIR)/fetch.sh

# The release binary with the Swift runtime linked in, so the guest needs only
# the C libraries. A failed build fails the target: use VM_EVROUTE=none to
# test the harness without evroute.
vm-evroute:
ifeq ($(VM_EVROUTE),$(VM_SCRATCH)/release/evroute)
	$(VM_SWIFT) build $(RELEASE_FLAGS) --scratch-path $(VM_SCRATCH)
else
	@echo "vm: evroute binary: $(VM_EVROUTE) (not building)"
endif

vm-image: vm-fetch vm-evroute
	EVROUTE_BIN=$(if $(filter none,$(VM_EVROUTE)),,$(VM_EVROUTE)) $(VM_DIR)/build-initramfs.sh

vm-run:
	$(VM_DIR)/run.sh $(VM_RUN_ARGS) $(VM_SCENARIOS)

vm-shell: vm-image
	$(VM_DIR)/run.sh --shell $(VM_RUN_ARGS) $(VM_SCENARIOS)

vm-clean:
	rm -rf $(VM_DIR)/out

vm-distclean: vm-clean
	rm -rf $(VM_DIR)/cache

# The performance scenarios (90-evroute-perf, then 92-evroute-forward-perf; "# manual:",
# not in the default run): the perf image adds python3 + python3-evdev for the python
# peer, tslib and interception-tools for the forwarding peers.
# Numbers: vm/out/perf.txt; see docs/performance-vm.md.
.PHONY: vm-perf
vm-perf: vm-host-tools vm-evroute
	EVROUTE_VM_PERF=1 $(VM_DIR)/fetch.sh
	EVROUTE_VM_PERF=1 EVROUTE_VM_NOSTRIP=1 EVROUTE_BIN=$(if $(filter none,$(VM_EVROUTE)),,$(VM_EVROUTE)) $(VM_DIR)/build-initramfs.sh
	$(VM_DIR)/run.sh --timeout 1500 --scenario-timeout 900 $(VM_RUN_ARGS) $(or $(VM_SCENARIOS),90-evroute-perf 92-evroute-forward-perf)
