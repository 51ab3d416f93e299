#!/usr/bin/env python3
"""Measures real touches in evemu recordings, for the defaults of `filters:`:
the shortest contact (a real tap: down to up) and the largest resting jitter (how far a contact
that stays put strays from where it began), in display units for a given display size.

    scripts/measure-taps.py [--display 1280x800] FILE.events ...

A contact is followed by its tracking id (protocol B) or BTN_TOUCH (single-touch, protocol A's
emulation). Jitter is the largest step that the next step takes back (a contact going back and
forth); contacts shorter than --short-ms (60) are listed, alone or with other contacts down. Times are the recording's event times."""
import math, re, sys

ABS_X, ABS_Y, SLOT, TRACK, MTX, MTY, BTN_TOUCH = 0x00, 0x01, 0x2f, 0x39, 0x35, 0x36, 0x14a

def parse(path):
    ranges, events = {}, []
    for line in open(path, errors="replace"):
        if line.startswith("A: "):
            p = line.split()
            ranges[int(p[1], 16)] = (int(p[2]), int(p[3]))
        elif line.startswith("E: "):
            p = line.split()
            events.append((float(p[1]), int(p[2], 16), int(p[3], 16), int(p[4])))
    if not ranges:
        # Recordings without a header take it from their device's .desc beside them
        # ("NAME.what.events" → "NAME.desc").
        base = path[:-len(".events")] if path.endswith(".events") else path
        while base and not ranges:
            try:
                for line in open(base + ".desc", errors="replace"):
                    if line.startswith("A: "):
                        q = line.split(); ranges[int(q[1], 16)] = (int(q[2]), int(q[3]))
            except OSError:
                pass
            base = base.rsplit(".", 1)[0] if "." in base.rsplit("/", 1)[-1] else ""
    return ranges, events

def contacts(ranges, events):
    """(start, end, [(t, x, y)]) per contact, raw units."""
    done = []
    if SLOT in ranges or TRACK in ranges:
        slot, live, pos = 0, {}, {}
        for t, ty, code, v in events:
            if ty != 3: continue
            if code == SLOT: slot = v
            elif code == TRACK:
                if v < 0:
                    if slot in live:
                        c = live.pop(slot); c[1] = t; done.append(c)
                else:
                    live[slot] = [t, t, []]
            elif code in (MTX, MTY):
                p = pos.setdefault(slot, [None, None]); p[0 if code == MTX else 1] = v
                if slot in live and None not in p:
                    c = live[slot]; c[1] = t; c[2].append((t, p[0], p[1]))
        xr, yr = ranges.get(MTX), ranges.get(MTY)
    else:
        down, cur, p = False, None, [None, None]
        for t, ty, code, v in events:
            if ty == 1 and code == BTN_TOUCH:
                if v and not down: cur = [t, t, []]
                if not v and down and cur: cur[1] = t; done.append(cur)
                down = bool(v)
            elif ty == 3 and code in (ABS_X, ABS_Y):
                p[0 if code == ABS_X else 1] = v
                if down and cur is not None and None not in p: cur[1] = t; cur[2].append((t, p[0], p[1]))
        xr, yr = ranges.get(ABS_X), ranges.get(ABS_Y)
    return done, xr, yr

def main(argv):
    w, h, short_ms = 1280.0, 800.0, 60.0
    files = []
    i = 0
    while i < len(argv):
        if argv[i] == "--display": w, h = map(float, argv[i + 1].split("x")); i += 2
        elif argv[i] == "--short-ms": short_ms = float(argv[i + 1]); i += 2
        else: files.append(argv[i]); i += 1
    n, shortest, lone_shortest, jitter, shorts = 0, None, None, None, []
    for f in files:
        ranges, events = parse(f)
        cs, xr, yr = contacts(ranges, events)
        if not xr or not yr or not events: continue
        sx, sy = w / (xr[1] - xr[0] + 1), h / (yr[1] - yr[0] + 1)
        name, first = f.rsplit("/", 1)[-1], events[0][0]
        for start, end, samples in cs:
            # Jitter: a step the next step takes back (the contact goes back and forth).
            pts = []
            for _, x, y in samples:
                if not pts or pts[-1] != (x * sx, y * sy): pts.append((x * sx, y * sy))
            for a, b, c in zip(pts, pts[1:], pts[2:]):
                u, v = (b[0] - a[0], b[1] - a[1]), (c[0] - b[0], c[1] - b[1])
                if u[0] * v[0] + u[1] * v[1] < 0:
                    amp = min(math.hypot(*u), math.hypot(*v))
                    if jitter is None or amp > jitter[0]: jitter = (amp, name, start)
            # (evemu-record writes a contact down before it in the header, not as events: a
            # tracking id in the first frame is a contact that began there.)
            n += 1
            dur = (end - start) * 1000   # down to the frame that lifts it
            lone = not any(s2 < start <= e2 or (s2 == start and e2 != end) for s2, e2, _ in cs if (s2, e2) != (start, end))
            if shortest is None or dur < shortest[0]: shortest = (dur, name, start)
            if lone and (lone_shortest is None or dur < lone_shortest[0]): lone_shortest = (dur, name, start)
            if dur < short_ms: shorts.append((dur, name, start, lone, len(samples)))
    print(f"contacts: {n} in {len(files)} recordings (display {w:g}x{h:g})")
    if shortest: print(f"shortest contact: {shortest[0]:.1f} ms ({shortest[1]} at {shortest[2]:.6f})")
    if lone_shortest: print(f"shortest contact with no other down: {lone_shortest[0]:.1f} ms ({lone_shortest[1]} at {lone_shortest[2]:.6f})")
    for dur, name, start, lone, k in sorted(shorts):
        print(f"  {dur:6.1f} ms  {'alone' if lone else 'with others down'}  {k} samples  {name} at {start:.6f}")
    if jitter: print(f"largest back-and-forth step (jitter): {jitter[0]:.2f} units ({jitter[1]} at {jitter[2]:.6f})")

main(sys.argv[1:])
