#!/bin/sh
# 66-evroute-calibrate — the `evroute calibrate`, live on a real kernel:
# a touchscreen (the Atmel panel's description through evemu-device) whose
# touches come turned 90° and scaled, as a panel mounted the wrong way round
# with a misaligned touch layer would send them. `evroute calibrate` with no
# --device finds the touchscreen itself (and not evroute's own devices), asks
# for the four corners, and the four taps are replayed through evdev. The
# matrix it prints must put every point of the display where the true one
# does, within 0.5 % of the display, and it must say the corners came turned.
# SKIP when the image has no evroute.
# timeout: 120
#
# rec: touchscreens/Atmel maXTouch Touchscreen.desc
. /vm/lib.sh

need evroute
evroute_has_command calibrate || skip "this evroute has no calibrate command"
DESC="$TS/Atmel maXTouch Touchscreen.desc"
# the truth: libinput's normalized convention, 90° clockwise with a scale and offset
TRUTH="0 -1.05 1.03 1.04 0 -0.02"

# four one-finger taps (protocol B), on the device points TRUTH takes to the corners top left,
# top right, bottom right, bottom left; a few samples each (±1 unit), 0.5 s apart
TAPS=taps.events
{
	grep -v '^E:' "$DESC"
	awk -v truth="$TRUTH" '
	function ev(t, ty, c, v) { printf "E: %.6f %s %s %d\n", t, ty, c, v }
	$1 == "A:" && $2 == "35" { xmin = $3; xmax = $4 }
	$1 == "A:" && $2 == "36" { ymin = $3; ymax = $4 }
	END {
		split(truth, m, " "); a = m[1]; b = m[2]; c = m[3]; d = m[4]; e = m[5]; f = m[6]
		det = a * e - b * d
		split("0 1 1 0", tx, " "); split("0 0 1 1", ty, " ")
		t = 0.5
		for (i = 1; i <= 4; i++) {
			cx = tx[i] - c; cy = ty[i] - f
			nx = (e * cx - b * cy) / det; ny = (a * cy - d * cx) / det
			x = int(nx * (xmax - xmin + 1) + xmin + 0.5); y = int(ny * (ymax - ymin + 1) + ymin + 0.5)
			if (x > xmax) x = xmax; if (y > ymax) y = ymax; if (x < xmin) x = xmin; if (y < ymin) y = ymin
			ev(t, "0003", "002f", 0); ev(t, "0003", "0039", i); ev(t, "0003", "0035", x); ev(t, "0003", "0036", y)
			ev(t, "0001", "014a", 1); ev(t, "0003", "0000", x); ev(t, "0003", "0001", y); ev(t, "0000", "0000", 0)
			for (s = 1; s <= 3; s++) {
				t += 0.01; w = (s == 1) ? 1 : (s == 2 ? -1 : 0)
				ev(t, "0003", "0035", x + w); ev(t, "0003", "0036", y - w); ev(t, "0003", "0000", x + w); ev(t, "0003", "0001", y - w); ev(t, "0000", "0000", 0)
			}
			t += 0.01
			ev(t, "0003", "0039", -1); ev(t, "0001", "014a", 0); ev(t, "0000", "0000", 0)
			t += 0.5
		}
	}' "$DESC"
} >"$TAPS"
check "four corner taps synthesized" "$(rec_touch_downs "$TAPS")" -eq 4

create_device "$DESC"
evroute calibrate >calibrate.out 2>calibrate.err &
CAL=$!
wait_until 10 grep -q 'reading /dev/input' calibrate.out
check "calibrate reads the touchscreen it found ($DEVNODE)" "$(grep -c "reading $DEVNODE" calibrate.out)" -eq 1
replay "$DEVNODE" "$TAPS"
i=0; while ! _gone "$CAL" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
_gone "$CAL" || { kill "$CAL"; fail "calibrate did not finish after the four taps: $(cat calibrate.out calibrate.err)"; }
wait "$CAL"; rc=$?
remove_device
sed 's/^/    /' calibrate.out
check "calibrate exit status" "$rc" -eq 0
for corner in "top left" "top right" "bottom right" "bottom left"; do
	check "asks for the $corner corner" "$(grep -c "$corner corner" calibrate.out)" -ge 1
done
check "says the corners came turned 90°" "$(grep -c 'turns the touches 90° clockwise' calibrate.out)" -eq 1
check "prints the device rule's calibration" "$(grep -c 'calibration: \[' calibrate.out)" -eq 1
printed=$(sed -n 's/.*LIBINPUT_CALIBRATION_MATRIX}="\([^"]*\)".*/\1/p' calibrate.out)
check "prints the udev rule" "$(echo "$printed" | wc -w)" -eq 6
# the printed matrix against the truth, at the corners, the middle and one more point
worst=$(awk -v p="$printed" -v q="$TRUTH" 'BEGIN {
	split(p, m, " "); split(q, n, " "); worst = 0
	split("0 1 1 0 0.5 0.25", xs, " "); split("0 0 1 1 0.5 0.75", ys, " ")
	for (i = 1; i <= 6; i++) {
		x = xs[i]; y = ys[i]
		dx = (m[1] * x + m[2] * y + m[3]) - (n[1] * x + n[2] * y + n[3])
		dy = (m[4] * x + m[5] * y + m[6]) - (n[4] * x + n[5] * y + n[6])
		if (dx < 0) dx = -dx; if (dy < 0) dy = -dy
		if (dx > worst) worst = dx; if (dy > worst) worst = dy
	}
	printf "%.5f", worst }')
check "the printed matrix maps the display as the true one does (worst $worst of the display, limit 0.005)" "$(awk -v w="$worst" 'BEGIN { print (w < 0.005) ? 1 : 0 }')" -eq 1
finish "live calibrate: 4 corner taps through evdev, matrix recovered within $worst of the display, 90° turn said"
