#!/bin/sh
# bench-live-path.sh BIN — instructions (valgrind callgrind: deterministic, unlike time on a shared
# machine) the daemon's per-event path costs: decode → route → plugin dispatch → log line, for the
# 16,593-event Wacom DTH2242 recording routed by vm/guest/config/regions.yaml (the layout of
# `make vm-perf`: log handlers at several levels, one info line per touch event). The daemon reads
# the recording instead of a device (no kernel here); everything after the read is the live path.
# Prints the totals inside RoutingSession.events(_:from:) (per event and per frame), its main
# parts, and how many code pages the functions it runs lie on.
# KEEP_CG=DIR keeps the callgrind output (DIR/cg) and its annotation for a closer look (each bench;
# scripts/bench-common.sh).
# Needs valgrind (make bench installs it); the recording is in Tests/Fixtures/recordings.
set -eu
BIN=$1
BENCH_NAME="live path"
. "$(dirname "$0")/bench-common.sh"
CFG=${BENCH_CONFIG:-"$ROOT/vm/guest/config/regions.yaml"}
LIVE=$(nm --defined-only "$BIN" | awk '{ print $3 }' | grep -E 'RoutingSessionC6events_4fromy(0A5Input0G5BatchV|s4SpanVy0A5Input0H5EventVG)_0A4Core8DeviceIDVtF$' | head -n 1)
# Collected inside RoutingSession.events(_:from:) only: what one read of a device costs once read.
valgrind --tool=callgrind --demangle=no --compress-pos=no --toggle-collect="$LIVE" --callgrind-out-file="$OUT/cg" "$BIN" --config "$CFG" \
	--control-socket none --replay "$REC" --exit-after-replay >/dev/null 2>"$OUT/err"
callgrind_annotate --inclusive=yes "$OUT/cg" 2>/dev/null >"$OUT/annotated"
total=$(cost 'RoutingSessionC6events_4fromy(0A5Input0G5BatchV|s4SpanVy0A5Input0H5EventVG)_0A4Core8DeviceIDVtF')
decode=$(( $(cost 'TouchDecoderC4feedy') + $(cost 'TouchDecoderC12feedFrameEnd') + $(cost 'TouchDecoderC8feedAxes') ))
route=$(cost 'RouterC6handleyyAA15TouchFrameInput')
# The host's dispatch, with the log's line written inside it (both inlined into the router's call
# through the HandlerDispatcher protocol: its witness), and the line's other events, out of line.
dispatch=$(( $(cost 'PluginHostC0A4Core17HandlerDispatcherAadEP8dispatch') + $(cost 'PluginHostC13dispatchOther') ))
# The code the live path runs: its functions (those that cost anything in the collected part)
# and the 4 KiB pages they lie on in BIN.
awk -f "$ROOT/scripts/callgrind-self-cost.awk" "$OUT/cg" | awk '{ print $2 }' | sort >"$OUT/ran"
# Call sites run in at least half the frames, and their calls per frame: under TCG (the guest of
# make vm-perf) each distinct call site a wake-up runs costs a lookup of the block it returns
# to, whatever the call does (docs/performance-design.md, "What the guest charges for").
sites=$(awk -v sites=$((FRAMES / 2)) -f "$ROOT/scripts/callgrind-self-cost.awk" "$OUT/cg")
nm --defined-only -S "$BIN" | awk 'NF == 4 { print $4, $1, $2 }' | sort >"$OUT/symbols"
pages=$(join "$OUT/ran" "$OUT/symbols" | python3 -c '
import sys
pages, count, size = set(), 0, 0
for line in sys.stdin:
    name, address, length = line.split()
    a, n = int(address, 16), int(length, 16)
    pages.update(range(a // 4096, (a + max(n, 1) - 1) // 4096 + 1))
    count, size = count + 1, size + n
print(f"{count} functions, {size} bytes, on {len(pages)} code pages")')
awk -v t="$total" -v d="$decode" -v r="$route" -v p="$dispatch" -v e="$EVENTS" -v f="$FRAMES" -v pg="$pages" -v s="$sites" 'BEGIN {
	printf "live path (callgrind, %d events, %d frames): %.0f instructions per event, %.0f per frame\n", e, f, t / e, t / f
	printf "  decode (TouchDecoder.feed/Axes)   %6.0f per event\n", d / e
	printf "  route, dispatch included          %6.0f per frame\n", r / f
	printf "  plugin dispatch, log line incl.   %6.0f per frame\n", p / f
	printf "  code run: %s\n", pg
	split(s, cs, " ")
	printf "  call sites run in half the frames or more: %d, %.0f calls per frame\n", cs[1], cs[2] / f
}'
