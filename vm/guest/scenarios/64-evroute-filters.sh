#!/bin/sh
# 64-evroute-filters — contact filters on a real kernel, with forwarding on: a
# noisy panel replayed through real evdev into the daemon, which forwards what
# its filters let through to its virtual device, read by libinput as a
# compositor would. The noisy recording is made here from two real Atmel
# recordings (2 fingers touch-release, 4-finger drag) plus, on the same panel:
#   - ghost taps every 0.5 s at one fixed point (97.6 %, 4.2 %): one frame
#     down, lifted in the next frame with no wait (evemu-play writes the two
#     back to back: the kernel stamps them apart only by the writer's own
#     scheduling, far below the filter's bound even on a loaded host — a lift
#     the recording delayed was slept for by evemu-play, and a sleep stretched
#     by load stamped a real lift past the bound: a contact that long is no
#     ghost by its own times, and the daemon rightly let it through);
#   - a finger resting 1 s at (50 %, 50 %) with ±2 raw units of jitter every 10 ms;
#   - a finger that moves, then turns MT_TOOL_PALM, then lifts.
# 1. control: the same replay through config/forward.yaml (no filters):
#    libinput sees the ghost downs and the jitter motions (so 2. can fail)
# 2. config/filters.yaml (ghost-taps 150 ms, jitter 4, palm): libinput on the
#    virtual device sees 0 ghost downs, 0 motions of the resting finger, the
#    palm cancelled (TOUCH_CANCEL), and every real contact (down and up)
# 3. the dry-run trace of the same file: one `filtered` line per ghost tap
#    ("filter":"ghost-tap") and one for the palm ("filter":"palm")
# 4. a finger put down and held perfectly still (the device sends no further
#    frame): the held contact is delivered when the ghost-taps bound runs out,
#    on the daemon's timer — libinput sees TOUCH_DOWN before the finger lifts
# SKIP when the image has no evroute or libinput.
# timeout: 180
# weight: 17
#
# rec: touchscreens/Atmel maXTouch Touchscreen.desc
# rec: touchscreens/Atmel maXTouch Touchscreen.2-fingers-touch-release.events
# rec: touchscreens/Atmel maXTouch Touchscreen.4-finger-drag-down.events
. /vm/lib.sh

need evroute libinput
DESC="$TS/Atmel maXTouch Touchscreen.desc"
REC1="$TS/Atmel maXTouch Touchscreen.2-fingers-touch-release.events"
REC2="$TS/Atmel maXTouch Touchscreen.4-finger-drag-down.events"


# the noise, as E: lines with absolute times (after both recordings, which take 0–0.82 s and 1.2–1.77 s)
synth_noise() {
	awk 'function ev(t, ty, c, v) { printf "E: %.6f %s %s %d\n", t, ty, c, v }
	function syn(t) { ev(t, "0000", "0000", 0) }
	BEGIN {
		# the resting finger: slot 5, id 500, at raw (400, 240), x jittering 400 402 400 398 ...
		t = 2.0
		ev(t, "0003", "002f", 5); ev(t, "0003", "0039", 500); ev(t, "0003", "0035", 400); ev(t, "0003", "0036", 240)
		ev(t, "0001", "014a", 1); ev(t, "0003", "0000", 400); ev(t, "0003", "0001", 240); syn(t)
		split("0 2 0 -2", d, " ")
		for (i = 1; i < 100; i++) {
			t = 2.0 + i * 0.01
			ev(t, "0003", "002f", 5); ev(t, "0003", "0035", 400 + d[i % 4 + 1]); ev(t, "0003", "0000", 400 + d[i % 4 + 1]); syn(t)
		}
		t = 3.0
		ev(t, "0003", "002f", 5); ev(t, "0003", "0039", -1); ev(t, "0001", "014a", 0); syn(t)
		# the palm: slot 6, id 501, from raw (200, 100) moving right 3 units per 10 ms; MT_TOOL_PALM at 3.5 s
		t = 3.3; x = 200
		ev(t, "0003", "002f", 6); ev(t, "0003", "0039", 501); ev(t, "0003", "0035", x); ev(t, "0003", "0036", 100)
		ev(t, "0001", "014a", 1); ev(t, "0003", "0000", x); ev(t, "0003", "0001", 100); syn(t)
		for (i = 1; i <= 25; i++) {
			t = 3.3 + i * 0.01; x += 3
			ev(t, "0003", "002f", 6)
			if (i == 20) ev(t, "0003", "0037", 2)
			ev(t, "0003", "0035", x); ev(t, "0003", "0000", x); syn(t)
		}
		t = 3.6
		ev(t, "0003", "002f", 6); ev(t, "0003", "0037", 0); ev(t, "0003", "0039", -1); ev(t, "0001", "014a", 0); syn(t)
	}'
}

# with_ghosts   E: lines in, the same with a ghost tap every 0.5 s (from 0.25 s) at a frame
# boundary: slot 9, ids from 900, at raw (780, 20), lifted in the next frame; the slot in use is
# restored after each ghost frame, and later events move 10 ms on when they would overlap
with_ghosts() {
	awk 'function ev(t, ty, c, v) { printf "E: %.6f %s %s %d\n", t, ty, c, v }
	BEGIN { off = 0; nextg = 0.25; id = 900; slot = 0; boundary = 1; last = 0 }
	/^E:/ {
		t = $2 + off
		if (boundary && t >= nextg) {
			g = nextg > last ? nextg : last
			ev(g, "0003", "002f", 9); ev(g, "0003", "0039", id++); ev(g, "0003", "0035", 780); ev(g, "0003", "0036", 20)
			ev(g, "0003", "002f", slot); ev(g, "0000", "0000", 0)
			ev(g, "0003", "002f", 9); ev(g, "0003", "0039", -1)
			ev(g, "0003", "002f", slot); ev(g, "0000", "0000", 0)
			if (t < g + 0.010) { off += g + 0.010 - t; t = g + 0.010 }
			nextg += 0.5
		}
		if ($3 == "0003" && $4 == "002f") slot = $5 + 0
		printf "E: %.6f %s %s %d\n", t, $3, $4, $5
		boundary = ($3 == "0000" && $4 == "0000"); last = t
	}'
}

NOISY=noisy.events
{
	grep -v '^E:' "$DESC"
	{
		awk '/^E:/ { printf "E: %.6f %s %s %d\n", $2, $3, $4, $5 }' "$REC1"
		awk '/^E:/ { printf "E: %.6f %s %s %d\n", $2 + 1.2, $3, $4, $5 }' "$REC2"
		synth_noise
	} | with_ghosts
} >"$NOISY"
ghosts=$(rec_count "$NOISY" 0003 0039 "v >= 900")
real=$(( $(rec_touch_downs "$REC1") + $(rec_touch_downs "$REC2") ))
note "noisy recording: $(rec_events "$NOISY") events, $real real contacts, $ghosts ghost taps, a resting finger, a palm"
check "the noisy recording has ghost taps (every 0.5 s)" "$ghosts" -ge 5

# where: libinput's percent positions, "X/Y" ($6 of its touch lines)
# ghosts at 97.6/4.2, the resting finger at 50.1/50.1, the palm from 25.0/20.9
at_ghost() { awk -v k="$2" '$2 == k { split($6, p, "/"); if (p[1] > 96 && p[2] < 6) n++ } END { print n + 0 }' "$1"; }
at_rest() { awk -v k="$2" '$2 == k { split($6, p, "/"); if (p[1] > 49 && p[1] < 51.5 && p[2] > 49 && p[2] < 51) n++ } END { print n + 0 }' "$1"; }
lines() { count_lines "$1" "$2"; }

# run NAME CONFIG   the noisy replay through the daemon; libinput on its virtual device in NAME.out
run() {
	create_device "$DESC"
	start_daemon "$DEVNODE" "$2"
	wait_until 10 test -n "\$(virtual_node \"$DEVNAME (evroute)\")"
	vnode=$(virtual_node "$DEVNAME (evroute)")
	[ -n "$vnode" ] || { stop_daemon; remove_device; fail "$1: no virtual device: $(tail -n 3 daemon.log)"; }
	udevadm settle --timeout=10
	start_reader "$1" "$vnode" libinput debug-events --device "$vnode"
	replay "$DEVNODE" "$NOISY"
	sleep 1
	stop_reader "$1"
	stop_daemon
	cp daemon.log "$1.daemon.log"
	remove_device
}

# 1. control
run control /vm/config/forward.yaml
check "control: libinput sees the ghost taps without filters ($(at_ghost control.out TOUCH_DOWN) downs)" "$(at_ghost control.out TOUCH_DOWN)" -ge 1
check "control: libinput sees the resting finger's jitter without filters ($(at_rest control.out TOUCH_MOTION) motions)" "$(at_rest control.out TOUCH_MOTION)" -ge 1

# 2. filtered
run filtered /vm/config/filters.yaml
downs=$(lines filtered.out TOUCH_DOWN)
check "filters: no ghost tap reaches libinput" "$(at_ghost filtered.out TOUCH_DOWN)" -eq 0
check "filters: the resting finger reaches libinput (1 down)" "$(at_rest filtered.out TOUCH_DOWN)" -eq 1
check "filters: none of its jitter does (0 motions at rest)" "$(at_rest filtered.out TOUCH_MOTION)" -eq 0
check "filters: the palm is cancelled (1 TOUCH_CANCEL)" "$(lines filtered.out TOUCH_CANCEL)" -eq 1
check "filters: every real contact arrives ($real real + the resting finger + the palm = $downs downs)" "$downs" -eq $((real + 2))
check "filters: every real contact ends (TOUCH_UP + TOUCH_CANCEL = downs)" "$(( $(lines filtered.out TOUCH_UP) + $(lines filtered.out TOUCH_CANCEL) ))" -eq "$downs"
[ "$downs" -eq $((real + 2)) ] || { note "libinput:"; grep TOUCH_ filtered.out | head -n 30 | sed 's/^/    /'; }

# 3. what the filters did is visible in the trace
evroute --dry-run --config /vm/config/filters.yaml --replay "$NOISY" --format json >trace.json 2>trace.err ||
	note "evroute --replay exited $?: $(tail -n 3 trace.err)"
check "trace: one filtered ghost-tap line per ghost tap ($ghosts)" "$(json_count trace.json type filtered filter ghost-tap)" -eq "$ghosts"
check "trace: one filtered palm line" "$(json_count trace.json type filtered filter palm)" -eq 1
check "trace: filtered lines are not routed (no handler)" "$(grep '"filtered"' trace.json | grep -c '"handler"')" -eq 0

# 4. held still: no frame after the down, yet it is delivered at the bound (the session's deadline)
create_device "$DESC"
start_daemon "$DEVNODE" /vm/config/filters.yaml
wait_until 10 test -n "\$(virtual_node \"$DEVNAME (evroute)\")"
vnode=$(virtual_node "$DEVNAME (evroute)")
udevadm settle --timeout=10
start_reader still "$vnode" libinput debug-events --device "$vnode"
mt_down "$DEVNODE" 0 600 100 400
wait_until 5 _has_lines still.out TOUCH_DOWN 1
check "held still: delivered at the bound with no further frame (TOUCH_DOWN before the lift)" "$(lines still.out TOUCH_DOWN)/$(lines still.out TOUCH_UP)" = 1/0
mt_up "$DEVNODE" 0
wait_until 5 _has_lines still.out TOUCH_UP 1
check "held still: it lifts (TOUCH_UP)" "$(lines still.out TOUCH_UP)" -eq 1
stop_reader still
stop_daemon
remove_device
finish "noisy panel: $ghosts ghost taps and the jitter dropped, the palm cancelled, $real real contacts forwarded"
