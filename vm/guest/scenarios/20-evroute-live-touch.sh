#!/bin/sh
# 20-evroute-live-touch — evroute reading a real evdev node (libudev + libevdev),
# side by side with libinput on the same replay:
#   evroute --dry-run --format json (built-in default config, no --replay)
#   reports the touchscreen (device-added, kind touchscreen) and one touch
#   "began" and one "ended" per contact of the recording, none cancelled, and
#   the same number of contacts as libinput's TOUCH_DOWN / TOUCH_UP.
# weight: 5
# SKIP when the image has no evroute or its --help does not mention --dry-run.
#
# rec: touchscreens/Atmel maXTouch Touchscreen.desc
# rec: touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events
. /vm/lib.sh

need evroute
evroute_has_option --dry-run || skip "evroute --help does not mention --dry-run"

DESC="$TS/Atmel maXTouch Touchscreen.desc"
EVENTS="$TS/Atmel maXTouch Touchscreen.1-finger-fast-taps.events"
downs=$(rec_touch_downs "$EVENTS")
ups=$(rec_touch_ups "$EVENTS")

create_device "$DESC"
# ready = evroute has the node open (it found it through udev and opened it)
start_reader evroute "$DEVNODE" evroute --dry-run --format json
start_reader libinput "$DEVNODE" libinput debug-events --device "$DEVNODE"

replay "$DEVNODE" "$EVENTS"
wait_lines evroute.out '"phase" *: *"ended"' "$ups" 10
wait_lines libinput.out 'TOUCH_UP' "$ups" 10
stop_reader evroute
stop_reader libinput

note "evroute output (first 30 lines):"; head -n 30 evroute.out | sed 's/^/    /'
check "device-added touchscreen" "$(json_count evroute.out type device-added kind touchscreen)" -ge 1
check "touch began" "$(json_count evroute.out type touch phase began)" -eq "$downs"
check "touch ended" "$(json_count evroute.out type touch phase ended)" -eq "$ups"
check "touch cancelled" "$(json_count evroute.out type touch phase cancelled)" -eq 0
check "began = libinput TOUCH_DOWN" "$(json_count evroute.out type touch phase began)" -eq "$(count_lines libinput.out TOUCH_DOWN)"
finish "$downs contacts live through evdev, same as libinput"
