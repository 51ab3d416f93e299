#!/bin/sh
# 52-evroute-text-motion — text, remote controls and motion on real evdev devices (uinput), evroute --dry-run live,
# the search field focused with `evroute ctl focus` on the dry-run's control socket:
#   1. a USB keyboard (the Razer BlackWidow's description) under a `text: line` rule is a
#      barcode scanner: a code typed as digits and Enter arrives as ONE text event at the
#      focused region, none of its keys one by one; a code without Enter goes when
#      line-timeout-ms (300) of silence has passed — the event loop's timer, nothing arrives;
#   2. a second keyboard (the Logitech K400's description) with `keymap: { layout: de }`:
#      KEY_Y types "z" (a text event after the key event);
#   3. remote-control events: a consumer-control interface (udev: ID_INPUT_KEY, no
#      ID_INPUT_KEYBOARD: kind key) sends KEY_PLAYPAUSE, an rc-core IR receiver (udev:
#      ID_INPUT_POINTINGSTICK: kind pointer) KEY_OK, both to the first responder;
#   4. an accelerometer (a DualShock 4's motion sensors, INPUT_PROP_ACCELEROMETER: udev
#      ID_INPUT_ACCELEROMETER): samples in g to the motion: handlers only, orientation
#      portrait then landscape, a shake that begins and — the sensor silent — ends by the timer.
# The three synthesized descriptions come from the repository's tests (# rec-repo:).
# weight: 11
# SKIP when the image has no evroute or its help does not mention --dry-run.
#
# rec: keyboards/Razer Razer BlackWidow 2013.keyboard.desc
# rec: keyboards/Logitech K400 Plus.events
# rec-repo: Tests/EvrouteCLITests/Fixtures/devices/consumer-control.desc
# rec-repo: Tests/EvrouteCLITests/Fixtures/devices/ir-receiver.desc
# rec-repo: Tests/EvrouteCLITests/Fixtures/devices/motion-sensors.desc
. /vm/lib.sh

need evroute
evroute_has_option --dry-run || skip "evroute --help does not mention --dry-run"
CTL=/tmp/evroute-text-ctl.sock

create_device "$KB/Razer Razer BlackWidow 2013.keyboard.desc"; SCANNER=$DEVNODE
no_key_repeat "$SCANNER"
create_device "$KB/Logitech K400 Plus.events"; KEYS=$DEVNODE
no_key_repeat "$KEYS"   # KEY_Y is pressed and released by two processes (emit)
create_device /rec/repo/consumer-control.desc; MEDIA=$DEVNODE
check "consumer control: udev ID_INPUT_KEY" "$(udev_prop "$MEDIA" ID_INPUT_KEY)" = 1
check "consumer control: no ID_INPUT_KEYBOARD" "$(udev_prop "$MEDIA" ID_INPUT_KEYBOARD)" = ""
create_device /rec/repo/ir-receiver.desc; IR=$DEVNODE
check "IR receiver: udev ID_INPUT_KEY" "$(udev_prop "$IR" ID_INPUT_KEY)" = 1
check "IR receiver: udev ID_INPUT_POINTINGSTICK" "$(udev_prop "$IR" ID_INPUT_POINTINGSTICK)" = 1
create_device /rec/repo/motion-sensors.desc; ACC=$DEVNODE
check "accelerometer: udev ID_INPUT_ACCELEROMETER" "$(udev_prop "$ACC" ID_INPUT_ACCELEROMETER)" = 1

start_reader evroute "$ACC" evroute --config /vm/config/text-motion.yaml --dry-run --format json --control-socket "$CTL"
wait_lines evroute.out '"device-added"' 5 15
check "five devices added" "$(count_lines evroute.out '"device-added"')" -eq 5
check "consumer control is kind key" "$(json_count evroute.out type device-added device media kind key)" -eq 1
check "IR receiver is kind pointer" "$(json_count evroute.out type device-added device remote kind pointer)" -eq 1
check "accelerometer is kind accelerometer" "$(json_count evroute.out type device-added device tilt kind accelerometer)" -eq 1
evroute ctl --control-socket "$CTL" focus home/root/search >ctl.out 2>&1
check "ctl focus exit" "$?" -eq 0
wait_lines evroute.out '"type" *: *"focus"' 1 5

# 1. a scan: 13 digits and Enter (KEY_ENTER 28), 8 ms a key event, as a scanner types
key_events 0.008 $(digit_codes 4006381333931) 28 >scan.events
replay "$SCANNER" scan.events
wait_lines evroute.out '"type" *: *"text"' 1 10
# a code without Enter: sent after 300 ms of silence, by the loop's timer
key_events 0.008 $(digit_codes 777) >scan777.events
replay "$SCANNER" scan777.events
wait_lines evroute.out '"text" *: *"777"' 1 5

# 2. the German keyboard
emit "$KEYS" EV_KEY KEY_Y 1 sync
emit "$KEYS" EV_KEY KEY_Y 0 sync
wait_lines evroute.out '"text" *: *"z"' 1 5

# 3. media keys
emit "$MEDIA" EV_KEY KEY_PLAYPAUSE 1 sync
emit "$MEDIA" EV_KEY KEY_PLAYPAUSE 0 sync
emit "$IR" EV_KEY KEY_OK 1 sync
emit "$IR" EV_KEY KEY_OK 0 sync
wait_lines evroute.out '"key" *: *"KEY_OK"' 2 5

# 4. the accelerometer (8192 units per g): upright, a quarter turn clockwise, a shake
{
	t=0
	frame() { printf 'E: 0.%06d 0003 0000 %d\nE: 0.%06d 0003 0001 %d\nE: 0.%06d 0003 0002 %d\nE: 0.%06d 0000 0000 0000\n' \
		"$t" "$1" "$t" "$2" "$t" "$3" "$t"; t=$((t + 40000)); }
	frame 0 8192 100; frame 0 8190 120
	frame -2120 7913 100; frame -4096 7094 100; frame -5793 5793 100; frame -7500 3300 100; frame -8192 0 100
	frame 20480 0 100; frame -20480 0 120; frame 20480 0 100; frame -20480 0 120; frame -8192 0 100
} >accel.events
replay "$ACC" accel.events
wait_lines evroute.out '"phase" *: *"ended"' 1 5
stop_reader evroute

note "evroute output:"; grep -vE '"type" *: *"motion" *, *"time" *: *[0-9.]+ *, *"device" *: *"tilt" *, *"x"' evroute.out | sed 's/^/    /'
scan=$(grep -E '"type" *: *"text"' evroute.out | grep -E '"device" *: *"scanner"' | head -n1)
check "the scan is one text event" "$(json_count evroute.out type text device scanner text 4006381333931)" -eq 1
check "at the focused region" "$(json_field "$scan" region)" = home/root/search
check "taken there" "$(json_field "$scan" handled_by)" = home/root/search
check "no key event from the scanner" "$(json_count evroute.out type key device scanner)" -eq 0
check "a code without Enter after the timeout" "$(json_count evroute.out type text device scanner text 777)" -eq 1
check "de: KEY_Y down sent as a key" "$(json_count evroute.out type key device keys key KEY_Y phase down)" -eq 1
check "de: KEY_Y types z" "$(json_count evroute.out type text device keys text z region home/root/search)" -eq 1
check "KEY_PLAYPAUSE from the consumer control at the first responder" \
	"$(json_count evroute.out type key device media key KEY_PLAYPAUSE phase down region home/root/search handled_by home/root/search)" -eq 1
check "KEY_OK from the IR receiver at the first responder" \
	"$(json_count evroute.out type key device remote key KEY_OK phase down handled_by home/root/search)" -eq 1
check "the consumer control types no text" "$(json_count evroute.out type text device media)" -eq 0
check "the IR receiver types no text" "$(json_count evroute.out type text device remote)" -eq 0
samples=$(grep -E '"type" *: *"motion"' evroute.out | grep -E '"device" *: *"tilt"' | grep -cE '"x" *:')
check "motion samples delivered" "$samples" -ge 2
check "every sample to the motion: handlers" "$(grep -E '"type" *: *"motion"' evroute.out | grep -E '"x" *:' | grep -vcE '"handled_by" *: *"motion"')" -eq 0
check "samples are in g" "$(grep -cE '"type" *: *"motion".*"y" *: *1\.0' evroute.out)" -ge 1
check "orientation portrait" "$(json_count evroute.out type orientation orientation portrait handled_by motion)" -eq 1
check "then landscape" "$(json_count evroute.out type orientation orientation landscape handled_by motion)" -eq 1
check "a shake began at the first responder" "$(json_count evroute.out motion shake phase began handled_by home/root/search)" -eq 1
check "and ended by the timer" "$(json_count evroute.out motion shake phase ended handled_by home/root/search)" -eq 1
finish "a scan is one text event at the focused field, de types z, media keys and a shake at the first responder, motion to motion:"
