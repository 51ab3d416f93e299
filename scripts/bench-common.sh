# bench-common.sh — what the callgrind benchmarks (bench-live-path.sh, bench-socket-path.sh,
# bench-forward-path.sh) share, sourced after they set BENCH_NAME (their path's name, for
# messages): ROOT (the repository), the recording REC (the 16,593-event Wacom DTH2242 one) with
# its EVENTS and FRAMES, the work folder OUT (removed at exit; KEEP_CG=DIR keeps everything in
# DIR instead, for a closer look), and `cost PATTERN`: the inclusive instructions of the first
# symbol (mangled) in OUT/annotated matching the extended regular expression PATTERN.
# Exits 0 with a line when valgrind is missing, 1 when the recording is.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REC="$ROOT/Tests/Fixtures/recordings/touchscreens/Wacom DTH2242 Finger.events"
[ -f "$REC" ] || { echo "$BENCH_NAME: $REC is missing" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "$BENCH_NAME: skipped (no valgrind)"; exit 0; }
if [ -n "${KEEP_CG:-}" ]; then
	OUT=$KEEP_CG; mkdir -p "$OUT"; echo "$BENCH_NAME: callgrind output kept in $OUT" >&2
else
	OUT=$(mktemp -d); trap 'rm -rf "$OUT"' EXIT
fi
EVENTS=$(grep -c '^E: ' "$REC")
FRAMES=$(grep -cE '^E: [0-9.]+ 0000 0000 0+([[:space:]]|$)' "$REC")
cost() { grep -E "$1" "$OUT/annotated" | head -n 1 | awk '{ gsub(",", "", $1); v = $1 + 0 } END { print v + 0 }'; }
