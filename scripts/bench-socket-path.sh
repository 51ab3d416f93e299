#!/bin/sh
# bench-socket-path.sh BIN [socket|log] — instructions (valgrind callgrind) the daemon spends per
# event on the path a kiosk UI uses: the 16,593-event Wacom DTH2242 recording replayed at its
# recorded pace (--replay-realtime: one frame per wake-up, as a live device's reads) through
# vm/guest/config/perf-latency.yaml (every touch to one `socket` plugin, as in make vm-perf's
# `evroute-daemon-socket` reader), with one real AF_UNIX client process connected that reads
# every line; or, with `log`, through vm/guest/config/regions.yaml (log handlers; the log-only
# daemon of make vm-perf). The whole process is collected; the script prints the inclusive cost
# of the loop and of its parts per event, and, with strace, the daemon's system calls per frame.
# The client's own cost is not counted (it is another process).
set -eu
BIN=$1
MODE=${2:-socket}
BENCH_NAME="socket path"
. "$(dirname "$0")/bench-common.sh"
case $MODE in
socket) sed "s|/tmp/evroute-lat.sock|$OUT/lat.sock|" "$ROOT/vm/guest/config/perf-latency.yaml" >"$OUT/cfg.yaml" ;;
log) cp "$ROOT/vm/guest/config/regions.yaml" "$OUT/cfg.yaml" ;;
*) echo "usage: $0 BIN [socket|log]" >&2; exit 2 ;;
esac

# The client: connects (when there is a socket), starts the held replay through the control
# socket, reads until the daemon closes; prints lines and read(2) calls.
client() {
	python3 - "$OUT" "$MODE" <<'EOF'
import socket, sys, time, os
out, mode = sys.argv[1], sys.argv[2]
def connect(path):
    for _ in range(600):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect(path); return s
        except OSError:
            s.close(); time.sleep(0.1)
    sys.exit("no socket " + path)
lat = connect(out + "/lat.sock") if mode == "socket" else None
ctl = connect(out + "/ctl.sock")
ctl.sendall(b'{"command":"replay"}\n'); ctl.recv(4096)
lines = reads = 0
if lat:
    while True:
        b = lat.recv(65536)
        if not b: break
        reads += 1; lines += b.count(b"\n")
print(f"client: {lines} lines in {reads} reads")
EOF
}

run() {   # run TOOL... : the daemon under TOOL, the client beside it
	"$@" "$BIN" --config "$OUT/cfg.yaml" --control-socket "$OUT/ctl.sock" --replay "$REC" --replay-paused \
		--replay-realtime --exit-after-replay >/dev/null 2>"$OUT/err" &
	daemon=$!
	client >"$OUT/client"
	wait $daemon || { echo "socket path: the daemon failed:" >&2; tail -n 5 "$OUT/err" >&2; exit 1; }
}

run valgrind --tool=callgrind --demangle=no --compress-pos=no --callgrind-out-file="$OUT/cg"
callgrind_annotate --inclusive=yes "$OUT/cg" 2>/dev/null >"$OUT/annotated"
# (each pattern ends at the symbol's end: `( |$)`)
loop=$(cost 'EventLoopC3runyyF( |$)')
session=$(cost 'RoutingSessionC6events_4fromy(0A5Input0G5BatchV|s4SpanVy0A5Input0H5EventVG)_0A4Core8DeviceIDVtF( |$)')
# the host's dispatch: through the router's HandlerDispatcher witness (in place) and out of line
dispatch=$(( $(cost 'PluginHostC0A4Core17HandlerDispatcherAadEP8dispatch[0-9A-Za-z_]*( |$)') + $(cost 'PluginHostC13dispatchOther[0-9A-Za-z_]*( |$)') ))
encode=$(cost 'EventEncoderO6encode_9handledBy7handler2as4into[0-9A-Za-z_]*JSONWriterV_[0-9A-Za-z_]*( |$)')
deliver=$(( $(cost 'SocketPluginC7delivery[0-9A-Za-z_]*( |$)') + $(cost 'SocketPluginC14deliverInPlace[0-9A-Za-z_]*( |$)') ))
frame=$(cost 'PluginContextC10writeFrameyyF( |$)')
echo "$MODE path (callgrind, $EVENTS events, $FRAMES frames, paced replay; $(cat "$OUT/client")):"
awk -v l="$loop" -v s="$session" -v d="$dispatch" -v j="$encode" -v p="$deliver" -v w="$frame" -v e="$EVENTS" -v f="$FRAMES" 'BEGIN {
	printf "  event loop, all (EventLoop.run)         %6.0f instructions per event, %6.0f per frame\n", l / e, l / f
	printf "  read → route → dispatch (events(_:from:)) %5.0f per event\n", s / e
	printf "    plugin dispatch (PluginHost.dispatch)  %5.0f per event\n", d / e
	printf "      JSON fields (EventEncoder, JSON)    %6.0f per event\n", j / e
	printf "      socket deliver (line into its buffer) %4.0f per event\n", p / e
	printf "  end-of-frame writes (writeFrame)        %6.0f per event, %6.0f per frame\n", w / e, w / f
	printf "  rest of the loop (replay pacing, epoll, timers) %5.0f per event\n", (l - s - w) / e
}'
if command -v strace >/dev/null; then
	run strace -f -c -o "$OUT/strace"
	awk -v f="$FRAMES" '$1 ~ /^[0-9.]+$/ && $NF != "total" { n[$NF] = $4; t += $4 }
		END { printf "  system calls: %.2f per frame:", t / f; for (c in n) if (n[c] / f >= 0.05) printf " %s %.2f", c, n[c] / f; print "" }' "$OUT/strace"
fi
