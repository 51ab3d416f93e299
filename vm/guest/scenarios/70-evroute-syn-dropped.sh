#!/bin/sh
# 70-evroute-syn-dropped — the kernel's evdev client buffer overflows while
# evroute is not reading; evroute resyncs (libevdev) and nothing stays stuck:
#   1. a contact is held down in slot 9 (evroute: touch began)
#   2. evroute and a witness evtest are stopped (SIGSTOP); a 4-finger
#      recording is written 4 times over with no delays — far more events
#      than the client buffer holds — so the kernel queues SYN_DROPPED
#   3. both continue (SIGCONT); evtest must have seen SYN_DROPPED (proof the
#      overflow happened)
#   4. the held contact is lifted and a new tap made
# Expect: every touch evroute reported began exactly once and ended exactly
# once (ended or cancelled: touches whose state was lost are cancelled); the
# held contact's touch ends; the last tap begins and ends; evroute is alive.
#   5. the same overflow under the daemon (grab.yaml, rule touch), stopped the
#      same way: its log has the eventsDropped warning naming the rule and the
#      node, the drops so far and the resync (one line per 10 s at most)
# weight: 8
# SKIP when the image has no evroute or its help does not mention --dry-run.
#
# rec: touchscreens/Atmel maXTouch Touchscreen.desc
# rec: touchscreens/Atmel maXTouch Touchscreen.4-finger-drag-down.events
. /vm/lib.sh

need evroute
evroute_has_option --dry-run || skip "evroute --help does not mention --dry-run"

create_device "$TS/Atmel maXTouch Touchscreen.desc"
start_reader evtest "$DEVNODE" evtest "$DEVNODE"
EVTEST_PID=$READER_PID
start_reader evroute "$DEVNODE" evroute --dry-run --format json
EVROUTE_PID=$READER_PID
wait_lines evroute.out '"device-added"' 1 10

mt_down "$DEVNODE" 9 900 100 100
wait_lines evroute.out '"phase" *: *"began"' 1 5

rec_burst "$TS/Atmel maXTouch Touchscreen.4-finger-drag-down.events" 4 >burst.events
note "burst: $(rec_events burst.events) events, no delays, while the readers are stopped"
kill -STOP "$EVROUTE_PID" "$EVTEST_PID"
replay "$DEVNODE" burst.events
kill -CONT "$EVROUTE_PID" "$EVTEST_PID"

mt_up "$DEVNODE" 9
mt_down "$DEVNODE" 0 901 600 300
mt_up "$DEVNODE" 0
wait_lines evtest.out 'SYN_DROPPED' 1 5
wait_lines evroute.out '"phase" *: *"ended"' 1 10   # the last tap, once evroute has drained the queue
check "evroute still running" "$(_gone "$EVROUTE_PID" && echo exited || echo running)" = running
stop_reader evroute
stop_reader evtest

check "overflow happened (evtest saw SYN_DROPPED)" "$(count_lines evtest.out 'SYN_DROPPED')" -ge 1
note "touch lifecycles (id began ended cancelled):"; touch_lifecycles evroute.out | sed 's/^/    /'
bad=$(touches_unbalanced evroute.out)
check "touches not beginning and ending exactly once" "${bad:-none}" = none
first=$(touch_lifecycles evroute.out | head -n1 | cut -d' ' -f1)
last=$(touch_lifecycles evroute.out | tail -n1 | cut -d' ' -f1)
check "held touch ($first) ended or cancelled" "$(touch_lifecycles evroute.out | head -n1 | grep -c 'ended=1\|cancelled=1')" -eq 1
check "last tap ($last) ended" "$(touch_lifecycles evroute.out | tail -n1 | grep -c 'began=1 ended=1')" -eq 1

# 5. the daemon's log
start_daemon "$DEVNODE" /vm/config/grab.yaml
mt_down "$DEVNODE" 9 902 100 100
wait_lines daemon.log 'touch [0-9]+ began' 1 5
kill -STOP "$DAEMON_PID"
replay "$DEVNODE" burst.events
kill -CONT "$DAEMON_PID"
mt_up "$DEVNODE" 9
wait_lines daemon.log 'SYN_DROPPED' 1 10
drop_line="warning: input: device \"$DEVNAME\" \(rule touch, $DEVNODE\): the kernel dropped its events \(SYN_DROPPED: .*\), [0-9]+ times? so far.*; resynced from the device's state: touches still down go on, [0-9]+ touch(es)? cancelled"
drops=$(count_lines daemon.log "$drop_line")
note "daemon's drop line(s):"; grep 'SYN_DROPPED' daemon.log | sed 's/^/    /'
check "daemon: its log names the drop (rule touch, $DEVNODE, the count, the resync)" "$drops" -ge 1
check "daemon: at most one drop line in these 10 s" "$(count_lines daemon.log 'SYN_DROPPED')" -le 1
stop_daemon
check "daemon: exited 0" "$DAEMON_STATUS" = 0

finish "$(json_count evroute.out type touch phase began) touches, $(json_count evroute.out type touch phase cancelled) cancelled, none stuck"
