#!/bin/sh
# vm/derive-single-touch.sh — derive a single-touch recording from a
# multi-touch one, for the VM image (no single-touch recording is shared).
#
#   vm/derive-single-touch.sh SRC.events OUT.events
#
# SRC must carry its description (N: I: P: B: A: lines; evemu-record writes
# them) or have a sibling NAME.desc (NAME.what.events -> NAME.desc). OUT gets:
#   - the description without the multi-touch axes: every A: line for
#     ABS_MT_* (codes 0x2f..0x3f) dropped, and those bits cleared in the
#     B: 03 (EV_ABS) mask; the name gets " single-touch" appended;
#   - the E: lines without ABS_MT_* events and without SYN_MT_REPORT; a frame
#     left empty (only its SYN_REPORT) is dropped.
# What remains is what a single-touch screen sends: ABS_X / ABS_Y + BTN_TOUCH.
# Only meaningful for one-finger recordings (ABS_X/ABS_Y follow one contact).
# Build-time only: build-initramfs.sh writes OUT into the image, never into
# the repo (the "# rec-single-touch: SUBDIR/FILE" lines of a scenario).
set -eu
[ $# = 2 ] || { echo "usage: $0 SRC.events OUT.events" >&2; exit 2; }
src=$1 out=$2
desc=$src
if ! grep -q '^N: ' "$src"; then
	base=$(basename "$src"); desc=$(dirname "$src")/${base%%.*}.desc
	[ -f "$desc" ] || { echo "$0: $src has no description and there is no $desc" >&2; exit 1; }
fi
{
	echo "# EVEMU 1.3"
	echo "# derived by vm/derive-single-touch.sh from $(basename "$src"): ABS_MT_* and SYN_MT_REPORT removed"
	awk '
	function hex(s,   i, c, v) { v = 0; s = tolower(s)
		for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
		return v }
	/^N: / { print $0 " single-touch"; next }
	/^A: / { if (hex($2) >= 47) next; print; next }
	/^B: 03 / {
		# bytes 0..7 = fields 3..10; ABS_MT_SLOT (0x2f) is bit 7 of byte 5,
		# 0x30..0x3f are bytes 6 and 7
		b5 = hex($8); if (b5 >= 128) b5 -= 128
		printf "B: 03 %s %s %s %s %s %02x 00 00\n", $3, $4, $5, $6, $7, b5; next }
	/^[IPB]: / { print }
	' "$desc"
	awk '
	function hex(s,   i, c, v) { v = 0; s = tolower(s)
		for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; v = v * 16 + c }
		return v }
	!/^E: / { next }
	$3 == "0003" && hex($4) >= 47 { next }          # ABS_MT_*
	$3 == "0000" && $4 == "0002" { next }           # SYN_MT_REPORT
	$3 == "0000" && $4 == "0000" { if (n) { printf "%s", frame; print $1, $2, $3, $4, $5 } frame = ""; n = 0; next }
	{ frame = frame $1 " " $2 " " $3 " " $4 " " $5 "\n"; n++ }
	' "$src"
} >"$out"
