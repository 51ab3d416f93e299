#!/bin/sh
# 68-evroute-weston — the same compositor-and-client check as 67-evroute-cage, with Debian
# 12's weston 10 (its DRM backend on qemu's bochs display, "-vga std" below; the pixman
# renderer; the kiosk shell) and wev: first weston alone on a uinput touchscreen, then evroute
# in front (grab + forward) on the installed examples/browser-kiosk.yaml. Like cage 0.1.4,
# weston 10 drops a libinput TOUCH_CANCEL (its libinput code sends no wl_touch.cancel; the
# DRM backend does not even import notify_touch_cancel). Through evroute
#   - a tap lands where it lands with weston alone;
#   - the admin corner's long press never reaches the client;
#   - after the 3-finger swipe, an unplug of the panel under a finger and evroute stopping
#     with a finger down, every wl_touch.down has its up or a cancel.
# Debian 12's weston is built without libseat, and has no weston-launch: it takes its seat
# from logind or, as root, opens the devices itself on a VT (its "direct launcher", tty1 of
# the bochs framebuffer here). The VM has no logind, so weston runs as root here.
# SKIP without weston, wev or evroute, or without a DRM device (qemu without a display).
# qemu: -vga std
# timeout: 150
# weight: 24
# rec: touchscreens/Atmel maXTouch Touchscreen.desc
. /vm/lib.sh
. /vm/wayland.sh
need weston wev evroute
T0=$(cut -d' ' -f1 /proc/uptime)
EXAMPLE=/vm/install/usr/share/doc/evroute/examples/browser-kiosk.yaml
PANEL="$TS/Atmel maXTouch Touchscreen.desc"
VPANEL="Atmel maXTouch Touchscreen (evroute)"
KVER=$(uname -r)
for m in drm drm_kms_helper ttm/ttm drm_ttm_helper drm_vram_helper tiny/bochs; do
	insmod /lib/modules/$KVER/kernel/drivers/gpu/drm/$m.ko 2>&1 || note "insmod $m failed"
done
udevadm settle --timeout=10
wait_until 5 test -c /dev/dri/card0 || skip "no DRM device (/dev/dri/card0): qemu without a display (-vga std)"
[ -f "$EXAMPLE" ] || skip "no installed example at $EXAMPLE (no staged install in the image)"
# start_weston NAME   weston (root, direct launcher on tty1) and wev as its client (NAME.out)
start_weston() {
	mkdir -p /run/user/0 && chmod 700 /run/user/0
	env XDG_RUNTIME_DIR=/run/user/0 stdbuf -oL -eL weston --backend=drm-backend.so --shell=kiosk-shell.so --use-pixman --socket=wayland-1 --idle-time=0 --tty=1 >"$1.weston.log" 2>&1 &
	WESTON_PID=$!
	# (its log names the launcher, the DRM device, the output and every input device)
	_bg_pids="$_bg_pids $WESTON_PID"
	wait_until 30 test -S /run/user/0/wayland-1 || { cat "$1.weston.log"; fail "weston did not come up"; }
	env XDG_RUNTIME_DIR=/run/user/0 WAYLAND_DISPLAY=wayland-1 stdbuf -oL wev >"$1.out" 2>&1 &
	WEV_PID=$!
	_bg_pids="$_bg_pids $WEV_PID"
	wait_until 20 grep -q 'xdg_toplevel\] configure: width: [1-9]' "$1.out" || { cat "$1.weston.log"; cat "$1.out"; fail "wev did not get a window"; }
	sleep 1
	note "weston + wev up: $(grep 'xdg_toplevel\] configure: width: [1-9]' "$1.out" | tail -n1 | sed 's/.*\] //')"
}
stop_weston() { kill $WEV_PID $WESTON_PID 2>/dev/null; wait_until 10 _gone $WESTON_PID; wait $WESTON_PID $WEV_PID 2>/dev/null; }
# ---------------------------------------------------------------- input, as evemu files

tap_file tap1.ev 400 240 60 11
tap_file corner.ev 790 10 3500 14
swipe_file swipe.ev 30

# ================================================================ 1. weston alone
create_device "$PANEL"; P1=$DEVNODE; P1PID=$DEVPID
start_weston alone
W=alone.out
note "weston: $(grep -E 'launcher|using /dev/dri' alone.weston.log | tr '\n' ' ' | sed 's/\[[0-9:.]*\] //g')"
mark $W; play $P1 tap1.ev; settle $W
report "weston alone" tap $W
alone_tap=$(touch_events $W | awk '$1 != "motion" { printf "%s%s ", $1, ($1 == "down" ? "@" $3 : "") }')
check "weston alone: a tap, down and up" "$(count_touch $W down)/$(count_touch $W up)" = 1/1
mark $W; play $P1 corner.ev; settle $W
report "weston alone" "admin corner 3.5 s press" $W
mark $W; play $P1 swipe.ev; settle $W
report "weston alone" "3-finger swipe down" $W
check "weston alone: the swipe's 3 fingers reach the client" "$(count_touch $W down)/$(count_touch $W up)" = 3/3
mark $W; mt_down $P1 0 40 400 240; wait_for_down
remove_device $P1PID; settle $W
report "weston alone" "panel unplugged under a finger" $W
alone_unplug_left=$(touches_left_down $W)
stop_weston

# ================================================================ 2. evroute in front
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
ENV{ID_INPUT_TOUCHSCREEN}=="1", ENV{LIBINPUT_IGNORE_DEVICE}="1"
LABEL="kiosk_fail_closed_end"
R
udevadm control --reload && udevadm trigger -s input && udevadm settle --timeout=10
cp "$EXAMPLE" kiosk.yaml
create_device "$PANEL"; P2=$DEVNODE; P2PID=$DEVPID
start_daemon "$P2" kiosk.yaml
wait_until 10 test -n "\$(virtual_node \"$VPANEL\")"
udevadm settle --timeout=10
start_weston evroute
W=evroute.out
mark $W; play $P2 tap1.ev; settle $W
report "weston+evroute" tap $W
check "tap: where weston alone puts it, down and up" "$(touch_events $W | awk '$1 != "motion" { printf "%s%s ", $1, ($1 == "down" ? "@" $3 : "") }')" = "$alone_tap"
mark $W; play $P2 corner.ev; settle $W
report "weston+evroute" "admin corner 3.5 s press" $W
check "admin corner: no wl_touch.down in the client" "$(count_touch $W down)" -eq 0
mark $W; play $P2 swipe.ev; settle $W
report "weston+evroute" "3-finger swipe down" $W
note "swipe: $(count_touch $W cancel) wl_touch.cancel, $(count_touch $W up) wl_touch.up in the client"
check "swipe: no touch left down in the client ($(count_touch $W down) downs)" "$(touches_left_down $W)" -eq 0
mark $W; play $P2 tap1.ev; settle $W
report "weston+evroute" "a tap after the swipe" $W
check "after the swipe: the next tap reaches the client" "$(touch_events $W | awk '$1 != "motion" { printf "%s%s ", $1, ($1 == "down" ? "@" $3 : "") }')" = "$alone_tap"
caps=$(count_lines $W 'wl_seat\] capabilities')
mark $W; mt_down $P2 0 41 400 240; wait_for_down
remove_device $P2PID; settle $W
report "weston+evroute" "panel unplugged under a finger" $W
check "unplug: the touch down in the client ended (weston alone: $alone_unplug_left left down)" "$(count_touch $W down)/$(touches_left_down $W)" = 1/0
create_device "$PANEL"; P2=$DEVNODE
wait_until 10 test -n "\$(virtual_node \"$VPANEL\")"
wait_until 10 sh -c "[ \$(grep -c 'wl_seat\] capabilities: .*touch' $W) -gt $caps ]"
sleep 0.5
mark $W; mt_down $P2 0 42 400 240; wait_for_down
stop_daemon
settle $W
report "weston+evroute" "evroute stopped with a finger down" $W
check "stop: the touch down in the client ended" "$(count_touch $W down)/$(touches_left_down $W)" = 1/0
mt_up $P2 0
stop_weston

note "what the client (wev) got, per compositor and case:"
sed 's/^/    /' cases.txt
finish "weston 10 (DRM, pixman, kiosk shell) + wev, scenario $(since "$T0")s"
