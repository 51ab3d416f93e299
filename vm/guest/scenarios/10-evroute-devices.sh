#!/bin/sh
# 10-evroute-devices — `evroute devices` (live devices via libudev) lists an
# evemu-created touchscreen with kind touchscreen.
# SKIP when the image has no evroute binary or it has no `devices` command.
#
# The output format of `evroute devices` is not fixed by the spec; this
# accepts a line naming the device and its kind "touchscreen" (text), or a
# JSON line with "kind":"touchscreen" and the name. Tighten it when the
# format is settled.
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
finish "evroute devices lists $DEVNODE as touchscreen"
