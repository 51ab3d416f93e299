#!/bin/sh
# bench-forward-path.sh BIN — instructions (valgrind callgrind: deterministic, unlike time on a
# shared machine) the daemon spends forwarding a touchscreen, per event and per frame: the
# 16,593-event Wacom DTH2242 recording routed by vm/guest/config/perf-forward.yaml (every touch
# taken by the `forward` plugin, as in 92-evroute-forward-perf), paced by the recording's own
# timing (--replay-realtime: one source frame per wake-up, one write(2) per wake-up, as live).
# There is no /dev/uinput here: the virtual touchscreen is the benchmark hook's stand-in,
# EVROUTE_BENCH_UINPUT_STANDIN=/dev/null (a virtual device is that file opened for writing; the
# frames are built and written as they are to uinput). The daemon reads the recording instead of
# a device: its read (the recording's text parsed) stands in for the live read and is not
# collected (nor is the start-up): what is collected is the event loop's wake-ups.
# Prints the parts: decode -> route -> forward frame build -> write, per event, the writes per
# frame, and the code the wake-ups run: the instructions run in half the frames or more, and the
# functions they lie in (under TCG, the guest of make vm-perf, a wake-up pays for each block of
# code it runs, docs/performance-design.md "What the guest charges for"). Needs valgrind; runs
# about as long as the recording (24 s).
set -eu
BIN=$1
BENCH_NAME="forward path"
. "$(dirname "$0")/bench-common.sh"
CFG=${BENCH_CONFIG:-"$ROOT/vm/guest/config/perf-forward.yaml"}
symbol() { nm --defined-only "$BIN" | awk '{ print $3 }' | grep -E "$1" | head -n 1; }
LOOP=$(symbol '^\$s13EvrouteSystem9EventLoopC3runyyF$')
PARSE=$(symbol 'ReplaySourceV8IteratorV4next')
EVROUTE_BENCH_UINPUT_STANDIN=/dev/null valgrind --tool=callgrind --demangle=no --compress-pos=no --dump-instr=yes \
	--collect-atstart=no --toggle-collect="$LOOP" --toggle-collect="$PARSE" --callgrind-out-file="$OUT/cg" "$BIN" --config "$CFG" --control-socket none --replay "$REC" \
	--replay-realtime --exit-after-replay >/dev/null 2>"$OUT/err" || { tail -n 20 "$OUT/err" >&2; exit 1; }
callgrind_annotate --inclusive=yes --threshold=100 "$OUT/cg" 2>/dev/null >"$OUT/annotated"
# calls made to the first symbol matching $1, from anywhere
calls() {
	awk -v pat="$1" '
	/^cfn=\(/ { id = $1; sub(/^cfn=/, "", id); if (NF > 1) name[id] = $2; callee = name[id]; next }
	/^fn=\(/ { id = $1; sub(/^fn=/, "", id); if (NF > 1) name[id] = $2; next }
	/^calls=/ { if (callee ~ pat) n += substr($1, 7) + 0; next }
	END { print n + 0 }' "$OUT/cg"
}
session=$(cost 'RoutingSessionC6events_4fromy(0A5Input0G5BatchV|s4SpanVy0A5Input0H5EventVG)_0A4Core8DeviceIDVtF')
decode=$(( $(cost 'TouchDecoderC4feedy') + $(cost 'TouchDecoderC8feedAxes') + $(cost 'TouchDecoderC12feedFrameEnd') ))
route=$(cost 'RouterC6handleyyAA15TouchFrameInput')
# the plugin's delivery: the touch's phase queued (ForwardOutputs.touch and the frame build
# inlined into it), from the plugin host's table in place (or, before it had that, through the
# protocol)
deliver=$(( $(cost '13EvrouteDaemon13ForwardPluginCAA0D0A2aDP7delivery') + $(cost '13EvrouteDaemon13ForwardPluginC14deliverInPlace_7handler9responder') ))
# the end of a wake-up: the forwarder's end-of-wake-up hook (its frames ended and written, the
# flush inlined) and the plugin host's (writers registered during the wake-up; the forwarder's,
# before it had a hook of its own), each with the call from the loop
flush=$(( $(cost 'ForwardOutputsC7contextAcA13PluginContextC_tcfcyycfU_TA') + $(cost 'PluginContextC4loop3log15continueRouting.*cfcyycfU_TA') ))
# write(2) calls (the virtual device's; the log writes nothing here)
writes=$(calls '^write$')
if [ "$deliver" = 0 ] || [ "$writes" = 0 ]; then
	echo "forward path: nothing was forwarded (no virtual device? $(grep -m1 forward "$OUT/err"))" >&2
	exit 1
fi
# instructions (by address) run at least FRAMES/2 times, and the functions holding them; the
# cost line after a "calls=" line is that call's inclusive cost, not an instruction of its own
code=$(awk -v min=$((FRAMES / 2)) '
	/^fn=\(/ { id = $1; sub(/^fn=/, "", id); if (NF > 1) name[id] = $2; fn = name[id]; skip = 0; next }
	/^cfn=\(/ { id = $1; sub(/^cfn=/, "", id); if (NF > 1) name[id] = $2; next }
	/^calls=/ { skip = 1; next }
	/^0x/ { if (skip) { skip = 0; next } n[fn " " $1] += $3; next }
	END { for (k in n) if (n[k] >= min) { c++; split(k, a, " "); f[a[1]] = 1 } for (x in f) nf++; print c + 0, nf + 0 }' "$OUT/cg")
awk -v s="$session" -v c="$code" -v d="$decode" -v r="$route" -v dl="$deliver" -v fl="$flush" \
	-v ws="$writes" -v e="$EVENTS" -v f="$FRAMES" 'BEGIN {
	total = s + fl
	printf "forward path (callgrind, %d events, %d frames): %.0f instructions per event, %.0f per frame (decode to write)\n", e, f, total / e, total / f
	printf "  decode (TouchDecoder.feed/Axes/End)  %6.0f per event\n", d / e
	printf "  route, forwarding excluded           %6.0f per event\n", (r - dl) / e
	printf "  session, other (events(_:from:))    %6.0f per event\n", (s - d - r) / e
	printf "  forward frame build (deliver)        %6.0f per event\n", dl / e
	printf "  frame end and write (flush)          %6.0f per event, %.0f per write (write(2) included)\n", fl / e, fl / ws
	printf "  writes: %d, %.2f per source frame\n", ws, ws / f
	split(c, cc, " ")
	printf "  code run in half the frames or more: %d instructions in %d functions\n", cc[1], cc[2]
}'
