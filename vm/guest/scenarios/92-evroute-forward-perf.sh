#!/bin/sh
# 92-evroute-forward-perf — forwarding on a real kernel, side by side with the
# peers that grab a touchscreen and re-emit it through uinput: evroute
# (config/perf-forward.yaml: every touch forwarded by the `forward` plugin), tslib's
# ts_uinput (module_raw input, grab_events=1, no filter) and interception-tools'
# `interception -g | uinput -d`; and the floor, vm-fwfloor: evroute's system calls (one
# epoll_wait, one read of the frame, one write of it to a uinput device made with libevdev)
# and no other work, what the kernel charges any forwarder of whole frames. Each forwarder
# alone (they grab the device):
#   CPU: user+system of the forwarder (both processes of the interception pipe) on the
#     paced replay of the Wacom DTH2242 recording (as 90-evroute-perf), with vm-evlat
#     reading the virtual device as a compositor would; per 10,000 replayed events;
#   latency: vm-fwlat writes one finger's frames into the source node at 100 Hz and waits
#     for each on the virtual device: source write -> the virtual event's kernel timestamp
#     (p50/p90/p99 of 2,000 frames);
#   per-frame facts: one more paced replay each, strace -f -c attached to each of the
#     forwarder's processes and evemu-record on its virtual device: events and frames
#     written, and system calls by kind, per source frame (counts: not load-dependent).
# Output: PERF lines pass=forward, ratio=evroute_forward_vs_ts_uinput,
# ratio=evroute_forward_vs_interception, the latency ratios, pass=forward-frames and
# pass=forward-syscalls, pass=forward-floor (evroute's CPU split: the floor's, and evroute's
# own above it) (vm/out/perf.txt).
#
# manual: not in the default run; `make vm-perf` runs it after 90-evroute-perf
# qemu: -cpu max
# timeout: 900
# rec: touchscreens/Wacom DTH2242 Finger.events
. /vm/lib.sh

need evroute
REC_FILE="$TS/Wacom DTH2242 Finger.events"
EVENTS=$(rec_events "$REC_FILE")
# pct FILE P   the P-th percentile of a sorted file of numbers (nearest rank)
pct() { awk -v p="$2" -v n="$(wc -l <"$1")" 'NR == int((n - 1) * p / 100) + 1 { print; exit }' "$1"; }

# ---- forwarding, side by side with the peers that grab and re-emit:
# evroute (config/perf-forward.yaml: every touch forwarded), tslib's ts_uinput (module_raw
# input, grab_events=1, no filter) and interception-tools' `interception -g | uinput -d`. Each
# forwarder alone (they grab the device): its CPU on the paced replay (both processes of the
# interception pipe), with vm-evlat reading the virtual device as a compositor would; then
# its added latency: vm-fwlat writes one finger's frames into the source node at 100 Hz and
# waits for each on the virtual device (source write -> virtual kernel timestamp).
fw_node() {   # fw_node NAME EXCEPT: the newest event node named NAME, other than EXCEPT
	for d in /sys/class/input/event*; do
		[ "/dev/input/$(basename "$d")" = "$2" ] && continue
		[ "$(cat "$d/device/name" 2>/dev/null)" = "$1" ] && echo "/dev/input/$(basename "$d")"
	done | sort -V | tail -n 1
}
fw_start() {   # fw_start FORWARDER: starts it on $DEVNODE; sets FW_PIDS and FW_NODE
	case $1 in
	evroute-forward)
		QUIET_STDERR=1 start_quiet evroute-forward "$DEVNODE" evroute --config /vm/config/perf-forward.yaml --control-socket none
		FW_PIDS=$READER_PID vname="$DEVNAME (evroute)" ;;
	floor)
		start_quiet fw-floor "$DEVNODE" vm-fwfloor "$DEVNODE"
		FW_PIDS=$READER_PID vname="$DEVNAME (floor)" ;;
	ts_uinput)
		printf 'module_raw input grab_events=1\n' >/tmp/ts.conf
		TSLIB_CONFFILE=/tmp/ts.conf TSLIB_PLUGINDIR=/usr/lib/x86_64-linux-gnu/ts0 TSLIB_TSDEVICE=$DEVNODE \
			start_quiet ts_uinput "$DEVNODE" ts_uinput -i "$DEVNODE" -n ts_uinput -b
		FW_PIDS=$READER_PID vname=ts_uinput ;;
	interception)
		sh -c "exec interception -g '$DEVNODE' | uinput -d '$DEVNODE'" >/dev/null 2>interception.err &
		_bg_pids="$_bg_pids $!"
		wait_until 10 sh -c "pidof interception >/dev/null && pidof uinput >/dev/null"
		FW_PIDS="$(pidof interception) $(pidof uinput)" vname=$DEVNAME ;;
	esac
	_i=0
	while [ -z "$(fw_node "$vname" "$DEVNODE")" ] && [ $_i -lt 20 ]; do sleep 0.5; _i=$((_i + 1)); done
	sleep 1
	FW_NODE=$(fw_node "$vname" "$DEVNODE")
}
fw_ticks() { t=0; for p in $FW_PIDS; do t=$((t + $(cpu_ticks "$p"))); done; echo $t; }
fw_stop() { for p in $FW_PIDS; do kill -TERM "$p" 2>/dev/null; done; for p in $FW_PIDS; do wait_until 3 _gone "$p"; kill -KILL "$p" 2>/dev/null; done; }
fw_summary=""
ROUNDS=${FW_ROUNDS:-2}
FORWARDERS="evroute-forward ts_uinput interception"
command -v vm-fwfloor >/dev/null && FORWARDERS="$FORWARDERS floor"
if command -v ts_uinput >/dev/null && command -v interception >/dev/null && command -v vm-fwlat >/dev/null; then
	for f in $FORWARDERS; do eval "fwticks_$(reader_var "$f")=0"; done
	# CPU: ROUNDS rounds, the forwarders taking turns in each (the host's load drifts: a
	# forwarder measured only once, at one time, would carry that moment's load)
	r=1
	while [ $r -le "$ROUNDS" ]; do
		for f in $FORWARDERS; do
			create_device "$REC_FILE"
			fw_start $f
			check "$f (round $r): its virtual device" "${FW_NODE:-none}" != none
			if [ -z "$FW_NODE" ]; then fw_stop; remove_device; continue; fi
			start_quiet fw-reader "$FW_NODE" vm-evlat "$FW_NODE"
			t0=$(fw_ticks)
			replay "$DEVNODE" "$REC_FILE"
			sleep 2
			t1=$(fw_ticks)
			stop_reader fw-reader
			fw_stop
			remove_device
			eval "fwticks_$(reader_var "$f")=\$((fwticks_$(reader_var "$f") + t1 - t0))"
			perf pass=forward-cpu-turn round=$r forwarder=$f cpu_ms=$(( (t1 - t0) * 10 ))
		done
		r=$((r + 1))
	done
	# latency: each forwarder once, 2,000 frames at 100 Hz
	for f in $FORWARDERS; do
		create_device "$REC_FILE"
		fw_start $f
		[ -n "$FW_NODE" ] || { fw_stop; remove_device; continue; }
		vm-fwlat "$DEVNODE" "$FW_NODE" 2000 10000 >fwlat.$f 2>fwlat.$f.err
		grep -E '^-?[0-9]+$' fwlat.$f | sort -n >fwlat.$f.us
		lost=$(grep -c lost fwlat.$f)
		fw_stop
		remove_device
		eval "t=\$fwticks_$(reader_var "$f")"
		per10k=$(awk -v t="$t" -v r="$ROUNDS" -v e="$EVENTS" 'BEGIN { printf "%.0f", t * 10 / r * 10000 / e }')
		eval "fwcpu_$(reader_var "$f")=$per10k"
		n=$(wc -l <fwlat.$f.us)
		check "$f: latency samples" "$n" -gt 1000
		fp50=$(pct fwlat.$f.us 50) fp99=$(pct fwlat.$f.us 99)
		eval "fwp50_$(reader_var "$f")=$fp50 fwp99_$(reader_var "$f")=$fp99"
		perf pass=forward forwarder=$f cpu_ms_per_10k_events=$per10k rounds=$ROUNDS latency_samples=$n lost=$lost p50_us=$fp50 p90_us=$(pct fwlat.$f.us 90) p99_us=$fp99 max_us=$(tail -n1 fwlat.$f.us)
		note "forward $f: ${per10k} ms CPU per 10,000 events (mean of $ROUNDS); added latency p50=${fp50} us p99=${fp99} us (n=$n, lost $lost)"
		fw_summary="$fw_summary${fw_summary:+, }$f ${per10k} ms p50 ${fp50} us"
	done
	# per-frame facts: each forwarder once more, on one paced replay, with `strace -f -c`
	# attached to each of its processes and evemu-record reading its virtual device: the
	# source frames replayed; the events and frames written on the virtual device per source
	# frame; the system calls per source frame, by kind. Counts, not time (strace slows the
	# forwarder: these do not depend on the machine's load, the CPU above does).
	FRAMES=$(grep -cE '^E: [0-9.]+ 0000 0000 0+([[:space:]]|$)' "$REC_FILE")
	perf pass=forward-frames source_frames=$FRAMES source_events=$EVENTS source_events_per_frame=$(awk -v e="$EVENTS" -v f="$FRAMES" 'BEGIN { printf "%.2f", e / f }')
	if command -v strace >/dev/null; then
		for f in $FORWARDERS; do
			create_device "$REC_FILE"
			fw_start $f
			[ -n "$FW_NODE" ] || { fw_stop; remove_device; continue; }
			start_reader fw-record "$FW_NODE" evemu-record "$FW_NODE"
			tracers="" procs=""
			for p in $FW_PIDS; do
				comm=$(cat /proc/$p/comm)
				strace -f -c -o "strace.$f.$comm" -p "$p" 2>/dev/null &
				tracers="$tracers $!" procs="$procs $comm"
			done
			sleep 2
			replay "$DEVNODE" "$REC_FILE"
			sleep 2
			for t in $tracers; do kill -INT "$t" 2>/dev/null; done
			for t in $tracers; do wait "$t" 2>/dev/null; done
			stop_reader fw-record
			fw_stop
			remove_device
			out_events=$(count_lines fw-record.out '^E:')
			out_frames=$(count_lines fw-record.out '^E: [0-9.]+ 0000 0000 0+([[:space:]]|$)')
			perf pass=forward-frames forwarder=$f source_frames=$FRAMES events_written=$out_events frames_written=$out_frames \
				events_per_source_frame=$(awk -v a="$out_events" -v b="$FRAMES" 'BEGIN { printf "%.2f", a / b }') \
				frames_per_source_frame=$(awk -v a="$out_frames" -v b="$FRAMES" 'BEGIN { printf "%.2f", a / b }')
			for comm in $procs; do
				[ -s "strace.$f.$comm" ] || { note "$f $comm: no strace summary"; continue; }
				# rows: % time, seconds, usecs/call, calls, [errors], syscall
				total=$(awk '$1 ~ /^[0-9.]+$/ && $NF != "total" { n += $4 } END { print n + 0 }' "strace.$f.$comm")
				kinds=$(awk -v fr="$FRAMES" '$1 ~ /^[0-9.]+$/ && $NF != "total" { print $4, $NF }' "strace.$f.$comm" | sort -rn |
					awk -v fr="$FRAMES" '{ printf "%s%s:%.2f", (NR > 1 ? "," : ""), $2, $1 / fr }')
				pf=$(awk -v t="$total" -v fr="$FRAMES" 'BEGIN { printf "%.2f", t / fr }')
				perf pass=forward-syscalls forwarder=$f process=$comm source_frames=$FRAMES syscalls=$total per_source_frame=$pf by_kind=$kinds
				note "forward $f ($comm): $total system calls for $FRAMES source frames ($pf per frame): $kinds"
			done
			note "forward $f: $out_events events in $out_frames frames written for $FRAMES source frames"
		done
	else
		perf pass=forward-syscalls result=SKIP reason=no-strace-in-image
	fi
	for peer in ts_uinput interception; do
		eval "p=\${fwcpu_$peer:-0} e=\${fwcpu_evroute_forward:-0} pl=\${fwp50_$peer:-0} el=\${fwp50_evroute_forward:-0} pl99=\${fwp99_$peer:-0} el99=\${fwp99_evroute_forward:-0}"
		[ "$p" -gt 0 ] && perf ratio=evroute_forward_vs_$peer value=$(awk -v a="$e" -v b="$p" 'BEGIN { printf "%.2f", a / b }')
		[ "$pl" -gt 0 ] && perf ratio=evroute_forward_latency_p50_vs_$peer value=$(awk -v a="$el" -v b="$pl" 'BEGIN { printf "%.2f", a / b }')
		[ "$pl99" -gt 0 ] && perf ratio=evroute_forward_latency_p99_vs_$peer value=$(awk -v a="$el99" -v b="$pl99" 'BEGIN { printf "%.2f", a / b }')
	done
	# the floor: what the kernel charges for evroute's system calls (and the forwarder's process
	# being woken); evroute's own user space is the rest
	if [ "${fwcpu_floor:-0}" -gt 0 ]; then
		eval "e=\${fwcpu_evroute_forward:-0} t=\${fwcpu_ts_uinput:-0}"
		perf pass=forward-floor floor_cpu_ms_per_10k_events=$fwcpu_floor evroute_cpu_ms_per_10k_events=$e \
			evroute_above_floor=$((e - fwcpu_floor)) ts_uinput_above_floor=$((t - fwcpu_floor)) \
			floor_p50_us=${fwp50_floor:-0} floor_p99_us=${fwp99_floor:-0}
		perf ratio=evroute_forward_vs_floor value=$(awk -v a="$e" -v b="$fwcpu_floor" 'BEGIN { printf "%.2f", a / b }')
	fi
else
	perf pass=forward result=SKIP reason=no-peers-in-image
	note "forward peers: SKIP (ts_uinput, interception or vm-fwlat missing: make vm-perf builds the perf image)"
fi
finish "forward: $fw_summary (TCG)"
