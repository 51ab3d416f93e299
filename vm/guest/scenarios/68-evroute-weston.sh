#!/bin/sh
# 68-evroute-weston — the same compositor-and-client check as 67-evroute-cage, with Debian
# 12's weston 10 (its DRM backend on qemu's bochs display, "-vga std" below; the pixman
# renderer; the kiosk shell) and wev: first weston alone on a uinput touchscreen, then evroute
# in front (grab + forward) on the installed examples/browser-kiosk.yaml. Like cage 0.1.4,
# weston 10 drops a libinput TOUCH_CANCEL (its libinput code sends no wl_touch.cancel; the
# DRM backend does not even import notify_touch_cancel). Through evroute
#   - a tap lands where it lands with weston alone;
#   - the admin corner's long press never reaches the client;
#   - after the 3-finger swipe, an unplug of the panel under a finger and evroute stopping
#     with a finger down, every wl_touch.down has its up or a cancel.
# Debian 12's weston is built without libseat, and has no weston-launch: it takes its seat
# from logind or, as root, opens the devices itself on a VT (its "direct launcher", tty1 of
# the bochs framebuffer here). The VM has no logind, so weston runs as root here.
# SKIP without weston, wev or evroute, or without a DRM device (qemu without a display).
# qemu: -vga std
# timeout: 150
# rec: touchscreens/Atmel maXTouch Touchscreen.desc
. /vm/lib.sh
need weston wev evroute
T0=$(cut -d' ' -f1 /proc/uptime)
since() { awk -v a="$1" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }'; }
EXAMPLE=/vm/install/usr/share/doc/evroute/examples/browser-kiosk.yaml
PANEL="$TS/Atmel maXTouch Touchscreen.desc"
VPANEL="Atmel maXTouch Touchscreen (evroute)"
KVER=$(uname -r)
for m in drm drm_kms_helper ttm/ttm drm_ttm_helper drm_vram_helper tiny/bochs; do
	insmod /lib/modules/$KVER/kernel/drivers/gpu/drm/$m.ko 2>&1 || note "insmod $m failed"
done
udevadm settle --timeout=10
wait_until 5 test -c /dev/dri/card0 || skip "no DRM device (/dev/dri/card0): qemu without a display (-vga std)"
[ -f "$EXAMPLE" ] || skip "no installed example at $EXAMPLE (no staged install in the image)"
# start_weston NAME   weston (root, direct launcher on tty1) and wev as its client (NAME.out)
start_weston() {
	mkdir -p /run/user/0 && chmod 700 /run/user/0
	env XDG_RUNTIME_DIR=/run/user/0 stdbuf -oL -eL weston --backend=drm-backend.so --shell=kiosk-shell.so --use-pixman --socket=wayland-1 --idle-time=0 --tty=1 >"$1.weston.log" 2>&1 &
	WESTON_PID=$!
	# (its log names the launcher, the DRM device, the output and every input device)
	_bg_pids="$_bg_pids $WESTON_PID"
	wait_until 30 test -S /run/user/0/wayland-1 || { cat "$1.weston.log"; fail "weston did not come up"; }
	env XDG_RUNTIME_DIR=/run/user/0 WAYLAND_DISPLAY=wayland-1 stdbuf -oL wev >"$1.out" 2>&1 &
	WEV_PID=$!
	_bg_pids="$_bg_pids $WEV_PID"
	wait_until 20 grep -q 'xdg_toplevel\] configure: width: [1-9]' "$1.out" || { cat "$1.weston.log"; cat "$1.out"; fail "wev did not get a window"; }
	sleep 1
	note "weston + wev up: $(grep 'xdg_toplevel\] configure: width: [1-9]' "$1.out" | tail -n1 | sed 's/.*\] //')"
}
stop_weston() { kill $WEV_PID $WESTON_PID 2>/dev/null; wait_until 10 _gone $WESTON_PID; wait $WESTON_PID $WEV_PID 2>/dev/null; }
# ---------------------------------------------------------------- wev's output, per case

# mark FILE   remember where a case begins in wev's output
mark() { MARK=$(wc -l <"$1"); }
# since_mark FILE   the lines of the current case
since_mark() { tail -n +"$((MARK + 1))" "$1"; }
# touch_events FILE   the case's wl_touch events, one per line: "down ID X,Y TIME",
# "motion ID X,Y", "up ID TIME", "cancel". wev binds a wl_touch at each seat capabilities
# event and keeps the old ones, so an event may print once per live object: only the
# object that printed the most lines counts (all live ones print the same).
touch_events() {
	since_mark "$1" | awk '
		/wl_touch\] (down|up|motion|cancel)/ { n++; line[n] = $0; o = $1; sub(/^\[/, "", o); sub(/:.*/, "", o); obj[n] = o; c[o]++ }
		function field(s, k,   v) { if (!match(s, k ": [^;]*")) return ""; v = substr(s, RSTART, RLENGTH); sub(/^[^:]*: /, "", v); return v }
		function xy(s,   v) { if (!match(s, /x, y: [-0-9.]+, [-0-9.]+/)) return ""; v = substr(s, RSTART + 6, RLENGTH - 6); sub(/, /, ",", v); split(v, p, ","); return sprintf("%.2f,%.2f", p[1], p[2]) }
		END {
			best = ""; for (o in c) if (best == "" || c[o] > c[best]) best = o
			for (i = 1; i <= n; i++) {
				if (obj[i] != best) continue
				s = line[i]
				if (s ~ /\] down:/) print "down", field(s, "id"), xy(s), field(s, "time")
				else if (s ~ /\] up:/) print "up", field(s, "id"), field(s, "time")
				else if (s ~ /\] motion:/) print "motion", field(s, "id"), xy(s)
				else print "cancel"
			}
		}'
}
# touch_summary FILE   the case's touch events in one line (motions counted, not listed)
touch_summary() {
	touch_events "$1" | awk '
		$1 == "motion" { m++; next }
		{ if (m) { out = out (out ? " | " : "") m " motion"; m = 0 }
		  if ($1 == "down") s = "down " $2 " @" $3; else if ($1 == "up") s = "up " $2; else s = "cancel"
		  out = out (out ? " | " : "") s }
		END { if (m) out = out (out ? " | " : "") m " motion"; print (out == "" ? "(nothing)" : out) }'
}
# touches_left_down FILE   touches of the case still down in the client at its end:
# downs without an up (a wl_touch.cancel ends every touch of the client)
touches_left_down() {
	touch_events "$1" | awk '
		$1 == "down" { d[$2] = 1 } $1 == "up" { delete d[$2] } $1 == "cancel" { for (k in d) delete d[k] }
		END { n = 0; for (k in d) n++; print n }'
}
count_touch() { touch_events "$1" | grep -c "^$2" || true; }
# key_events FILE   the case's wl_keyboard keys as "SYM+" (pressed) / "SYM-" (released),
# one per serial (wev may print one key once per wl_keyboard it bound)
key_events() {
	since_mark "$1" | awk '
		/wl_keyboard\] key: / { if (!match($0, /serial: [0-9]+/)) next; ser = substr($0, RSTART + 8, RLENGTH - 8)
			st = ($0 ~ /state: 1/) ? "+" : "-"; pending = 1; next }
		pending && /sym: / { pending = 0; sym = $2; if (seen[ser]++) next; printf "%s%s ", sym, st }
		END { print "" }' | sed 's/ $//'
}
# report COMPOSITOR CASE FILE   print what wev got in this case (touches and keys)
report() {
	_k=$(key_events "$3")
	note "wev [$1] $2: touch: $(touch_summary "$3")${_k:+; keys: $_k}"
	echo "$1|$2|$(touch_summary "$3")${_k:+; keys: $_k}" >>cases.txt
}

# ---------------------------------------------------------------- input, as evemu files

# evemu-play keeps a file's times when its first event is at 1 s or later
ev() { printf 'E: %s %s %s %04d\n' "$1" "$2" "$3" "$4"; }
tap_file() {
	t1=$(awk -v ms="$4" 'BEGIN { printf "%.6f", 1 + ms / 1000 }')
	{ ev 1.000000 0003 002f 0; ev 1.000000 0003 0039 "$5"; ev 1.000000 0003 0035 "$2"; ev 1.000000 0003 0036 "$3"
	  ev 1.000000 0001 014a 1; ev 1.000000 0003 0000 "$2"; ev 1.000000 0003 0001 "$3"; ev 1.000000 0000 0000 0
	  ev "$t1" 0003 002f 0; echo "E: $t1 0003 0039 -001"; ev "$t1" 0001 014a 0; ev "$t1" 0000 0000 0; } >"$1"
}
# the 3-finger swipe of 67-evroute-cage: down 150 device units in 0.2 s
swipe_file() {
	awk -v id="$2" 'function e(t, ty, c, v) { printf "E: %.6f %s %s %s\n", t, ty, c, (v < 0 ? "-001" : sprintf("%04d", v)) }
	BEGIN {
		for (s = 0; s < 3; s++) { e(1, "0003", "002f", s); e(1, "0003", "0039", id + s); e(1, "0003", "0035", 300 + 100 * s); e(1, "0003", "0036", 100) }
		e(1, "0001", "014a", 1); e(1, "0003", "0000", 300); e(1, "0003", "0001", 100); e(1, "0000", "0000", 0)
		for (k = 1; k <= 10; k++) {
			t = 1 + 0.02 * k; y = 100 + 15 * k
			for (s = 0; s < 3; s++) { e(t, "0003", "002f", s); e(t, "0003", "0036", y) }
			e(t, "0003", "0001", y); e(t, "0000", "0000", 0)
		}
		for (s = 0; s < 3; s++) { e(1.24, "0003", "002f", s); e(1.24, "0003", "0039", -1) }
		e(1.24, "0001", "014a", 0); e(1.24, "0000", "0000", 0)
	}' >"$1"
}
play() { evemu-play "$1" <"$2" || fail "evemu-play $2 failed"; }
settle() { _i=0 _last=-1; while [ $_i -lt 12 ]; do _now=$(wc -l <"$1"); [ "$_now" = "$_last" ] && break; _last=$_now; sleep 0.5; _i=$((_i + 1)); done; }
wait_for_down() { wait_until 5 sh -c "tail -n +$((MARK + 1)) $W | grep -q 'wl_touch\] down'"; }
vnode() { for d in /sys/class/input/event*; do [ "$(cat "$d/device/name" 2>/dev/null)" = "$1" ] && { echo "/dev/input/$(basename "$d")"; return; }; done; }
tap_file tap1.ev 400 240 60 11
tap_file corner.ev 790 10 3500 14
swipe_file swipe.ev 30

# ================================================================ 1. weston alone
create_device "$PANEL"; P1=$DEVNODE; P1PID=$DEVPID
start_weston alone
W=alone.out
note "weston: $(grep -E 'launcher|using /dev/dri' alone.weston.log | tr '\n' ' ' | sed 's/\[[0-9:.]*\] //g')"
mark $W; play $P1 tap1.ev; settle $W
report "weston alone" tap $W
alone_tap=$(touch_events $W | awk '$1 != "motion" { printf "%s%s ", $1, ($1 == "down" ? "@" $3 : "") }')
check "weston alone: a tap, down and up" "$(count_touch $W down)/$(count_touch $W up)" = 1/1
mark $W; play $P1 corner.ev; settle $W
report "weston alone" "admin corner 3.5 s press" $W
mark $W; play $P1 swipe.ev; settle $W
report "weston alone" "3-finger swipe down" $W
check "weston alone: the swipe's 3 fingers reach the client" "$(count_touch $W down)/$(count_touch $W up)" = 3/3
mark $W; mt_down $P1 0 40 400 240; wait_for_down
remove_device $P1PID; settle $W
report "weston alone" "panel unplugged under a finger" $W
alone_unplug_left=$(touches_left_down $W)
stop_weston

# ================================================================ 2. evroute in front
# (taken away again when the scenario ends: the next scenarios' libinput must see every device)
fail_closed_off() {
	rm -f /etc/udev/rules.d/70-kiosk-fail-closed.rules
	udevadm control --reload && udevadm trigger -s input && udevadm settle --timeout=10
}
trap 'fail_closed_off; _cleanup' EXIT
cat >/etc/udev/rules.d/70-kiosk-fail-closed.rules <<'R'
ACTION!="add|change", GOTO="kiosk_fail_closed_end"
SUBSYSTEM!="input", GOTO="kiosk_fail_closed_end"
KERNEL!="event*", GOTO="kiosk_fail_closed_end"
DEVPATH=="/devices/virtual/input/*", ATTRS{name}=="* (evroute)", GOTO="kiosk_fail_closed_end"
ENV{ID_INPUT_TOUCHSCREEN}=="1", ENV{LIBINPUT_IGNORE_DEVICE}="1"
LABEL="kiosk_fail_closed_end"
R
udevadm control --reload && udevadm trigger -s input && udevadm settle --timeout=10
cp "$EXAMPLE" kiosk.yaml
create_device "$PANEL"; P2=$DEVNODE; P2PID=$DEVPID
start_daemon "$P2" kiosk.yaml
wait_until 10 test -n "\$(vnode \"$VPANEL\")"
udevadm settle --timeout=10
start_weston evroute
W=evroute.out
mark $W; play $P2 tap1.ev; settle $W
report "weston+evroute" tap $W
check "tap: where weston alone puts it, down and up" "$(touch_events $W | awk '$1 != "motion" { printf "%s%s ", $1, ($1 == "down" ? "@" $3 : "") }')" = "$alone_tap"
mark $W; play $P2 corner.ev; settle $W
report "weston+evroute" "admin corner 3.5 s press" $W
check "admin corner: no wl_touch.down in the client" "$(count_touch $W down)" -eq 0
mark $W; play $P2 swipe.ev; settle $W
report "weston+evroute" "3-finger swipe down" $W
note "swipe: $(count_touch $W cancel) wl_touch.cancel, $(count_touch $W up) wl_touch.up in the client"
check "swipe: no touch left down in the client ($(count_touch $W down) downs)" "$(touches_left_down $W)" -eq 0
mark $W; play $P2 tap1.ev; settle $W
report "weston+evroute" "a tap after the swipe" $W
check "after the swipe: the next tap reaches the client" "$(touch_events $W | awk '$1 != "motion" { printf "%s%s ", $1, ($1 == "down" ? "@" $3 : "") }')" = "$alone_tap"
caps=$(count_lines $W 'wl_seat\] capabilities')
mark $W; mt_down $P2 0 41 400 240; wait_for_down
remove_device $P2PID; settle $W
report "weston+evroute" "panel unplugged under a finger" $W
check "unplug: the touch down in the client ended (weston alone: $alone_unplug_left left down)" "$(count_touch $W down)/$(touches_left_down $W)" = 1/0
create_device "$PANEL"; P2=$DEVNODE
wait_until 10 test -n "\$(vnode \"$VPANEL\")"
wait_until 10 sh -c "[ \$(grep -c 'wl_seat\] capabilities: .*touch' $W) -gt $caps ]"
sleep 0.5
mark $W; mt_down $P2 0 42 400 240; wait_for_down
stop_daemon
settle $W
report "weston+evroute" "evroute stopped with a finger down" $W
check "stop: the touch down in the client ended" "$(count_touch $W down)/$(touches_left_down $W)" = 1/0
mt_up $P2 0
stop_weston

note "what the client (wev) got, per compositor and case:"
sed 's/^/    /' cases.txt
finish "weston 10 (DRM, pixman, kiosk shell) + wev, scenario $(since "$T0")s"
