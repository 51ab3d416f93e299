#!/bin/sh
# 80-evroute-daemon-plugins — the daemon (not a dry run) on a live device,
# with a socket plugin client (vm-unix, a static helper: busybox nc has no -U):
#   - `evroute status` over the control socket lists the device (node, rule);
#   - the client receives every touch as a JSON line;
#   - SIGHUP with a changed layout (daemon-v1 -> daemon-v2: the left/right
#     split moves from x=640 to x=320) while a touch is held: the held touch
#     keeps its region (left) as it moves; a new touch at the same place binds
#     to the new layout's region (right);
#   - SIGTERM while that touch is still held: its `cancelled` reaches the
#     client, the daemon exits 0, its sockets are removed.
# SKIP without evroute or the vm-unix helper (no C compiler at image build).
#
# rec: touchscreens/Atmel maXTouch Touchscreen.desc
. /vm/lib.sh

need evroute vm-unix
UI=/tmp/evroute-ui.sock
cp /vm/config/daemon-v1.yaml evroute.yaml

create_device "$TS/Atmel maXTouch Touchscreen.desc"   # 800x480 device units -> 1280x800: x * 1.6
start_daemon "$DEVNODE" evroute.yaml
start_client ui "$UI"

# status over the control socket
evroute status --control-socket "$CTL" >status.txt 2>&1
check "evroute status exit" "$?" -eq 0
evroute status --control-socket "$CTL" --format json >status.json 2>&1
check "status lists the device node" "$(grep -c "\"node\" *: *\"$DEVNODE\"" status.json)" -ge 1
check "status: the device's rule is touch" "$(grep -c '"rule" *: *"touch"' status.json)" -ge 1
note "evroute status:"; sed 's/^/    /' status.txt | head -n 20

# touch A held at device x=300 (display 480: left in v1, right in v2)
mt_down "$DEVNODE" 0 100 300 200
wait_lines ui.out '"phase" *: *"began"' 1 5
A=$(json_field "$(grep '"began"' ui.out | head -n1)" touch)
check "touch A began in left (v1)" "$(json_count ui.out type touch phase began region home/root/left)" -eq 1
check "touch A handled by the socket plugin" "$(json_count ui.out type touch phase began handler ui)" -eq 1

# reload with the new layout while A is held
cp /vm/config/daemon-v2.yaml evroute.yaml
kill -HUP "$DAEMON_PID"
wait_until 10 sh -c "evroute status --control-socket '$CTL' --format json | grep -q '\"reloads\" *: *1'"
evroute status --control-socket "$CTL" --format json >status2.json 2>&1
check "reloaded once (status reloads)" "$(grep -c '"reloads" *: *1' status2.json)" -eq 1
check "client still connected after reload" "$(_gone "$CLIENT_PID" && echo gone || echo connected)" = connected

# A moves: still bound to left (old layout)
emit "$DEVNODE" EV_ABS ABS_MT_SLOT 0
emit "$DEVNODE" EV_ABS ABS_MT_POSITION_X 310
emit "$DEVNODE" EV_ABS ABS_X 310 sync
wait_lines ui.out '"phase" *: *"moved"' 1 5
check "held touch A moved, still in left" "$(json_count ui.out type touch phase moved region home/root/left)" -ge 1
# touch B at the same x: new layout -> right
mt_down "$DEVNODE" 1 101 300 300
wait_lines ui.out '"phase" *: *"began"' 2 5
check "new touch B began in right (v2)" "$(json_count ui.out type touch phase began region home/root/right)" -eq 1
mt_up "$DEVNODE" 1
wait_lines ui.out '"phase" *: *"ended"' 1 5
check "touch B ended in right" "$(json_count ui.out type touch phase ended region home/root/right)" -eq 1

# SIGTERM with A still held
stop_daemon TERM
wait_until 5 _gone "$CLIENT_PID"
note "client received:"; sed 's/^/    /' ui.out
check "daemon exit status on SIGTERM" "$DAEMON_STATUS" = 0
grep -E "\"touch\" *: *$A[,}]" ui.out >touch-a.json
check "touch A cancelled, reached the client" "$(json_count touch-a.json type touch phase cancelled region home/root/left)" -eq 1
check "touch A never ended" "$(json_count touch-a.json type touch phase ended)" -eq 0
check "client saw the socket close" "$(_gone "$CLIENT_PID" && echo closed || echo open)" = closed
check "socket file removed" "$(test -e "$UI" && echo present || echo removed)" = removed
check "control socket removed" "$(test -e "$CTL" && echo present || echo removed)" = removed
check "every touch began and ended once" "$(touches_unbalanced ui.out)" = ""
[ -n "$_failures" ] && { note "daemon log (last 30 lines):"; tail -n 30 daemon.log | sed 's/^/    /'; }
finish "status, socket JSON lines, SIGHUP keeps held touch in old region, SIGTERM cancels it (exit 0)"
