# vm/guest/runner.sh — runs scenarios and keeps the tally (/vm/runner.sh in the
# guest). Sourced by /init (the custom init: every scenario but those marked
# "# boot: systemd") and by /vm/systemd-stage.sh (those, once systemd is PID 1).
# The tally and the settings live in /run/evroute-vm/, so they survive /init
# exec'ing systemd.
#
#   run_scenario NAME     BEGIN, the script under its time limit, RESULT, TIME
#   finish_run            DONE, the shell if asked for, power off
#
# A scenario's time limit is evroute.timeout (vm/run.sh --scenario-timeout,
# default 60 s) unless it has a "# timeout: SECONDS" line.
STATE=/run/evroute-vm
mkdir -p "$STATE"
[ -f "$STATE/settings" ] && . "$STATE/settings"
: "${TIMEOUT:=60}" "${DEBUG:=0}" "${SHELL_AFTER:=0}"
export EVROUTE_VM_DEBUG=$DEBUG

# save_settings   for the next stage (/vm/systemd-stage.sh)
save_settings() {
	printf 'TIMEOUT=%s\nDEBUG=%s\nSHELL_AFTER=%s\n' "$TIMEOUT" "$DEBUG" "$SHELL_AFTER" >"$STATE/settings"
}

_tally() { cat "$STATE/$1" 2>/dev/null || echo 0; }
# the CPU's busy time so far, in USER_HZ ticks: /proc/stat's cpu line without idle and iowait
_busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat; }

run_scenario() {
	s=$1
	echo "EVROUTE-VM BEGIN $s"
	res=/run/evroute-vm/result.$s
	rm -f "$res"
	if [ ! -f "/vm/scenarios/$s.sh" ]; then
		echo "EVROUTE-VM RESULT $s FAIL no such scenario" | tee "$res"
	else
		limit=$(sed -n 's/^# timeout: *\([0-9][0-9]*\).*/\1/p' "/vm/scenarios/$s.sh" | head -n1)
		limit=${limit:-$TIMEOUT}
		mkdir -p "/tmp/work/$s"
		t0=$(cut -d' ' -f1 /proc/uptime)
		b0=$(_busy_ticks)
		if [ "$DEBUG" = 1 ]; then x=-x; else x=; fi
		# each scenario in its own shell, its own work dir and its own session
		# (process group = its pid), under a time limit; RESULT lines go to the
		# console and to $res (see lib.sh)
		cd "/tmp/work/$s"
		EVROUTE_VM_SCENARIO=$s EVROUTE_VM_RESULT=$res setsid sh $x "/vm/scenarios/$s.sh" &
		pid=$!
		(sleep "$limit"; echo "EVROUTE-VM TIMEOUT $s"; : >"$STATE/timeout.$s"
			kill -TERM -$pid; sleep 2; kill -KILL -$pid) 2>/dev/null &
		watchdog=$!
		wait $pid
		rc=$?
		kill $watchdog 2>/dev/null
		kill -KILL -$pid 2>/dev/null   # whatever the scenario left running
		cd /
		t1=$(cut -d' ' -f1 /proc/uptime)
		if [ ! -s "$res" ]; then
			if [ -e "$STATE/timeout.$s" ]; then why="timed out after ${limit}s"; else why="exit $rc"; fi
			echo "EVROUTE-VM RESULT $s FAIL no result ($why)" | tee "$res"
		fi
		echo "EVROUTE-VM TIME $s $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}')s"
		# the guest's CPU busy (not idle) meanwhile: what the scenario cost, not what it waited
		echo "EVROUTE-VM BUSY $s $(awk -v a="$b0" -v b="$(_busy_ticks)" 'BEGIN{printf "%.2f", (b-a)/100}')s"
	fi
	case $(cut -d' ' -f4 "$res" | head -n1) in
	PASS) k=pass ;;
	SKIP) k=skip ;;
	*) k=fail ;;
	esac
	echo $(($(_tally $k) + 1)) >"$STATE/$k"
}

# report_result NAME STATUS DETAIL   a result without running the script
report_result() {
	echo "EVROUTE-VM BEGIN $1"
	echo "EVROUTE-VM RESULT $1 $2 $3" | tee "$STATE/result.$1"
	case $2 in PASS) k=pass ;; SKIP) k=skip ;; *) k=fail ;; esac
	echo $(($(_tally $k) + 1)) >"$STATE/$k"
}

finish_run() {
	if [ "$DEBUG" = 1 ] && [ -f /tmp/udevd.log ]; then
		echo "----- udevd debug log (last 200 lines) -----"
		tail -n 200 /tmp/udevd.log
	fi
	echo "EVROUTE-VM DONE pass=$(_tally pass) fail=$(_tally fail) skip=$(_tally skip) uptime=$(cut -d' ' -f1 /proc/uptime)s"
	if [ "$SHELL_AFTER" = 1 ]; then
		echo "EVROUTE-VM SHELL (exit or Ctrl-D powers off; work dirs under /tmp/work)"
		setsid cttyhack sh -l
	fi
	sync
	poweroff -f
}
