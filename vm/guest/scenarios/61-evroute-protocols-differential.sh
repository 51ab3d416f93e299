#!/bin/sh
# 61-evroute-protocols-differential — replay = live routing for every kind of
# touchscreen: the live-kernel trace equals `evroute --dry-run --replay` of
# the same recording, touch line for touch line (touch id, phase, region,
# handled_by, handler, x/y to 0.01; time dropped), on a layout with several
# regions (config/regions.yaml), for
#   protocol B     Atmel maXTouch (2 fingers), Wacom ISDv4 E6 (2-finger scroll)
#   protocol A     N-Trig MultiTouch (no ABS_MT_SLOT: evemu-device makes a
#                  device the kernel passes SYN_MT_REPORT through; evtest on
#                  the node witnesses it)
#   single-touch   the Atmel recordings with ABS_MT_* stripped at image build
#                  time (vm/derive-single-touch.sh): ABS_X/ABS_Y + BTN_TOUCH
# SKIP when the image has no evroute or its help does not mention --replay.
#
# rec: touchscreens/Atmel maXTouch Touchscreen.2-fingers-touch-release.events
# rec: touchscreens/Wacom ISDv4 E6 Finger.desc
# rec: touchscreens/Wacom ISDv4 E6 Finger.double-center-scroll.events
# rec: touchscreens/N-Trig MultiTouch.desc
# rec: touchscreens/N-Trig MultiTouch.2-fingers-touch-release.events
# rec: touchscreens/N-Trig MultiTouch.1-finger-drag-NW-SE.events
# rec-single-touch: touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events
# rec-single-touch: touchscreens/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events
# timeout: 180
# weight: 33
. /vm/lib.sh

need evroute
evroute_has_option --replay || skip "evroute --help does not mention --replay"
CFG=/vm/config/regions.yaml
ST=$REC/single-touch

n=0 summary=""
# one recording: KIND DESC EVENTS [extra reader]
differential() {
	kind=$1 desc=$2 ev=$3; shift 3
	n=$((n + 1))
	name="$kind $(basename "$ev" .events | sed 's/.*\.//')"
	live_and_file_traces r$n "$desc" "$ev" "$CFG" "$@"
	lines=$(wc -l <r$n.file.trace)
	regions=$(sed -n 's/.* region=\([^ ]*\) .*/\1/p' r$n.file.trace | sort -u | wc -l)
	check "$name: touch lines (file)" "$lines" -gt 0
	check "$name: began (file) = began (live)" "$(grep -c 'phase="began"' r$n.file.trace)" -eq "$(grep -c 'phase="began"' r$n.live.trace)"
	ndiff=$(diff r$n.file.trace r$n.live.trace | grep -c '^[<>]')
	check "$name: differing touch lines, file vs live ($lines vs $(wc -l <r$n.live.trace), $regions regions)" "$ndiff" -eq 0
	if [ "$ndiff" != 0 ]; then
		note "diff file (<) vs live (>), first 20 lines:"
		diff r$n.file.trace r$n.live.trace | head -n 20 | sed 's/^/    /'
	fi
	summary="$summary${summary:+, }$kind:$(grep -c 'phase="began"' r$n.file.trace)t/${regions}r"
}

differential B "$TS/Atmel maXTouch Touchscreen.2-fingers-touch-release.events" \
	"$TS/Atmel maXTouch Touchscreen.2-fingers-touch-release.events"
differential B-wacom "$TS/Wacom ISDv4 E6 Finger.desc" "$TS/Wacom ISDv4 E6 Finger.double-center-scroll.events"
differential A "$TS/N-Trig MultiTouch.desc" "$TS/N-Trig MultiTouch.2-fingers-touch-release.events" \
	evtest evtest
check "protocol A: the node has no ABS_MT_SLOT (evtest)" "$(count_lines r$n.evtest.out 'ABS_MT_SLOT')" -eq 0
check "protocol A: kernel passes SYN_MT_REPORT through (evtest)" "$(count_lines r$n.evtest.out '^Event: time.*SYN_MT_REPORT')" -gt 0
differential A "$TS/N-Trig MultiTouch.desc" "$TS/N-Trig MultiTouch.1-finger-drag-NW-SE.events"
differential ST "$ST/Atmel maXTouch Touchscreen.1-finger-fast-taps.events" "$ST/Atmel maXTouch Touchscreen.1-finger-fast-taps.events"
differential ST "$ST/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events" \
	"$ST/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events" evtest evtest
check "single-touch: the node has no MT axes (evtest)" "$(count_lines r$n.evtest.out 'ABS_MT_')" -eq 0
check "single-touch: BTN_TOUCH events (evtest)" "$(count_lines r$n.evtest.out '^Event: time.*BTN_TOUCH')" -gt 0
finish "$n recordings, file = live ($summary; t=touches, r=regions)"
