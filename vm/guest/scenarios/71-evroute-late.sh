#!/bin/sh
# 71-evroute-late — a daemon that runs late routes the input it already holds before
# a deadline that came due meanwhile. config/late.yaml: ghost taps shorter than 2 s
# are dropped; a contact held longer is delivered when its bound runs out (the
# session's deadline, on the daemon's timer).
#   finger A down (slot 0), 1 s later finger B down (slot 1); the daemon is stopped
#   (SIGSTOP); A's bound passes (the daemon's timer is due); B lifts, 1.4 s after its
#   down, within its bound; B's bound passes too; the daemon continues (SIGCONT).
# On waking, the timer and the device are ready together, the timer first. The
# lift, stamped before B's bound, is routed first by its own time: A is delivered
# (its bound came before the lift), B is a ghost and dropped — libinput on the
# virtual device sees one TOUCH_DOWN, A's. A daemon that advanced to the wall clock
# at the timer would have delivered B as well (two downs).
# SKIP when the image has no evroute or libinput.
# timeout: 120
#
# rec: touchscreens/Atmel maXTouch Touchscreen.desc
. /vm/lib.sh

need evroute libinput
DESC="$TS/Atmel maXTouch Touchscreen.desc"

virtual_node() {
	for d in /sys/class/input/event*; do
		[ "$(cat "$d/device/name" 2>/dev/null)" = "$1" ] && { echo "/dev/input/$(basename "$d")"; return; }
	done
}
lines() { count_lines "$1" "$2"; }
uptime_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

create_device "$DESC"
start_daemon "$DEVNODE" /vm/config/late.yaml
wait_until 10 test -n "\$(virtual_node \"$DEVNAME (evroute)\")"
vnode=$(virtual_node "$DEVNAME (evroute)")
[ -n "$vnode" ] || fail "no virtual device: $(tail -n 3 daemon.log)"
udevadm settle --timeout=10
start_reader late "$vnode" libinput debug-events --device "$vnode"

a=$(uptime_ms)
mt_down "$DEVNODE" 0 600 100 400
a2=$(uptime_ms)
sleep 1
b=$(uptime_ms)
mt_down "$DEVNODE" 1 601 900 400
b2=$(uptime_ms)
# the daemon has read B's down (it is held: no frame reaches libinput before a bound)
sleep 0.3
kill -STOP "$DAEMON_PID"
stopped=$(uptime_ms)
# past A's bound: the daemon's timer is due while it is stopped
sleep 0.8
lift=$(uptime_ms)
mt_up "$DEVNODE" 1
lifted=$(uptime_ms)
# past B's bound
sleep 1.2
cont=$(uptime_ms)
kill -CONT "$DAEMON_PID"
note "times (ms after A's down): B down $((b - a)), stopped $((stopped - a)), B lift $((lift - a))-$((lifted - a)), continued $((cont - a))"
# The timing the checks rely on, read around each step on the clock the kernel stamps events
# with (a down is stamped between the reads around its writes): the daemon stopped before A's
# bound, A's bound passed before B's lift was written, the lift was written within B's bound,
# and B's bound passed before the daemon continued. A writer too late for these fails here.
check "setup: the daemon was stopped before A's bound" "$((stopped - a))" -lt 2000
check "setup: A's bound passed before B's lift was written" "$((lift - a2))" -gt 2000
check "setup: B's lift was written within B's bound" "$((lifted - b))" -lt 2000
check "setup: B's bound passed before the daemon continued" "$((cont - b2))" -gt 2000
wait_until 5 _has_lines late.out TOUCH_DOWN 1
sleep 0.5
check "late: only A reaches libinput (B, lifted within its bound, is a ghost)" "$(lines late.out TOUCH_DOWN)" -eq 1
check "late: B's lift does not reach libinput" "$(lines late.out TOUCH_UP)" -eq 0
mt_up "$DEVNODE" 0
wait_until 5 _has_lines late.out TOUCH_UP 1
check "late: A lifts (TOUCH_UP)" "$(lines late.out TOUCH_UP)" -eq 1
grep TOUCH_ late.out | sed 's/^/    /' | head -n 10
stop_reader late
stop_daemon
remove_device
finish "a daemon stopped across a deadline routes the lift it already holds first: the ghost dropped"
