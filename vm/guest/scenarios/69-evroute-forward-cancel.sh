#!/bin/sh
# 69-evroute-forward-cancel — how forwarded touches that evroute ends early end on its
# virtual touchscreen, and what the next touch in the same slot does, read by libinput
# (as a compositor would) on the virtual device:
#   1. cancel: palm (the default) — after each way evroute cancels a forwarded touch (a
#      gesture claiming it, the palm filter, a reload removing the forward plugin), the
#      cancelled touch gives TOUCH_CANCEL, and the next tap in the same slot gives exactly
#      one TOUCH_DOWN and one TOUCH_UP (a slot left a palm made libinput drop it)
#   2. cancel: lift — a claimed touch gives TOUCH_UP (no TOUCH_CANCEL), and the next tap
#      one TOUCH_DOWN and one TOUCH_UP; the source unplugged under a finger while the reader
#      is stopped: the touch still ends with TOUCH_UP once the reader runs again
#   3. a 40 ms tap under a recognizer with delays-touches-began gives one TOUCH_DOWN and one
#      TOUCH_UP (its begin and end in separate frames: libinput drops a touch that begins and
#      ends in one frame)
# SKIP when the image has no evroute or libinput.
# timeout: 240
# weight: 13
#
# rec: touchscreens/Atmel maXTouch Touchscreen.desc
. /vm/lib.sh

need evroute libinput
DESC="$TS/Atmel maXTouch Touchscreen.desc"
CFG=/tmp/forward-cancel.yaml

# after FILE END PATTERN   lines matching PATTERN after the first line matching END
after() { awk -v e="$2" -v p="$3" 'd && $0 ~ p { n++ } !d && $0 ~ e { d = 1 } END { print n + 0 }' "$1"; }
_has_after() { [ "$(after "$1" "$2" "$3")" -ge "$4" ]; }
# tap SLOT ID X Y   a finger down and up in SLOT (two frames)
tap() { mt_down "$DEVNODE" "$1" "$2" "$3" "$4"; mt_up "$DEVNODE" "$1"; }
vnode_wait() {
	wait_until 10 _virtual_present "$DEVNAME (evroute)"
	vnode=$(virtual_node "$DEVNAME (evroute)")
	[ -n "$vnode" ] || fail "no virtual device \"$DEVNAME (evroute)\": $(tail -n 3 daemon.log)"
}

create_device "$DESC"
cp /vm/config/forward-cancel.yaml "$CFG"
start_daemon "$DEVNODE" "$CFG"
vnode_wait

# 1a. a gesture claims a forwarded touch
start_reader g "$vnode" libinput debug-events --device "$vnode"
mt_down "$DEVNODE" 0 10 100 200
wait_until 5 _has_lines g.out TOUCH_DOWN 1
emit "$DEVNODE" EV_ABS ABS_MT_POSITION_X 400
emit "$DEVNODE" EV_ABS ABS_X 400 sync
wait_until 5 _has_lines g.out TOUCH_CANCEL 1
mt_up "$DEVNODE" 0
check "gesture: the claimed touch is cancelled (TOUCH_CANCEL, no TOUCH_UP)" \
	"$(count_lines g.out TOUCH_CANCEL)/$(count_lines g.out TOUCH_UP)" = 1/0
tap 0 11 500 300
wait_until 5 _has_after g.out TOUCH_CANCEL TOUCH_UP 1
sleep 0.3
check "gesture: the next tap in slot 0: one TOUCH_DOWN, one TOUCH_UP" \
	"$(after g.out TOUCH_CANCEL TOUCH_DOWN)/$(after g.out TOUCH_CANCEL TOUCH_UP)" = 1/1
stop_reader g

# 1b. the palm filter takes a forwarded touch (the source's finger turns MT_TOOL_PALM)
start_reader p "$vnode" libinput debug-events --device "$vnode"
mt_down "$DEVNODE" 0 12 500 300
wait_until 5 _has_lines p.out TOUCH_DOWN 1
emit "$DEVNODE" EV_ABS ABS_MT_TOOL_TYPE 2 sync
wait_until 5 _has_lines p.out TOUCH_CANCEL 1
emit "$DEVNODE" EV_ABS ABS_MT_TRACKING_ID -1
emit "$DEVNODE" EV_ABS ABS_MT_TOOL_TYPE 0
emit "$DEVNODE" EV_KEY BTN_TOUCH 0 sync
check "palm: the palm is cancelled (TOUCH_CANCEL)" "$(count_lines p.out TOUCH_CANCEL)" -eq 1
tap 0 13 500 300
wait_until 5 _has_after p.out TOUCH_CANCEL TOUCH_UP 1
sleep 0.3
check "palm: the next tap in slot 0: one TOUCH_DOWN, one TOUCH_UP" \
	"$(after p.out TOUCH_CANCEL TOUCH_DOWN)/$(after p.out TOUCH_CANCEL TOUCH_UP)" = 1/1
stop_reader p

# 1c. a reload removes the forward plugin under a finger: the touch is cancelled, the virtual
# device goes; a reload back makes it again and the next tap arrives whole
start_reader r "$vnode" libinput debug-events --device "$vnode"
mt_down "$DEVNODE" 0 14 500 300
wait_until 5 _has_lines r.out TOUCH_DOWN 1
cp /vm/config/forward-cancel-none.yaml "$CFG"
kill -HUP "$DAEMON_PID"
wait_until 5 _has_lines r.out TOUCH_CANCEL 1
wait_until 5 _virtual_absent "$DEVNAME (evroute)"
mt_up "$DEVNODE" 0
sleep 0.3
stop_reader r
check "reload: the held touch is cancelled before its device goes (TOUCH_CANCEL, no TOUCH_UP)" \
	"$(count_lines r.out TOUCH_CANCEL)/$(count_lines r.out TOUCH_UP)" = 1/0
cp /vm/config/forward-cancel.yaml "$CFG"
kill -HUP "$DAEMON_PID"
# (the reload reopens the source too: the device made for the old one lingers a moment)
wait_until 10 _has_lines daemon.log 'notice: reloaded' 2
vnode_wait
start_reader r2 "$vnode" libinput debug-events --device "$vnode"
wait_lines r2.out DEVICE_ADDED 1 5
tap 0 15 500 300
wait_until 5 _has_lines r2.out TOUCH_UP 1
sleep 0.3
check "reload: the next tap in slot 0: one TOUCH_DOWN, one TOUCH_UP" \
	"$(count_lines r2.out TOUCH_DOWN)/$(count_lines r2.out TOUCH_UP)" = 1/1
stop_reader r2
stop_daemon

# 2. cancel: lift — a claimed touch ends with TOUCH_UP
cp /vm/config/forward-cancel-lift.yaml "$CFG"
start_daemon "$DEVNODE" "$CFG"
vnode_wait
start_reader l "$vnode" libinput debug-events --device "$vnode"
mt_down "$DEVNODE" 0 16 100 200
wait_until 5 _has_lines l.out TOUCH_DOWN 1
emit "$DEVNODE" EV_ABS ABS_MT_POSITION_X 400
emit "$DEVNODE" EV_ABS ABS_X 400 sync
wait_until 5 _has_lines l.out TOUCH_UP 1
check "lift: the claimed touch ends with TOUCH_UP before the finger lifts (no TOUCH_CANCEL)" \
	"$(count_lines l.out TOUCH_UP)/$(count_lines l.out TOUCH_CANCEL)" = 1/0
mt_up "$DEVNODE" 0
tap 0 17 500 300
wait_until 5 _has_lines l.out TOUCH_UP 2
sleep 0.3
check "lift: the next tap in slot 0: one TOUCH_DOWN, one TOUCH_UP" \
	"$(after l.out TOUCH_UP TOUCH_DOWN)/$(after l.out TOUCH_UP TOUCH_UP)/$(count_lines l.out TOUCH_CANCEL)" = 1/1/0

# 2b. the source unplugged under a finger while the reader is late (stopped until evroute has
# written the lift and let its virtual device go): the kernel throws away what a device's
# readers have not read when it is destroyed, so the lift must outlive the write
mt_down "$DEVNODE" 0 18 500 300
wait_until 5 _has_lines l.out TOUCH_DOWN 3
kill -STOP "$(reader_pid l)"
# (not remove_device: its udevadm settle would add its own wait to the reader's lateness)
kill "$DEVPID"; wait "$DEVPID" 2>/dev/null
wait_until 5 _has_lines daemon.log 'removed \(its source went\)' 1
kill -CONT "$(reader_pid l)"
udevadm settle --timeout=10
wait_until 5 _virtual_absent "$DEVNAME (evroute)"
sleep 0.3
check "unplug, the reader late: the held touch ends with TOUCH_UP before its device goes" \
	"$(count_lines l.out TOUCH_UP)/$(count_lines l.out TOUCH_CANCEL)" = 3/0
stop_reader l
stop_daemon
create_device "$DESC"

# 3. a 40 ms tap under delays-touches-began (timed replay: the first event at 1 s)
awk 'function ev(t, ty, c, v) { printf "E: %.6f %s %s %d\n", t, ty, c, v }
BEGIN {
	ev(1.0, "0003", "002f", 0); ev(1.0, "0003", "0039", 20); ev(1.0, "0003", "0035", 400); ev(1.0, "0003", "0036", 240)
	ev(1.0, "0001", "014a", 1); ev(1.0, "0003", "0000", 400); ev(1.0, "0003", "0001", 240); ev(1.0, "0000", "0000", 0)
	ev(1.04, "0003", "0039", -1); ev(1.04, "0001", "014a", 0); ev(1.04, "0000", "0000", 0)
}' >tap40.events
start_daemon "$DEVNODE" /vm/config/forward-delay.yaml
vnode_wait
start_reader d "$vnode" libinput debug-events --device "$vnode"
wait_lines d.out DEVICE_ADDED 1 5
replay "$DEVNODE" tap40.events
wait_until 5 _has_lines d.out TOUCH_UP 1
sleep 0.3
check "delayed: a 40 ms tap gives one TOUCH_DOWN and one TOUCH_UP" \
	"$(count_lines d.out TOUCH_DOWN)/$(count_lines d.out TOUCH_UP)" = 1/1
stop_reader d
stop_daemon
remove_device

finish "cancelled touches end (palm: TOUCH_CANCEL, lift: TOUCH_UP) and leave the slot for the next tap; a 40 ms delayed tap arrives whole"
