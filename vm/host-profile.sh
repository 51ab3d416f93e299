#!/bin/sh
# vm/host-profile.sh — what the host spends emulating the guest while it replays: the qemu
# process profiled from the host (perf: cpu-clock samples and the scheduler's switches) during
# the first phase of a vm/ab.sh run. The guest's own CPU figures (/proc/PID/stat, schedstat) are
# wall time under TCG; this says how much of that the host actually ran, and in what.
#
#   vm/host-profile.sh [--window S] PHASE        (PHASE as for vm/ab.sh; one phase, 3 replays)
#
# Recorded: from 12 s after qemu starts (the first replay has begun), for S seconds (default
# 56: inside the three replays). Compare runs of the same window with one reader each: "f=floor"
# (the bare C reader) against "d=BIN" or "e=evemu-record"; the difference is the reader's.
# Prints: the vCPU thread's time on the host's CPU and per replay (26.2 s of replay and pause),
# how often QEMU's main-loop thread took its CPU from it, and the samples by kind:
#   translated code   the guest's instructions, run as translated blocks
#   block lookup      the jump cache probed at every return, indirect call and jump across a
#                     page (qemu's helper_lookup_tb_ptr: here the code after curr_cflags)
#   block hash        a jump-cache miss: the block looked up in the hash table (qht_lookup_custom)
#   software TLB      guest page-table walks and TLB fills (tlb_*, *_tlb_fill, *_mmu helpers)
#   translation       making translated blocks (tcg_*, tb_gen_code)
#   host kernel, other
# Needs perf on the host (Debian: linux-perf) and root (or perf_event_paranoid ≤ 1).
set -eu
VM_DIR=$(cd "$(dirname "$0")" && pwd)
WINDOW=56
while [ $# -gt 0 ]; do
	case $1 in
	--window) WINDOW=$2; shift 2 ;;
	-h|--help) sed -n '2,/^[^#]/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { echo "vm/host-profile.sh: one phase (see --help)" >&2; exit 2; }
command -v perf >/dev/null || { echo "vm/host-profile.sh: no perf on the host (apt-get install linux-perf)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "vm/host-profile.sh: needs python3" >&2; exit 2; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
"$VM_DIR/ab.sh" --reps 3 "$1" >"$OUT/ab.txt" 2>&1 &
ab=$!
# the image is built first (a qemu started by a build step ends at once: look again after 3 s)
until pid=$(pgrep -x qemu-system-x86); do sleep 0.1; kill -0 $ab 2>/dev/null || { cat "$OUT/ab.txt"; exit 1; }; done
sleep 3
pid=$(pgrep -x qemu-system-x86) || { cat "$OUT/ab.txt"; exit 1; }
sleep 9
# perf's attach fails when one of qemu's worker threads ends meanwhile: try again
record() { # FILE EVENT...
	_f=$1; shift; _tries=0
	until perf record -q "$@" -p "$pid" -o "$OUT/$_f" -- sleep "$WINDOW" >"$OUT/$_f.log" 2>&1; do
		_tries=$((_tries + 1))
		[ $_tries -lt 10 ] || { cat "$OUT/$_f.log" >&2; return 1; }
	done
}
record samples.data -F 4000 -e cpu-clock & r1=$!
record switches.data -e sched:sched_switch & r2=$!
wait $r1 && wait $r2 || exit 1
wait $ab || true
grep -E '^EVROUTE-VM PERF' "$OUT/ab.txt" || { cat "$OUT/ab.txt"; exit 1; }
# qemu's block lookup helper is not exported: it is the code after curr_cflags, up to the
# next exported function
QEMU=$(command -v qemu-system-x86_64)
LOOKUP=$(nm -D --defined-only "$QEMU" | sort | awk '$3 ~ /^curr_cflags/ { a = $1; next } a != "" { print a, $1; exit }')
perf script -i "$OUT/switches.data" -F tid,time,trace 2>/dev/null >"$OUT/switches.txt"
perf report -i "$OUT/samples.data" --stdio -n --sort pid,dso,sym 2>/dev/null | grep -v '^#' |
WINDOW=$WINDOW LOOKUP=$LOOKUP SWITCHES=$OUT/switches.txt python3 -c '
import os, re, sys, collections
window = float(os.environ["WINDOW"])
lo, hi = (int(x, 16) for x in os.environ["LOOKUP"].split())
samples = collections.Counter(); by_thread = collections.Counter()
for line in sys.stdin:
    f = line.split()
    if len(f) < 5 or not f[1].isdigit(): continue
    n, tid = int(f[1]), int(f[2].split(":")[0])
    dso, sym = f[3], " ".join(f[5:])
    by_thread[tid] += n
    if "JIT" in dso or "perf-" in dso: kind = "translated code"
    elif "kernel" in dso: kind = "host kernel"
    elif "qht_lookup" in sym: kind = "block hash"
    elif sym.startswith("0x") and lo <= int(sym.split()[0], 16) < hi: kind = "block lookup"
    elif re.search(r"tlb|_mmu|probe_access|get_page_addr_code|qemu_ram_|get_pg_mode", sym): kind = "software TLB"
    elif re.search(r"^tcg_|tb_gen_code", sym): kind = "translation"
    else: kind = "other"
    samples[kind] += n
vcpu = by_thread.most_common(1)[0][0]
on, since, preempted, halted = 0.0, None, 0, 0
for line in open(os.environ["SWITCHES"]):
    m = re.match(r"\s*(\d+)\s+([\d.]+):\s+(.*)", line)
    if not m: continue
    t, d = float(m.group(2)), dict(re.findall(r"(\w+)=(\S+)", m.group(3)))
    if int(d.get("prev_pid", -1)) == vcpu:
        if since is not None: on += t - since
        since = None
        if d.get("prev_state") == "R": preempted += 1
        else: halted += 1
    if int(d.get("next_pid", -1)) == vcpu: since = t
replays = window / 26.2
total = sum(samples.values())
print(f"host: vCPU thread on the host CPU {on * 1000:.0f} ms in {window:.0f} s = {on * 1000 / replays:.0f} ms per replay; "
      f"taken off it by another thread {preempted / replays:.0f} times and halted {halted / replays:.0f} times per replay")
for kind, n in samples.most_common():
    print(f"host: {kind:16s} {n * 1000 / 4000 / replays:7.0f} ms per replay  {100 * n / total:5.1f} %")
'
