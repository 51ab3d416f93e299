#!/bin/sh
# 51-evroute-keyboard-exec — not a dry run: the exec plugin really runs.
# config/kbd-exec.yaml binds Enter to `sh -c 'echo "$EVROUTE_KEY $EVROUTE_PHASE" >>$VM_FIRED_LOG'`:
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
# (not EVROUTE_*: evroute withholds inherited EVROUTE_* variables from commands)
export VM_FIRED_LOG=$PWD/fired.log
: >"$VM_FIRED_LOG"

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
# past device setup: the daemon logs "ready" (its sd_notify READY) when routing
wait_lines evroute.out 'ready' 1 5

for i in 1 2; do
	emit "$DEVNODE" EV_KEY KEY_ENTER 1 sync
	emit "$DEVNODE" EV_KEY KEY_ENTER 0 sync
done
wait_lines "$VM_FIRED_LOG" 'KEY_ENTER down' 2 10
note "commands run:"; sed 's/^/    /' "$VM_FIRED_LOG"
check "exec ran for Enter down" "$(count_lines "$VM_FIRED_LOG" 'KEY_ENTER down')" -eq 2
check "evroute still running" "$(_gone "$EVROUTE_PID" && echo exited || echo running)" = running
if [ -n "$_failures" ]; then
	note "evroute output (last 30 lines):"; tail -n 30 evroute.out | sed 's/^/    /'
fi
finish "Enter x2 ran the exec handler twice"
