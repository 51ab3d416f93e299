#!/usr/bin/env python3
"""Daemon figures for `make bench`: binary size, start-up time to READY=1 and idle cost.

Starts the release `evroute` daemon (no devices, so it waits for hotplug) with a fake
$NOTIFY_SOCKET, measures the time from spawn to the READY=1 datagram, then leaves it idle and
reads /proc/PID: resident memory (VmRSS), CPU time and voluntary context switches over the idle
period. Repeats the start-up a few times and prints the median. Standard library only.
"""
import os, socket, statistics, subprocess, sys, tempfile, time

def read_status(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields

def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return int(parts[11]) + int(parts[12])   # utime + stime, in clock ticks

def start(binary, config, scratch, n):
    notify_path = os.path.join(scratch, f"notify{n}.sock")
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(notify_path)
    notify.settimeout(10)
    env = dict(os.environ, NOTIFY_SOCKET=notify_path)
    env.pop("WATCHDOG_USEC", None)
    t0 = time.monotonic()
    proc = subprocess.Popen([binary, "--config", config, "--control-socket", os.path.join(scratch, f"control{n}.sock")],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    ready = None
    try:
        while ready is None:
            data = notify.recv(4096).decode()
            if "READY=1" in data.split("\n"):
                ready = time.monotonic() - t0
    except socket.timeout:
        proc.kill()
        sys.exit(f"bench-daemon: no READY=1 within 10 s: {proc.stderr.read().decode()}")
    return proc, ready, notify

def binary_figures(binary):
    """The stripped size of the static binary, and whether it carries ICU's data (Foundation's
    internationalization tables: a symbol icudt*_dat and megabytes of collation data)."""
    with tempfile.TemporaryDirectory() as scratch:
        stripped = os.path.join(scratch, "evroute")
        subprocess.run(["strip", "-o", stripped, binary], check=True)
        size = os.path.getsize(stripped)
    with open(binary, "rb") as f:
        data = f.read()
    icu = b"icudt" in data or b"FoundationInternationalization" in data
    return size, icu

def main():
    binary, config = sys.argv[1], sys.argv[2]
    size, icu = binary_figures(binary)
    print(f"binary: {size / 1e6:.1f} MB stripped ({os.path.getsize(binary) / 1e6:.1f} MB as built); "
          f"ICU data: {'PRESENT' if icu else 'none'}  (target ≤ 12 MB, no ICU)")
    idle_seconds = float(os.environ.get("IDLE_SECONDS", "5"))
    with tempfile.TemporaryDirectory() as scratch:
        startups = []
        for n in range(5):
            proc, ready, notify = start(binary, config, scratch, n)
            startups.append(ready)
            if n < 4:
                proc.terminate(); proc.wait(5); notify.close()
        time.sleep(0.5)
        pid = proc.pid
        before = read_status(pid); ticks0 = cpu_ticks(pid)
        time.sleep(idle_seconds)
        after = read_status(pid); ticks1 = cpu_ticks(pid)
        proc.terminate(); code = proc.wait(5); notify.close()
    hz = os.sysconf("SC_CLK_TCK")
    switches = int(after["voluntary_ctxt_switches"]) - int(before["voluntary_ctxt_switches"])
    print(f"daemon start-up to READY=1 (median of 5): {statistics.median(startups) * 1000:.1f} ms"
          f"  (min {min(startups) * 1000:.1f}, max {max(startups) * 1000:.1f}; target ≤ 10 ms)")
    print(f"daemon idle RSS: {after['VmRSS']}  (target ≤ 8 MB; first bound ≤ 15 MB)")
    print(f"daemon idle CPU over {idle_seconds:.0f} s: {(ticks1 - ticks0) / hz * 1000:.0f} ms, "
          f"{switches} voluntary context switches  (target: 0 %)")
    print(f"daemon exit status after SIGTERM: {code}")

if __name__ == "__main__":
    main()
