#!/bin/sh
# 62-libinput-touch-differential — `libinput debug-events`
# and evroute (live, --dry-run, config/regions.yaml) read the same node
# during the same replay and see the same number of touch downs and ups
# (libinput TOUCH_DOWN / TOUCH_UP vs evroute began / ended+cancelled), for
# the recordings of 61: protocol B (Atmel, Wacom ISDv4 E6), protocol A
# (N-Trig; libinput goes through mtdev, evroute through its own tracker) and
# single-touch (the Atmel one-finger recordings with ABS_MT_* stripped,
# vm/derive-single-touch.sh); and the Atmel 4-finger drag.
# SKIP when the image has no evroute.
#
# rec: touchscreens/Atmel maXTouch Touchscreen.desc
# rec: touchscreens/Atmel maXTouch Touchscreen.4-finger-drag-down.events
# rec: touchscreens/Wacom ISDv4 E6 Finger.desc
# rec: touchscreens/Atmel maXTouch Touchscreen.2-fingers-touch-release.events
# rec: touchscreens/Wacom ISDv4 E6 Finger.double-center-scroll.events
# rec: touchscreens/N-Trig MultiTouch.desc
# rec: touchscreens/N-Trig MultiTouch.2-fingers-touch-release.events
# rec: touchscreens/N-Trig MultiTouch.1-finger-drag-NW-SE.events
# rec-single-touch: touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events
# rec-single-touch: touchscreens/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events
# timeout: 180
# weight: 33
. /vm/lib.sh

need evroute libinput
CFG=/vm/config/regions.yaml
ST=$REC/single-touch

n=0 summary=""
# one recording: KIND DESC EVENTS
count_both() {
	kind=$1 desc=$2 ev=$3
	n=$((n + 1))
	create_device "$desc"
	start_reader ev$n "$DEVNODE" evroute --config "$CFG" --dry-run --format json
	wait_lines ev$n.out '"device-added"' 1 10
	start_reader li$n "$DEVNODE" libinput debug-events --device "$DEVNODE"
	replay "$DEVNODE" "$ev"
	# the recording's last frame lifts every finger: wait for the last up
	wait_until 10 _has_lines li$n.out TOUCH_UP 1
	sleep 1
	stop_reader li$n
	stop_reader ev$n
	remove_device
	downs=$(json_count ev$n.out type touch phase began)
	ups=$(( $(json_count ev$n.out type touch phase ended) + $(json_count ev$n.out type touch phase cancelled) ))
	ldowns=$(count_lines li$n.out TOUCH_DOWN)
	lups=$(count_lines li$n.out TOUCH_UP)
	what="$kind $(basename "$ev" .events | sed 's/.*\.//')"
	check "$what: evroute began > 0" "$downs" -gt 0
	check "$what: evroute began = libinput TOUCH_DOWN" "$downs" -eq "$ldowns"
	check "$what: evroute ended+cancelled = libinput TOUCH_UP" "$ups" -eq "$lups"
	summary="$summary${summary:+, }$kind $downs/$ups"
}

# the recordings of 61-evroute-protocols-differential, and a 4-finger one
count_both B "$TS/Atmel maXTouch Touchscreen.desc" "$TS/Atmel maXTouch Touchscreen.2-fingers-touch-release.events"
count_both B "$TS/Atmel maXTouch Touchscreen.desc" "$TS/Atmel maXTouch Touchscreen.4-finger-drag-down.events"
count_both B-wacom "$TS/Wacom ISDv4 E6 Finger.desc" "$TS/Wacom ISDv4 E6 Finger.double-center-scroll.events"
count_both A "$TS/N-Trig MultiTouch.desc" "$TS/N-Trig MultiTouch.2-fingers-touch-release.events"
count_both A "$TS/N-Trig MultiTouch.desc" "$TS/N-Trig MultiTouch.1-finger-drag-NW-SE.events"
count_both ST "$ST/Atmel maXTouch Touchscreen.1-finger-fast-taps.events" "$ST/Atmel maXTouch Touchscreen.1-finger-fast-taps.events"
count_both ST "$ST/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events" "$ST/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events"
finish "downs/ups equal to libinput's: $summary"
