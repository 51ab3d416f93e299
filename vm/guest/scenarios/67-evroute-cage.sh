#!/bin/sh
# 67-evroute-cage — a real Wayland compositor (Debian 12's cage 0.1.4, wlroots 0.15,
# headless output 1280x720, libinput input through seatd) running wev as its client,
# first alone on a uinput touchscreen and keyboard, then with evroute in front (grab +
# forward) on the shipped, installed examples/browser-kiosk.yaml. What wev got is
# printed for every case, both ways. Through evroute:
#   - taps land where cage alone puts them (the same surface x/y), downs and ups in order;
#   - the admin corner's long press never reaches the client (no wl_touch.down);
#   - the 3-finger reload swipe reaches the client as F5 down/up on wl_keyboard;
#   - every wl_touch.down has its up (or a cancel) after the swipe, after an unplug of the
#     panel under a finger, and after evroute stops with a finger down;
#   - taps of 40 ms, 80 ms and 0.8 s reach the client (down + up each) with the swipe's
#     delays-touches-began on (the example's, or added to a copy of it when it has none);
#   - a, b and Ctrl+C typed on a grabbed keyboard reach the client; the example's kept
#     chord (ctrl+KEY_W) never does;
#   - a compositor restarted after the swipe's cancel gets the next tap.
# A case that leaves a touch stuck in the client is followed by a new cage + wev (said in the
# log), so that the next case stands alone.
# The session as docs/deployment.md describes it: seatd (-g video), cage as the ordinary
# user kiosk with its own XDG_RUNTIME_DIR, evroute before the compositor, and the
# fail-closed udev rule (LIBINPUT_IGNORE_DEVICE on the physical devices) while evroute
# is in front. SKIP without cage, wev, seatd or evroute in the image.
# timeout: 300
# weight: 44
# rec: touchscreens/Atmel maXTouch Touchscreen.desc
# rec: keyboards/Razer Razer BlackWidow 2013.keyboard.desc
. /vm/lib.sh
. /vm/wayland.sh

need cage wev seatd evroute
T0=$(cut -d' ' -f1 /proc/uptime)
EXAMPLE=/vm/install/usr/share/doc/evroute/examples/browser-kiosk.yaml
[ -f "$EXAMPLE" ] || skip "no installed example at $EXAMPLE (no staged install in the image)"
PANEL="$TS/Atmel maXTouch Touchscreen.desc"      # 800x480 device units, protocol B, MT_TOOL_TYPE
KEYBOARD="$KB/Razer Razer BlackWidow 2013.keyboard.desc"
VPANEL="Atmel maXTouch Touchscreen (evroute)"

# ---------------------------------------------------------------- the session

# the seat: seatd as root (no VT in the VM), its socket for group video (kiosk is a member)
SEATD_VTBOUND=0 seatd -g video >seatd.log 2>&1 &
SEATD_PID=$!
_bg_pids="$_bg_pids $SEATD_PID"
wait_until 10 test -S /run/seatd.sock || fail "seatd did not start: $(cat seatd.log)"

# start_cage NAME   cage running wev as user kiosk (output in NAME.out); waits until wev's
# window is 1280x720 and the seat has touch. Sets CAGE_PID.
start_cage() {
	su kiosk -s /bin/sh -c 'cd "$HOME" && exec env XDG_RUNTIME_DIR=/run/user/1000 \
		WLR_BACKENDS=headless,libinput WLR_RENDERER=pixman WLR_HEADLESS_OUTPUTS=1 \
		LIBSEAT_BACKEND=seatd stdbuf -oL -eL cage -- wev' >"$1.out" 2>&1 &
	CAGE_PID=$!
	_bg_pids="$_bg_pids $CAGE_PID"
	wait_until 30 grep -q 'xdg_toplevel\] configure: width: 1280; height: 720' "$1.out" ||
		fail "cage/wev did not come up: $(tail -n 15 "$1.out")"
	wait_until 10 grep -q 'wl_seat\] capabilities: .*touch' "$1.out" ||
		fail "cage's seat has no touch: $(tail -n 15 "$1.out")"
	sleep 0.5
	note "cage + wev up (pid $CAGE_PID): $(grep 'wl_seat\] capabilities' "$1.out" | tail -n 1 | sed 's/.*\] //')"
}
# Cage leaves its client running when it is stopped, and wev then spins on the dead connection
# (the rest of the scenario at most of the guest's CPU): it is stopped with its compositor.
stop_cage() {
	_wev=$(pidof wev)
	kill "$CAGE_PID" $_wev 2>/dev/null
	wait_until 10 _gone "$CAGE_PID"
	wait "$CAGE_PID" 2>/dev/null
	for _p in $_wev; do wait_until 10 _gone "$_p"; done
}

# ---------------------------------------------------------------- input, as evemu files

keys() { _n=$1; shift; for _k in "$@"; do emit "$_n" EV_KEY "$_k" 1 sync; emit "$_n" EV_KEY "$_k" 0 sync; done; }
chord() { emit "$1" EV_KEY "$2" 1 sync; emit "$1" EV_KEY "$3" 1 sync; emit "$1" EV_KEY "$3" 0 sync; emit "$1" EV_KEY "$2" 0 sync; }

# Nothing of the example is changed for cage's 1280x720 output: the virtual touchscreen has the
# panel's own axes (coordinates: device, the default), so cage maps the forwarded and the
# physical panel alike onto its one output; the display size (1920x1080) only scales evroute's
# layout, which spans the whole panel either way. The admin corner, [1820, 0, 100, 100] of it,
# is the panel's x >= 758, y < 45 (of 800x480).
CORNER="790 10"                     # display 1896,22: inside the corner
tap_file tap1.ev 400 240 60 11; tap_file tap2.ev 100 100 60 12; tap_file tap3.ev 700 400 60 13
tap_file corner.ev $CORNER 3500 14
tap_file t40.ev 200 300 40 21; tap_file t80.ev 300 300 80 22; tap_file t800.ev 400 300 800 23
swipe_file swipe.ev 30

# ================================================================ 1. cage alone
create_device "$PANEL"; P1=$DEVNODE; P1PID=$DEVPID
create_device "$KEYBOARD"; K1=$DEVNODE
start_cage alone
W=alone.out
mark $W; for f in tap1 tap2 tap3; do play $P1 $f.ev; done; settle $W
report "cage alone" taps $W
touch_events $W | awk '$1 != "motion" { print $1, ($1 == "down" ? $3 : "") }' >alone-taps.trace
check "cage alone: three taps, down and up each" "$(count_touch $W down)/$(count_touch $W up)" = 3/3
mark $W; play $P1 corner.ev; settle $W
report "cage alone" "admin corner 3.5 s press" $W
alone_corner=$(touch_events $W | awk '$1 == "down" { print $3 }')
check "cage alone: the corner press reaches the client (a down at $alone_corner)" "$(count_touch $W down)" -eq 1
mark $W; play $P1 swipe.ev; settle $W
report "cage alone" "3-finger swipe down" $W
check "cage alone: the swipe's 3 fingers reach the client" "$(count_touch $W down)/$(count_touch $W up)" = 3/3
mark $W; for f in t40 t80 t800; do play $P1 $f.ev; done; settle $W
report "cage alone" "taps of 40 ms, 80 ms, 0.8 s" $W
mark $W; keys $K1 KEY_A KEY_B; chord $K1 KEY_LEFTCTRL KEY_C; settle $W
report "cage alone" "a, b, Ctrl+C" $W
mark $W; chord $K1 KEY_LEFTCTRL KEY_W; settle $W
report "cage alone" "Ctrl+W" $W
# unplugged under a finger: the kernel lifts BTN_TOUCH, no tracking id -1; libinput says nothing
mark $W; mt_down $P1 0 40 400 240; wait_until 5 sh -c "tail -n +$((MARK + 1)) $W | grep -q 'wl_touch\] down'"
remove_device $P1PID; settle $W
report "cage alone" "panel unplugged under a finger" $W
alone_unplug_left=$(touches_left_down $W)
note "cage alone: $alone_unplug_left touch(es) left down in the client after the unplug"
stop_cage

# ================================================================ 2. evroute in front
# fail closed (docs/deployment.md): libinput ignores the physical touchscreen and keyboard
# (taken away again when the scenario ends: the next scenarios' libinput must see every device)
fail_closed_off() {
	rm -f /etc/udev/rules.d/70-kiosk-fail-closed.rules
	udevadm control --reload && udevadm trigger -s input && udevadm settle --timeout=10
}
trap 'fail_closed_off; _cleanup' EXIT
cat >/etc/udev/rules.d/70-kiosk-fail-closed.rules <<'R'
ACTION!="add|change", GOTO="kiosk_fail_closed_end"
SUBSYSTEM!="input", GOTO="kiosk_fail_closed_end"
KERNEL!="event*", GOTO="kiosk_fail_closed_end"
DEVPATH=="/devices/virtual/input/*", ATTRS{name}=="* (evroute)", GOTO="kiosk_fail_closed_end"
DEVPATH=="/devices/virtual/input/*", ATTRS{name}=="evroute keyboard", GOTO="kiosk_fail_closed_end"
ENV{ID_INPUT_TOUCHSCREEN}=="1", ENV{LIBINPUT_IGNORE_DEVICE}="1"
ENV{ID_INPUT_KEYBOARD}=="1", ENV{LIBINPUT_IGNORE_DEVICE}="1"
LABEL="kiosk_fail_closed_end"
R
udevadm control --reload && udevadm trigger -s input && udevadm settle --timeout=10
cp "$EXAMPLE" kiosk.yaml
evroute check --config kiosk.yaml >check.out 2>&1
note "evroute check of the installed example: exit $?"; sed 's/^/    /' check.out
create_device "$PANEL"; P2=$DEVNODE; P2PID=$DEVPID
check "fail closed: the physical panel carries LIBINPUT_IGNORE_DEVICE=1" "$(udev_prop $P2 LIBINPUT_IGNORE_DEVICE)" = 1
create_device "$KEYBOARD"; K2=$DEVNODE
start_daemon "$P2" kiosk.yaml
wait_until 10 test -n "\$(virtual_node \"$VPANEL\")"; wait_until 10 test -n "\$(virtual_node 'evroute keyboard')"
check "evroute: the virtual touchscreen and keyboard exist" "$(virtual_node "$VPANEL" | grep -c event)$(virtual_node 'evroute keyboard' | grep -c event)" = 11
udevadm settle --timeout=10
check "fail closed: not on the virtual touchscreen" "$(udev_prop "$(virtual_node "$VPANEL")" LIBINPUT_IGNORE_DEVICE)" = ""
start_cage evroute
W=evroute.out
# fresh_client_if_stuck   after a case that left touches down in cage (wlroots keeps them
# until an up, and a new touch with a stuck id goes astray), a new cage + wev, so that the
# next case stands alone; said in the log
RESTARTS=0
fresh_client_if_stuck() {
	_left=$(touches_left_down $W)
	[ "$_left" -gt 0 ] || return 0
	RESTARTS=$((RESTARTS + 1))
	note "$_left touch(es) stuck down in the client: a new cage + wev for the next case"
	stop_cage; start_cage evroute-$RESTARTS; W=evroute-$RESTARTS.out
}
# reload_daemon WHAT   SIGHUP with kiosk.yaml changed; waits for the reload
RELOADS=0
reload_daemon() {
	RELOADS=$((RELOADS + 1))
	kill -HUP "$DAEMON_PID"
	wait_lines daemon.log 'reload' "$RELOADS" 10
	note "reloaded: $1"
}

# taps: the same surface points, downs and ups in the same order
mark $W; for f in tap1 tap2 tap3; do play $P2 $f.ev; done; settle $W
report "cage+evroute" taps $W
touch_events $W | awk '$1 != "motion" { print $1, ($1 == "down" ? $3 : "") }' >evroute-taps.trace
if cmp -s alone-taps.trace evroute-taps.trace; then same=yes; else same=no; diff alone-taps.trace evroute-taps.trace | sed 's/^/    /'; fi
check "taps: downs (surface x,y) and ups as with cage alone ($(grep -c down evroute-taps.trace) downs)" "$same" = yes

# the admin corner's long press: evroute's, never the client's
mark $W; play $P2 corner.ev; settle $W
report "cage+evroute" "admin corner 3.5 s press" $W
check "admin corner: no wl_touch.down in the client (cage alone: one at $alone_corner)" "$(count_touch $W down)" -eq 0
wait_until 5 _has_lines daemon.log 'admin-corner' 1
note "evroute's log on the corner:"; grep -E 'admin' daemon.log | sed 's/^/    /'
check "admin corner: evroute's log handler kept the touch" "$(count_lines daemon.log 'admin-corner')" -ge 1

# keys typed on the grabbed keyboard
mark $W; keys $K2 KEY_A KEY_B; chord $K2 KEY_LEFTCTRL KEY_C; settle $W
report "cage+evroute" "a, b, Ctrl+C" $W
check "keys: a, b, Ctrl+C reach the client" "$(key_events $W)" = "a+ a- b+ b- Control_L+ c+ c- Control_L-"
# the kept chord: the key of the example's first handler on a ctrl+ chord (ctrl+KEY_W or ctrl+w)
CK=$(grep -v '^ *#' kiosk.yaml | grep 'on:' | grep -io 'ctrl+\(KEY_\)\{0,1\}[A-Z0-9]*' | head -n 1 |
	sed 's/.*+//' | tr 'a-z' 'A-Z' | sed 's/^KEY_//')
note "the example's kept chord: ${CK:+ctrl+KEY_$CK}${CK:-none}"
check "chord: the example keeps a ctrl+ chord" "${CK:-none}" != none
CK=KEY_${CK:-W}
mark $W; chord $K2 KEY_LEFTCTRL "$CK"; settle $W
report "cage+evroute" "Ctrl+${CK#KEY_}" $W
ck=$(echo "${CK#KEY_}" | tr 'A-Z' 'a-z')
check "chord: ctrl+$CK never reaches the client" "$(key_events $W | tr ' ' '\n' | grep -cx "$ck[+-]")" -eq 0

# unplugged under a finger
caps_before=$(count_lines $W 'wl_seat\] capabilities')
mark $W; mt_down $P2 0 41 400 240; wait_for_down
remove_device $P2PID; settle $W
report "cage+evroute" "panel unplugged under a finger" $W
check "unplug: the touch down in the client ended (cage alone: $alone_unplug_left left down)" "$(count_touch $W down)/$(touches_left_down $W)" = 1/0
# the panel back: its virtual touchscreen comes back to cage
create_device "$PANEL"; P2=$DEVNODE
wait_until 10 test -n "\$(virtual_node \"$VPANEL\")"
wait_until 10 sh -c "[ \$(grep -c 'wl_seat\] capabilities: .*touch' $W) -gt $caps_before ]"
sleep 0.5
fresh_client_if_stuck

# taps under delays-touches-began: the example's swipe, or a copy of the example with it added
if grep -q 'type: swipe.*delays-touches-began: true' kiosk.yaml; then
	note "the example's reload swipe has delays-touches-began"
	DELAYS_VARIANT=no
else
	sed 's/\(type: swipe, touches: 3, direction: down\)/\1, delays-touches-began: true/' kiosk.yaml >kiosk-delays.yaml
	check "delays: the variant adds delays-touches-began to the swipe" "$(grep -c 'delays-touches-began: true' kiosk-delays.yaml)" -eq 1
	cp kiosk-delays.yaml kiosk.yaml
	reload_daemon "the example + delays-touches-began: true on the reload swipe"
	DELAYS_VARIANT=yes
fi
# (the frames on the virtual touchscreen recorded too: printed when the check fails)
VP=$(virtual_node "$VPANEL")
start_reader vrec "$VP" evemu-record "$VP"
mark $W; for f in t40 t80 t800; do play $P2 $f.ev; done; settle $W
stop_reader vrec
report "cage+evroute" "taps of 40 ms, 80 ms, 0.8 s (delays-touches-began)" $W
got=$(touch_events $W | awk '$1 != "motion" { printf "%s ", $1 }')
check "delays: the 40 ms, 80 ms and 0.8 s taps reach the client, down and up each" "$got" = "down up down up down up "
[ "$got" = "down up down up down up " ] || { note "the frames evroute wrote on $VP:"; grep '^E:' vrec.out | sed 's/^/    /'; }
note "delays: down-to-up in the client's times (ms): $(touch_events $W | awk '$1 == "down" { t = $4 } $1 == "up" { printf "%d ", $3 - t }')"
mark $W; play $P2 swipe.ev; settle $W
report "cage+evroute" "3-finger swipe down (delays-touches-began)" $W
check "delays: the swipe's touches never reach the client" "$(count_touch $W down)" -eq 0
check "delays: the swipe's reload-page reaches the client as F5 (pressed, released)" "$(key_events $W | tr ' ' '\n' | grep -cx 'F5[+-]')" -eq 2
fresh_client_if_stuck

# the reload swipe of the example as shipped: F5 on the keyboard, no touch left down
if [ "$DELAYS_VARIANT" = yes ]; then
	cp "$EXAMPLE" kiosk.yaml
	reload_daemon "the example as shipped"
fi
mark $W; play $P2 swipe.ev; settle $W
report "cage+evroute" "3-finger swipe down" $W
check "swipe: reload-page reached the client as F5 (pressed, released)" "$(key_events $W | tr ' ' '\n' | grep -cx 'F5[+-]')" -eq 2
check "swipe: no touch left down in the client ($(count_touch $W down) downs)" "$(touches_left_down $W)" -eq 0
# the compositor restarted after the swipe's cancel (a crash, its unit's Restart=): a new
# libinput opens the virtual touchscreen as the cancel left it, and the next tap must reach it
RESTARTS=$((RESTARTS + 1)); stop_cage; start_cage evroute-$RESTARTS; W=evroute-$RESTARTS.out
mark $W; play $P2 tap1.ev; settle $W
report "cage+evroute" "a tap on a restarted compositor, after the swipe" $W
check "restarted compositor: the next tap reaches it as with cage alone" "$(touch_events $W | awk '$1 != "motion" { printf "%s%s ", $1, ($1 == "down" ? "@" $3 : "") }')" = "$(head -n 2 alone-taps.trace | awk '{ printf "%s%s ", $1, ($1 == "down" ? "@" $2 : "") }')"

# evroute stops with a finger down
mark $W; mt_down $P2 0 42 400 240; wait_for_down
stop_daemon
settle $W
report "cage+evroute" "evroute stopped with a finger down" $W
check "stop: the touch down in the client ended" "$(count_touch $W down)/$(touches_left_down $W)" = 1/0
check "stop: evroute exited 0" "$DAEMON_STATUS" = 0
mt_up $P2 0
stop_cage

[ -z "$_failures" ] || { note "evroute's log (last 40 lines):"; tail -n 40 daemon.log | sed 's/^/    /'; }
note "what the client (wev) got, per compositor and case:"
sed 's/^/    /' cases.txt
finish "cage 0.1.4 + wev, scenario $(since "$T0")s"
