#!/bin/sh
# vm/run.sh — boot the test VM (qemu TCG, 1 vCPU), run scenarios, report.
#
#   vm/run.sh [options] [SCENARIO...]        default: all scenarios
#     -t, --timeout SECONDS   whole-VM limit (default 600, or $EVROUTE_VM_TIMEOUT)
#     --scenario-timeout S    per-scenario limit inside the guest (default 60)
#     --debug                 sh -x trace of the scenarios + udevd debug log
#     --shell                 interactive shell in the guest after the scenarios
#                             (no timeout; Ctrl-D or `poweroff -f` to leave)
#     --bzimage               boot the compressed bzImage instead of vmlinux
#     --append "ARGS"         extra kernel command line
#     -j, --jobs N            split the scenarios over N VMs booted side by side (default 1,
#                             or $EVROUTE_VM_JOBS); each VM gets its share by the scenarios'
#                             "# weight: SECONDS" lines (5 when absent), in plan order
#   SCENARIO: file name in vm/guest/scenarios without .sh, or a prefix (00, 10-evroute)
#
# Needs vm/out/vmlinux and vm/out/initramfs.cpio (vm/build-initramfs.sh).
# The console log goes to vm/out/console-YYYYmmdd-HHMMSS.log, and
# vm/out/console.log points at the latest; EVROUTE-VM PERF lines go to
# vm/out/perf.txt. Exit status: 0 when every scenario
# passed or skipped, 1 when one failed, 2 on timeout / missing results.
set -u
# What this builds is read by other users (the guest's unprivileged users, dpkg): modes must not
# depend on the caller's umask (CI may run under 077).
umask 022

VM_DIR=$(cd "$(dirname "$0")" && pwd)
OUT=$VM_DIR/out
TIMEOUT=${EVROUTE_VM_TIMEOUT:-600}
STO=60 DEBUG=0 SHELL_MODE=0 KERNEL=$OUT/vmlinux APPEND_EXTRA=""
JOBS=${EVROUTE_VM_JOBS:-1}
SCEN=""
ARGS_KEPT=""
while [ $# -gt 0 ]; do
	case $1 in
	-t|--timeout) TIMEOUT=$2; shift 2 ;;
	--scenario-timeout) STO=$2; shift 2 ;;
	-j|--jobs) JOBS=$2; shift 2 ;;
	--debug) DEBUG=1; ARGS_KEPT="$ARGS_KEPT --debug"; shift ;;
	--shell) SHELL_MODE=1; shift ;;
	--bzimage) KERNEL=$OUT/bzImage; ARGS_KEPT="$ARGS_KEPT --bzimage"; shift ;;
	--append) APPEND_EXTRA=$2; shift 2 ;;
	-h|--help) sed -n '2,23p' "$0"; exit 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*) SCEN="$SCEN${SCEN:+,}${1%.sh}"; shift ;;
	esac
done
SCEN=${SCEN:-all}

QEMU=$(command -v qemu-system-x86_64) || { echo "run.sh: qemu-system-x86_64 not found (apt-get install qemu-system-x86)" >&2; exit 2; }
for f in "$KERNEL" "$OUT/initramfs.cpio"; do
	[ -s "$f" ] || { echo "run.sh: missing $f (run vm/build-initramfs.sh)" >&2; exit 2; }
done

APPEND="console=ttyS0 quiet loglevel=3 panic=-1 evroute.scenarios=$SCEN evroute.timeout=$STO"
[ $DEBUG = 1 ] && APPEND="$APPEND evroute.debug=1"
[ $SHELL_MODE = 1 ] && APPEND="$APPEND evroute.shell=1"
APPEND="$APPEND $APPEND_EXTRA"

# devices a scenario asks for with a "# qemu: ARGS" line (68-evroute-weston: a display,
# "-vga std"), when it is in the run; its -vga replaces the default "-vga none"
QEMU_EXTRA=""
cd "$VM_DIR/guest/scenarios"
if [ "$SCEN" = all ]; then
	files=$(for f in *.sh; do grep -q '^# manual:' "$f" || echo "$f"; done)
else
	# the names as /init resolves them: the file NAME.sh, else the first NAME*.sh
	files=$(for w in $(echo "$SCEN" | tr ',' ' '); do
		for f in "$w".sh "$w"*.sh; do [ -f "$f" ] && { echo "$f"; break; }; done
	done)
fi

# ---- several VMs side by side: split the scenarios by weight (longest first onto the
# lightest VM), run this script once per share, then one table for all
case $JOBS in ''|*[!0-9]*) echo "run.sh: --jobs wants a number, got '$JOBS'" >&2; exit 2 ;; esac
nfiles=$(echo $files | wc -w)
if [ "$JOBS" -gt 1 ] && [ $SHELL_MODE = 0 ] && [ "$nfiles" -gt 1 ]; then
	[ "$JOBS" -gt "$nfiles" ] && JOBS=$nfiles
	shares=$(for f in $files; do
		w=$(sed -n 's/^# weight: *\([0-9][0-9]*\).*/\1/p' "$f" | head -n1)
		echo "${w:-5} ${f%.sh}"
	done | sort -k1,1nr -k2,2 | awk -v jobs="$JOBS" '
		{ best = 1; for (j = 2; j <= jobs; j++) if (load[j] < load[best]) best = j
		  load[best] += $1; names[best] = names[best] " " $2 }
		END { for (j = 1; j <= jobs; j++) print names[j] }')
	cd - >/dev/null
	stamp=$(date +%Y%m%d-%H%M%S)
	start=$(date +%s.%N)
	k=0 pids=""
	for share in $(echo "$shares" | tr ' ' ','); do
		k=$((k + 1))
		share=$(echo "$share" | tr ',' '\n' | sed '/^$/d' | sort | tr '\n' ' ')
		echo "run.sh: VM $k of $JOBS:$(echo " $share" | tr -s ' ')"
		EVROUTE_VM_JOBS=1 EVROUTE_VM_LOG_NAME="console-$stamp-vm$k.log" \
			"$0" --jobs 1 --timeout "$TIMEOUT" --scenario-timeout "$STO" $ARGS_KEPT \
			${APPEND_EXTRA:+--append "$APPEND_EXTRA"} $share >"$OUT/vm$k.out" 2>&1 &
		pids="$pids $!"
	done
	status=0
	for p in $pids; do
		wait "$p"; s=$?
		# a missing result (2) outranks a failed scenario (1)
		[ $s -gt $status ] && status=$s
	done
	end=$(date +%s.%N)
	for k in $(seq "$JOBS"); do
		echo; echo "==== VM $k of $JOBS (vm/out/vm$k.out) ===="
		cat "$OUT/vm$k.out"
	done
	echo
	echo "==== evroute VM results ($SCEN, $JOBS VMs side by side) ===="
	printf '%-32s %-5s %7s  %s\n' SCENARIO RESULT TIME DETAIL
	for k in $(seq "$JOBS"); do
		sed -n '/^==== evroute VM results/,/^boot to/p' "$OUT/vm$k.out" | sed '1,2d;/^boot to/d;/^measurements:/d'
	done | sort
	echo "wall time: $(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.1f", b-a}')s for $JOBS VMs; logs: $OUT/console-$stamp-vm*.log"
	exit $status
fi

for f in $files; do QEMU_EXTRA="$QEMU_EXTRA $(sed -n 's/^# qemu: *//p' "$f")"; done
cd - >/dev/null
VGA="-vga none"
case $QEMU_EXTRA in *-vga*) VGA="" ;; esac

# The CPU: qemu64 (no AVX, no XSAVE state to save at each switch), which the emulator runs the
# scenarios on in less host CPU than `max` (CONTRIBUTING.md); a scenario's "# qemu: -cpu MODEL" line
# replaces it (the performance scenarios keep `max`, the model their recorded figures were
# measured on).
set -- "$QEMU" -kernel "$KERNEL" -initrd "$OUT/initramfs.cpio" -append "$APPEND" \
	-nographic -m 512 -smp 1 -no-reboot -cpu qemu64 -accel tcg -nic none $VGA $QEMU_EXTRA

if [ $SHELL_MODE = 1 ]; then
	echo "run.sh: interactive; Ctrl-A x quits qemu" >&2
	exec "$@"
fi

LOG=$OUT/${EVROUTE_VM_LOG_NAME:-console-$(date +%Y%m%d-%H%M%S).log}
ln -sf "$(basename "$LOG")" "$OUT/console.log"
start=$(date +%s.%N)
# The console goes to the terminal and the log; -nographic's stdin is cut off.
# tr drops the carriage returns of the serial line.
timeout --kill-after=5 "$TIMEOUT" "$@" </dev/null 2>&1 | tr -d '\r' | tee "$LOG"
end=$(date +%s.%N)
elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN{printf "%.1f", b-a}')

# ---- parse the console protocol (see vm/guest/init)
# measurements: every "EVROUTE-VM PERF scenario key=value..." line
if grep -q '^EVROUTE-VM PERF ' "$LOG"; then
	sed -n 's/^EVROUTE-VM PERF //p' "$LOG" >"$OUT/perf.txt"
fi
plan=$(sed -n 's/^EVROUTE-VM PLAN//p' "$LOG" | head -n1)
booted=$(sed -n 's/.*EVROUTE-VM BOOTED uptime=\([0-9.]*\)s.*/\1/p' "$LOG" | head -n1)
done_line=$(grep '^EVROUTE-VM DONE' "$LOG" | head -n1)

echo
echo "==== evroute VM results ($SCEN) ===="
printf '%-32s %-5s %7s  %s\n' SCENARIO RESULT TIME DETAIL
status=0
if [ -z "$plan" ]; then
	plan=$(echo "$SCEN" | tr ',' ' ')
	[ "$plan" = all ] && plan=""
fi
for s in $plan; do
	line=$(grep "^EVROUTE-VM RESULT $s " "$LOG" | head -n1)
	t=$(sed -n "s/^EVROUTE-VM TIME $s //p" "$LOG" | head -n1)
	if [ -z "$line" ]; then
		r=NONE; detail="no result line (timeout or crash; see the log)"; status=2
	else
		r=$(echo "$line" | cut -d' ' -f4)
		detail=$(echo "$line" | cut -d' ' -f5-)
		case $r in PASS|SKIP) ;; *) [ $status = 0 ] && status=1 ;; esac
	fi
	printf '%-32s %-5s %7s  %s\n' "$s" "$r" "${t:--}" "$detail"
done
[ -n "$plan" ] || { echo "(no PLAN line: the guest did not get to run scenarios)"; status=2; }
[ -n "$done_line" ] || { echo "(no DONE line: the VM did not finish — timeout ${TIMEOUT}s?)"; status=2; }
[ -f "$OUT/perf.txt" ] && grep -q '^EVROUTE-VM PERF ' "$LOG" && echo "measurements: $OUT/perf.txt ($(wc -l <"$OUT/perf.txt") lines)"
echo "boot to /init: ${booted:-?}s (guest clock); wall time: ${elapsed}s; log: $LOG"
exit $status
