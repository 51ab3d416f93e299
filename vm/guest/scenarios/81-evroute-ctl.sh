#!/bin/sh
# 81-evroute-ctl — the UI drives the responder chain at run time (docs/ui-control.md) on a live device:
#   - touch A held on home/root/left; `evroute ctl present confirm`: A keeps moving in
#     home/root/left (its region and chain), a new touch B at the same place lands on
#     confirm/root/yes; `evroute ctl dismiss`;
#   - `evroute ctl regions home/root FILE` replaces home/root's children keeping `left`: A is
#     still bound to home/root/left; a second replacement without `left` cancels A exactly once;
#   - `evroute ctl state` shows the stack and the changed region; a bad command is refused
#     (exit 1) and changes nothing; handler options travel with the events (`"page"`).
# weight: 7
# SKIP without evroute or the vm-unix helper.
#
# rec: touchscreens/Atmel maXTouch Touchscreen.desc
. /vm/lib.sh

need evroute vm-unix
UI=/tmp/evroute-ui.sock
cp /vm/config/ctl.yaml evroute.yaml

create_device "$TS/Atmel maXTouch Touchscreen.desc"   # 800x480 device units -> 1280x800: x * 1.6
start_daemon "$DEVNODE" evroute.yaml
start_client ui "$UI"

# touch A held at device x=100 (display 160: left)
mt_down "$DEVNODE" 0 100 100 200
wait_lines ui.out '"phase" *: *"began"' 1 5
A=$(json_field "$(grep '"began"' ui.out | head -n1)" touch)
check "touch A began in home/root/left" "$(json_count ui.out type touch phase began region home/root/left)" -eq 1
check "the handler's options travel with the event" "$(grep -c '"options" *: *{ *"page" *: *"home"' ui.out)" -ge 1

# present the modal while A is held
evroute ctl --control-socket "$CTL" present confirm >ctl.out 2>&1
check "ctl present exit" "$?" -eq 0
evroute ctl --control-socket "$CTL" state --format json >state1.json 2>&1
check "state: confirm on top of home" "$(grep -c '"stack" *: *\[ *"home" *, *"confirm" *\]' state1.json)" -eq 1
emit "$DEVNODE" EV_ABS ABS_MT_SLOT 0
emit "$DEVNODE" EV_ABS ABS_MT_POSITION_X 110
emit "$DEVNODE" EV_ABS ABS_X 110 sync
wait_lines ui.out '"phase" *: *"moved"' 1 5
check "held touch A moved, still in home/root/left" "$(json_count ui.out type touch phase moved region home/root/left)" -ge 1
mt_down "$DEVNODE" 1 101 100 300
wait_lines ui.out '"phase" *: *"began"' 2 5
check "new touch B began on the modal (confirm/root/yes)" "$(json_count ui.out type touch phase began region confirm/root/yes)" -eq 1
mt_up "$DEVNODE" 1
wait_lines ui.out '"phase" *: *"ended"' 1 5
evroute ctl --control-socket "$CTL" dismiss >>ctl.out 2>&1
check "ctl dismiss exit" "$?" -eq 0

# a bad command changes nothing and says why
evroute ctl --control-socket "$CTL" hide home/root/nope >bad.out 2>&1
check "ctl hide of an unknown region exits 1" "$?" -eq 1
check "the refusal names the region" "$(grep -c 'home/root/nope' bad.out)" -ge 1

# replace home/root's children, keeping left: A stays bound
evroute ctl --control-socket "$CTL" regions home/root /vm/config/ctl-regions-keep.yaml >>ctl.out 2>&1
check "ctl regions (keep left) exit" "$?" -eq 0
emit "$DEVNODE" EV_ABS ABS_MT_SLOT 0
emit "$DEVNODE" EV_ABS ABS_MT_POSITION_X 120
emit "$DEVNODE" EV_ABS ABS_X 120 sync
wait_lines ui.out '"phase" *: *"moved"' 2 5
grep -E "\"touch\" *: *$A[,}]" ui.out >touch-a.json
check "A still moves in home/root/left after the replacement" "$(json_count touch-a.json type touch phase moved region home/root/left)" -ge 2
evroute ctl --control-socket "$CTL" state --format json >state2.json 2>&1
check "state lists home/root as changed" "$(grep -c '"region" *: *"home/root"' state2.json)" -ge 1

# replace them again without left: A is cancelled exactly once
evroute ctl --control-socket "$CTL" regions home/root /vm/config/ctl-regions-drop.yaml >>ctl.out 2>&1
check "ctl regions (drop left) exit" "$?" -eq 0
wait_lines ui.out '"phase" *: *"cancelled"' 1 5
grep -E "\"touch\" *: *$A[,}]" ui.out >touch-a.json
check "A cancelled once when its region went" "$(json_count touch-a.json type touch phase cancelled)" -eq 1
mt_up "$DEVNODE" 0
sleep 0.3
grep -E "\"touch\" *: *$A[,}]" ui.out >touch-a.json
check "A never ended after its cancel" "$(json_count touch-a.json type touch phase ended)" -eq 0
mt_down "$DEVNODE" 0 102 100 200
wait_lines ui.out '"phase" *: *"began"' 3 5
check "a new touch there lands on home/root/wide" "$(json_count ui.out type touch phase began region home/root/wide)" -eq 1
mt_up "$DEVNODE" 0

stop_daemon TERM
check "daemon exit status on SIGTERM" "$DAEMON_STATUS" = 0
check "every touch began and ended once" "$(touches_unbalanced ui.out)" = ""
[ -n "$_failures" ] && { note "ctl:"; sed 's/^/    /' ctl.out; note "daemon log (last 30 lines):"; tail -n 30 daemon.log | sed 's/^/    /'; }
finish "present keeps a held touch in its region, regions replacement keeps or cancels it once, refusals change nothing"
