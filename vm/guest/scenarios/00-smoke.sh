#!/bin/sh
# 00-smoke — the harness itself works against the real kernel, no evroute needed:
#   1. evemu-device creates a uinput touchscreen from a real device description
#   2. udev's input_id tags it ID_INPUT_TOUCHSCREEN=1 (what evroute matches on)
#   3. evemu-play replays a real protocol-B recording into it
#   4. libinput sees one TOUCH_DOWN and one TOUCH_UP per contact in the recording
#   5. evtest and evemu-record, reading the same node, see the events too
#   6. the synthetic-contact helpers (mt_down / mt_up, via evemu-event) make
#      one more contact that libinput sees
#
# weight: 6
# rec: touchscreens/Atmel maXTouch Touchscreen.desc
# rec: touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events
. /vm/lib.sh

DESC="$TS/Atmel maXTouch Touchscreen.desc"
EVENTS="$TS/Atmel maXTouch Touchscreen.1-finger-fast-taps.events"

create_device "$DESC"
check "udev ID_INPUT_TOUCHSCREEN" "$(udev_prop "$DEVNODE" ID_INPUT_TOUCHSCREEN)" = 1
check "device name" "$(cat /sys/class/input/$(basename "$DEVNODE")/device/name)" = "$DEVNAME"

# What the recording says should happen: contacts begin when a slot gets a
# tracking id and end when it gets -1.
downs=$(rec_touch_downs "$EVENTS")
ups=$(rec_touch_ups "$EVENTS")
syns=$(rec_count "$EVENTS" 0000 0000 "1")
note "recording: $downs contacts begin, $ups end, $syns SYN_REPORT frames"
check "recording has contacts" "$downs" -gt 0

# Three peers read the device at once; each is ready when it has the node open.
start_reader libinput "$DEVNODE" libinput debug-events --device "$DEVNODE"
start_reader evtest "$DEVNODE" evtest "$DEVNODE"
start_reader evemu-record "$DEVNODE" evemu-record "$DEVNODE"

replay "$DEVNODE" "$EVENTS"
wait_lines libinput.out 'TOUCH_UP' "$ups" 10

# one synthetic contact, as the evroute scenarios make them
mt_down "$DEVNODE" 0 4242 400 240
mt_up "$DEVNODE" 0
downs=$((downs + 1)) ups=$((ups + 1)) syns=$((syns + 2))
wait_lines libinput.out 'TOUCH_UP' "$ups" 10
stop_reader libinput
stop_reader evtest
stop_reader evemu-record

check "libinput TOUCH_DOWN" "$(count_lines libinput.out 'TOUCH_DOWN')" -eq "$downs"
check "libinput TOUCH_UP" "$(count_lines libinput.out 'TOUCH_UP')" -eq "$ups"
# evtest prints one "Event: ..." line per event, SYN_REPORT frames included;
# the kernel drops repeated values, so compare frames, not raw events
check "evtest SYN_REPORT frames" "$(count_lines evtest.out 'SYN_REPORT')" -eq "$syns"
check "evtest tracking ids" "$(count_lines evtest.out 'ABS_MT_TRACKING_ID\), value [0-9]')" -eq "$downs"
check "evemu-record frames" "$(grep -c '^E: .* 0000 0000 0000' evemu-record.out)" -eq "$syns"

if [ -n "$_failures" ]; then
	note "libinput output:"; sed 's/^/    /' libinput.out | head -n 40
fi
finish "$downs contacts ($((downs - 1)) replayed, 1 synthetic) seen by libinput, evtest, evemu-record on $DEVNODE"
