#!/bin/sh
# 30-evroute-hotplug — evroute follows devices with the udev monitor:
#   1. a touchscreen A exists before evroute starts (found by enumeration)
#   2. touchscreen B is plugged in while evroute runs -> device-added for B
#   3. a contact goes down on B and B is unplugged with it still down ->
#      device-removed for B, and that touch is cancelled (never stuck, never ended)
#   4. A still works afterwards: a tap on A begins and ends
#   5. `evroute monitor` (when the binary has it) on the same real devices, with a layout
#      that routes only EP0430M09 panels: the AT keyboard and A are named with why no rule
#      takes them, then "no device to route yet"; B plugged in is taken by rule touch; a touch
#      on `left` is taken by it, one on the root is unhandled; B unplugged is said, then
#      "no device to route yet" again; A unplugged is said too ("was not routed"). Run as a
#      user outside group input, the monitor says the nodes cannot be opened and points at
#      the permissions on /dev/input.
# weight: 12
# SKIP when the image has no evroute or its --help does not mention --dry-run.
#
# rec: touchscreens/Atmel maXTouch Touchscreen.desc
# rec: touchscreens/EP0430M09.desc
. /vm/lib.sh

need evroute
evroute_has_option --dry-run || skip "evroute --help does not mention --dry-run"

create_device "$TS/Atmel maXTouch Touchscreen.desc"
A=$DEVNODE A_NAME=$DEVNAME A_PID=$DEVPID
start_reader evroute "$A" evroute --dry-run --format json
EVROUTE_PID=$READER_PID
wait_lines evroute.out '"device-added"' 1 5

create_device "$TS/EP0430M09.desc"
B=$DEVNODE B_NAME=$DEVNAME B_PID=$DEVPID
wait_until 10 _has_lines evroute.out "\"device-added\".*\"$B_NAME\"|\"$B_NAME\".*\"device-added\"" 1 ||
	note "no device-added line for $B_NAME yet"
check "device-added B ($B_NAME)" "$(json_count evroute.out type device-added name "$B_NAME")" -eq 1

# wait until evroute has B open, then one contact down on B, and unplug B
wait_until 10 has_open "$EVROUTE_PID" "$B" || note "evroute does not have $B open"
mt_down "$B" 0 100 640 384
wait_lines evroute.out '"phase" *: *"began"' 1 5
remove_device "$B_PID"
wait_lines evroute.out '"device-removed"' 1 5
wait_lines evroute.out '"phase" *: *"cancelled"' 1 5
check "device-removed B" "$(json_count evroute.out type device-removed name "$B_NAME")" -eq 1
check "touch on B began" "$(json_count evroute.out type touch phase began)" -eq 1
check "touch on B cancelled" "$(json_count evroute.out type touch phase cancelled)" -eq 1
check "touch on B not ended" "$(json_count evroute.out type touch phase ended)" -eq 0

# A still routes
mt_down "$A" 0 7 400 240
mt_up "$A" 0
wait_lines evroute.out '"phase" *: *"ended"' 1 5
stop_reader evroute
check "tap on A began" "$(json_count evroute.out type touch phase began)" -eq 2
check "tap on A ended" "$(json_count evroute.out type touch phase ended)" -eq 1

note "evroute output:"; sed 's/^/    /' evroute.out | head -n 40

if ! evroute_has_command monitor; then
	finish "hotplug add/remove with a cancelled touch; $A_NAME kept working (evroute has no monitor command)"
fi

# 5. evroute monitor on the same devices: only EP0430M09 is routed
MON=/vm/config/monitor.yaml
start_reader monitor - evroute monitor --config "$MON"
MONITOR_PID=$READER_PID
wait_lines monitor.out 'no device to route yet' 1 5
check "monitor: A not routed, and why" \
	"$(count_lines monitor.out "\"$A_NAME\" \(touchscreen\) $A not routed: no device rule takes it: rule touch wants a name matching \"EP0430M09\*\"")" -eq 1
check "monitor: the AT keyboard not routed, and why" \
	"$(count_lines monitor.out '\(keyboard\) /dev/input/event[0-9]+ not routed: no device rule takes it: rule touch wants kind touchscreen, not keyboard')" -ge 1
check "monitor: no device to route yet" \
	"$(count_lines monitor.out 'device  no device to route yet — waiting for one \(plug one in: no device rule takes the [0-9]+ device\(s\) above\)')" -eq 1

create_device "$TS/EP0430M09.desc"
B=$DEVNODE B_PID=$DEVPID
wait_lines monitor.out "\\+ \"$B_NAME\"" 1 10
check "monitor: B taken by rule touch" \
	"$(count_lines monitor.out "device  \\+ \"$B_NAME\" \(touchscreen\) $B: rule touch takes it, display main")" -eq 1
wait_until 10 has_open "$MONITOR_PID" "$B" || note "monitor does not have $B open"
# (320, 400) on the display is in `left`; (960, 400) is the root's, which takes nothing
mt_down "$B" 0 200 320 384
mt_up "$B" 0
mt_down "$B" 1 201 960 384
mt_up "$B" 1
wait_lines monitor.out ' ended ' 2 10
check "monitor: touch on left, taken by it" \
	"$(count_lines monitor.out 'touch   [0-9]+ began \(320, 400\) in home/root/left → taken by home/root/left \[log\]')" -eq 1
check "monitor: its end, no move" \
	"$(count_lines monitor.out 'touch   [0-9]+ ended \(320, 400\) in home/root/left(, tap ×1)? → taken by home/root/left \[log\]')" -eq 1
check "monitor: touch on the root, unhandled" \
	"$(count_lines monitor.out 'touch   [0-9]+ began \(960, 400\) in home/root → unhandled')" -eq 1
remove_device "$B_PID"
wait_lines monitor.out 'no device to route yet' 2 10
check "monitor: B removed" "$(count_lines monitor.out "device  - \"$B_NAME\" $B removed\$")" -eq 1
check "monitor: no device to route again" "$(count_lines monitor.out 'no device to route yet')" -eq 2
remove_device "$A_PID"
wait_lines monitor.out 'was not routed' 1 10
check "monitor: A removed, not routed" "$(count_lines monitor.out "device  - \"$A_NAME\" $A removed \(was not routed\)")" -eq 1
stop_reader monitor
note "monitor output:"; sed 's/^/    /' monitor.out | head -n 40

# 6. as a user outside group input: the nodes cannot be opened, and it says where to look
cp /etc/passwd passwd.orig
echo 'vmmonitor:x:64000:64000:monitor:/tmp:/bin/sh' >>/etc/passwd
start_reader monitor-user - su vmmonitor -s /bin/sh -c "exec evroute monitor --config $MON"
wait_lines monitor-user.out 'waiting for one' 1 5
stop_reader monitor-user
cp passwd.orig /etc/passwd
check "monitor as a user: a node that cannot be opened" \
	"$(count_lines monitor-user.out 'not routed: cannot be opened: .*(Permission denied|EACCES)')" -ge 1
check "monitor as a user: no device yet, check permissions" \
	"$(count_lines monitor-user.out 'no input device yet — waiting for one \(plug one in, or check permissions on /dev/input: [0-9]+ device node\(s\) cannot be opened; run as root or as a member of group input\)')" -eq 1
note "monitor (as vmmonitor) output:"; sed 's/^/    /' monitor-user.out | head -n 10

finish "hotplug add/remove with a cancelled touch; $A_NAME kept working; evroute monitor said every device, why none is routed, and each touch's region"
