#!/bin/sh
# 63-evroute-forward — on a real kernel: the daemon grabs a touchscreen
# and forwards through a virtual device it makes with libevdev's uinput API,
# and libinput (as a compositor would) reads that virtual device.
#   1. every recording below, forwarded whole (config/forward.yaml, the source
#      not grabbed: one libinput reads both devices during one replay): libinput
#      on the virtual device shows the same TOUCH_DOWN / TOUCH_MOTION /
#      TOUCH_UP lines, positions included (percent and mm: the same axes), as
#      libinput on the source device itself; udev tags the virtual device
#      ID_INPUT_TOUCHSCREEN=1; `evroute devices` marks it as evroute's; on the
#      Wacom DTH2242 recording (kernel fuzz 4, which libinput's udev rule moves to
#      LIBINPUT_FUZZ_35/36) as many TOUCH_MOTIONs through evroute as from the panel
#   2. captured touches (config/forward-captured.yaml: the left half keeps its
#      touches) never appear: libinput's downs on the virtual device = the
#      dry-run's forwarded touches of the same recording
#   3. keys split: KEY_A is evroute's (log), KEY_B goes to the virtual
#      keyboard "evroute keyboard"
#   4. a finger held down when the source is unplugged, when the daemon
#      reloads, and when it stops: unplug and stop end it with TOUCH_CANCEL
#      (MT_TOOL_PALM, then lifted), a reload keeps it (it ends with TOUCH_UP);
#      the virtual device goes with its source and with the daemon
#   5. a device made by evemu-device that names itself "… (evroute)" is grabbed
#      and forwarded like any other; the fail-closed udev rule of
#      docs/deployment.md ignores the physical panel, not evroute's virtual one
# SKIP when the image has no evroute or libinput.
# timeout: 300
# weight: 70
#
# rec: touchscreens/Atmel maXTouch Touchscreen.desc
# rec: touchscreens/Atmel maXTouch Touchscreen.2-fingers-touch-release.events
# rec: touchscreens/Atmel maXTouch Touchscreen.4-finger-drag-down.events
# rec: touchscreens/Wacom ISDv4 E6 Finger.desc
# rec: touchscreens/Wacom ISDv4 E6 Finger.double-center-scroll.events
# rec: touchscreens/N-Trig MultiTouch.desc
# rec: touchscreens/N-Trig MultiTouch.2-fingers-touch-release.events
# rec: touchscreens/EP0430M09.desc
# rec: touchscreens/EP0430M09.2-finger-scroll-down.events
# rec: touchscreens/Wacom DTH2242 Finger.events
# rec: keyboards/Razer Razer BlackWidow 2013.keyboard.desc
# rec-single-touch: touchscreens/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events
. /vm/lib.sh

need evroute libinput
CFG=/vm/config/forward.yaml
ST=$REC/single-touch

# touch_lines FILE   libinput's touch lines without device, time and slot numbers:
# "TOUCH_DOWN 45.12/55.34 (123.45/80.12mm)", sorted (slots are numbered by each device)
touch_lines() {
	awk '$2 ~ /^TOUCH_(DOWN|MOTION|UP|CANCEL)$/ { print $2, $6, $7 }' "$1" | sort
}

# by_device FILE NODE   the lines of a libinput reading several devices that come from NODE
# (each line begins with the device's name in /dev/input, "-" before it for added/removed)
by_device() {
	awk -v d="$(basename "$2")" '{ x = $1; sub(/^-/, "", x) } x == d' "$1"
}
# _both_up FILE SRC VIRTUAL   for wait_until: both devices' touches have ended at least once
_both_up() {
	[ "$(by_device "$1" "$2" | grep -c TOUCH_UP)" -ge 1 ] && [ "$(by_device "$1" "$3" | grep -c TOUCH_UP)" -ge 1 ]
}

# Section 1 forwards without grabbing the source (the grab is section 2's and 40's): one libinput
# reads the source and evroute's virtual device side by side, during one replay.
sed 's/grab: true/grab: false/' "$CFG" >forward-shared.yaml
n=0 summary=""
# 1. KIND DESC EVENTS
forward_same() {
	kind=$1 desc=$2 ev=$3
	n=$((n + 1))
	what="$kind $(basename "$ev" .events | sed 's/.*\.//')"
	create_device "$desc"
	start_daemon "$DEVNODE" forward-shared.yaml
	vname="$DEVNAME (evroute)"
	wait_until 10 _virtual_present "$vname"
	vnode=$(virtual_node "$vname")
	check "$what: virtual device \"$vname\" exists" "${vnode:-none}" != none
	[ -n "$vnode" ] || { stop_daemon; remove_device; return; }
	udevadm settle --timeout=10
	check "$what: udev ID_INPUT_TOUCHSCREEN on the virtual device" "$(udev_prop "$vnode" ID_INPUT_TOUCHSCREEN)" = 1
	if [ $n = 1 ]; then
		evroute devices >devices.out 2>&1
		check "evroute devices marks the virtual device" "$(grep -F "$vname" devices.out | grep -c evroute)" -ge 1
	fi
	# the source as libinput sees it without evroute, and the same replay through evroute
	start_reader both$n "$vnode" libinput debug-events --device "$DEVNODE" --device "$vnode"
	wait_until 15 has_open "$READER_PID" "$DEVNODE"
	replay "$DEVNODE" "$ev"
	wait_until 10 _both_up both$n.out "$DEVNODE" "$vnode"
	sleep 0.5
	stop_reader both$n
	stop_daemon
	remove_device
	by_device both$n.out "$DEVNODE" >src$n.out
	by_device both$n.out "$vnode" >fwd$n.out
	touch_lines src$n.out >src$n.touch
	touch_lines fwd$n.out >fwd$n.touch
	if [ "$kind" = A ]; then
		# Protocol A: libinput reads the source through mtdev, whose filtering is its own (it
		# reports a motion for a raw change that its fuzz swallows): downs and ups, positions
		# included, are the same; the motions are compared by count only (within a quarter).
		grep -v TOUCH_MOTION src$n.touch >src$n.du; grep -v TOUCH_MOTION fwd$n.touch >fwd$n.du
		sm=$(grep -c TOUCH_MOTION src$n.touch); fm=$(grep -c TOUCH_MOTION fwd$n.touch)
		check "$what: libinput downs and ups on the virtual device = on the source (positions included)" "$(cmp -s src$n.du fwd$n.du && echo yes || echo no)" = yes
		check "$what: motions within a quarter of the source's ($fm vs $sm, mtdev's filtering)" "$(( (fm - sm) * 4 <= sm && (sm - fm) * 4 <= sm ))" -eq 1
		summary="$summary${summary:+, }$kind $(grep -c TOUCH_DOWN src$n.touch)"
		return
	fi
	downs=$(grep -c TOUCH_DOWN src$n.touch)
	check "$what: libinput on the source: TOUCH_DOWN > 0" "$downs" -gt 0
	# the panel's fuzz (moved by libinput's udev rule into LIBINPUT_FUZZ_*) is the virtual
	# device's too: as many motions through evroute as from the panel
	sm=$(grep -c TOUCH_MOTION src$n.touch); fm=$(grep -c TOUCH_MOTION fwd$n.touch)
	note "$what: libinput motions: $sm from the panel, $fm through evroute"
	check "$what: libinput motions through evroute = from the panel ($fm vs $sm)" "$fm" -eq "$sm"
	if cmp -s src$n.touch fwd$n.touch; then same=yes; else same=no; diff src$n.touch fwd$n.touch | head -n 10 | sed 's/^/    /'; fi
	check "$what: libinput on the virtual device = libinput on the source ($(wc -l <src$n.touch) touch lines)" "$same" = yes
	check "$what: no TOUCH_CANCEL" "$(grep -c TOUCH_CANCEL fwd$n.touch)" -eq 0
	summary="$summary${summary:+, }$kind $downs"
}

forward_same B "$TS/Atmel maXTouch Touchscreen.desc" "$TS/Atmel maXTouch Touchscreen.2-fingers-touch-release.events"
forward_same B "$TS/Atmel maXTouch Touchscreen.desc" "$TS/Atmel maXTouch Touchscreen.4-finger-drag-down.events"
forward_same B-wacom "$TS/Wacom ISDv4 E6 Finger.desc" "$TS/Wacom ISDv4 E6 Finger.double-center-scroll.events"
forward_same B-ep "$TS/EP0430M09.desc" "$TS/EP0430M09.2-finger-scroll-down.events"
# the Wacom DTH2242 recording up to its first moment with no finger down after 10,000 events
# (its dense multi-finger stretch, 14 of its 24 s): replayed twice, the whole would add 20 s
rec_prefix "$TS/Wacom DTH2242 Finger.events" 10000 >dth.first-14s.events
forward_same B-dth dth.first-14s.events dth.first-14s.events
forward_same A "$TS/N-Trig MultiTouch.desc" "$TS/N-Trig MultiTouch.2-fingers-touch-release.events"
forward_same ST "$ST/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events" "$ST/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events"

# 1b. coordinates: display — the virtual device spans the display (1280x800), positions after
# evroute's mapping: libinput's downs and ups on it, in percent of the axes, within 0.5 of the
# source's (device units -> display units rounds to the display's unit)
create_device "$TS/Atmel maXTouch Touchscreen.desc"
start_reader dsrc "$DEVNODE" libinput debug-events --device "$DEVNODE"
replay "$DEVNODE" "$TS/Atmel maXTouch Touchscreen.2-fingers-touch-release.events"
wait_until 10 _has_lines dsrc.out TOUCH_UP 1
sleep 0.5
stop_reader dsrc
start_daemon "$DEVNODE" /vm/config/forward-display.yaml
wait_until 10 _virtual_present "$DEVNAME (evroute)"
vnode=$(virtual_node "$DEVNAME (evroute)")
check "display: the virtual device spans the display (ABS_MT_POSITION_X max 1279)" "$(evemu-describe "$vnode" 2>/dev/null | grep -c '^A: 35 0 1279 ')" -eq 1
start_reader dfwd "$vnode" libinput debug-events --device "$vnode"
replay "$DEVNODE" "$TS/Atmel maXTouch Touchscreen.2-fingers-touch-release.events"
wait_until 10 _has_lines dfwd.out TOUCH_UP 1
sleep 0.5
stop_reader dfwd
stop_daemon
remove_device
# percent positions of the downs, sorted
pct_downs() { awk '$2 == "TOUCH_DOWN" { print $6 }' "$1" | tr '/' ' ' | sort -n; }
pct_downs dsrc.out >dsrc.pct; pct_downs dfwd.out >dfwd.pct
check "display: as many downs and ups as on the source" "$(count_lines dfwd.out TOUCH_DOWN)/$(count_lines dfwd.out TOUCH_UP)" = "$(count_lines dsrc.out TOUCH_DOWN)/$(count_lines dsrc.out TOUCH_UP)"
far=$(paste dsrc.pct dfwd.pct | awk '{ dx = $1 - $3; dy = $2 - $4; if (dx < 0) dx = -dx; if (dy < 0) dy = -dy; if (dx > 0.5 || dy > 0.5) n++ } END { print n + 0 }')
check "display: every down within 0.5 % of the source's position ($(tr '\n' ' ' <dfwd.pct))" "$far" -eq 0

# 2. captured touches never appear
ev="$TS/Atmel maXTouch Touchscreen.4-finger-drag-down.events"
evroute --dry-run --config /vm/config/forward-captured.yaml --replay "$ev" --format json >captured-dry.out 2>&1
kept=$(json_count captured-dry.out type touch phase began handler log)
fwd=$(json_count captured-dry.out type touch phase began handler desktop)
check "captured: the dry-run keeps some touches (log) and forwards some" "$((kept > 0 && fwd > 0))" -eq 1
create_device "$TS/Atmel maXTouch Touchscreen.desc"
start_daemon "$DEVNODE" /vm/config/forward-captured.yaml
wait_until 10 _virtual_present "$DEVNAME (evroute)"
vnode=$(virtual_node "$DEVNAME (evroute)")
start_reader cap "$vnode" libinput debug-events --device "$vnode"
replay "$DEVNODE" "$ev"
sleep 2
stop_reader cap
check "captured: libinput TOUCH_DOWN on the virtual device = the dry-run's forwarded touches ($fwd; $kept kept)" "$(count_lines cap.out TOUCH_DOWN)" -eq "$fwd"
check "captured: the kept touches are in the daemon's log" "$(count_lines daemon.log 'began.*\[log\]')" -eq "$kept"

# 4. a finger held: reload keeps it, unplug cancels it
start_reader held "$vnode" libinput debug-events --device "$vnode"
mt_down "$DEVNODE" 0 500 600 200
wait_until 5 _has_lines held.out TOUCH_DOWN 1
kill -HUP "$DAEMON_PID"
wait_lines daemon.log 'reload' 1 10
emit "$DEVNODE" EV_ABS ABS_MT_POSITION_X 620
emit "$DEVNODE" EV_ABS ABS_X 620 sync
sleep 0.5
check "reload: the virtual device stays ($vnode)" "$(virtual_node "$DEVNAME (evroute)")" = "$vnode"
mt_up "$DEVNODE" 0
wait_until 5 _has_lines held.out TOUCH_UP 1
check "reload: the held touch moved on after the reload" "$(count_lines held.out TOUCH_MOTION)" -ge 1
check "reload: the held touch ended with TOUCH_UP, not cancelled" "$(count_lines held.out TOUCH_UP)/$(count_lines held.out TOUCH_CANCEL)" = 1/0
mt_down "$DEVNODE" 0 501 600 200
wait_until 5 _has_lines held.out TOUCH_DOWN 1
remove_device
wait_until 5 _has_lines held.out TOUCH_CANCEL 1
check "unplug: the held touch is cancelled on the virtual device (TOUCH_CANCEL)" "$(count_lines held.out TOUCH_CANCEL)" -eq 1
wait_until 5 _virtual_absent "$DEVNAME (evroute)"
check "unplug: the virtual device went with its source" "$(virtual_node "$DEVNAME (evroute)")" = ""
stop_reader held
stop_daemon

# stop: a finger held when the daemon stops (keys named in its log: --show-keycodes)
create_device "$TS/Atmel maXTouch Touchscreen.desc"
start_daemon "$DEVNODE" /vm/config/forward-captured.yaml --show-keycodes
wait_until 10 _virtual_present "$DEVNAME (evroute)"
vnode=$(virtual_node "$DEVNAME (evroute)")
start_reader stop "$vnode" libinput debug-events --device "$vnode"
mt_down "$DEVNODE" 0 600 600 200
wait_until 5 _has_lines stop.out TOUCH_DOWN 1

# 3. keys split (the keyboard joins this daemon)
create_device "$KB/Razer Razer BlackWidow 2013.keyboard.desc"
KBNODE=$DEVNODE
wait_until 10 _virtual_present 'evroute keyboard'
knode=$(virtual_node "evroute keyboard")
check "keys: the virtual keyboard exists" "${knode:-none}" != none
udevadm settle --timeout=10
check "keys: udev ID_INPUT_KEYBOARD on the virtual keyboard" "$(udev_prop "$knode" ID_INPUT_KEYBOARD)" = 1
start_reader keys "$knode" libinput debug-events --show-keycodes --device "$knode"
for k in KEY_A KEY_B KEY_A KEY_B; do emit "$KBNODE" EV_KEY $k 1 sync; emit "$KBNODE" EV_KEY $k 0 sync; done
emit "$KBNODE" EV_KEY KEY_C 1 sync
wait_until 5 _has_lines keys.out 'KEY_C' 1
sleep 0.5
check "keys: KEY_B reaches the virtual keyboard (2 presses, 2 releases)" "$(count_lines keys.out 'KEY_B .*pressed')/$(count_lines keys.out 'KEY_B .*released')" = 2/2
check "keys: KEY_A (evroute's) never does" "$(count_lines keys.out 'KEY_A ')" -eq 0
check "keys: KEY_A is in the daemon's log" "$(count_lines daemon.log 'KEY_A down')" -eq 2
[ "$(count_lines daemon.log 'KEY_A down')" -eq 2 ] || { note "daemon log:"; tail -n 20 daemon.log | sed 's/^/    /'; note "keys:"; tail -n 5 keys.out | sed 's/^/    /'; }
stop_daemon
wait_until 5 _has_lines stop.out TOUCH_CANCEL 1
check "stop: the held touch is cancelled on the virtual device" "$(count_lines stop.out TOUCH_CANCEL)" -eq 1
check "stop: the held key KEY_C is released on the virtual keyboard" "$(count_lines keys.out 'KEY_C .*released')" -eq 1
check "stop: the daemon exited 0" "$DAEMON_STATUS" = 0
check "stop: the virtual devices are gone" "$(virtual_node "$DEVNAME (evroute)")$(virtual_node 'evroute keyboard')" = ""
stop_reader stop
stop_reader keys

# 5. evroute's own devices: a uinput device named like one of evroute's ("… (evroute)", made
# here by evemu-device, as another evroute would make it) is never read (no loop between two
# evroutes); a physical device so named is an ordinary one (a unit
# test: no physical device can be made here). And the fail-closed udev rule of
# docs/deployment.md: libinput ignores the physical panel, keeps evroute's virtual device.
sed 's/^N: .*/N: Other Panel (evroute)/' "$TS/Atmel maXTouch Touchscreen.desc" >other.desc
create_device other.desc; IMPNODE=$DEVNODE IMPPID=$DEVPID
create_device "$TS/Atmel maXTouch Touchscreen.desc"; PANELNODE=$DEVNODE
mkdir -p /etc/udev/rules.d
cat >/etc/udev/rules.d/70-kiosk-fail-closed.rules <<'RULES'
ACTION!="add|change", GOTO="kiosk_fail_closed_end"
SUBSYSTEM!="input", GOTO="kiosk_fail_closed_end"
KERNEL!="event*", GOTO="kiosk_fail_closed_end"
DEVPATH=="/devices/virtual/input/*", ATTRS{name}=="* (evroute)", GOTO="kiosk_fail_closed_end"
ENV{ID_INPUT_TOUCHSCREEN}=="1", ENV{LIBINPUT_IGNORE_DEVICE}="1"
LABEL="kiosk_fail_closed_end"
RULES
udevadm control --reload
udevadm trigger --action=change --subsystem-match=input
udevadm settle --timeout=10
start_daemon "$PANELNODE" "$CFG"
check "another evroute's device: never opened" "$(has_open "$DAEMON_PID" "$IMPNODE" && echo opened || echo no)" = no
check "another evroute's device: not forwarded again" "$(virtual_node 'Other Panel (evroute) (evroute)')" = ""
wait_until 10 _virtual_present "Atmel maXTouch Touchscreen (evroute)"
pnode=$(virtual_node "Atmel maXTouch Touchscreen (evroute)")
check "the panel: forwarded through its virtual device" "${pnode:-none}" != none
udevadm settle --timeout=10
check "fail closed: the physical panel is ignored by libinput" "$(udev_prop "$PANELNODE" LIBINPUT_IGNORE_DEVICE)" = 1
check "fail closed: evroute's virtual device is not" "${pnode:+x}$(udev_prop "${pnode:-/none}" LIBINPUT_IGNORE_DEVICE)" = x
stop_daemon
remove_device
remove_device "$IMPPID"
rm -f /etc/udev/rules.d/70-kiosk-fail-closed.rules
udevadm control --reload

finish "libinput on the virtual device = on the source ($summary downs); captured kept, keys split, unplug/stop cancel, reload keeps"
