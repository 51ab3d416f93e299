#!/bin/sh
# 40-evroute-grab — a device rule with `grab: true` takes the touchscreen
# exclusively (EVIOCGRAB):
#   1. evtest opens the node first, then evroute (config/grab.yaml) grabs it
#   2. a replayed recording reaches evroute (every contact begins and ends)
#      and nothing reaches evtest
#   3. when evroute exits the grab is gone: a synthetic contact reaches evtest
# Runs evroute with --dry-run, which today grabs like the daemon; if dry-run
# is ever made not to grab, run this one without --dry-run.
# weight: 7
# SKIP when the image has no evroute or its help does not mention --dry-run.
#
# rec: touchscreens/Atmel maXTouch Touchscreen.desc
# rec: touchscreens/Atmel maXTouch Touchscreen.1-finger-fast-taps.events
. /vm/lib.sh

need evroute
evroute_has_option --dry-run || skip "evroute --help does not mention --dry-run"

EVENTS="$TS/Atmel maXTouch Touchscreen.1-finger-fast-taps.events"
downs=$(rec_touch_downs "$EVENTS")

create_device "$TS/Atmel maXTouch Touchscreen.desc"
start_reader evtest "$DEVNODE" evtest "$DEVNODE"
start_reader evroute "$DEVNODE" evroute --config /vm/config/grab.yaml --dry-run --format json
# it grabs right after opening; device-added comes once the device is set up
wait_lines evroute.out '"device-added"' 1 10

replay "$DEVNODE" "$EVENTS"
wait_lines evroute.out '"phase" *: *"ended"' "$downs" 10
check "evroute touch began (grabbed)" "$(json_count evroute.out type touch phase began)" -eq "$downs"
check "evroute touch ended (grabbed)" "$(json_count evroute.out type touch phase ended)" -eq "$downs"
check "evtest frames while grabbed" "$(count_lines evtest.out SYN_REPORT)" -eq 0

stop_reader evroute
mt_down "$DEVNODE" 0 77 400 240
mt_up "$DEVNODE" 0
wait_lines evtest.out SYN_REPORT 2 5
stop_reader evtest
check "evtest frames after evroute exited" "$(count_lines evtest.out SYN_REPORT)" -eq 2

if [ -n "$_failures" ]; then
	note "evroute output:"; head -n 20 evroute.out | sed 's/^/    /'
	note "evtest output (tail):"; tail -n 20 evtest.out | sed 's/^/    /'
fi
finish "grabbed: $downs contacts to evroute, none to evtest; released on exit"
