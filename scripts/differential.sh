#!/usr/bin/env bash
# Differential check: what evroute prints for every real recording, against a reference build.
#
#   scripts/differential.sh [BASE_REV] [RECORDINGS_DIR]
#
# Builds BASE_REV (default 3d81586, the code before the pipeline work) in a scratch clone under
# .build-differential/ and the working tree's evroute (debug), then for every recording
# (*.events under RECORDINGS_DIR, default Tests/Fixtures/recordings)
# and every layout (BASE_REV's config/demo.yaml and config/kiosk.yaml, and kiosk.yaml with its touch rule
# widened to every touchscreen — kiosk.yaml's own rule takes only its ILITEK panel, so without
# the widened copy no shared touch recording would reach its routing) compares, byte for byte:
#   - the dry-run's text trace   (evroute --dry-run --replay R)
#   - the dry-run's JSON trace   (evroute --dry-run --replay R --format json)
#   - the daemon's log lines     (evroute --replay R --exit-after-replay, stderr; the layouts'
#                                 socket paths moved to a directory of this run's own, the same
#                                 for both builds)
# A keyboard recording with a .desc beside it gets `--desc`. Prints one line per difference (and
# the first lines of a unified diff) and a final `differential: N passed, M failed`; exits 1 on
# any difference. Output of both builds is kept under .build-differential/out/ for inspection.
# DIFF_IGNORE=REGEX drops the lines matching it (grep -E) from both sides before comparing: a
# difference meant by a later change, e.g. DIFF_IGNORE=': warning: ' for the check warnings the
# daemon logs at start since 3d81586 (kiosk.yaml's KEY_ESC handler that no key reaches).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
base=${1:-3d81586}
recordings=${2:-}
if [ -z "$recordings" ]; then
    recordings=Tests/Fixtures/recordings
fi
[ -d "$recordings" ] || { echo "differential: no recordings at $recordings" >&2; exit 2; }
recordings=$(cd "$recordings" && pwd)
work=$root/.build-differential
mkdir -p "$work"

# The reference build: a clone at BASE_REV with its own scratch folder (kept between runs).
# DIFF_REF_ROOT=DIR takes an existing clone at BASE_REV with its debug build instead (several
# checkouts of the same repository sharing one reference; it must already be built).
if [ -n "${DIFF_REF_ROOT:-}" ]; then
    refroot=$DIFF_REF_ROOT
    [ "$(git -C "$refroot" rev-parse HEAD)" = "$(git -C "$root" rev-parse "$base^{commit}")" ] \
        || { echo "differential: $refroot is not at $base" >&2; exit 2; }
    [ -x "$refroot/.build/debug/evroute" ] || { echo "differential: $refroot has no debug build" >&2; exit 2; }
    echo "== the reference: $refroot; building the working tree"
else
    refroot=$work/base
    if [ ! -d "$refroot/.git" ]; then git clone -q "$root" "$refroot"; fi
    git -C "$refroot" fetch -q "$root" "$base" 2>/dev/null || git -C "$refroot" fetch -q "$root"
    git -C "$refroot" checkout -q --detach "$(git -C "$root" rev-parse "$base")"
    echo "== building $base (reference) and the working tree"
    (cd "$refroot" && swift build --scratch-path .build --product evroute 2>&1 | tail -n 1)
fi
swift build --scratch-path .build --product evroute 2>&1 | tail -n 1
ref=$refroot/.build/debug/evroute
new=$root/.build/debug/evroute

# The layouts as BASE_REV has them (a later fix to a shipped layout is not a difference of the code).
# The layouts' sockets (/run/evroute/…) go to a directory of this run's own, the same for both
# builds: two runs at once (two checkouts) must not meet at one path — a daemon that finds a
# path taken probes it by connecting, and for the other daemon that probe is a client that takes
# touches its log would otherwise show.
sockets=$(mktemp -d /tmp/evroute-differential.XXXXXX)
trap 'rm -rf "$sockets"' EXIT
mkdir -p "$work/configs"
private() { sed -e "s|/run/evroute/|$sockets/|g" "$@"; }
private "$refroot/config/demo.yaml" > "$work/configs/demo.yaml"
private "$refroot/config/kiosk.yaml" > "$work/configs/kiosk.yaml"
private -e 's/^\(      name: "ILITEK\*"\)/#\1/' -e 's/^\(      vendor: "0x222a"\)/#\1/' "$refroot/config/kiosk.yaml" > "$work/configs/kiosk-any-touchscreen.yaml"
configs=("$work/configs/demo.yaml" "$work/configs/kiosk.yaml" "$work/configs/kiosk-any-touchscreen.yaml")

rm -rf "$work/out"; mkdir -p "$work/out/ref" "$work/out/new"
passed=0; failed=0
run() {   # run BIN OUT MODE CONFIG RECORDING [ARGS…]
    local bin=$1 out=$2 mode=$3 config=$4 rec=$5; shift 5
    case $mode in
        text) "$bin" --config "$config" --dry-run --replay "$rec" --verbose "$@" >"$out" 2>&1 || echo "exit $?" >>"$out" ;;
        json) "$bin" --config "$config" --dry-run --replay "$rec" --format json "$@" >"$out" 2>&1 || echo "exit $?" >>"$out" ;;
        log)  (cd "$work" && "$bin" --config "$config" --replay "$rec" --exit-after-replay --control-socket none "$@") >/dev/null 2>"$out" || echo "exit $?" >>"$out" ;;
    esac
}
while IFS= read -r -d '' rec; do
    extra=()
    desc="${rec%.events}.desc"
    [ -e "$desc" ] || desc="${rec%%.*}.desc"
    case $rec in *keyboards/*) [ -e "$desc" ] && ! grep -q '^N:' "$rec" && extra=(--desc "$desc") ;; esac
    for config in "${configs[@]}"; do
        for mode in text json log; do
            name="$(basename "$config" .yaml)--$(basename "$rec" .events)--$mode"
            name=${name// /_}
            run "$ref" "$work/out/ref/$name" "$mode" "$config" "$rec" "${extra[@]}"
            run "$new" "$work/out/new/$name" "$mode" "$config" "$rec" "${extra[@]}"
            if [ -n "${DIFF_IGNORE:-}" ]; then
                for side in ref new; do
                    grep -Ev -- "$DIFF_IGNORE" "$work/out/$side/$name" >"$work/out/$side/$name.kept" || true
                    mv "$work/out/$side/$name.kept" "$work/out/$side/$name"
                done
            fi
            if cmp -s "$work/out/ref/$name" "$work/out/new/$name"; then
                passed=$((passed + 1))
            else
                failed=$((failed + 1))
                echo "DIFFERS: $name"
                diff -u "$work/out/ref/$name" "$work/out/new/$name" | head -n 12 || true
            fi
        done
    done
done < <(find "$recordings" -name '*.events' -print0 | sort -z)
echo "differential: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
