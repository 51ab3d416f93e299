#!/usr/bin/env python3
"""Reload figures for `make bench`: how long the daemon's loop goes unanswered while it reloads
a large config, and how long the reload takes.

Starts the `evroute` daemon (no devices) on a small config, then replaces the config with a
large one — 40,000 regions under one root, chained by `next`, each with a handler: about 4 MiB,
just under the 4 MiB limit — and reloads it over the control socket several times. During each
reload a client sends `{"command":"status"}` every few milliseconds on a connection of its own
and times each round trip: the longest is the longest the loop went without answering (routing
runs on that same loop). The reload's own time is from its request to its answer. Then one
run-time region change (`hide` of a region) on the large layout, which recompiles the layout on
the loop (docs/ui-control.md), is timed the same way. Standard library only.

usage: bench-reload.py EVROUTE [REGIONS] [RELOADS]
"""
import json, os, socket, statistics, subprocess, sys, tempfile, time

INTERVAL = 0.005   # between status requests


def large_config(regions):
    lines = ["displays: [{name: main, size: [1280, 800]}]", "screens:", "  - name: home", "    display: main",
             "    root:", "      name: root", "      frame: [0, 0, 1280, 800]", "      regions:"]
    for i in range(regions):
        nxt = f"r{i + 1}" if i + 1 < regions else "root"
        lines.append(f"        - {{name: r{i}, frame: [{i % 1000}, {(i // 1000) * 10}, 1, 1], next: {nxt}, "
                     f"handlers: [{{plugin: log, on: [tap]}}]}}")
    return "\n".join(lines) + "\n"


SMALL = "displays: [{name: main, size: [1280, 800]}]\nscreens: [{name: home, display: main, root: {name: root, frame: [0, 0, 1280, 800]}}]\n"


class Line:
    """One control connection: JSON lines out and in."""
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.buffer = b""

    def send(self, request):
        self.sock.sendall((json.dumps(request) + "\n").encode())

    def answer(self, timeout=None):
        """The next answer line, or None when none has come (timeout 0: do not wait)."""
        self.sock.settimeout(timeout)
        try:
            while b"\n" not in self.buffer:
                chunk = self.sock.recv(65536)
                if not chunk:
                    raise RuntimeError("the daemon closed the control connection")
                self.buffer += chunk
        except (BlockingIOError, socket.timeout):
            return None
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line)

    def close(self):
        self.sock.close()


def timed_while(path, request):
    """Sends `request` on its own connection and, until its answer, a status every INTERVAL on
    another: (seconds to the answer, the answer, status round trips in seconds, statuses saying
    reloading)."""
    statuses = Line(path)
    target = Line(path)
    start = time.monotonic()
    target.send(request)
    latencies, reloading = [], 0
    answer = None
    while answer is None:
        t0 = time.monotonic()
        statuses.send({"command": "status"})
        status = statuses.answer(timeout=120)
        latencies.append(time.monotonic() - t0)
        if status.get("reloading"):
            reloading += 1
        answer = target.answer(timeout=0)
        if answer is None:
            time.sleep(INTERVAL)
            answer = target.answer(timeout=0)
    took = time.monotonic() - start
    statuses.close()
    target.close()
    return took, answer, latencies, reloading


def main():
    binary = sys.argv[1]
    regions = int(sys.argv[2]) if len(sys.argv) > 2 else 40_000
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    with tempfile.TemporaryDirectory() as scratch:
        config = os.path.join(scratch, "evroute.yaml")
        control = os.path.join(scratch, "control.sock")
        with open(config, "w") as f:
            f.write(SMALL)
        large = large_config(regions)
        proc = subprocess.Popen([binary, "--config", config, "--control-socket", control],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 10
            while not os.path.exists(control):
                if time.monotonic() > deadline or proc.poll() is not None:
                    sys.exit(f"bench-reload: the daemon did not start: {proc.stderr.read().decode()}")
                time.sleep(0.01)
            with open(config + ".new", "w") as f:
                f.write(large)
            os.rename(config + ".new", config)
            print(f"large config: {regions + 1} regions chained by next, {len(large.encode())} bytes")
            reloads, worst, typical, counts = [], [], [], []
            for _ in range(rounds):
                took, answer, latencies, reloading = timed_while(control, {"command": "reload"})
                if not answer.get("ok"):
                    sys.exit(f"bench-reload: the reload failed: {answer}")
                reloads.append(took)
                worst.append(max(latencies))
                typical.append(statistics.median(latencies))
                counts.append(len(latencies))
            print(f"reload of the large config, request to answer (median of {rounds}): {statistics.median(reloads) * 1000:.0f} ms"
                  f"  (min {min(reloads) * 1000:.0f}, max {max(reloads) * 1000:.0f})")
            print(f"status round trip during those reloads: longest {max(worst) * 1000:.1f} ms, median {statistics.median(typical) * 1000:.2f} ms;"
                  f" {min(counts)}-{max(counts)} answered per reload")
            took, answer, latencies, _ = timed_while(control, {"command": "hide", "region": "home/root/r20000"})
            if not answer.get("ok"):
                sys.exit(f"bench-reload: hide failed: {answer}")
            print(f"run-time change on the large layout (hide home/root/r20000, compiled on the loop): {took * 1000:.0f} ms;"
                  f" status round trip meanwhile: longest {max(latencies) * 1000:.1f} ms")
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                sys.exit("bench-reload: the daemon did not stop within 10 s of SIGTERM")


if __name__ == "__main__":
    main()
