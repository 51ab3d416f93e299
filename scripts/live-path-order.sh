#!/bin/sh
# live-path-order.sh BIN > scripts/live-path.order — the functions the live path runs, for the
# release link to lay out side by side (`--symbol-ordering-file`, see RELEASE_FLAGS in the
# Makefile and docs/performance.md, "Code laid out for the live path").
#
# Why: each wake-up of the daemon touches every code page its path runs through. Spread over
# the binary's 8 MB of text, a frame's ~300 functions sat on ~130 pages; side by side they take
# ~40. Fewer pages is fewer TLB and cache misses on any machine, and fewer of the software TLB
# refills that dominate an emulated guest after each context switch.
#
# How: valgrind's callgrind runs BIN (a release build made with function sections) over the
# DTH2242 recording with vm/guest/config/regions.yaml, collecting inside the event loop only
# (start-up and the recording's parse are left out); every function that ran there is listed,
# most instructions first. The read of a live device, which a replay does not run, is added by
# name. Names are Swift-mangled; a name the code no longer has is ignored by the linker, so a
# stale list costs locality, never correctness. Regenerate after changing the live path:
#   make release && scripts/live-path-order.sh .build/release/evroute > scripts/live-path.order
set -eu
BIN=$1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REC="$ROOT/Tests/Fixtures/recordings/touchscreens/Wacom DTH2242 Finger.events"
CFG="$ROOT/vm/guest/config/regions.yaml"
command -v valgrind >/dev/null || { echo "live-path-order: needs valgrind" >&2; exit 1; }
[ -f "$REC" ] || { echo "live-path-order: needs $REC" >&2; exit 1; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
LOOP=$(nm --defined-only "$BIN" | awk '{ print $3 }' | grep -E '^\$s13EvrouteSystem9EventLoopC3runyyF$')
valgrind --tool=callgrind --demangle=no --toggle-collect="$LOOP" --callgrind-out-file="$OUT/cg" \
	"$BIN" --config "$CFG" --control-socket none --replay "$REC" --exit-after-replay >/dev/null 2>"$OUT/err"
awk -f "$ROOT/scripts/callgrind-self-cost.awk" "$OUT/cg" | sort -rn | awk '{ print $2 }' | grep -v -E '^(0x|\(below)' >"$OUT/hot"
# The live read (no replay runs it): the device read, the device's watcher and the source's callbacks,
# the session as the source's sink, the loop's timers and flush.
nm --defined-only "$BIN" | awk '{ print $3 }' | grep -E \
	'EvdevDeviceC13readAvailable|04LiveB6SourceC.*fU_$|04LiveB6SourceC10readDevice|10OpenDevice.*C5readyy|EventSinkAadEP6handle_4from.*TW$|LogC5flushyyF$|EventLoopC13fireDueTimers|EventLoopC6rearm|EventLoopC8schedule|RoutingSessionC6handle_4from' \
	>>"$OUT/hot" || true
# Only functions in a section of their own can be moved: a function in a shared section (the
# Swift standard library's Swift.o keeps most of its code in one 1.6 MB .text) would drag the
# whole section into the hot run. Such names are left out: the functions of the release
# build's objects and of the Swift runtime archive that share a section with another function.
OBJECTS=$(dirname "$(readlink -f "$BIN")")
SWIFT_LIB=$(dirname "$(readlink -f "$(command -v swift)")")/../lib/swift_static/linux
find "$OBJECTS" -name '*.o' >"$OUT/objects"
find "$SWIFT_LIB" -maxdepth 1 -name 'libswift*.a' >>"$OUT/objects" 2>/dev/null || true
python3 - "$OUT/objects" "$OUT/hot" <<'PY'
import subprocess, sys, collections
shared = set()
for path in open(sys.argv[1]).read().split():
    out = subprocess.run(["readelf", "-sW", path], capture_output=True, text=True, errors="replace").stdout
    per_section = collections.defaultdict(list)
    for line in out.splitlines():
        if line.startswith("File: "):
            for names in per_section.values():
                if len(names) > 1: shared.update(names)
            per_section.clear()
            continue
        f = line.split()
        if len(f) >= 8 and f[3] == "FUNC" and f[6].isdigit():
            per_section[f[6]].append(f[7])
    for names in per_section.values():
        if len(names) > 1: shared.update(names)
seen = set()
for name in open(sys.argv[2]).read().split():
    if name not in shared and name not in seen:
        seen.add(name)
        print(name)
PY
