#!/bin/sh
# 71-evroute-late — a daemon that runs late routes the input it already holds before
# a deadline that came due meanwhile. config/late.yaml: ghost taps shorter than 2 s
# are dropped; a contact held longer is delivered when its bound runs out (the
# session's deadline, on the daemon's timer).
#   finger A down (slot 0), 0.4 s later finger B down (slot 1); the daemon is stopped
#   (SIGSTOP); A's bound passes (the daemon's timer is due); B lifts, 0.8 s after its
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

lines() { count_lines "$1" "$2"; }
# The writer: one evemu-play reading frames from a FIFO as they come (their recorded time is 0:
# no sleep), so writing a frame costs no process start; the shell waits on /proc/uptime with
# builtins only (centiseconds), so no step depends on how fast a process starts on a loaded host.
now() { read _u _x </proc/uptime; NOW=${_u%.*}${_u#*.}; }
until_cs() { now; while [ "$NOW" -lt "$1" ]; do now; done; }
# frame SLOT ID [X Y]   one protocol-B frame as E: lines to the writer
frame() {
	echo "E: 0.000000 0003 002f $1" >&3
	echo "E: 0.000000 0003 0039 $2" >&3
	if [ "$2" -ge 0 ]; then
		echo "E: 0.000000 0003 0035 $3" >&3; echo "E: 0.000000 0003 0036 $4" >&3
		[ "$1" = 0 ] && echo "E: 0.000000 0001 014a 1" >&3
	elif [ "$1" = 0 ]; then
		echo "E: 0.000000 0001 014a 0" >&3
	fi
	echo "E: 0.000000 0000 0000 0" >&3
}

create_device "$DESC"
start_daemon "$DEVNODE" /vm/config/late.yaml
wait_until 10 test -n "\$(virtual_node \"$DEVNAME (evroute)\")"
vnode=$(virtual_node "$DEVNAME (evroute)")
[ -n "$vnode" ] || fail "no virtual device: $(tail -n 3 daemon.log)"
udevadm settle --timeout=10
start_reader late "$vnode" libinput debug-events --device "$vnode"
rm -f writer.fifo && mkfifo writer.fifo
evemu-play "$DEVNODE" <writer.fifo >writer.log 2>&1 &
WRITER_PID=$!
_bg_pids="$_bg_pids $WRITER_PID"
exec 3>writer.fifo
sleep 0.5

# Centiseconds: A down at 0, B down at 40, the daemon stopped at 60, A's bound at 100, B's lift
# at 120, B's bound at 140, the daemon continued at 180.
now; a=$NOW
frame 0 600 100 400
now; a2=$NOW
until_cs $((a + 40))
now; b=$NOW
frame 1 601 900 400
now; b2=$NOW
until_cs $((a + 60))
kill -STOP "$DAEMON_PID"
now; stopped=$NOW
until_cs $((a2 + 120))
now; lift=$NOW
frame 1 -1
now; lifted=$NOW
until_cs $((b2 + 140))
now; cont=$NOW
kill -CONT "$DAEMON_PID"
note "times (cs after A's down): B down $((b - a))-$((b2 - a)), stopped $((stopped - a)), B lift $((lift - a))-$((lifted - a)), continued $((cont - a))"
# The timing the checks rely on, read around each step on the clock the kernel stamps events
# with (a down is stamped between the reads around its writes): the daemon stopped before A's
# bound, A's bound passed before B's lift was written, the lift was written within B's bound,
# and B's bound passed before the daemon continued. A writer too late for these fails here.
check "setup: the daemon was stopped before A's bound" "$((stopped - a))" -lt 100
check "setup: A's bound passed before B's lift was written" "$((lift - a2))" -gt 100
check "setup: B's lift was written within B's bound" "$((lifted - b))" -lt 100
check "setup: B's bound passed before the daemon continued" "$((cont - b2))" -gt 100
wait_until 5 _has_lines late.out TOUCH_DOWN 1
sleep 0.5
check "late: only A reaches libinput (B, lifted within its bound, is a ghost)" "$(lines late.out TOUCH_DOWN)" -eq 1
check "late: B's lift does not reach libinput" "$(lines late.out TOUCH_UP)" -eq 0
frame 0 -1
wait_until 5 _has_lines late.out TOUCH_UP 1
check "late: A lifts (TOUCH_UP)" "$(lines late.out TOUCH_UP)" -eq 1
grep TOUCH_ late.out | sed 's/^/    /' | head -n 10
exec 3>&-
wait "$WRITER_PID" 2>/dev/null
stop_reader late
stop_daemon
remove_device
finish "a daemon stopped across a deadline routes the lift it already holds first: the ghost dropped"
