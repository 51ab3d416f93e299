#!/bin/sh
# bench-live-path.sh BIN — instructions (valgrind callgrind: deterministic, unlike time on a shared
# machine) the daemon's per-event path costs: decode → route → plugin dispatch → log line, for the
# 16,593-event Wacom DTH2242 recording routed by vm/guest/config/regions.yaml (the layout of
# `make vm-perf`: log handlers at several levels, one info line per touch event). The daemon reads
# the recording instead of a device (no kernel here); everything after the read is the live path.
# Prints the totals inside RoutingSession.handle (per event and per frame) and its main parts.
# Needs valgrind (make bench installs it) and ../shared/recordings beside the repository.
set -eu
BIN=$1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REC="$ROOT/../shared/recordings/touchscreens/Wacom DTH2242 Finger.events"
CFG="$ROOT/vm/guest/config/regions.yaml"
if [ ! -f "$REC" ]; then echo "live path: skipped (no $REC)"; exit 0; fi
command -v valgrind >/dev/null || { echo "live path: skipped (no valgrind)"; exit 0; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
valgrind --tool=callgrind --callgrind-out-file="$OUT/cg" "$BIN" --config "$CFG" --control-socket none \
	--replay "$REC" --exit-after-replay >/dev/null 2>"$OUT/err"
EVENTS=$(grep -c '^E: ' "$REC")
FRAMES=$(grep -cE '^E: [0-9.]+ 0000 0000 0+([[:space:]]|$)' "$REC")
callgrind_annotate --inclusive=yes "$OUT/cg" 2>/dev/null >"$OUT/annotated"
# inclusive instructions of the first symbol matching $1 (Swift's mangled names)
cost() { grep -E "$1" "$OUT/annotated" | head -n 1 | awk '{ gsub(",", "", $1); print $1 + 0 }'; }
total=$(cost 'RoutingSessionC6handleyy0A5Input0F4ItemOF')
decode=$(cost 'TouchDecoderC4feed')
route=$(cost 'RouterC6handleyyAA15TouchFrameInput')
dispatch=$(cost 'PluginHostC8dispatch')
logline=$(cost 'LogPluginC7deliver')
awk -v t="$total" -v d="$decode" -v r="$route" -v p="$dispatch" -v l="$logline" -v e="$EVENTS" -v f="$FRAMES" 'BEGIN {
	printf "live path (callgrind, %d events, %d frames): %.0f instructions per event, %.0f per frame\n", e, f, t / e, t / f
	printf "  decode (TouchDecoder.feed)        %6.0f per event\n", d / e
	printf "  route, dispatch included          %6.0f per frame\n", r / f
	printf "  plugin dispatch, log line incl.   %6.0f per frame\n", p / f
	printf "  log line (LogPlugin.deliver)      %6.0f per frame\n", l / f
}'
