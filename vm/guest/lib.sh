# vm/guest/lib.sh — helpers for the guest scenario scripts (busybox sh).
#
# A scenario is a shell script in vm/guest/scenarios/NN-name.sh that starts
# with `. /vm/lib.sh`, declares the recordings it needs with `# rec: SUBDIR/FILE`
# comment lines (build-initramfs.sh copies those to /rec/SUBDIR/FILE), and ends
# by calling exactly one of: pass / fail / skip / finish.
# It runs in its own work directory /tmp/work/NAME; every reader's output
# stays there (`vm/run.sh --shell` lets you look at it after the run).
#
# Result line on the console: EVROUTE-VM RESULT <scenario> PASS|FAIL|SKIP <detail>

SCENARIO=${EVROUTE_VM_SCENARIO:-$(basename "$0" .sh)}
RESULT_FILE=${EVROUTE_VM_RESULT:-/tmp/result.$SCENARIO}
REC=/rec
TS=$REC/touchscreens
KB=$REC/keyboards
_bg_pids=""
_failures=""
_checks=0

# ---------------------------------------------------------------- reporting

# note MSG...          a log line, prefixed with the scenario name
note() { echo "[$SCENARIO $(cut -d' ' -f1 /proc/uptime)] $*"; }

_report() {
	_status=$1; shift
	if [ -s "$RESULT_FILE" ]; then note "(already reported; ignoring $_status $*)"; return; fi
	echo "EVROUTE-VM RESULT $SCENARIO $_status $*" | tee "$RESULT_FILE"
}
# pass DETAIL / fail DETAIL / skip REASON   report and end the scenario
pass() { _report PASS "$@"; exit 0; }
fail() { _report FAIL "$@"; exit 1; }
skip() { _report SKIP "$@"; exit 0; }

# check NAME ACTUAL OP EXPECTED   one assertion (OP: = != -eq -ne -ge -le -gt -lt);
# failures are collected and reported by finish
check() {
	_checks=$((_checks + 1))
	if [ "$2" "$3" "$4" ] 2>/dev/null; then
		note "ok   $1: $2 $3 $4"
	else
		note "FAIL $1: got '$2', want $3 '$4'"
		_failures="$_failures${_failures:+; }$1: got $2 want $3 $4"
	fi
}
# finish [DETAIL]   PASS if every check held, else FAIL listing the failed ones
finish() {
	if [ -z "$_failures" ]; then pass "$_checks checks${1:+, $1}"; else fail "$_failures"; fi
}
# need CMD...        skip the scenario unless these commands exist
need() {
	for _c in "$@"; do command -v "$_c" >/dev/null || skip "$_c not in the image"; done
}

# ---------------------------------------------------------------- processes

_cleanup() {
	for _p in $_bg_pids; do kill "$_p" 2>/dev/null; done
	for _p in $_bg_pids; do wait "$_p" 2>/dev/null; done
	_bg_pids=""
}
trap _cleanup EXIT
trap '_cleanup; exit 143' TERM INT

# wait_until SECONDS CMD...   run CMD until it succeeds; 1 on timeout. It looks every 0.05 s
# for the first half second, then every 0.2 s: a look forks (a command substitution, grep), and
# under the emulator each fork costs the host real CPU, so a long wait looking 20 times a second
# kept the VM busy while it only waited. The time slept adds up to SECONDS either way (looking
# takes time on top).
wait_until() {
	_n=$(($1 * 20)); shift
	_looks=0
	while [ $_n -gt 0 ]; do
		"$@" 2>/dev/null && return 0
		if [ $_looks -lt 10 ]; then
			sleep 0.05; _n=$((_n - 1)); _looks=$((_looks + 1))
		else
			sleep 0.2; _n=$((_n - 4))
		fi
	done
	return 1
}

# has_open PID PATH   does process PID have PATH open (its /proc/PID/fd links)?
has_open() {
	for _fd in /proc/"$1"/fd/*; do
		[ "$(readlink "$_fd")" = "$2" ] && return 0
	done
	return 1
}

# ---------------------------------------------------------------- devices

# create_device DESC   create a uinput device from an evemu description (a
# .desc, or an .events file that carries one) with evemu-device, wait for its
# /dev/input/eventN node and for udev to have processed it.
# Sets DEVNODE (/dev/input/eventN), DEVPID (evemu-device, holding the device),
# DEVNAME (the N: line). The device goes away when the scenario ends, or with
# remove_device.
create_device() {
	DEVNAME=$(sed -n 's/^N: //p' "$1" | head -n1)
	_devn=$((${_devn:-0} + 1))
	_out=evemu-device.$_devn.out
	evemu-device "$1" >"$_out" 2>&1 &
	DEVPID=$!
	_bg_pids="$_bg_pids $DEVPID"
	# evemu-device prints "NAME: /dev/input/eventN" once the node exists
	wait_until 10 grep -q '/dev/input/event' "$_out" ||
		fail "evemu-device $1 did not create a device: $(cat "$_out")"
	DEVNODE=$(grep -o '/dev/input/event[0-9]*' "$_out" | head -n1)
	wait_until 10 test -c "$DEVNODE" || fail "$DEVNODE did not appear"
	udevadm settle --timeout=10
	wait_until 10 udev_has "$DEVNODE" ID_INPUT 1 || note "warning: udev did not tag $DEVNODE ID_INPUT=1"
	note "device '$DEVNAME' at $DEVNODE (evemu-device pid $DEVPID)"
}

# remove_device [PID]   unplug: end the evemu-device holding it (default $DEVPID)
remove_device() {
	kill "${1:-$DEVPID}" 2>/dev/null; wait "${1:-$DEVPID}" 2>/dev/null
	udevadm settle --timeout=10
}

# udev_prop NODE PROP   a property from the udev database (empty if unset)
udev_prop() {
	udevadm info --query=property --name="$1" 2>/dev/null | sed -n "s/^$2=//p"
}
# udev_has NODE PROP VALUE
udev_has() { [ "$(udev_prop "$1" "$2")" = "$3" ]; }

# ---------------------------------------------------------------- readers

# reader_var NAME   NAME as a shell variable name part (evroute-daemon -> evroute_daemon)
reader_var() { echo "$1" | tr -c 'A-Za-z0-9\n' _; }
# reader_pid NAME   the pid of the reader started as NAME
reader_pid() { eval "echo \$_reader_$(reader_var "$1")"; }

# start_reader NAME DEVNODE CMD...   run CMD in the background with output in
# NAME.out (stdout+stderr, line-buffered through stdbuf so the file grows as
# events arrive), and wait until it is ready: until it has DEVNODE open (any
# evdev reader; events the kernel delivers after that are queued for it), or
# — with DEVNODE "-" — 1 s. Sets READER_PID; stop_reader NAME stops it.
start_reader() {
	_name=$1 _node=$2; shift 2
	stdbuf -oL -eL "$@" >"$_name.out" 2>&1 &
	READER_PID=$!
	_bg_pids="$_bg_pids $READER_PID"
	eval "_reader_$(reader_var "$_name")=$READER_PID"
	if [ "$_node" = - ]; then
		sleep 1
	else
		wait_until 15 _open_or_gone "$READER_PID" "$_node" && ! _gone "$READER_PID" ||
			fail "reader $_name ($*) did not open $_node: $(tail -n 5 "$_name.out")"
	fi
	kill -0 "$READER_PID" 2>/dev/null || fail "reader $_name exited early: $(tail -n 5 "$_name.out")"
	note "reader $_name ready (pid $READER_PID): $*"
}

# stop_reader NAME   stop it: SIGINT (most readers flush and exit), then
# SIGTERM, then SIGKILL — evtest, for one, sits in read(2) through SIGINT.
# Output was line-buffered, so nothing is lost either way.
stop_reader() {
	_p=$(reader_pid "$1")
	for _sig in INT TERM KILL; do
		kill -$_sig "$_p" 2>/dev/null || break
		wait_until 1 _gone "$_p" && break
	done
	wait "$_p" 2>/dev/null
	note "reader $1 stopped"
	return 0
}
# _open_or_gone PID PATH   has PATH open, or has exited (stop waiting either way)
_open_or_gone() { has_open "$1" "$2" || _gone "$1"; }
# _gone PID   the process has exited (it may still be a zombie of ours)
_gone() { [ ! -r /proc/$1/stat ] || [ "$(cut -d' ' -f3 /proc/$1/stat 2>/dev/null)" = Z ]; }

# wait_lines FILE PATTERN N [SECONDS]   wait until FILE has >= N lines matching
# PATTERN (grep -E); then a 0.3 s grace so extra lines would show up too
wait_lines() {
	wait_until "${4:-10}" _has_lines "$1" "$2" "$3" ||
		note "wait_lines: only $(count_lines "$1" "$2") of $3 '$2' lines in $1 after ${4:-10}s"
	sleep 0.3
}
_has_lines() { [ "$(count_lines "$1" "$2")" -ge "$3" ]; }

# count_lines FILE PATTERN   lines matching PATTERN (grep -E)
count_lines() { grep -cE "$2" "$1" 2>/dev/null || true; }

# ---------------------------------------------------------------- recordings

# replay DEVNODE FILE   play the E: lines of an evemu recording into the
# device with their recorded timing (evemu-play)
replay() {
	note "replaying $(basename "$2") ($(rec_events "$2") events) into $1"
	evemu-play "$1" <"$2" || fail "evemu-play $2 failed"
	note "replay done"
}

# rec_events FILE         number of E: lines
rec_events() { grep -c '^E:' "$1"; }
# rec_prefix FILE EVENTS   the recording (its description, then its E: lines) up to the first
# frame at or after EVENTS events that ends with no protocol B contact down: a shorter replay
# of the same panel that still begins and ends every touch it has
rec_prefix() {
	awk -v max="$2" 'BEGIN { slot = 0 }
		!/^E:/ { print; next }
		{ print; n++ }
		$3 == "0003" && $4 == "002f" { slot = $5 + 0 }
		$3 == "0003" && $4 == "0039" {
			if ($5 + 0 >= 0) { if (!(slot in down)) active++; down[slot] = 1 }
			else if (slot in down) { active--; delete down[slot] } }
		$3 == "0000" && $4 == "0000" && n >= max && active == 0 { exit }' "$1"
}
# key_events STEP KEY...   E: lines for evemu-play (stdout) pressing keys STEP seconds apart,
# each event a frame: KEY is a key code (decimal) pressed and released, +CODE only pressed,
# -CODE only released. One file played at its own pace: a process per key (emit) would start
# slowly on a busy host and open gaps a scanner's line timeout or the kernel's repeat would see.
key_events() {
	_step=$1; shift
	echo "$*" | awk -v step="$_step" '
		function e(c, v) { printf "E: %.6f 0001 %04x %04d\nE: %.6f 0000 0000 0000\n", t, c, v, t; t += step }
		{ t = 1
		  for (i = 1; i <= NF; i++) {
			k = $i
			if (k ~ /^\+/) e(substr(k, 2) + 0, 1); else if (k ~ /^-/) e(substr(k, 2) + 0, 0); else { e(k + 0, 1); e(k + 0, 0) } } }'
}
# digit_codes DIGITS   the key codes of a string of digits (KEY_1…KEY_9 are 2…10, KEY_0 11)
digit_codes() {
	echo "$1" | sed 's/./& /g' | awk '{ for (i = 1; i <= NF; i++) printf "%s%d", (i > 1 ? " " : ""), ($i == "0" ? 11 : $i + 1) }'
}
# rec_count FILE TYPE CODE CMP   E: lines with this type/code (hex, 4 digits)
# whose value satisfies the awk comparison CMP on v, e.g. "v >= 0"
rec_count() {
	awk -v t="$2" -v c="$3" "/^E:/ && \$3 == t && \$4 == c { v = \$5 + 0; if ($4) n++ } END { print n + 0 }" "$1"
}
# rec_touch_downs FILE / rec_touch_ups FILE   protocol B contacts: tracking
# ids assigned (ABS_MT_TRACKING_ID >= 0) and released (-1)
rec_touch_downs() { rec_count "$1" 0003 0039 "v >= 0"; }
rec_touch_ups() { rec_count "$1" 0003 0039 "v < 0"; }

# rec_burst FILE [TIMES]   the E: lines of FILE with every timestamp zeroed,
# TIMES times over (default 1): evemu-play then writes them as fast as it can
rec_burst() {
	_i=0
	while [ $_i -lt "${2:-1}" ]; do
		awk '/^E:/ { print "E: 0.000000", $3, $4, $5 }' "$1"
		_i=$((_i + 1))
	done
}

# ---------------------------------------------------------------- synthetic input

# emit DEVNODE TYPE CODE VALUE [sync]   write one event with evemu-event
# (names as in linux/input-event-codes.h, e.g. EV_ABS ABS_MT_SLOT 0);
# with "sync", a SYN_REPORT follows
emit() {
	evemu-event ${5:+--sync} "$1" --type "$2" --code "$3" --value "$4"
}
# no_key_repeat DEVNODE   the kernel's autorepeat off for an emulated keyboard that types at a
# scanner's speed (its repeat period 0). Its key events come from a process (evemu-play): on a busy
# host that process can be descheduled between a press and its release for longer than the
# repeat delay, and the kernel would repeat the key — as a scanner's hardware never would.
no_key_repeat() { emit "$1" EV_REP REP_PERIOD 0 sync; }
# mt_down DEVNODE SLOT TRACKING_ID X Y   protocol B contact begins (one frame)
mt_down() {
	emit "$1" EV_ABS ABS_MT_SLOT "$2"
	emit "$1" EV_ABS ABS_MT_TRACKING_ID "$3"
	emit "$1" EV_ABS ABS_MT_POSITION_X "$4"
	emit "$1" EV_ABS ABS_MT_POSITION_Y "$5"
	emit "$1" EV_KEY BTN_TOUCH 1
	emit "$1" EV_ABS ABS_X "$4"
	emit "$1" EV_ABS ABS_Y "$5" sync
}
# mt_up DEVNODE SLOT   the contact in SLOT ends (one frame; BTN_TOUCH 0 —
# right when it was the last contact)
mt_up() {
	emit "$1" EV_ABS ABS_MT_SLOT "$2"
	emit "$1" EV_ABS ABS_MT_TRACKING_ID -1
	emit "$1" EV_KEY BTN_TOUCH 0 sync
}

# ---------------------------------------------------------------- evroute

# evroute_has_command CMD   does the evroute in the image know this subcommand?
evroute_has_command() {
	command -v evroute >/dev/null || return 1
	evroute --help 2>&1 | grep -qw -- "$1"
}
# evroute_has_option OPT   does `evroute --help` or `evroute route --help`
# (the default command) mention this option (e.g. --dry-run)?
evroute_has_option() {
	command -v evroute >/dev/null || return 1
	{ evroute --help; evroute route --help; } 2>&1 | grep -q -- "$1"
}

# touch_lifecycles FILE   from evroute's JSON touch lines, one line per touch
# id: "ID began=N ended=N cancelled=N" — every touch should be 1 / 1+0 or 0+1
touch_lifecycles() {
	awk '/"type" *: *"touch"/ {
		if (!match($0, /"touch" *: *[0-9]+/)) next
		t = substr($0, RSTART, RLENGTH); sub(/.*: */, "", t)
		if (!match($0, /"phase" *: *"[a-z]+"/)) next
		p = substr($0, RSTART, RLENGTH); sub(/.*: *"/, "", p); sub(/"$/, "", p)
		n[t "," p]++; seen[t] = 1
	}
	END { for (t in seen) printf "%s began=%d ended=%d cancelled=%d\n", t, n[t ",began"], n[t ",ended"], n[t ",cancelled"] }' "$1" | sort -n
}
# touches_unbalanced FILE   the touch ids of touch_lifecycles that did not
# begin once and end exactly once (ended or cancelled)
touches_unbalanced() {
	touch_lifecycles "$1" | awk '{ split($2, b, "="); split($3, e, "="); split($4, c, "=")
		if (b[2] != 1 || e[2] + c[2] != 1) printf "%s%s", (k++ ? " " : ""), $1 } END { print "" }'
}

# json_count FILE KEY VALUE [KEY VALUE]...   JSON lines in FILE that have
# every "KEY":"VALUE" pair (string values; any spacing around the colon)
json_count() {
	_f=$1; shift
	_cmd="cat '$_f'"
	while [ $# -ge 2 ]; do
		_cmd="$_cmd | grep -E '\"$1\" *: *\"$2\"'"
		shift 2
	done
	eval "$_cmd" | wc -l
}

# touch_trace FILE   evroute's JSON touch lines in a comparable form, one per
# line: touch id, phase, x and y to 0.01, region, handled_by, handler
# (time dropped: kernel time differs from recording time)
touch_trace() {
	awk '/"type" *: *"touch"/ {
		out = ""
		n = split("touch phase x y region handled_by handler", keys, " ")
		for (i = 1; i <= n; i++) {
			v = "-"
			if (match($0, "\"" keys[i] "\" *: *(\"[^\"]*\"|[-0-9.e+]+|null)")) {
				v = substr($0, RSTART, RLENGTH); sub(/^"[a-z_]+" *: */, "", v)
				if (keys[i] == "x" || keys[i] == "y") v = sprintf("%.2f", v)
			}
			out = out (i > 1 ? " " : "") keys[i] "=" v
		}
		print out
	}' "$1"
}
# touch_ends FILE   touches that ended or were cancelled in an evroute JSON trace
touch_ends() { count_lines "$1" '"phase" *: *"(ended|cancelled)"'; }

# live_and_file_traces NAME DESC EVENTS CONFIG [READER CMD...]   route EVENTS
# two ways with CONFIG: `evroute --dry-run --replay EVENTS` (NAME.file.json)
# and live: a device from DESC, evroute --dry-run reading it (NAME.live.out)
# while evemu-play replays EVENTS; touch_trace of both in NAME.file.trace and
# NAME.live.trace. An extra reader given after CONFIG (READER CMD..., the
# device node appended: `evtest evtest`, `libinput libinput debug-events
# --device`) runs on the node too, its output in NAME.READER.out.
live_and_file_traces() {
	_lf=$1 _desc=$2 _ev=$3 _cfg=$4; shift 4
	evroute --config "$_cfg" --dry-run --replay "$_ev" --format json >"$_lf.file.json" 2>"$_lf.file.err" ||
		note "evroute --replay $_ev exited $?: $(tail -n 3 "$_lf.file.err")"
	create_device "$_desc"
	start_reader "$_lf.live" "$DEVNODE" evroute --config "$_cfg" --dry-run --format json
	wait_lines "$_lf.live.out" '"device-added"' 1 10
	if [ $# -gt 0 ]; then _rd=$1; shift; start_reader "$_lf.$_rd" "$DEVNODE" "$@" "$DEVNODE"; fi
	replay "$DEVNODE" "$_ev"
	wait_lines "$_lf.live.out" '"phase" *: *"(ended|cancelled)"' "$(touch_ends "$_lf.file.json")" 10
	[ -n "${_rd:-}" ] && { sleep 0.5; stop_reader "$_lf.$_rd"; }
	stop_reader "$_lf.live"
	remove_device
	touch_trace "$_lf.file.json" >"$_lf.file.trace"
	touch_trace "$_lf.live.out" >"$_lf.live.trace"
	_rd=""
}

# start_daemon NODE CONFIG [ARGS...]   the evroute daemon (not a dry run) with
# CONFIG and the control socket $CTL (default /tmp/evroute-ctl.sock), output
# in daemon.log; waits until it has NODE open and has logged "ready". Sets
# DAEMON_PID. A daemon that exits early fails the scenario.
start_daemon() {
	_node=$1 _cfg=$2; shift 2
	CTL=${CTL:-/tmp/evroute-ctl.sock}
	evroute --config "$_cfg" --control-socket "$CTL" "$@" >daemon.log 2>&1 &
	DAEMON_PID=$!
	_bg_pids="$_bg_pids $DAEMON_PID"
	wait_until 15 _open_or_gone "$DAEMON_PID" "$_node"
	_gone "$DAEMON_PID" && fail "evroute daemon exited: $(tail -n 3 daemon.log)"
	has_open "$DAEMON_PID" "$_node" || fail "evroute daemon did not open $_node: $(tail -n 3 daemon.log)"
	wait_lines daemon.log 'ready' 1 10
	note "evroute daemon ready (pid $DAEMON_PID), $_cfg, control socket $CTL"
}
# stop_daemon [SIGNAL]   signal the daemon (default TERM), wait up to 10 s for
# it to exit; sets DAEMON_STATUS (its exit status, or "running")
stop_daemon() {
	kill -"${1:-TERM}" "$DAEMON_PID" 2>/dev/null
	if wait_until 10 _gone "$DAEMON_PID"; then
		wait "$DAEMON_PID"; DAEMON_STATUS=$?
	else
		DAEMON_STATUS=running; kill -KILL "$DAEMON_PID" 2>/dev/null
	fi
	note "daemon stopped: status $DAEMON_STATUS"
}
# start_client NAME SOCKET [vm-unix options]   a socket-plugin client
# (vm-unix, the image's Unix-socket client) writing what it receives to
# NAME.out; waits until it is connected. Sets CLIENT_PID.
start_client() {
	_name=$1 _sock=$2; shift 2
	vm-unix -w 10 "$@" "$_sock" >"$_name.out" 2>"$_name.err" &
	CLIENT_PID=$!
	_bg_pids="$_bg_pids $CLIENT_PID"
	wait_until 12 grep -q connected "$_name.err" || fail "client $_name did not connect to $_sock: $(cat "$_name.err")"
	note "client $_name connected to $_sock (pid $CLIENT_PID)"
}
# json_field LINE KEY   the value of KEY in one JSON line (strings unquoted)
json_field() {
	echo "$1" | sed -n "s/.*\"$2\" *: *\"\{0,1\}\([^\",}]*\).*/\1/p" | head -n1
}

# ---------------------------------------------------------------- performance

# perf KEY=VALUE...   a machine-readable measurement line (run.sh collects
# them into vm/out/perf.txt)
perf() { echo "EVROUTE-VM PERF $SCENARIO $*"; }
# cpu_ticks PID   user+system CPU time of the process (all its threads) so
# far, in clock ticks (USER_HZ = 100: 10 ms), from /proc/PID/stat
cpu_ticks() {
	# the name (field 2) may hold spaces: count from after its ')'
	sed 's/.*) //' /proc/"$1"/stat | awk '{ print $12 + $13 }'
}
# start_quiet NAME NODE CMD...   like start_reader, but the output goes to
# /dev/null (no stdbuf: every reader buffers as it would in production) and
# stderr to NAME.err (with QUIET_STDERR=1 to /dev/null too: for a reader whose
# output is its stderr, the daemon's log); waits until it has NODE open.
# Sets READER_PID.
start_quiet() {
	_name=$1 _node=$2; shift 2
	if [ "${QUIET_STDERR:-0}" = 1 ]; then "$@" >/dev/null 2>&1 & else "$@" >/dev/null 2>"$_name.err" & fi
	READER_PID=$!
	_bg_pids="$_bg_pids $READER_PID"
	eval "_reader_$(reader_var "$_name")=$READER_PID"
	wait_until 20 _open_or_gone "$READER_PID" "$_node" && ! _gone "$READER_PID" ||
		fail "reader $_name ($*) did not open $_node: $(tail -n 5 "$_name.err")"
	note "reader $_name ready (pid $READER_PID): $*"
}

# virtual_node NAME   the event node of the input device named NAME (empty if none): evroute's
# virtual devices, looked up by name in sysfs; the newest when there are more (a virtual device
# evroute let go outlives it a moment for its readers)
virtual_node() {
	_vn= _vn_input=-1
	for d in /sys/class/input/event*; do
		[ "$(cat "$d/device/name" 2>/dev/null)" = "$1" ] || continue
		_i=$(basename "$(readlink -f "$d/device")"); _i=${_i#input}
		[ "$_i" -gt "$_vn_input" ] 2>/dev/null && { _vn_input=$_i; _vn=/dev/input/$(basename "$d"); }
	done
	[ -n "$_vn" ] && echo "$_vn"
}
# _virtual_present NAME / _virtual_absent NAME   for wait_until: looked up at every try
_virtual_present() { test -n "$(virtual_node "$1")"; }
_virtual_absent() { test -z "$(virtual_node "$1")"; }
