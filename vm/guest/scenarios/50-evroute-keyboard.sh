#!/bin/sh
# 50-evroute-keyboard — keys from a real keyboard node, in dry-run:
#   1. evemu-device makes a USB keyboard; udev tags it ID_INPUT_KEYBOARD=1
#   2. Enter pressed twice (evemu-event): evroute reports KEY_ENTER down and
#      up twice, handled by the screen's exec handler (config/kbd-exec.yaml;
#      dry run: printed, not run)
#   3. KEY_A held down and the keyboard unplugged: KEY_A ends exactly once.
#      Real-kernel fact: on unregister the input core itself sends key-up
#      for every key still down (input_dev_release_keys), so evroute sees
#      "up" here, not "cancelled"; either counts, but not both, not neither.
# SKIP when the image has no evroute or its help does not mention --dry-run.
#
# rec: keyboards/Razer Razer BlackWidow 2013.keyboard.desc
. /vm/lib.sh

need evroute
evroute_has_option --dry-run || skip "evroute --help does not mention --dry-run"

create_device "$KB/Razer Razer BlackWidow 2013.keyboard.desc"
check "udev ID_INPUT_KEYBOARD" "$(udev_prop "$DEVNODE" ID_INPUT_KEYBOARD)" = 1
start_reader evroute "$DEVNODE" evroute --config /vm/config/kbd-exec.yaml --dry-run --format json
wait_lines evroute.out '"device-added"' 1 10

for i in 1 2; do
	emit "$DEVNODE" EV_KEY KEY_ENTER 1 sync
	emit "$DEVNODE" EV_KEY KEY_ENTER 0 sync
done
emit "$DEVNODE" EV_KEY KEY_A 1 sync
wait_lines evroute.out '"key" *: *"KEY_A"' 1 5
remove_device
wait_lines evroute.out '"device-removed"' 1 5
stop_reader evroute

note "evroute output:"; grep -E '"type" *: *"(key|device-[a-z]+)"' evroute.out | sed 's/^/    /'
check "KEY_ENTER down" "$(json_count evroute.out type key key KEY_ENTER phase down)" -eq 2
check "KEY_ENTER up" "$(json_count evroute.out type key key KEY_ENTER phase up)" -eq 2
check "KEY_ENTER down handled by shell" "$(json_count evroute.out type key key KEY_ENTER phase down handler shell)" -eq 2
check "KEY_A down" "$(json_count evroute.out type key key KEY_A phase down)" -eq 1
a_end=$(($(json_count evroute.out type key key KEY_A phase up) + $(json_count evroute.out type key key KEY_A phase cancelled)))
check "KEY_A ended once on unplug (up or cancelled)" "$a_end" -eq 1
finish "Enter x2 to the exec handler, held key ended once on unplug"
