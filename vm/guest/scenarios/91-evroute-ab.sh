#!/bin/sh
# 91-evroute-ab — evroute builds side by side on one paced replay (vm/ab.sh prepares it):
# what a change buys in the real-kernel guest, where timing runs are too noisy to compare
# one build per boot. Reports numbers, asserts nothing (PASS = measured).
#
# /vm/ab/phase.N (N = 1, 2, …): the readers of phase N, one per line, started in that order
# (the order the kernel wakes them in: the first reader running a binary's code in a frame
# pays more than the next one, see docs/performance-vm.md):
#   NAME evroute BINARY CONFIG [ENV=VALUE]   the daemon (--control-socket none; log to /dev/null)
#   NAME evemu-record                         evemu-record NODE
#   NAME floor                                vm-evlat NODE (the bare C reader)
# Each phase: every reader started, /vm/ab/reps replays (default 2) of the recording, each
# reader's CPU time per replay from /proc/PID/schedstat (ns: sum_exec_runtime), the readers
# stopped. /vm/ab/profile.N, when present, names readers of phase N to profile over one more
# replay (perf record -a, cpu-clock; perf image only).
#
# Output: EVROUTE-VM PERF 91-evroute-ab phase=N rep=R NAME=MS ... lines (vm/out/perf.txt).
#
# qemu: -cpu max
# manual: not in the default run; vm/ab.sh
# rec: touchscreens/Wacom DTH2242 Finger.events
. /vm/lib.sh

need vm-evlat
[ -f /vm/ab/phase.1 ] || skip "no /vm/ab/phase.1 (vm/ab.sh prepares the image)"
REC_FILE="$TS/Wacom DTH2242 Finger.events"
create_device "$REC_FILE"
REPS=$(cat /vm/ab/reps 2>/dev/null || echo 2)
runtime_ns() { cut -d' ' -f1 /proc/"$(reader_pid "$1")"/schedstat; }
for list in /vm/ab/phase.*; do
	phase=${list##*.}
	readers=""
	while read -r name kind bin cfg env; do
		[ -n "$name" ] || continue
		case $kind in
		evroute) QUIET_STDERR=1 start_quiet "$name" "$DEVNODE" env ${env:-EVROUTE_AB=1} "$bin" --config "$cfg" --control-socket none ;;
		evemu-record) start_quiet "$name" "$DEVNODE" evemu-record "$DEVNODE" ;;
		floor) start_quiet "$name" "$DEVNODE" vm-evlat "$DEVNODE" ;;
		*) fail "$list: unknown reader kind '$kind'" ;;
		esac
		readers="$readers $name"
	done <"$list"
	sleep 1
	rep=0
	while [ $rep -lt "$REPS" ]; do
		rep=$((rep + 1))
		for r in $readers; do eval "t0_$(reader_var "$r")=$(runtime_ns "$r")"; done
		replay "$DEVNODE" "$REC_FILE"
		sleep 2   # let every reader drain its queue
		line="phase=$phase rep=$rep"
		for r in $readers; do
			_gone "$(reader_pid "$r")" && fail "reader $r exited during phase $phase"
			eval "t0=\$t0_$(reader_var "$r")"
			line="$line $r=$((($(runtime_ns "$r") - t0) / 1000000))"
		done
		perf "$line"
	done
	if [ -s /vm/ab/profile.$phase ] && [ -x /usr/bin/perf ]; then
		/usr/bin/perf record -a -e cpu-clock -F 4000 -o /tmp/ab.data >ab-record.out 2>&1 &
		recorder=$!
		sleep 1
		replay "$DEVNODE" "$REC_FILE"
		sleep 1
		kill -INT $recorder; wait $recorder
		for r in $(cat /vm/ab/profile.$phase); do
			/usr/bin/perf report -i /tmp/ab.data --stdio --no-children --pid "$(reader_pid "$r")" --percentage relative \
				--sort dso,symbol --percent-limit 0.8 2>&1 | grep -v '^#' | grep -v '^$' | head -n 40 |
				sed "s/^/EVROUTE-VM AB-PROFILE phase=$phase $r /"
		done
	fi
	for r in $readers; do stop_reader "$r"; done
done
pass "$(ls /vm/ab/phase.* | wc -l) phase(s) measured"
