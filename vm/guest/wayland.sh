# vm/guest/wayland.sh — what the Wayland scenarios (67-evroute-cage, 68-evroute-weston) share:
# reading what wev (the client) got, case by case, and the evemu input they play. Sourced
# after lib.sh (it uses note, fail, wait_until).

since() { awk -v a="$1" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }'; }

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

# evemu-play keeps a file's times when its first event is at 1 s or later
ev() { printf 'E: %s %s %s %04d\n' "$1" "$2" "$3" "$4"; }
# tap_file FILE X Y MS ID   one finger down at X,Y (device units), up MS ms later
tap_file() {
	t1=$(awk -v ms="$4" 'BEGIN { printf "%.6f", 1 + ms / 1000 }')
	{ ev 1.000000 0003 002f 0; ev 1.000000 0003 0039 "$5"; ev 1.000000 0003 0035 "$2"; ev 1.000000 0003 0036 "$3"
	  ev 1.000000 0001 014a 1; ev 1.000000 0003 0000 "$2"; ev 1.000000 0003 0001 "$3"; ev 1.000000 0000 0000 0
	  ev "$t1" 0003 002f 0; echo "E: $t1 0003 0039 -001"; ev "$t1" 0001 014a 0; ev "$t1" 0000 0000 0; } >"$1"
}
# swipe_file FILE ID   three fingers down at y=100 (x 300, 400, 500), 10 steps of 15 units
# down, 20 ms apart, lifted: 150 device units (more than the swipe's 50 display units) in 0.2 s
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
		t = 1.24
		for (s = 0; s < 3; s++) { e(t, "0003", "002f", s); e(t, "0003", "0039", -1) }
		e(t, "0001", "014a", 0); e(t, "0000", "0000", 0)
	}' >"$1"
}
play() { evemu-play "$1" <"$2" || fail "evemu-play $2 failed"; }
# settle FILE   wait until wev's output has stopped growing for 0.5 s (at most 6 s)
settle() {
	_i=0 _last=-1
	while [ $_i -lt 12 ]; do
		_now=$(wc -l <"$1"); [ "$_now" = "$_last" ] && break
		_last=$_now; sleep 0.5; _i=$((_i + 1))
	done
}

wait_for_down() { wait_until 5 sh -c "tail -n +$((MARK + 1)) $W | grep -q 'wl_touch\] down'"; }
