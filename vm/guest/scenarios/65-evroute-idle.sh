#!/bin/sh
# 65-evroute-idle — idle and the wake touch on a real kernel, live, with
# forwarding on (config/idle.yaml: idle after 5 s): the display goes idle
# on the daemon's own timer (no input comes to wake it), and the touch that
# wakes it is swallowed whole — libinput on the virtual device never sees it —
# while the next touches are forwarded.
# 1. nothing after the device came: `display main idle` in the log, on the timer
# 2. the wake touch (down, a move, up): `display main active`; libinput sees
#    nothing of it (0 TOUCH_DOWN, 0 TOUCH_MOTION)
# 3. a tap: forwarded (1 TOUCH_DOWN, 1 TOUCH_UP)
# 4. nothing again: a second idle (the countdown started again at the tap);
#    the next wake touch is swallowed too (still 1 TOUCH_DOWN)
# SKIP when the image has no evroute or libinput.
# timeout: 120
# weight: 14
#
# rec: touchscreens/Atmel maXTouch Touchscreen.desc
. /vm/lib.sh

need evroute libinput
DESC="$TS/Atmel maXTouch Touchscreen.desc"

lines() { count_lines "$1" "$2"; }

create_device "$DESC"
start_daemon "$DEVNODE" /vm/config/idle.yaml
wait_until 10 test -n "\$(virtual_node \"$DEVNAME (evroute)\")"
vnode=$(virtual_node "$DEVNAME (evroute)")
[ -n "$vnode" ] || { stop_daemon; remove_device; fail "no virtual device: $(tail -n 3 daemon.log)"; }
udevadm settle --timeout=10
start_reader idle "$vnode" libinput debug-events --device "$vnode"

# 1. idle on the timer: 5 s after the device came, with no input at all
wait_until 15 _has_lines daemon.log 'display main idle' 1
check "idle after 5 s without input, on the daemon's timer (log)" "$(lines daemon.log 'display main idle')" -eq 1
check "no active yet" "$(lines daemon.log 'display main active')" -eq 0

# 2. the wake touch: active, and swallowed whole
wake() {
	mt_down "$DEVNODE" 0 "$1" 300 300
	emit "$DEVNODE" EV_ABS ABS_MT_POSITION_X 340
	emit "$DEVNODE" EV_ABS ABS_X 340 sync
	mt_up "$DEVNODE" 0
}
wake 100
wait_until 5 _has_lines daemon.log 'display main active' 1
check "the wake touch sends active (log)" "$(lines daemon.log 'display main active')" -eq 1

# 3. the next tap is forwarded
mt_down "$DEVNODE" 0 101 400 300
mt_up "$DEVNODE" 0
wait_until 5 _has_lines idle.out TOUCH_UP 1
check "the wake touch is not forwarded, the tap after it is (1 TOUCH_DOWN)" "$(lines idle.out TOUCH_DOWN)" -eq 1
check "nor the wake touch's move (0 TOUCH_MOTION)" "$(lines idle.out TOUCH_MOTION)" -eq 0
check "the tap ends (1 TOUCH_UP)" "$(lines idle.out TOUCH_UP)" -eq 1

# 4. idle again, counted from the tap; the next wake touch is swallowed too
wait_until 15 _has_lines daemon.log 'display main idle' 2
check "idle again after the tap, on the timer (2 idle)" "$(lines daemon.log 'display main idle')" -eq 2
wake 102
wait_until 5 _has_lines daemon.log 'display main active' 2
sleep 1
check "the second wake touch sends active (2 active)" "$(lines daemon.log 'display main active')" -eq 2
check "and is not forwarded (still 1 TOUCH_DOWN)" "$(lines idle.out TOUCH_DOWN)" -eq 1
stop_reader idle
stop_daemon
remove_device
[ -z "$_failures" ] || { note "daemon log:"; tail -n 20 daemon.log | sed 's/^/    /'; }
finish "idle on the daemon's timer, the wake touch swallowed, the taps around it forwarded"
