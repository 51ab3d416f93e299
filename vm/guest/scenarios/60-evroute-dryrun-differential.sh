#!/bin/sh
# 60-evroute-dryrun-differential — the same recording routed two ways must
# give the same touches:
#   file: evroute --dry-run --replay REC --format json
#   live: evemu-device from REC's description, evroute --dry-run --format json
#         reading the real node, evemu-play REC into it
# Compared: every "type":"touch" line without its "time" (kernel time differs).
# A difference is a decoder bug on one side, or the kernel's filtering of
# repeated values (see vm/README.md) showing through; the diff is printed.
# weight: 11
# SKIP when the image has no evroute or its help does not mention --replay.
#
# rec: touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events
# rec: touchscreens/Atmel maXTouch Touchscreen.4-finger-drag-down.events
# rec: touchscreens/EP0430M09.2-fingers-touch-release.events
. /vm/lib.sh

need evroute
evroute_has_option --replay || skip "evroute --help does not mention --replay"

# touch lines, time removed
normalize() { grep -E '"type" *: *"touch"' "$1" | sed -E 's/"time" *: *[0-9.e+-]+ *, *//'; }

n=0
for rec in "$TS/Atmel maXTouch Touchscreen.1-finger-fast-taps.events" \
	"$TS/Atmel maXTouch Touchscreen.4-finger-drag-down.events" \
	"$TS/EP0430M09.2-fingers-touch-release.events"; do
	n=$((n + 1))
	name=$(basename "$rec" .events)
	ups=$(rec_touch_ups "$rec")

	evroute --dry-run --replay "$rec" --format json >file.$n.json 2>file.$n.err
	check "$name: file replay exit" "$?" -eq 0

	create_device "$rec"
	start_reader live.$n "$DEVNODE" evroute --dry-run --format json
	wait_lines live.$n.out '"device-added"' 1 10
	replay "$DEVNODE" "$rec"
	wait_lines live.$n.out '"phase" *: *"(ended|cancelled)"' "$ups" 10
	stop_reader live.$n
	remove_device

	normalize file.$n.json >file.$n.touch
	normalize live.$n.out >live.$n.touch
	check "$name: touch lines (file)" "$(wc -l <file.$n.touch)" -gt 0
	ndiff=$(diff file.$n.touch live.$n.touch | grep -c '^[<>]')
	check "$name: differing touch lines, file vs live ($(wc -l <file.$n.touch) vs $(wc -l <live.$n.touch))" "$ndiff" -eq 0
	if [ "$ndiff" != 0 ]; then
		note "diff file (<) vs live (>), first 30 lines:"
		diff file.$n.touch live.$n.touch | head -n 30 | sed 's/^/    /'
	fi
done
finish "$n recordings: file replay = live kernel replay"
