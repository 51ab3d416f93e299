#!/bin/sh
# 10-evroute-devices — `evroute devices` (live devices via libudev) lists an
# evemu-created touchscreen with kind touchscreen.
# SKIP when the image has no evroute binary or it has no `devices` command.
#
# Text: a line naming the device and its kind "touchscreen"; --format json:
# the device's object with its node, name and kind.
#
# rec: touchscreens/Atmel maXTouch Touchscreen.desc
. /vm/lib.sh

command -v evroute >/dev/null || skip "no evroute binary in the image"
evroute_has_command devices || skip "evroute has no 'devices' command (evroute --help does not list it)"

create_device "$TS/Atmel maXTouch Touchscreen.desc"

evroute devices >devices.out 2>&1
rc=$?
note "evroute devices (exit $rc):"; sed 's/^/    /' devices.out
check "exit status" "$rc" -eq 0
found=$(grep -F "$DEVNAME" devices.out | grep -ci 'touchscreen')
check "'$DEVNAME' listed as touchscreen" "$found" -ge 1

# --format json: one array; the device's object names its node, name and kind in that order.
evroute devices --format json >devices.json 2>&1
rc=$?
note "evroute devices --format json (exit $rc):"; sed 's/^/    /' devices.json
check "json exit status" "$rc" -eq 0
check "json is one array" "$(head -c1 devices.json)$(tail -c2 devices.json | head -c1)" = "[]"
found=$(grep -cF "{\"node\":\"$DEVNODE\",\"name\":\"$DEVNAME\",\"kind\":\"touchscreen\"" devices.json)
check "'$DEVNAME' in the json as touchscreen at $DEVNODE" "$found" -eq 1
finish "evroute devices lists $DEVNODE as touchscreen (text and json)"
