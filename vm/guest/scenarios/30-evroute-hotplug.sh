#!/bin/sh
# 30-evroute-hotplug — evroute follows devices with the udev monitor:
#   1. a touchscreen A exists before evroute starts (found by enumeration)
#   2. touchscreen B is plugged in while evroute runs -> device-added for B
#   3. a contact goes down on B and B is unplugged with it still down ->
#      device-removed for B, and that touch is cancelled (never stuck, never ended)
#   4. A still works afterwards: a tap on A begins and ends
# SKIP when the image has no evroute or its --help does not mention --dry-run.
#
# rec: touchscreens/Atmel maXTouch Touchscreen.desc
# rec: touchscreens/EP0430M09.desc
. /vm/lib.sh

need evroute
evroute_has_option --dry-run || skip "evroute --help does not mention --dry-run"

create_device "$TS/Atmel maXTouch Touchscreen.desc"
A=$DEVNODE A_NAME=$DEVNAME
start_reader evroute "$A" evroute --dry-run --format json
EVROUTE_PID=$READER_PID
wait_lines evroute.out '"device-added"' 1 5

create_device "$TS/EP0430M09.desc"
B=$DEVNODE B_NAME=$DEVNAME B_PID=$DEVPID
wait_until 10 _has_lines evroute.out "\"device-added\".*\"$B_NAME\"|\"$B_NAME\".*\"device-added\"" 1 ||
	note "no device-added line for $B_NAME yet"
check "device-added B ($B_NAME)" "$(json_count evroute.out type device-added name "$B_NAME")" -eq 1

# wait until evroute has B open, then one contact down on B, and unplug B
wait_until 10 has_open "$EVROUTE_PID" "$B" || note "evroute does not have $B open"
mt_down "$B" 0 100 640 384
wait_lines evroute.out '"phase" *: *"began"' 1 5
remove_device "$B_PID"
wait_lines evroute.out '"device-removed"' 1 5
wait_lines evroute.out '"phase" *: *"cancelled"' 1 5
check "device-removed B" "$(json_count evroute.out type device-removed name "$B_NAME")" -eq 1
check "touch on B began" "$(json_count evroute.out type touch phase began)" -eq 1
check "touch on B cancelled" "$(json_count evroute.out type touch phase cancelled)" -eq 1
check "touch on B not ended" "$(json_count evroute.out type touch phase ended)" -eq 0

# A still routes
mt_down "$A" 0 7 400 240
mt_up "$A" 0
wait_lines evroute.out '"phase" *: *"ended"' 1 5
stop_reader evroute
check "tap on A began" "$(json_count evroute.out type touch phase began)" -eq 2
check "tap on A ended" "$(json_count evroute.out type touch phase ended)" -eq 1

note "evroute output:"; sed 's/^/    /' evroute.out | head -n 40
finish "hotplug add/remove with a cancelled touch; $A_NAME kept working"
