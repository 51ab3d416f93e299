#!/bin/sh
# bench-order-file.sh [REV] — does a linker order file pay on this host's CPU? (make bench runs it.)
# Builds the release binary (make release's flags) twice, without and with the symbol-ordering file
# scripts/live-path.order as it was at REV (default: the last commit that had it; evroute linked
# with it until 3343324), replays a long recording at full speed through the daemon with the log
# plugin (the Wacom DTH2242 recording looped by loop-recordings.py, vm/guest/config/regions.yaml),
# 5 runs each, and prints both medians of `perf stat -e cycles` and their ratio. In a VM without a
# PMU cycles are "not supported": then task-clock (ms of CPU) is measured instead, and said.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
# The last commit with the file (the one that removed it is the newest touching it).
REV=${1:-$(git rev-list -1 HEAD -- scripts/live-path.order)}
[ -n "${1:-}" ] || [ -f scripts/live-path.order ] || REV=$(git rev-parse "$REV^")
SCRATCH=${SCRATCH:-.build-order}
RUNS=${RUNS:-5}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
command -v perf >/dev/null || { echo "order file: skipped (no perf)"; exit 0; }
git show "$REV:scripts/live-path.order" >"$OUT/live-path.order"
FLAGS="-c release --static-swift-stdlib --product evroute -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xswiftc -use-ld=lld"
swift build --scratch-path "$SCRATCH" $FLAGS >/dev/null
cp "$SCRATCH/release/evroute" "$OUT/plain"
swift build --scratch-path "$SCRATCH" $FLAGS -Xlinker --symbol-ordering-file="$OUT/live-path.order" -Xlinker --no-warn-symbol-ordering >/dev/null
cp "$SCRATCH/release/evroute" "$OUT/ordered"
cmp -s "$OUT/plain" "$OUT/ordered" && { echo "order file: both links are the same binary" >&2; exit 1; }
mkdir "$OUT/rec"
cp "Tests/Fixtures/recordings/touchscreens/Wacom DTH2242 Finger.events" "$OUT/rec/"
python3 scripts/loop-recordings.py --recordings "$OUT/rec" --out "$OUT/long" --seconds "${SECONDS_OF_INPUT:-3000}" >/dev/null
LONG=$(ls "$OUT"/long/*.events)
EVENTS=$(grep -c '^E: ' "$LONG")
EVENT=cycles
perf stat -x, -e cycles true 2>&1 | grep -q '<not supported>' && EVENT=task-clock
run() {   # run BIN: the counter of one full-speed replay
	perf stat -x, -e $EVENT "$1" --config vm/guest/config/regions.yaml --control-socket none \
		--replay "$LONG" --exit-after-replay 2>&1 >/dev/null | grep ",$EVENT" | tail -n 1 | cut -d, -f1
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
: >"$OUT/a"; : >"$OUT/b"
i=0
while [ $i -lt "$RUNS" ]; do   # interleaved, so drift on a shared machine hits both alike
	run "$OUT/plain" >>"$OUT/a"
	run "$OUT/ordered" >>"$OUT/b"
	i=$((i + 1))
done
a=$(median <"$OUT/a"); b=$(median <"$OUT/b")
unit=cycles; [ $EVENT = task-clock ] && unit="ms task-clock (perf: cycles not supported on this host)"
echo "order file ($REV, $(wc -l <"$OUT/live-path.order") symbols), full-speed replay of $EVENTS events, median of $RUNS, $unit:"
echo "  without: $a"
echo "  with:    $b"
awk -v a="$a" -v b="$b" 'BEGIN { printf "  ratio with/without: %.3f (%+.1f %%)\n", b / a, (b / a - 1) * 100 }'
