#!/bin/sh
# 90-evroute-perf — performance on a real kernel (VM part); reports
# numbers, asserts no target (PASS = measured). Not in the default run
# (`make vm-perf`; see docs/performance-vm.md).
#
# Recording: Wacom DTH2242 Finger.events (16,593 events, 24.1 s, protocol B,
# 66 contacts; it carries its own description), replayed with evemu-play at
# its recorded pace into a uinput device made from it.
#
# Pass 1, CPU: on the same replays, side by side, each reader's user+system
# CPU time (/proc/PID/stat, before and after each replay; start-up excluded),
# per 10,000 replayed events; N readers, N replays, each reader in each place
# of the wake order once (the first place costs 10-15 % more):
#   evroute-daemon   the daemon, config/regions.yaml (log handlers; its log, on
#                    stderr, to /dev/null like every reader's output)
#   evroute-daemon-socket  the daemon delivering every touch to one `socket`
#                    UI client (config/perf-latency.yaml; the client, vm-unix,
#                    reads every line; the daemon's CPU is counted, the
#                    client's not): the path a kiosk UI uses
#   evroute-daemon-socket-nowake  the same, its client reading only every
#                    100 ms (vm-unix -p 100): the daemon's writes find it never
#                    waiting, so they wake nobody — the difference to the reader
#                    above is what waking the client costs the daemon; to the
#                    log-only daemon, encoding the lines and copying them into
#                    the socket
#   evroute-dryrun   evroute --dry-run --format json >/dev/null, same config
#   libinput         libinput debug-events --device NODE
#   evtest           evtest NODE
#   evemu-record     evemu-record NODE (one read(2) and one line per event)
#   python-evdev     perf/evdev-hit.py: python3-evdev read loop + the same
#                    hit-test (SKIP line when the image has no python3:
#                    only the perf image has it)
# Pass 2, latency: the daemon alone with config/perf-latency.yaml, every
# touch to a socket plugin; the client (vm-unix -t) stamps each JSON line
# with CLOCK_MONOTONIC on receipt; latency = receipt - the event's "time"
# (the kernel timestamp: evroute sets EVIOCSCLOCKID CLOCK_MONOTONIC —
# checked: "time" is within a second of the client's clock). That is kernel
# timestamp -> handler dispatch plus the socket write and the client's
# wake-up: an upper bound on the daemon's own added latency. Next to it, the
# floor of this VM: vm-evlat, a minimal C reader of the same node, prints
# now - timestamp per SYN_REPORT (what any reader pays for the kernel's
# wake-up under TCG before doing anything).
#
# Pass 3, system calls: strace -c attached to the daemon, the daemon with its
# socket client, the dry-run, libinput and evemu-record during one more replay: calls per frame (SYN_REPORT), top 5.
# Pass 4, profile: perf record (cpu-clock) of the daemon during one more
# replay: the symbols above 1 % (perf image only: strace and linux-perf).
#
# Output: EVROUTE-VM PERF lines (key=value), collected by run.sh into vm/out/perf.txt.
#
# qemu: -cpu max
# manual: not in the default run (~6 min of paced replays); `make vm-perf`
# rec: touchscreens/Wacom DTH2242 Finger.events
. /vm/lib.sh

need evroute vm-unix
REC_FILE="$TS/Wacom DTH2242 Finger.events"
EVENTS=$(rec_events "$REC_FILE")
CFG=/vm/config/regions.yaml
perf recording="Wacom_DTH2242_Finger.events" events=$EVENTS kernel=$(uname -r) accel=tcg

# ---- pass 0: the same recording routed from the file (no kernel, no pacing;
# start-up included): how much slower this guest runs evroute than the host
# (docs/performance-vm.md has the host figure for the same command)
time -p -o file-replay.time evroute --config "$CFG" --dry-run --replay "$REC_FILE" --format json >/dev/null 2>file-replay.err
check "file replay exit" "$?" -eq 0
fr=$(awk '$1 == "user" || $1 == "sys" { s += $2 } END { printf "%.0f", s * 1000 }' file-replay.time)
perf pass=file-replay reader=evroute-dryrun-replay cpu_ms=$fr real_s=$(awk '$1 == "real" { print $2 }' file-replay.time)

# ---- pass 1: CPU per reader, every reader in every place of the wake order
# The kernel wakes a device's readers in the order they opened it, and where a reader
# sits in that order moves its CPU time: the first costs 10-15 % more than a later copy
# of itself on the same replay (docs/performance-vm.md, "How to reproduce"). So the readers take
# turns: N readers, N replays; in replay k they start (and are woken) in the list's order
# rotated by k, and each reader's figure is its CPU time over all N replays, per 10,000
# events. (Until the fifth round this pass was one replay with the daemon first.)
start_one() {
	case $1 in
	evroute-daemon) QUIET_STDERR=1 start_quiet evroute-daemon "$DEVNODE" evroute --config "$CFG" --control-socket none ;;
	evroute-daemon-socket)
		QUIET_STDERR=1 start_quiet evroute-daemon-socket "$DEVNODE" evroute --config /vm/config/perf-latency.yaml --control-socket none
		start_client evroute-daemon-socket-client /tmp/evroute-lat.sock ;;
	evroute-daemon-socket-nowake)
		QUIET_STDERR=1 start_quiet evroute-daemon-socket-nowake "$DEVNODE" evroute --config "$NOWAKE_CFG" --control-socket none
		start_client evroute-daemon-socket-nowake-client /tmp/evroute-nowake.sock -p 100 ;;
	# the same daemon with a `metrics:` block: the metrics sink counting every routed
	# event and the dispatch-latency histogram, the text file written every 15 s (the default, as
	# a fleet runs it; a replay takes ~30 s, so two writes: 2026-11-27 at 1 s the writes cost
	# more than the counting)
	evroute-daemon-metrics) QUIET_STDERR=1 start_quiet evroute-daemon-metrics "$DEVNODE" evroute --config "$METRICS_CFG" --control-socket none ;;
	evroute-dryrun) start_quiet evroute-dryrun "$DEVNODE" evroute --config "$CFG" --dry-run --format json ;;
	libinput) start_quiet libinput "$DEVNODE" libinput debug-events --device "$DEVNODE" ;;
	evtest) start_quiet evtest "$DEVNODE" evtest "$DEVNODE" ;;
	evemu-record) start_quiet evemu-record "$DEVNODE" evemu-record "$DEVNODE" ;;
	# the floor: the smallest possible reader (vm-evlat: a blocking read(2) per wake-up, a
	# number per frame), what any reader pays in this guest for being woken and reading
	floor-c) start_quiet floor-c "$DEVNODE" vm-evlat "$DEVNODE" ;;
	python-evdev) start_quiet python-evdev "$DEVNODE" python3 /vm/perf/evdev-hit.py "$DEVNODE" ;;
	*) fail "no reader $1" ;;
	esac
}
METRICS_CFG=/tmp/regions-metrics.yaml
NOWAKE_CFG=/tmp/perf-nowake.yaml
sed 's#/tmp/evroute-lat.sock#/tmp/evroute-nowake.sock#' /vm/config/perf-latency.yaml >"$NOWAKE_CFG"
{ cat "$CFG"; printf '\nmetrics:\n  textfile: /tmp/evroute-perf.prom\n  interval-s: 15\n'; } >"$METRICS_CFG"
create_device "$REC_FILE"
readers="evroute-daemon evroute-daemon-metrics evroute-daemon-socket evroute-daemon-socket-nowake evroute-dryrun libinput evtest evemu-record"
command -v vm-evlat >/dev/null && readers="$readers floor-c"
if command -v python3 >/dev/null && python3 -c 'import evdev' 2>python-evdev.err; then
	readers="$readers python-evdev"
else
	note "python-evdev peer: SKIP (no python3 with evdev in this image: $(tail -n 1 python-evdev.err 2>/dev/null); make vm-perf builds the perf image)"
	perf reader=python-evdev result=SKIP reason=no-python3-in-image
fi
nreaders=$(echo $readers | wc -w)
for r in $readers; do eval "ticks_$(reader_var "$r")=0"; done
replay_s=0
k=0
while [ $k -lt "$nreaders" ]; do
	# the list rotated by k: readers k+1 … N, then 1 … k
	order=$(echo $readers | awk -v k="$k" '{ for (i = 0; i < NF; i++) printf "%s%s", (i ? " " : ""), $((i + k) % NF + 1) }')
	for r in $order; do start_one "$r"; done
	sleep 1
	for r in $order; do pid=$(reader_pid "$r"); eval "t0_$(reader_var "$r")=$(cpu_ticks "$pid")"; done
	t_start=$(cut -d' ' -f1 /proc/uptime)
	replay "$DEVNODE" "$REC_FILE"
	t_end=$(cut -d' ' -f1 /proc/uptime)
	sleep 2   # let every reader drain its queue
	line=""
	for r in $order; do
		pid=$(reader_pid "$r")
		if _gone "$pid"; then check "$r still running after replay $((k + 1))" exited = running; continue; fi
		eval "t0=\$t0_$(reader_var "$r")"
		t=$(( $(cpu_ticks "$pid") - t0 ))
		eval "ticks_$(reader_var "$r")=\$((ticks_$(reader_var "$r") + t))"
		line="$line $r=$((t * 10))"
	done
	for r in $order; do stop_reader "$r"; done
	replay_s=$(awk -v s="$replay_s" -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.1f", s + b - a }')
	# this replay's ms per reader, in wake order (the first is the one that paid for it)
	perf pass=cpu-turn turn=$((k + 1)) first=${order%% *}$line
	k=$((k + 1))
done
summary=""
for r in $readers; do
	eval "t=\$ticks_$(reader_var "$r")"
	ms=$(awk -v t="$t" -v n="$nreaders" 'BEGIN { printf "%.0f", t * 10 / n }')
	per10k=$(awk -v t="$t" -v n="$nreaders" -v e="$EVENTS" 'BEGIN { printf "%.0f", t * 10 / n * 10000 / e }')
	eval "cpu_$(reader_var "$r")=$per10k"
	perf reader=$r cpu_ms=$ms cpu_ms_per_10k_events=$per10k replays=$nreaders
	note "$r: ${ms} ms CPU per replay of $EVENTS events (mean of $nreaders, one in each place of the wake order) = ${per10k} ms per 10,000"
	summary="$summary${summary:+ }$r=${per10k}"
done
perf pass=cpu replays=$nreaders replay_seconds=$replay_s
remove_device
# what the metrics cost the daemon: the same daemon with a `metrics:` block against without
if [ -n "${cpu_evroute_daemon_metrics:-}" ] && [ "${cpu_evroute_daemon:-0}" -gt 0 ]; then
	perf ratio=evroute_metrics_on_vs_off value=$(awk -v a="$cpu_evroute_daemon_metrics" -v b="$cpu_evroute_daemon" 'BEGIN { printf "%.2f", a / b }')
	check "metrics text file written" "$(grep -c '^evroute_touches_total' /tmp/evroute-perf.prom 2>/dev/null || echo 0)" -ge 1
fi
# the socket UI client's path split (ms per 10,000 events): the log-only daemon; what encoding the
# lines and writing them into the socket add (nowake - log-only); what waking the client adds
# (socket - nowake)
if [ -n "${cpu_evroute_daemon_socket_nowake:-}" ] && [ -n "${cpu_evroute_daemon_socket:-}" ] && [ -n "${cpu_evroute_daemon:-}" ]; then
	perf pass=socket-split daemon=$cpu_evroute_daemon encode_and_send=$((cpu_evroute_daemon_socket_nowake - cpu_evroute_daemon)) wake=$((cpu_evroute_daemon_socket - cpu_evroute_daemon_socket_nowake))
fi
for r in evroute_daemon evroute_daemon_metrics evroute_daemon_socket evroute_daemon_socket_nowake evroute_dryrun; do
	eval "c=\${cpu_$r:-}"
	[ -n "$c" ] || continue
	for peer in libinput evemu_record python_evdev floor_c; do
		eval "p=\${cpu_$peer:-}"
		[ -n "$p" ] && [ "$p" -gt 0 ] || continue
		ratio=$(awk -v a="$c" -v b="$p" 'BEGIN { printf "%.2f", a / b }')
		perf ratio=${r}_vs_$peer value=$ratio
	done
done

# ---- pass 2: latency, kernel timestamp -> socket plugin client
create_device "$REC_FILE"
CTL=/tmp/evroute-perf-ctl.sock
start_daemon "$DEVNODE" /vm/config/perf-latency.yaml
start_client lat /tmp/evroute-lat.sock -t
floor=0
command -v vm-evlat >/dev/null && { start_reader evlat "$DEVNODE" vm-evlat "$DEVNODE"; floor=1; }
t0=$(cpu_ticks "$DAEMON_PID")
replay "$DEVNODE" "$REC_FILE"
sleep 2
t1=$(cpu_ticks "$DAEMON_PID")
[ $floor = 1 ] && stop_reader evlat
stop_daemon TERM
remove_device
# "RX_TIME {json}": latency in microseconds per touch line
awk '/"type":"touch"/ { rx = $1 + 0; if (!match($0, /"time":[0-9.]+/)) next
	t = substr($0, RSTART + 7, RLENGTH - 7) + 0; printf "%.0f\n", (rx - t) * 1e6 }' lat.out | sort -n >latency.us
lat_n=$(wc -l <latency.us)
check "latency samples (touch lines received)" "$lat_n" -gt 1000
first=$(head -n1 lat.out)
skew=$(echo "$first" | awk '{ rx = $1; match($0, /"time":[0-9.]+/); t = substr($0, RSTART + 7, RLENGTH - 7); d = rx - t; if (d < 0) d = -d; print (d < 1) ? "monotonic" : "not-monotonic:" d }')
check "JSON time is the kernel CLOCK_MONOTONIC timestamp" "$skew" = monotonic
# pct FILE P   the P-th percentile of a sorted file of numbers (nearest rank)
pct() { awk -v p="$2" -v n="$(wc -l <"$1")" 'NR == int((n - 1) * p / 100) + 1 { print; exit }' "$1"; }
p50=$(pct latency.us 50) p90=$(pct latency.us 90) p99=$(pct latency.us 99) max=$(tail -n1 latency.us)
fl=""
if [ $floor = 1 ]; then
	grep -E '^-?[0-9]+$' evlat.out | sort -n >floor.us
	fn=$(wc -l <floor.us)
	check "floor samples (vm-evlat frames)" "$fn" -gt 1000
	perf pass=latency-floor reader=vm-evlat samples=$fn p50_us=$(pct floor.us 50) p90_us=$(pct floor.us 90) p99_us=$(pct floor.us 99) max_us=$(tail -n1 floor.us)
	fl="; floor (C reader) p50=$(pct floor.us 50)us p99=$(pct floor.us 99)us"
fi
dms=$(( (t1 - t0) * 10 ))
dper10k=$(awk -v ms="$dms" -v n="$EVENTS" 'BEGIN { printf "%.0f", ms * 10000 / n }')
perf pass=latency samples=$lat_n p50_us=$p50 p90_us=$p90 p99_us=$p99 max_us=$max daemon_socket_cpu_ms_per_10k_events=$dper10k
note "latency kernel timestamp -> socket client: n=$lat_n p50=${p50} us p90=${p90} us p99=${p99} us max=${max} us"
check "daemon exit status" "$DAEMON_STATUS" = 0

# ---- pass 3: system calls per frame (strace -c attached to each reader during
# one replay; strace slows the readers, so this pass reports counts, not time)
FRAMES=$(grep -cE '^E: [0-9.]+ 0000 0000 0+([[:space:]]|$)' "$REC_FILE")
if command -v strace >/dev/null; then
	create_device "$REC_FILE"
	QUIET_STDERR=1 start_quiet evroute-daemon "$DEVNODE" evroute --config "$CFG" --control-socket none
	start_one evroute-daemon-socket
	start_quiet evroute-dryrun "$DEVNODE" evroute --config "$CFG" --dry-run --format json
	start_quiet libinput "$DEVNODE" libinput debug-events --device "$DEVNODE"
	start_quiet evemu-record "$DEVNODE" evemu-record "$DEVNODE"
	sleep 1
	tracers=""
	for r in evroute-daemon evroute-daemon-socket evroute-dryrun libinput evemu-record; do
		pid=$(reader_pid "$r")
		strace -f -c -o "strace.$r" -p "$pid" 2>/dev/null &
		tracers="$tracers $!"
	done
	sleep 2
	replay "$DEVNODE" "$REC_FILE"
	sleep 2
	for t in $tracers; do kill -INT "$t" 2>/dev/null; done
	for t in $tracers; do wait "$t" 2>/dev/null; done
	for r in evroute-daemon evroute-daemon-socket evroute-dryrun libinput evemu-record; do stop_reader "$r"; done
	remove_device
	for r in evroute-daemon evroute-daemon-socket evroute-dryrun libinput evemu-record; do
		[ -s "strace.$r" ] || { note "$r: no strace summary"; continue; }
		# rows: % time, seconds, usecs/call, calls, [errors], syscall
		total=$(awk '$1 ~ /^[0-9.]+$/ && $NF != "total" { n += $4 } END { print n + 0 }' "strace.$r")
		top=$(awk '$1 ~ /^[0-9.]+$/ && $NF != "total" { print $4, $NF }' "strace.$r" | sort -rn | head -n 5 | awk '{ printf "%s%s:%s", (NR > 1 ? "," : ""), $2, $1 }')
		pf=$(awk -v t="$total" -v f="$FRAMES" 'BEGIN { printf "%.2f", t / f }')
		perf pass=syscalls reader=$r frames=$FRAMES syscalls=$total per_frame=$pf top=$top
		note "$r: $total system calls for $FRAMES frames ($pf per frame): $top"
	done
else
	perf pass=syscalls result=SKIP reason=no-strace-in-image
fi

# ---- pass 4: where the CPU goes (perf record -a, cpu-clock sampling: TCG has no
# hardware counters), the daemon and its peers side by side on one more replay:
# each reader's samples, the share of them in the kernel's switch into it
# (finish_task_switch: under TCG the context switch, its TLB flush included, is
# charged there, to the task switched in), and the daemon's top symbols.
# (`perf` alone is lib.sh's function that prints these PERF lines: the tool is /usr/bin/perf)
if [ -x /usr/bin/perf ]; then
	create_device "$REC_FILE"
	QUIET_STDERR=1 start_quiet evroute-daemon "$DEVNODE" evroute --config "$CFG" --control-socket none
	start_quiet libinput "$DEVNODE" libinput debug-events --device "$DEVNODE"
	start_quiet evemu-record "$DEVNODE" evemu-record "$DEVNODE"
	command -v vm-evlat >/dev/null && start_quiet floor-c "$DEVNODE" vm-evlat "$DEVNODE"
	sleep 1
	pid=$(reader_pid evroute-daemon)
	/usr/bin/perf record -a -e cpu-clock -F 2000 -o /tmp/perf.data >perf-record.out 2>&1 &
	prec=$!
	sleep 1
	replay "$DEVNODE" "$REC_FILE"
	sleep 1
	kill -INT "$prec" 2>/dev/null; wait "$prec" 2>/dev/null
	for r in evroute-daemon libinput evemu-record floor-c; do stop_reader "$r" 2>/dev/null; done
	remove_device
	# per reader: samples, and the share in finish_task_switch
	# per reader: samples, those in the kernel, and those in finish_task_switch
	/usr/bin/perf report -i /tmp/perf.data --stdio --no-children --sort comm,dso,symbol -F overhead,sample,comm,dso,sym 2>/dev/null \
		| awk '$1 ~ /%$/ { n[$3] += $2; if ($4 == "[kernel.kallsyms]") k[$3] += $2; if ($0 ~ /finish_task_switch/) f[$3] += $2 }
			END { for (c in n) printf "%s %d %d %d\n", c, n[c], k[c], f[c] }' | sort >perf.comm
	while read -r comm n k f; do
		case "$comm" in evroute|libinput-debug-events|libinput-debug-|evemu-record|vm-evlat) ;; *) continue ;; esac
		perf pass=profile-readers reader=$comm samples=$n kernel_samples=$k user_samples=$((n - k)) switch_samples=$f
	done <perf.comm
	/usr/bin/perf report -i /tmp/perf.data --stdio --no-children --comm evroute --percentage relative --sort dso,symbol --percent-limit 1 2>/dev/null \
		| awk '$1 ~ /%$/ { pct = $1; dso = $2; $1 = ""; $2 = ""; $3 = ""; sub(/^ +/, ""); printf "%s %s %s\n", pct, dso, $0 }' >perf.top
	rank=0
	while read -r pct dso sym; do
		rank=$((rank + 1))
		[ $rank -le 25 ] || break
		perf pass=profile reader=evroute-daemon rank=$rank pct=$pct dso=$dso symbol=$(echo "$sym" | tr ' ' '_')
	done <perf.top
	note "perf: $(wc -l <perf.top) symbols above 1%; readers: $(tr '\n' ';' <perf.comm)"
	[ -s perf.top ] || { note "perf record said:"; sed 's/^/    /' perf-record.out; /usr/bin/perf report -i /tmp/perf.data --stdio 2>&1 | head -n 20 | sed 's/^/    /'; }
else
	perf pass=profile result=SKIP reason=no-perf-in-image
fi
finish "CPU ms/10k events: $summary; latency p50=${p50}us p99=${p99}us (n=$lat_n$fl; TCG)"
