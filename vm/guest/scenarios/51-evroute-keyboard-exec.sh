#!/bin/sh
# 51-evroute-keyboard-exec — not a dry run: the exec plugin really runs.
# config/kbd-exec.yaml binds Enter to `sh -c 'echo "$EVROUTE_KEY $EVROUTE_PHASE" >>$EVROUTE_VM_FIRED'`:
#   Enter pressed twice -> the command ran for each press (2 "KEY_ENTER down"
#   lines; up and repeat phases may run it too, they are not counted).
# SKIP when the image has no evroute, or evroute says it cannot run handlers
# (a build without the daemon); any other early exit is a FAIL.
# Not yet covered (see the spec): a slow command must not delay routing;
# bounded concurrency; timeout.
#
# rec: keyboards/Razer Razer BlackWidow 2013.keyboard.desc
. /vm/lib.sh

need evroute
export EVROUTE_VM_FIRED=$PWD/fired.log
: >"$EVROUTE_VM_FIRED"

create_device "$KB/Razer Razer BlackWidow 2013.keyboard.desc"
evroute --config /vm/config/kbd-exec.yaml --format json >evroute.out 2>&1 &
EVROUTE_PID=$!
_bg_pids="$_bg_pids $EVROUTE_PID"
if ! wait_until 15 _open_or_gone "$EVROUTE_PID" "$DEVNODE" || _gone "$EVROUTE_PID"; then
	if _gone "$EVROUTE_PID"; then
		grep -qi 'daemon' evroute.out && skip "evroute cannot run handlers: $(head -n 1 evroute.out)"
		fail "evroute exited: $(head -n 3 evroute.out)"
	fi
	fail "evroute did not open $DEVNODE"
fi
note "evroute (pid $EVROUTE_PID) has $DEVNODE open"
sleep 1   # past device setup (no trace line to wait for outside dry-run)

for i in 1 2; do
	emit "$DEVNODE" EV_KEY KEY_ENTER 1 sync
	emit "$DEVNODE" EV_KEY KEY_ENTER 0 sync
done
wait_lines "$EVROUTE_VM_FIRED" 'KEY_ENTER down' 2 10
note "commands run:"; sed 's/^/    /' "$EVROUTE_VM_FIRED"
check "exec ran for Enter down" "$(count_lines "$EVROUTE_VM_FIRED" 'KEY_ENTER down')" -eq 2
check "evroute still running" "$(_gone "$EVROUTE_PID" && echo exited || echo running)" = running
finish "Enter x2 ran the exec handler twice"
