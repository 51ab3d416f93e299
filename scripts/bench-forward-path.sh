#!/bin/sh
# bench-forward-path.sh BIN — instructions (valgrind callgrind: deterministic, unlike time on a
# shared machine) the daemon spends forwarding a touchscreen, per event and per frame: the
# 16,593-event Wacom DTH2242 recording routed by vm/guest/config/perf-forward.yaml (every touch
# taken by the `forward` plugin, as in 92-evroute-forward-perf), paced by the recording's own
# timing (--replay-realtime: one source frame per wake-up, one write(2) per wake-up, as live).
# There is no /dev/uinput here: the virtual touchscreen is the benchmark hook's stand-in,
# EVROUTE_BENCH_UINPUT_STANDIN=/dev/null (a virtual device is that file opened for writing; the
# frames are built and written as they are to uinput). The daemon reads the recording instead of
# a device: "read" below is the replay's (the recording's text parsed), not the live read.
# Prints the parts: read -> decode -> route -> forward frame build -> write, per event, and the
# writes per frame. Needs valgrind; runs about as long as the recording (24 s).
set -eu
BIN=$1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REC="$ROOT/Tests/Fixtures/recordings/touchscreens/Wacom DTH2242 Finger.events"
CFG=${BENCH_CONFIG:-"$ROOT/vm/guest/config/perf-forward.yaml"}
[ -f "$REC" ] || { echo "forward path: $REC is missing" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "forward path: skipped (no valgrind)"; exit 0; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
EVROUTE_BENCH_UINPUT_STANDIN=/dev/null valgrind --tool=callgrind --demangle=no --compress-pos=no \
	--callgrind-out-file="$OUT/cg" "$BIN" --config "$CFG" --control-socket none --replay "$REC" \
	--replay-realtime --exit-after-replay >/dev/null 2>"$OUT/err" || { tail -n 20 "$OUT/err" >&2; exit 1; }
EVENTS=$(grep -c '^E: ' "$REC")
FRAMES=$(grep -cE '^E: [0-9.]+ 0000 0000 0+([[:space:]]|$)' "$REC")
callgrind_annotate --inclusive=yes --threshold=100 "$OUT/cg" 2>/dev/null >"$OUT/annotated"
# inclusive instructions of the first symbol matching $1 (mangled names)
cost() { grep -E "$1" "$OUT/annotated" | head -n 1 | awk '{ gsub(",", "", $1); v = $1 + 0 } END { print v + 0 }'; }
# calls made to the first symbol matching $1, from anywhere
calls() {
	awk -v pat="$1" '
	/^cfn=\(/ { id = $1; sub(/^cfn=/, "", id); if (NF > 1) name[id] = $2; callee = name[id]; next }
	/^fn=\(/ { id = $1; sub(/^fn=/, "", id); if (NF > 1) name[id] = $2; next }
	/^calls=/ { if (callee ~ pat) n += substr($1, 7) + 0; next }
	END { print n + 0 }' "$OUT/cg"
}
session=$(cost 'RoutingSessionC6events_4fromy(0A5Input0G5BatchV|s4SpanVy0A5Input0H5EventVG)_0A4Core8DeviceIDVtF')
feed=$(cost 'ReplayDriverC4feed')
decode=$(( $(cost 'TouchDecoderC4feedy') + $(cost 'TouchDecoderC8feedAxes') ))
route=$(cost 'RouterC6handleyyAA15TouchFrameInput')
deliver=$(cost '13EvrouteDaemon13ForwardPluginCAA0D0A2aDP7delivery')
outputs=$(cost 'ForwardOutputsC5touch_5phase')
flush=$(cost 'ForwardOutputsC5flushyyF')
write=$(cost 'UinputDeviceC5write')
writes=$(calls 'UinputDeviceC5write')
if [ "$deliver" = 0 ] || [ "$writes" = 0 ]; then
	echo "forward path: nothing was forwarded (no virtual device? $(grep -m1 forward "$OUT/err"))" >&2
	exit 1
fi
awk -v s="$session" -v fd="$feed" -v d="$decode" -v r="$route" -v dl="$deliver" -v o="$outputs" -v fl="$flush" \
	-v w="$write" -v ws="$writes" -v e="$EVENTS" -v f="$FRAMES" 'BEGIN {
	total = s + fl
	printf "forward path (callgrind, %d events, %d frames): %.0f instructions per event, %.0f per frame (decode to write)\n", e, f, total / e, total / f
	printf "  read (the replay: text parsed)       %6.0f per event\n", (fd - s) / e
	printf "  decode (TouchDecoder.feed/Axes)      %6.0f per event\n", d / e
	printf "  route, forwarding excluded           %6.0f per event\n", (r - dl) / e
	printf "  session, other (events(_:from:))    %6.0f per event\n", (s - d - r) / e
	printf "  forward frame build (deliver)        %6.0f per event (ForwardOutputs.touch %.0f)\n", dl / e, o / e
	printf "  frame end and write (flush)          %6.0f per event, %.0f per write (write(2) call %.0f per write)\n", fl / e, fl / ws, w / ws
	printf "  writes: %d, %.2f per source frame\n", ws, ws / f
}'
