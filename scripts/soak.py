#!/usr/bin/env python3
"""The soak: the real daemon for a long time under everything at once (`make soak`).

usage: soak.py --evroute BIN [--seconds N] [--recordings DIR] [--keep] [--seed S]

(--recordings default: Tests/Fixtures/recordings)

It runs `evroute --config LAYOUT --replay FILE… --replay-realtime --replay-paused` on the real
recordings, each device's recordings looped (scripts/loop-recordings.py) so the replay lasts the
whole run, every device at once, through a layout with the shapes that used to crash the daemon:

  - the `ui` socket plugin and the `helper` process plugin on a region and on its parent
    (home/root/content/video and home/root/content), on screen `home` and on screen `overlay`
    presented over it, and for keys on screen `home` and on `application`;
  - `ui` clients with `answers: true` that answer some events `{"id":N,"handled":false}` and the
    others true: two steady ones connected for the whole run (one also sends commands on its
    connection), two churners that connect and disconnect all the time (answering, silent,
    stalling, closing with unread data), and examples/ui-client.py, the worked example of
    docs/ui-control.md, following the taps on its buttons with present/dismiss;
  - the `helper` (this script, --helper) declines some events, lets others time out, and now
    and then exits or is killed, so the daemon restarts it;
  - `evroute ctl` commands (present, dismiss, focus, hide/show, disable/enable, frame,
    regions, action, state; some refused on purpose) every ~0.8 s;
  - reloads every few seconds: valid layouts (alternating, which replaces the helper) and broken
    ones (a YAML error, a semantic error), by `evroute reload` and by SIGHUP;
  - `evroute status` every second (its latency measured), VmRSS and the fd count of the daemon
    from /proc every second.

Then it checks and prints: no unexpected daemon exit (and exit 0 at SIGTERM); RSS and fd count
flat (the last minute against the first; shorter runs: the last third against the first);
status probes all answered, p50/p99; for every reading client, each touch it saw began once
and ended (or was cancelled) exactly once; good reloads taken, broken ones refused; ctl
commands answered; the scenario exercised (declines, helper time-outs and restarts, client
churn). The last line reads `soak: N passed, M failed`; the exit status is 1 when a check fails.

Internal modes (processes the soak starts): --helper (the process plugin), --client (a socket
client), --churn (a series of short-lived socket clients). Standard library only.
"""

import argparse
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
UI_CLIENT = os.path.join(REPO, "examples", "ui-client.py")

# --------------------------------------------------------------------------------------------
# Layouts
# --------------------------------------------------------------------------------------------

def layout(tmp, variant):
    """The soak layout. Variant "a" and "b" differ in the helper's deadline (so a reload between
    them replaces the helper), in the frame of content/video and in content/spot (only in "a":
    a reload to "b" cancels the touches bound to it)."""
    helper_deadline = 100 if variant == "a" else 120
    video_width = 800 if variant == "a" else 760
    spot = """
            - name: spot
              frame: [900, 470, 300, 120]
              handlers:
                - { plugin: ui, on: [touch], level: spot }
                - { plugin: helper, on: [touch] }""" if variant == "a" else ""
    return f"""# evroute soak layout, variant {variant} (scripts/soak.py)
displays:
  - {{ name: panel, size: [1280, 800], screen: home, idle: {{ after-s: 2 }} }}
devices:
  - name: touch
    match: {{ kind: touchscreen }}
    display: panel
    filters:
      ignore: [[0, 0, 4, 800]]
      palm: {{ tool: true }}
      ghost-taps: {{}}
      jitter: {{}}
      stuck-after-s: 600
  - {{ name: keys, match: {{ kind: keyboard }}, display: panel }}
metrics: {{ textfile: {tmp}/metrics/evroute.prom, interval-s: 1 }}
plugins:
  - {{ name: desktop, type: forward }}
  - {{ name: ui, type: socket, path: {tmp}/ui.sock, mode: "0600", answers: true, deadline-ms: 50 }}
  - name: helper
    type: process
    command: [{sys.executable}, {os.path.abspath(__file__)}, --helper, --deadline-ms, "{helper_deadline}"]
    deadline-ms: {helper_deadline}
    restart-min-ms: 100
    restart-max-ms: 800
    stable-after: 5
screens:
  - name: home
    display: panel
    handlers:
      - {{ plugin: ui, on: [key, touch], level: screen-home }}
      - {{ plugin: helper, on: [key, touch] }}
    root:
      name: root
      frame: [0, 0, 1280, 800]
      regions:
        - name: header
          frame: [0, 0, 1280, 100]
          regions:
            - name: title
              frame: [160, 0, 720, 100]
            - name: search
              frame: [880, 20, 300, 60]
              focusable: true
              handlers:
                - {{ plugin: ui, on: [key, touch], field: search }}
                - {{ plugin: helper, on: [key, touch] }}
        - name: content
          frame: [0, 100, 1280, 600]
          gestures:
            - {{ name: content-swipe, type: swipe, direction: [left, right], minimum-distance: 120, maximum-duration: 0.6, action: page }}
          handlers:
            - {{ plugin: ui, on: [touch, "action:page"], level: content }}
            - {{ plugin: helper, on: [touch, "action:page"] }}
          regions:
            - name: video
              frame: [0, 0, {video_width}, 450]
              handlers:
                - {{ plugin: ui, on: [touch], level: video }}
                - {{ plugin: helper, on: [touch] }}{spot}
        - name: nav
          frame: [0, 700, 1280, 100]
          handlers:
            - {{ plugin: desktop, on: [touch] }}
          regions:
            - name: settings
              frame: [0, 0, 640, 100]
              handlers:
                - {{ plugin: ui, on: [touch], button: settings }}
  - name: overlay
    display: panel
    handlers:
      - {{ plugin: ui, on: [key, touch], level: screen-overlay }}
      - {{ plugin: helper, on: [key, touch] }}
    root:
      name: overlay-root
      frame: [200, 150, 880, 500]
      handlers:
        - {{ plugin: ui, on: [touch], level: overlay }}
  - name: settings
    display: panel
    handlers:
      - {{ plugin: ui, on: [key, touch], level: screen-settings }}
    root:
      name: settings-root
      frame: [0, 0, 1280, 800]
      regions:
        - name: delete
          frame: [0, 300, 640, 200]
          handlers:
            - {{ plugin: ui, on: [touch], button: delete }}
        - name: back
          frame: [0, 0, 1280, 300]
          handlers:
            - {{ plugin: ui, on: [touch], button: back }}
  - name: confirm
    display: panel
    root:
      name: confirm-root
      frame: [0, 0, 1280, 800]
      handlers:
        - {{ plugin: ui, on: [touch], level: confirm }}
      regions:
        - name: "yes"
          frame: [0, 0, 640, 800]
          handlers:
            - {{ plugin: ui, on: [touch], button: "yes" }}
        - name: "no"
          frame: [640, 0, 640, 800]
          handlers:
            - {{ plugin: ui, on: [touch], button: "no" }}
application:
  handlers:
    - {{ plugin: ui, on: [key], level: application }}
    - {{ plugin: helper, on: [key] }}
fallback:
  handlers:
    - {{ plugin: log, on: [touch-began, touch-ended, touch-cancelled, "key:KEY_ENTER"] }}
"""


def broken_layouts(tmp):
    """Layouts a reload must refuse: a YAML error, and a semantic one (an unknown plugin)."""
    good = layout(tmp, "a")
    return [
        good.replace("  - name: overlay\n", "  - name: overlay\n  : [unclosed\n", 1),
        good.replace("{ plugin: ui, on: [touch], level: video }", "{ plugin: nosuchplugin, on: [touch] }", 1),
    ]


NAV_REGIONS = [
    # two versions of home/root/nav's children, for `evroute ctl regions`
    """- name: settings
  frame: [0, 0, 640, 100]
  handlers:
    - { plugin: ui, on: [touch], button: settings }
""",
    """- name: settings
  frame: [0, 0, 400, 100]
  handlers:
    - { plugin: ui, on: [touch], button: settings }
- name: extra
  frame: [400, 0, 880, 100]
  handlers:
    - { plugin: ui, on: [touch], level: extra }
    - { plugin: helper, on: [touch] }
""",
]
BROKEN_REGIONS = "- name: settings\n  frame: [0, 0, 1]\n"


def wait_until(condition, seconds, interval):
    """Calls condition() every `interval` seconds until it gives a true value (returned) or
    `seconds` pass (None): the one polling loop of the soak, its daemon and its clients."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            return None
        time.sleep(interval)


def write_atomically(path, text):
    tmp = path + ".new"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


# --------------------------------------------------------------------------------------------
# The process plugin helper (--helper)
# --------------------------------------------------------------------------------------------

def run_helper(args):
    """Answers events on stdout: most true or false at once, some late (past the deadline, a late
    answer the daemon counts), some never; sends a `state` command now and then; after a random
    lifetime exits (status 0 or 3) or kills itself, and the daemon restarts it."""
    import select
    rng = random.Random()
    deadline = args.deadline_ms / 1000.0
    lifetime = rng.uniform(1, 8)
    started = time.monotonic()
    tag = 0
    late = []  # (due, answer line)
    buf = b""
    while True:
        now = time.monotonic()
        due = [a for d, a in late if d <= now]
        late = [(d, a) for d, a in late if d > now]
        out = due
        timeout = min((d for d, _ in late), default=now + 1.0) - now
        ready, _, _ = select.select([0], [], [], max(0.0, timeout))
        if ready:
            chunk = os.read(0, 65536)
            if not chunk:
                break
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if "ok" in event:
                    continue  # the answer to one of our commands
                if time.monotonic() - started > lifetime:
                    how = rng.choice(["exit0", "exit3", "kill"])
                    print(f"soak-helper: leaving after {lifetime:.1f} s ({how})", file=sys.stderr, flush=True)
                    if how == "kill":
                        os.kill(os.getpid(), signal.SIGKILL)
                    sys.exit(0 if how == "exit0" else 3)
                roll = rng.random()
                answer = json.dumps({"id": event.get("id"), "handled": rng.random() < 0.5}) + "\n"
                if roll < 0.03:
                    continue  # never answered: the deadline decides
                if roll < 0.06:
                    late.append((time.monotonic() + deadline * 1.5, answer))
                    continue
                out.append(answer)
                if rng.random() < 0.01:
                    tag += 1
                    out.append(json.dumps({"command": "state", "tag": tag}) + "\n")
        if out:
            sys.stdout.buffer.write("".join(out).encode())
            sys.stdout.buffer.flush()


# --------------------------------------------------------------------------------------------
# Socket clients (--client, --churn): each checks the touches it sees
# --------------------------------------------------------------------------------------------

class TouchLedger:
    """Per touch id, what one connection saw: began once, then exactly one ended or cancelled.

    An event declined at one responder walks on and may reach the same plugin again at the next
    responder (video → content, overlay → home, after the helper's answer or deadline): the same
    routed event, (touch, phase, time), delivered again with another `handled_by`, and possibly
    after later phases of the touch were delivered at the first responder. Such a redelivery is
    counted, not a violation; the same routed event twice at the same responder is one. The first
    delivery of every event comes at the first responder (`ui` is the first handler of every
    chain), in order; so for a client connected from the start (`must_see_began`) each touch's
    routed events must be: one began first, then exactly one ended or cancelled, nothing new after
    it. A client that connected later skips touches it did not see begin; one that may have missed
    first deliveries takes a new event after the end as a late redelivery when it is not later
    than the end."""

    KEEP = 10.0  # seconds (event time) a touch is remembered after its end, for late redeliveries

    def __init__(self, must_see_began):
        self.must_see_began = must_see_began
        self.touches = {}  # id -> {"began": time, "end": (phase, time) | None, "seen": {(phase, time): {by}}}
        self.ended = 0     # touches that ended once (and were forgotten since)
        self.violations = []
        self.joined_mid_touch = set()
        self.redeliveries = 0
        self.late = 0
        self.events = 0
        self.count = 0

    def violation(self, what):
        self.violations.append(what)

    def see(self, e):
        self.events += 1
        if e.get("type") != "touch":
            return
        tid, phase, t, by = e.get("touch"), e.get("phase"), e.get("time"), e.get("handled_by")
        # A touch's phase is one event by its time and place: a contact the ghost-tap filter held
        # back goes out at its bound with the samples it held, in order, in one frame (its moves
        # share that frame's time, each at its own point).
        at = (phase, t, e.get("x"), e.get("y"))
        if tid in self.joined_mid_touch:
            return
        rec = self.touches.get(tid)
        if rec is None:
            if phase != "began":
                self.joined_mid_touch.add(tid)
                if self.must_see_began:
                    self.violation(f"touch {tid}: {phase} at {t} without a began")
                return
            self.count += 1
            self.touches[tid] = {"began": t, "end": None, "seen": {at: {by}}}
            if self.count % 200 == 0:
                self.forget(t)
            return
        seen = rec["seen"].get(at)
        if seen is not None:
            if by in seen:
                self.violation(f"touch {tid}: {phase} at {t} delivered twice to {by}")
            else:
                seen.add(by)
                self.redeliveries += 1
            return
        rec["seen"][at] = {by}
        end = rec["end"]
        if end is not None:
            if not self.must_see_began and t <= end[1]:
                self.late += 1
            else:
                self.violation(f"touch {tid}: {phase} at {t} after its {end[0]} at {end[1]}")
            return
        if phase == "began":
            self.violation(f"touch {tid}: began again at {t} (first at {rec['began']})")
        elif phase in ("ended", "cancelled"):
            rec["end"] = (phase, t)

    def forget(self, now):
        """Forgets touches that ended long ago (their redeliveries are long over)."""
        old = [tid for tid, rec in self.touches.items() if rec["end"] is not None and rec["end"][1] < now - self.KEEP]
        for tid in old:
            del self.touches[tid]
        self.ended += len(old)

    def seen_touches(self):
        return self.count

    def complete(self):
        return self.ended + sum(1 for rec in self.touches.values() if rec["end"] is not None)

    def open_touches(self):
        return [tid for tid, rec in self.touches.items() if rec["end"] is None]


def read_lines(conn, timeout=None):
    """A generator of decoded JSON lines from a socket, until EOF."""
    buf = b""
    conn.settimeout(timeout)
    while True:
        try:
            chunk = conn.recv(65536)
        except socket.timeout:
            yield None
            continue
        except OSError:
            return
        if not chunk:
            return
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for line in lines:
            if line.strip():
                try:
                    yield json.loads(line)
                except ValueError:
                    yield {"type": "garbage"}


def connect(path, seconds=10):
    def attempt():
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            conn.connect(path)
            return conn
        except OSError:
            conn.close()
            return None
    conn = wait_until(attempt, seconds, 0.1)
    if conn is None:
        raise SystemExit(f"soak client: cannot connect to {path}")
    return conn


def run_client(args):
    """A steady client: connected from before the replay to the daemon's end (EOF)."""
    rng = random.Random(args.seed)
    conn = connect(args.socket)
    ledger = TouchLedger(must_see_began=True)
    answers = {"true": 0, "false": 0, "none": 0}
    commands = {"sent": 0, "answered": 0, "ok": 0, "refused": 0}
    next_command = time.monotonic() + 2
    tag = 0
    writable = True
    for e in read_lines(conn, timeout=1.0):
        if e is not None and "ok" in e:
            commands["answered"] += 1
            commands["ok" if e["ok"] else "refused"] += 1
            continue
        if e is not None:
            ledger.see(e)
            if args.answer:
                if rng.random() < args.decline:
                    handled = False
                else:
                    handled = True
                if writable:
                    try:
                        conn.sendall((json.dumps({"id": e.get("id"), "handled": handled}) + "\n").encode())
                    except OSError:
                        writable = False  # the daemon closed: read what it sent before, to EOF
                answers["true" if handled else "false"] += 1
            else:
                answers["none"] += 1
        if args.commands and writable and time.monotonic() >= next_command:
            next_command = time.monotonic() + rng.uniform(2, 6)
            tag += 1
            request = rng.choice([{"command": "state"}, {"command": "action", "name": "page"},
                                  {"command": "present", "screen": "overlay"}, {"command": "dismiss"},
                                  {"command": "status"}])  # status: refused on a plugin connection
            try:
                conn.sendall((json.dumps(dict(request, tag=tag)) + "\n").encode())
                commands["sent"] += 1
            except OSError:
                writable = False
    conn.close()
    open_touches = ledger.open_touches()
    for tid in open_touches[:20]:
        ledger.violation(f"touch {tid}: began at {ledger.touches[tid]['began']}, never ended or cancelled")
    result = {
        "name": args.name, "events": ledger.events, "touches": ledger.seen_touches(),
        "complete": ledger.complete(), "late": ledger.late, "open_at_end": len(open_touches),
        "redeliveries": ledger.redeliveries, "joined_mid_touch": len(ledger.joined_mid_touch),
        "violations": len(ledger.violations), "violation_samples": ledger.violations[:10],
        "answers": answers, "commands": commands,
    }
    with open(args.result, "w") as f:
        json.dump(result, f)


def run_churn(args):
    """Short-lived clients one after the other until the stop file appears: each session answers
    (declining some), stays silent, stalls (reads nothing for a while) or closes with unread
    data; each checks the touches it saw begin."""
    rng = random.Random(args.seed)
    totals = {"sessions": 0, "kinds": {}, "events": 0, "touches": 0, "complete": 0,
              "open_at_disconnect": 0, "joined_mid_touch": 0, "late": 0, "redeliveries": 0, "violations": 0,
              "violation_samples": [], "eof_early": 0}
    while not os.path.exists(args.stop):
        kind = rng.choice(["answer", "answer", "answer", "silent", "stall", "abrupt"])
        life = rng.uniform(0.3, 4.0)
        try:
            conn = connect(args.socket, seconds=0.5)
        except SystemExit:
            time.sleep(0.5)
            continue
        totals["sessions"] += 1
        totals["kinds"][kind] = totals["kinds"].get(kind, 0) + 1
        ledger = TouchLedger(must_see_began=False)
        end = time.monotonic() + life
        if kind == "stall":
            time.sleep(rng.uniform(0.5, 3.0))
        eof = True
        for e in read_lines(conn, timeout=0.2):
            if time.monotonic() >= end:
                eof = False
                break
            if e is None or "ok" in e:
                continue
            ledger.see(e)
            if kind in ("answer", "stall", "abrupt"):
                handled = rng.random() >= 0.3
                try:
                    conn.sendall((json.dumps({"id": e.get("id"), "handled": handled}) + "\n").encode())
                except OSError:
                    break
        if eof:
            totals["eof_early"] += 1
        if kind == "abrupt":
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        conn.close()
        totals["events"] += ledger.events
        totals["touches"] += ledger.seen_touches()
        open_touches = ledger.open_touches()
        totals["complete"] += ledger.complete()
        totals["late"] += ledger.late
        totals["open_at_disconnect"] += len(open_touches)
        totals["joined_mid_touch"] += len(ledger.joined_mid_touch)
        totals["redeliveries"] += ledger.redeliveries
        totals["violations"] += len(ledger.violations)
        totals["violation_samples"] += ledger.violations[: max(0, 10 - len(totals["violation_samples"]))]
        time.sleep(rng.uniform(0.05, 1.0))
    totals["name"] = args.name
    with open(args.result, "w") as f:
        json.dump(totals, f)


# --------------------------------------------------------------------------------------------
# The soak itself
# --------------------------------------------------------------------------------------------

def percentile(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    k = min(len(s) - 1, max(0, int(round(p / 100.0 * (len(s) - 1)))))
    return s[k]


class Soak:
    def __init__(self, args):
        self.args = args
        self.evroute = os.path.abspath(args.evroute)
        self.rng = random.Random(args.seed)
        self.tmp = tempfile.mkdtemp(prefix="evroute-soak-")
        self.control = os.path.join(self.tmp, "control.sock")
        self.ui_socket = os.path.join(self.tmp, "ui.sock")
        self.config = os.path.join(self.tmp, "evroute.yaml")
        self.stop_file = os.path.join(self.tmp, "stop")
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.daemon = None
        self.start_time = None
        self.samples = []          # (t, rss_kb, fds, cpu_seconds)
        self.status_ms = []        # `evroute status` wall time per probe
        self.socket_ms = []        # {"command":"status"} round trip on the control socket
        self.status_failures = []
        self.last_status = None
        self.totals = {}           # (plugin, counter) -> total over the run, across instances
        self.previous = {}
        self.ctl = {}              # kind -> {"ok": n, "refused": n, "error": n}
        self.ctl_errors = []
        self.reloads = {"good_ok": 0, "good_failed": 0, "bad_refused": 0, "bad_taken": 0, "sighup": 0}
        self.reload_errors = []
        self.checks = []           # (ok, name, detail)
        self.unexpected_exit = None
        self.clients = []          # (name, Popen, result path)
        self.churners = []
        self.ui_client = None
        self.journal_socket = os.path.join(self.tmp, "journal.sock")
        self.journal = {"entries": 0, "memfd": 0, "priorities": {}, "bytes": 0}
        self.metrics_file = os.path.join(self.tmp, "metrics", "evroute.prom")
        self.metrics_seen = 0      # textfile rewrites seen (its inode changed between samples)

    # -- helpers ----------------------------------------------------------------------------

    def log(self, message):
        elapsed = time.monotonic() - self.start_time if self.start_time else 0.0
        print(f"soak [{elapsed:6.1f} s] {message}", flush=True)

    def check(self, ok, name, detail=""):
        self.checks.append((bool(ok), name, detail))

    def cli(self, *argv, timeout=70):
        t0 = time.monotonic()
        try:
            p = subprocess.run([self.evroute, *argv], capture_output=True, text=True, timeout=timeout)
            return p.returncode, p.stdout, p.stderr, (time.monotonic() - t0) * 1000
        except subprocess.TimeoutExpired:
            return None, "", "timed out", (time.monotonic() - t0) * 1000

    def sleep(self, seconds):
        return self.stopping.wait(seconds)

    def status(self, timeout=15):
        """`evroute status --format json`: (the document or None, rc, stderr, milliseconds)."""
        rc, out, err, ms = self.cli("status", "--control-socket", self.control, "--format", "json", timeout=timeout)
        if rc != 0:
            return None, rc, err, ms
        try:
            return json.loads(out), rc, err, ms
        except ValueError:
            return None, rc, "status: not JSON", ms

    # -- setup ------------------------------------------------------------------------------

    def recordings_folder(self):
        folder = self.args.recordings or os.path.join(REPO, "Tests", "Fixtures", "recordings")
        if not os.path.isdir(folder):
            raise SystemExit(f"soak: no recordings folder {folder} (give --recordings DIR)")
        return folder

    def make_recordings(self):
        folder = self.recordings_folder()
        out = os.path.join(self.tmp, "recordings")
        p = subprocess.run([sys.executable, os.path.join(HERE, "loop-recordings.py"), "--recordings", folder,
                            "--out", out, "--seconds", str(self.args.seconds + 60)],
                           capture_output=True, text=True, check=True)
        self.replays = []
        print(f"soak: recordings from {folder}, looped into {out}:")
        for line in p.stdout.splitlines():
            path, name, what = line.split("\t")
            self.replays.append(path)
            print(f"  {name}: {what}")

    def make_layouts(self):
        self.good = [layout(self.tmp, "a"), layout(self.tmp, "b")]
        self.bad = broken_layouts(self.tmp)
        for i, text in enumerate(self.good + self.bad):
            path = os.path.join(self.tmp, f"layout-{i}.yaml")
            write_atomically(path, text)
            rc, out, err, _ = self.cli("check", path)
            expected = 0 if i < len(self.good) else 1
            if rc != expected:
                raise SystemExit(f"soak: evroute check {path} exited {rc}, expected {expected}:\n{out}{err}")
        for i, text in enumerate(NAV_REGIONS):
            write_atomically(os.path.join(self.tmp, f"nav-{i}.yaml"), text)
        write_atomically(os.path.join(self.tmp, "nav-broken.yaml"), BROKEN_REGIONS)
        write_atomically(self.config, self.good[0])

    def preflight(self):
        """The looped recordings through the layout in a dry-run: every touch began once and ended
        or was cancelled once (so a violation in the soak is the daemon's, not the loop's)."""
        argv = [self.evroute, "--config", self.config, "--dry-run", "--format", "json"]
        for r in self.replays:
            argv += ["--replay", r]
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ledger = TouchLedger(must_see_began=True)
        for line in p.stdout:
            ledger.see(json.loads(line))
        err = p.stderr.read()
        rc = p.wait()
        open_touches = ledger.open_touches()
        ok = rc == 0 and not ledger.violations and not open_touches and ledger.seen_touches()
        self.check(ok, "looped recordings well-formed (dry-run)",
                   f"{ledger.seen_touches()} touches, each began and ended once; {ledger.events} routed events"
                   if ok else f"rc {rc}, {len(ledger.violations)} violations {ledger.violations[:3]}, "
                              f"{len(open_touches)} open; {err[-500:]}")
        self.preflight_touches = ledger.seen_touches()

    # -- the daemon and its clients ---------------------------------------------------------

    def start_journal(self):
        """A journald stand-in: an AF_UNIX datagram socket the daemon's log sends its native
        journal entries to (EVROUTE_JOURNAL_SOCKET; JOURNAL_STREAM names the daemon's standard
        error, so it takes itself to run under systemd). Each datagram is one entry, or an
        empty one carrying a memfd (a large entry), as journald takes them."""
        self.journal_sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.journal_sock.bind(self.journal_socket)
        self.journal_sock.settimeout(0.5)
        def read():
            while not self.journal_done.is_set():
                try:
                    data, anc, _, _ = self.journal_sock.recvmsg(1 << 17, socket.CMSG_SPACE(4 * 8))
                except socket.timeout:
                    continue
                except OSError:
                    return
                for level, kind, fds in anc:
                    if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                        for i in range(0, len(fds) - len(fds) % 4, 4):
                            fd = int.from_bytes(fds[i:i + 4], sys.byteorder)
                            try:
                                data = os.pread(fd, 1 << 20, 0)
                            finally:
                                os.close(fd)
                            self.journal["memfd"] += 1
                for line in data.split(b"\n"):
                    if line.startswith(b"PRIORITY="):
                        prio = line[9:].decode(errors="replace")
                        self.journal["priorities"][prio] = self.journal["priorities"].get(prio, 0) + 1
                self.journal["entries"] += 1
                self.journal["bytes"] += len(data)
        self.journal_done = threading.Event()
        self.journal_thread = threading.Thread(target=read, daemon=True)
        self.journal_thread.start()

    def start_daemon(self):
        argv = [self.evroute, "--config", self.config, "--control-socket", self.control,
                "--replay-paused", "--replay-realtime"]
        for r in self.replays:
            argv += ["--replay", r]
        self.daemon_log = open(os.path.join(self.tmp, "daemon.log"), "w")
        st = os.fstat(self.daemon_log.fileno())
        env = dict(os.environ, JOURNAL_STREAM=f"{st.st_dev}:{st.st_ino}", EVROUTE_JOURNAL_SOCKET=self.journal_socket)
        self.daemon = subprocess.Popen(argv, stdout=self.daemon_log, stderr=subprocess.STDOUT, env=env)
        def ready():
            if self.daemon.poll() is not None:
                raise SystemExit(f"soak: the daemon exited at start ({self.daemon.returncode}); see {self.daemon_log.name}")
            return os.path.exists(self.control) and os.path.exists(self.ui_socket)
        if not wait_until(ready, 10, 0.05):
            raise SystemExit("soak: the daemon's sockets did not appear in 10 s")

    def start_clients(self):
        me = [sys.executable, os.path.abspath(__file__)]
        for name, extra in (("steady-1", ["--answer", "--decline", "0.3", "--commands"]),
                            ("steady-2", ["--answer", "--decline", "0.5"])):
            result = os.path.join(self.tmp, f"{name}.json")
            p = subprocess.Popen(me + ["--client", "--name", name, "--socket", self.ui_socket, "--result", result,
                                       "--seed", str(self.rng.random())] + extra)
            self.clients.append((name, p, result))
        for name in ("churn-1", "churn-2"):
            result = os.path.join(self.tmp, f"{name}.json")
            p = subprocess.Popen(me + ["--churn", "--name", name, "--socket", self.ui_socket, "--result", result,
                                       "--stop", self.stop_file, "--seed", str(self.rng.random())])
            self.churners.append((name, p, result))
        self.ui_client_out = open(os.path.join(self.tmp, "ui-client.out"), "w")
        self.ui_client = subprocess.Popen([sys.executable, UI_CLIENT, self.ui_socket], stdout=self.ui_client_out,
                                          stderr=subprocess.STDOUT)
        # The replay starts once the steady clients and the example client are connected.
        def connected():
            s = self.status(timeout=70)[0]
            ui = next((p for p in s["plugins"] if p["name"] == "ui"), None) if s else None
            return ui and ui.get("details", {}).get("clients", 0) >= 3
        wait_until(connected, 20, 0.2)
        rc, out, err, _ = self.cli("ctl", "--control-socket", self.control, "replay")
        if rc != 0:
            raise SystemExit(f"soak: evroute ctl replay exited {rc}: {out}{err}")

    # -- what runs during the soak ----------------------------------------------------------

    def watch_daemon(self):
        while not self.stopping.is_set():
            if self.daemon.poll() is not None:
                self.unexpected_exit = self.daemon.returncode
                self.log(f"the daemon exited unexpectedly: status {self.daemon.returncode}")
                self.stopping.set()
                return
            time.sleep(0.2)

    def sample(self):
        pid = self.daemon.pid
        last_inode = None
        while not self.sleep(1.0):
            try:
                inode = os.stat(self.metrics_file).st_ino
                if inode != last_inode:
                    last_inode = inode
                    self.metrics_seen += 1
            except OSError:
                pass
            try:
                with open(f"/proc/{pid}/status") as f:
                    rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
                fds = len(os.listdir(f"/proc/{pid}/fd"))
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
            except (OSError, StopIteration, IndexError, ValueError):
                continue
            with self.lock:
                self.samples.append((time.monotonic() - self.start_time, rss, fds, cpu))

    def probe(self):
        while not self.sleep(1.0):
            s, rc, err, ms = self.status()
            if rc == 0:
                self.status_ms.append(ms)
                if s is None:
                    self.status_failures.append(err)
                else:
                    self.last_status = s
                    self.accumulate(s)
            elif not self.stopping.is_set():
                self.status_failures.append(f"rc {rc}: {err.strip()[:200]}")
            # The same request on the control socket, without a process start.
            t0 = time.monotonic()
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                    s.settimeout(10)
                    s.connect(self.control)
                    s.sendall(b'{"command":"status"}\n')
                    data = b""
                    while not data.endswith(b"\n"):
                        chunk = s.recv(65536)
                        if not chunk:
                            break
                        data += chunk
                if json.loads(data).get("ok"):
                    self.socket_ms.append((time.monotonic() - t0) * 1000)
            except (OSError, ValueError) as error:
                if not self.stopping.is_set():
                    self.status_failures.append(f"socket: {error}")

    def accumulate(self, status):
        """Totals of plugin counters over the run: a reload that replaces a plugin starts its
        counters from 0 again, so each probe adds what grew since the one before."""
        for p in status.get("plugins", []):
            values = {k: p.get(k, 0) for k in ("delivered", "handled", "declined", "timed_out", "dropped",
                                                "failures", "restarts")}
            values.update({k: v for k, v in p.get("details", {}).items()
                           if k in ("clients_accepted", "clients_dropped", "late_answers", "commands",
                                    "declined_while_down", "garbage_lines")})
            for k, v in values.items():
                if not isinstance(v, (int, float)):
                    continue
                key = (p["name"], k)
                before = self.previous.get(key, 0)
                self.totals[key] = self.totals.get(key, 0) + (v - before if v >= before else v)
                self.previous[key] = v

    def ctl_commands(self):
        c = ["--control-socket", self.control]
        commands = [
            ("present", ["present", "overlay"], 3),
            ("dismiss", ["dismiss"], 5),
            ("present-settings", ["present", "settings"], 1),
            ("focus", ["focus", "home/root/header/search"], 2),
            ("resign", ["focus", "--resign"], 1),
            ("hide", ["hide", "home/root/header/title"], 1),
            ("show", ["show", "home/root/header/title"], 1),
            ("disable", ["disable", "home/root/nav"], 1),
            ("enable", ["enable", "home/root/nav"], 1),
            ("frame", ["frame", "home/root/content/video", "0", "0", "700", "400"], 1),
            ("frame-back", ["frame", "home/root/content/video", "0", "0", "800", "450"], 1),
            ("regions", ["regions", "home/root/nav", os.path.join(self.tmp, "nav-0.yaml")], 1),
            ("regions-2", ["regions", "home/root/nav", os.path.join(self.tmp, "nav-1.yaml")], 1),
            ("regions-broken", ["regions", "home/root/nav", os.path.join(self.tmp, "nav-broken.yaml")], 1),
            ("action", ["action", "page", "--from", "home/root/content"], 1),
            ("state", ["state", "--format", "json"], 1),
            ("unknown-region", ["hide", "home/root/nosuch"], 1),
        ]
        weighted = [entry for entry in commands for _ in range(entry[2])]
        must_refuse = {"regions-broken", "unknown-region"}
        while not self.sleep(self.rng.uniform(0.4, 1.2)):
            kind, argv, _ = self.rng.choice(weighted)
            rc, out, err, _ = self.cli("ctl", *c, *argv, timeout=15)
            if self.stopping.is_set():
                return
            counts = self.ctl.setdefault(kind, {"ok": 0, "refused": 0, "error": 0})
            if rc == 0:
                counts["ok"] += 1
                if kind in must_refuse:
                    self.ctl_errors.append(f"{kind}: taken, should be refused")
            elif rc == 1:
                counts["refused"] += 1
            else:
                counts["error"] += 1
                self.ctl_errors.append(f"{kind}: exit {rc}: {(out + err).strip()[:200]}")

    def status_counts(self):
        s = self.status()[0]
        if s is None:
            return None
        return s.get("reloads", 0), s.get("failed_reloads", 0)

    def wait_for_reload(self, before, failed):
        """After a SIGHUP: waits until the daemon counts a reload (or a failed one)."""
        def counted():
            if self.stopping.is_set():
                return ("stopped",)
            now = self.status_counts()
            return now if now and (now[0] > before[0] or now[1] > before[1]) else None
        now = wait_until(counted, 20, 0.1)
        if now is None or now == ("stopped",):
            return False
        return now[1] > before[1] if failed else now[0] > before[0] and now[1] == before[1]

    def reloads_loop(self):
        step, goods, bads = 0, 0, 0
        while not self.sleep(self.args.reload_interval):
            kind = ["good", "good-hup", "bad", "bad-hup"][step % 4]
            step += 1
            if kind.startswith("good"):
                goods += 1
                text = self.good[goods % 2]  # a, b, a, …: the helper is replaced each time
            else:
                bads += 1
                text = self.bad[bads % len(self.bad)]
            if kind.endswith("hup"):
                before = self.status_counts()
                if before is None:
                    continue
                write_atomically(self.config, text)
                self.daemon.send_signal(signal.SIGHUP)
                self.reloads["sighup"] += 1
                ok = self.wait_for_reload(before, failed=kind.startswith("bad"))
                rc = 0 if ok == kind.startswith("good") else 1
                out = "" if ok else "SIGHUP: no reload counted as expected"
            else:
                write_atomically(self.config, text)
                rc, out, err, _ = self.cli("reload", "--control-socket", self.control)
                out += err
            if self.stopping.is_set():
                return
            if kind.startswith("good"):
                if rc == 0:
                    self.reloads["good_ok"] += 1
                else:
                    self.reloads["good_failed"] += 1
                    self.reload_errors.append(f"{kind}: exit {rc}: {out.strip()[:300]}")
            else:
                if rc == 1:
                    self.reloads["bad_refused"] += 1
                else:
                    self.reloads["bad_taken"] += 1
                    self.reload_errors.append(f"{kind}: exit {rc}: {out.strip()[:300]}")
            if kind.startswith("bad"):
                # The file is valid again for the next reload (the running layout never changed).
                write_atomically(self.config, self.good[0])

    # -- the run ----------------------------------------------------------------------------

    def run(self):
        print(f"soak: {self.args.seconds} s, evroute {self.evroute}, work folder {self.tmp}")
        self.make_recordings()
        self.make_layouts()
        self.preflight()
        os.makedirs(os.path.dirname(self.metrics_file), mode=0o755)
        self.start_journal()
        self.start_time = time.monotonic()
        self.start_daemon()
        self.start_clients()
        self.log(f"daemon {self.daemon.pid} replaying {len(self.replays)} devices at real time")
        threads = [threading.Thread(target=f, daemon=True) for f in
                   (self.watch_daemon, self.sample, self.probe, self.ctl_commands, self.reloads_loop)]
        for t in threads:
            t.start()
        end = time.monotonic() + self.args.seconds
        next_report = time.monotonic() + 60
        while not self.stopping.is_set() and time.monotonic() < end:
            time.sleep(0.5)
            if time.monotonic() >= next_report:
                next_report += 60
                with self.lock:
                    last = self.samples[-1] if self.samples else (0, 0, 0, 0)
                s = self.last_status or {}
                self.log(f"rss {last[1]} kB, {last[2]} fds, {s.get('events', {}).get('touch', 0)} touch events, "
                         f"{s.get('reloads', 0)} reloads taken ({s.get('failed_reloads', 0)} refused), "
                         f"{sum(sum(v.values()) for v in self.ctl.values())} ctl commands")
        self.final_status = self.last_status
        if self.unexpected_exit is None:
            s = self.status()[0]
            if s is not None:
                self.final_status = s
        self.stopping.set()
        for t in threads:
            t.join(timeout=80)
        return self.finish()

    def finish(self):
        elapsed = time.monotonic() - self.start_time
        # Stop: the daemon gets SIGTERM and must exit 0; the clients see EOF and write results.
        open(self.stop_file, "w").close()
        if self.daemon.poll() is None:
            self.daemon.send_signal(signal.SIGTERM)
            try:
                term_rc = self.daemon.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.daemon.kill()
                term_rc = "hung (killed)"
        else:
            term_rc = None
        self.daemon_log.close()
        time.sleep(0.5)
        self.journal_done.set()
        self.journal_thread.join(timeout=5)
        self.journal_sock.close()
        results = {}
        for name, p, path in self.clients + self.churners:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
            try:
                with open(path) as f:
                    results[name] = json.load(f)
            except (OSError, ValueError):
                results[name] = None
        try:
            ui_rc = self.ui_client.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.ui_client.kill()
            ui_rc = "hung"
        self.ui_client_out.close()
        with open(self.ui_client_out.name) as f:
            ui_lines = f.read().splitlines()

        a = self.args
        print()
        print(f"soak: ran {elapsed:.0f} s ({a.seconds} s asked), evroute {self.evroute}")

        # The daemon's exits.
        self.check(self.unexpected_exit is None, "daemon: no unexpected exit",
                   "0 unexpected exits" if self.unexpected_exit is None else
                   f"exited with status {self.unexpected_exit} during the run"
                   + (" (SIGABRT: a trap or an exclusivity violation)" if self.unexpected_exit in (-6, 134) else ""))
        if self.unexpected_exit is None:
            self.check(term_rc == 0, "daemon: exit 0 at SIGTERM", f"exit status {term_rc}")

        # RSS and fds: the last window against the first.
        with self.lock:
            samples = list(self.samples)
        window = 60.0 if elapsed >= 180 else max(5.0, elapsed / 3)
        first = [s for s in samples if s[0] <= samples[0][0] + window] if samples else []
        last = [s for s in samples if s[0] >= samples[-1][0] - window] if samples else []
        if first and last and len(samples) >= 6:
            rss_first, rss_last = statistics.median(s[1] for s in first), statistics.median(s[1] for s in last)
            fds_first, fds_last = statistics.median(s[2] for s in first), statistics.median(s[2] for s in last)
            rss_tol = max(0.10 * rss_first, 2048)
            self.check(rss_last - rss_first <= rss_tol, "RSS flat",
                       f"median VmRSS first {window:.0f} s {rss_first / 1024:.1f} MiB, last {window:.0f} s "
                       f"{rss_last / 1024:.1f} MiB ({(rss_last - rss_first) / 1024:+.1f} MiB; tolerance +{rss_tol / 1024:.1f} MiB); "
                       f"min {min(s[1] for s in samples) / 1024:.1f}, max {max(s[1] for s in samples) / 1024:.1f} MiB "
                       f"(at {max(samples, key=lambda s: s[1])[0]:.0f} s)")
            self.check(abs(fds_last - fds_first) <= 3, "fd count flat",
                       f"median fds first {window:.0f} s {fds_first:g}, last {window:.0f} s {fds_last:g} "
                       f"(tolerance ±3); min {min(s[2] for s in samples)}, max {max(s[2] for s in samples)}")
            cpu = samples[-1][3] - samples[0][3]
            span = samples[-1][0] - samples[0][0]
            print(f"soak: daemon CPU {cpu:.1f} s over {span:.0f} s ({100 * cpu / span:.0f} % of a core); "
                  f"{len(samples)} RSS/fd samples")
        else:
            self.check(False, "RSS and fd samples", f"only {len(samples)} samples")

        # Status probes.
        probes = len(self.status_ms)
        self.check(probes > 0 and not self.status_failures and percentile(self.status_ms, 99) < 1000,
                   "status probes answered (p99 < 1 s)",
                   f"{probes} `evroute status` probes: p50 {percentile(self.status_ms, 50):.1f} ms, "
                   f"p99 {percentile(self.status_ms, 99):.1f} ms, max {max(self.status_ms or [0]):.1f} ms; "
                   f"control-socket round trip p50 {percentile(self.socket_ms, 50):.1f} ms, "
                   f"p99 {percentile(self.socket_ms, 99):.1f} ms; {len(self.status_failures)} failed"
                   + (f" {self.status_failures[:3]}" if self.status_failures else ""))

        # Touches, per client.
        for name, _, _ in self.clients:
            r = results.get(name)
            if r is None:
                self.check(False, f"client {name}: touches began and ended once", "no result (the client died?)")
                continue
            self.check(r["violations"] == 0 and r["touches"] > 0,
                       f"client {name}: touches began and ended once",
                       f"{r['touches']} touches, {r['complete']} ended or cancelled once, {r['violations']} violations"
                       f"{' ' + str(r['violation_samples'][:3]) if r['violations'] else ''}; {r['events']} events, "
                       f"answered {r['answers']['true']} true / {r['answers']['false']} false; "
                       f"{r['redeliveries']} redeliveries of a declined event along the chain"
                       + (f"; commands on its connection: {r['commands']['sent']} sent, {r['commands']['answered']} answered"
                          if r["commands"]["sent"] else ""))
            if r["commands"]["sent"]:
                self.check(r["commands"]["sent"] - r["commands"]["answered"] <= 1,
                           f"client {name}: its commands answered", json.dumps(r["commands"]))
        for name, _, _ in self.churners:
            r = results.get(name)
            if r is None:
                self.check(False, f"churn {name}: touches began and ended once", "no result (the client died?)")
                continue
            self.check(r["violations"] == 0 and r["sessions"] > 0, f"churn {name}: touches began and ended once",
                       f"{r['sessions']} connections {r['kinds']}, {r['touches']} touches seen from their began, "
                       f"{r['complete']} ended once, {r['open_at_disconnect']} still open at disconnect, "
                       f"{r['violations']} violations{' ' + str(r['violation_samples'][:3]) if r['violations'] else ''}; "
                       f"{r['eof_early']} closed by the daemon")
        taps = [line for line in ui_lines if line.startswith("tap ")]
        self.check(ui_rc == 0, "examples/ui-client.py ran to the end",
                   f"exit {ui_rc}; {len(taps)} taps followed ({sum(1 for t in taps if t.endswith(': ok'))} ok, "
                   f"{sum(1 for t in taps if 'refused' in t)} refused)")

        # Reloads and ctl.
        r = self.reloads
        self.check(r["good_failed"] == 0 and r["bad_taken"] == 0 and r["good_ok"] > 0 and r["bad_refused"] > 0,
                   "reloads: good taken, broken refused",
                   f"{r['good_ok']} good reloads taken, {r['bad_refused']} broken refused "
                   f"({r['sighup']} by SIGHUP, the others by `evroute reload`)"
                   + (f"; {self.reload_errors[:3]}" if self.reload_errors else ""))
        total = {k: sum(v[k] for v in self.ctl.values()) for k in ("ok", "refused", "error")}
        self.check(not self.ctl_errors and total["ok"] > 0, "ctl commands answered",
                   f"{sum(total.values())} `evroute ctl` commands: {total['ok']} ok, {total['refused']} refused, "
                   f"{total['error']} errors" + (f"; {self.ctl_errors[:3]}" if self.ctl_errors else ""))

        # What the daemon counted, and that the scenario happened.
        s = self.final_status or {}
        plugins = {p["name"]: p for p in s.get("plugins", [])}
        ui, helper = plugins.get("ui", {}), plugins.get("helper", {})
        ev = s.get("events", {})
        print(f"soak: daemon counted {ev.get('input', 0)} input events, {ev.get('touch', 0)} touch events, "
              f"{ev.get('key', 0)} key events, {ev.get('handled', 0)} handled, {ev.get('unhandled', 0)} unhandled, "
              f"{s.get('reloads', 0)} reloads taken and {s.get('failed_reloads', 0)} refused, "
              f"{ev.get('region_changes', 0)} region changes, {ev.get('touches_cancelled_by_reload', 0)} touches "
              f"cancelled by a reload and {ev.get('touches_cancelled_by_changes', 0)} by a change")
        if s:
            self.accumulate(s)
        t = lambda plugin, k: self.totals.get((plugin, k), 0)
        for name in ("ui", "helper"):
            counted = ", ".join(f"{k} {v}" for (p, k), v in sorted(self.totals.items()) if p == name)
            print(f"soak: plugin {name} over the run (summed across reloads that replaced it): {counted}")
        if self.unexpected_exit is None:
            self.check(t("ui", "declined") > 0 and t("ui", "clients_accepted") > 10
                       and t("helper", "restarts") > 0 and t("helper", "timed_out") > 0
                       and ev.get("touch", 0) > 0,
                       "scenario exercised (declines, churn, helper time-outs and restarts)",
                       f"ui declined {t('ui', 'declined')}, {t('ui', 'clients_accepted')} clients accepted; "
                       f"helper declined {t('helper', 'declined')}, timed out {t('helper', 'timed_out')}, "
                       f"restarted {t('helper', 'restarts')}")

        # The journal and the metrics textfile, on all along.
        j = self.journal
        self.check(j["entries"] > 0, "journal: entries sent to the journald stand-in",
                   f"{j['entries']} entries ({j['memfd']} by memfd), {j['bytes']} bytes; by priority "
                   + ", ".join(f"{k}: {v}" for k, v in sorted(j["priorities"].items())))
        try:
            with open(self.metrics_file) as f:
                metrics = f.read()
        except OSError as e:
            metrics = ""
            print(f"soak: no metrics textfile: {e}")
        filtered = sum(float(line.rsplit(" ", 1)[1]) for line in metrics.splitlines()
                       if line.startswith("evroute_filtered_total{"))
        self.check("evroute_" in metrics and self.metrics_seen > a.seconds / 4, "metrics: textfile rewritten all along",
                   f"{self.metrics_seen} rewrites seen by the sampler; {len(metrics.splitlines())} lines at the end; "
                   f"evroute_filtered_total sums to {filtered:.0f}")
        fwd = plugins.get("desktop", {})
        print(f"soak: forward plugin 'desktop': {json.dumps({k: v for k, v in fwd.items() if k != 'name'})[:300]}")

        print()
        for ok, name, detail in self.checks:
            print(f"  {'PASS' if ok else 'FAIL'}  {name}: {detail}")
        failed = sum(1 for ok, _, _ in self.checks if not ok)
        if failed or a.keep:
            print(f"soak: work folder kept: {self.tmp} (daemon.log, the layouts, client results)")
            if failed:
                with open(os.path.join(self.tmp, "daemon.log"), errors="replace") as f:
                    tail = f.readlines()[-15:]
                print("soak: the daemon log's last lines:\n" + "".join("    " + line for line in tail), end="")
        else:
            subprocess.run(["rm", "-rf", self.tmp])
        print(f"soak: {len(self.checks) - failed} passed, {failed} failed")
        return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description="Soak the evroute daemon (see the module's doc).")
    parser.add_argument("--evroute", default=os.path.join(REPO, ".build", "debug", "evroute"))
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--recordings", help="folder of evemu recordings (default Tests/Fixtures/recordings)")
    parser.add_argument("--reload-interval", type=float, default=4.0, help="seconds between reloads (default 4)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument("--seed", type=float, default=None)
    # internal modes
    parser.add_argument("--helper", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--deadline-ms", type=float, default=100, help=argparse.SUPPRESS)
    parser.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--churn", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--name", help=argparse.SUPPRESS)
    parser.add_argument("--socket", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    parser.add_argument("--stop", help=argparse.SUPPRESS)
    parser.add_argument("--answer", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--decline", type=float, default=0.3, help=argparse.SUPPRESS)
    parser.add_argument("--commands", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.helper:
        return run_helper(args)
    if args.client:
        return run_client(args)
    if args.churn:
        return run_churn(args)
    if not os.access(args.evroute, os.X_OK):
        sys.exit(f"soak: no evroute binary at {args.evroute} (make build)")
    return Soak(args).run()


if __name__ == "__main__":
    sys.exit(main())
