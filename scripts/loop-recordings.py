#!/usr/bin/env python3
"""Long evemu recordings for the soak (scripts/soak.py): each device's real recordings, played
one after the other and looped, with the timestamps shifted so time only goes forward.

usage: loop-recordings.py --recordings DIR --out DIR --seconds N [--gap S] [--devices NAME…]

For every device found under DIR (recursively: `*.events` files, grouped by the device's name,
the `N:` line of the file or of the `.desc` evemu's naming convention gives it), writes
OUT/<device>.soak.events: the device's description, then its recordings in name order, each
followed by a closing frame and a gap, repeated until the file spans at least N seconds.

Touches stay well-formed across every seam: after each recording, a closing frame releases
whatever it left down (protocol B: every slot with a tracking ID gets -1, and the slot goes back
to 0; protocol A: an empty frame, a `SYN_MT_REPORT` with no contact; keys and buttons still down
go up, `BTN_TOUCH` included), so every contact ends before the next recording (and the next loop)
starts and each one starts from a released device, as the real one did. Prints one line per file
written: its path, the device name, the recordings it loops, the loops and events.

Standard library only.
"""

import argparse
import math
import os
import re
import sys

EV_SYN, EV_KEY, EV_ABS = 0x00, 0x01, 0x03
SYN_REPORT, SYN_MT_REPORT = 0x00, 0x02
ABS_MT_SLOT, ABS_MT_TRACKING_ID = 0x2F, 0x39
BTN_TOUCH = 0x14A
HEADER = re.compile(r"^[NIPBALS]:")


def description_for(events_path):
    """The `.desc` evemu's convention gives an events-only recording: the longest NAME with a
    NAME.desc beside it (`X.hp.scroll.events` reads `X.hp.desc` before `X.desc`)."""
    folder, name = os.path.split(events_path)
    stem = name[: -len(".events")]
    parts = stem.split(".")
    for n in range(len(parts), 0, -1):
        candidate = os.path.join(folder, ".".join(parts[:n]) + ".desc")
        if os.path.isfile(candidate):
            return candidate
    return None


def read_recording(path):
    """(header lines, events [(time, type, code, value)]) of one recording; the header is the
    file's own when it has an `N:` line, else its `.desc` file's."""
    header, events = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("E:"):
                fields = line[2:].split("#", 1)[0].split()
                if len(fields) < 4:
                    continue
                events.append((float(fields[0]), int(fields[1], 16), int(fields[2], 16), int(fields[3])))
            elif HEADER.match(line):
                header.append(line.rstrip("\n"))
    if not any(h.startswith("N:") for h in header):
        desc = description_for(path)
        if desc is None:
            return None, events
        with open(desc, encoding="utf-8", errors="replace") as f:
            header = [line.rstrip("\n") for line in f if HEADER.match(line)]
    return header, events


def device_name(header):
    for line in header:
        if line.startswith("N:"):
            return line[2:].strip()
    return None


def closing_frame(events):
    """The events that release what `events` left down, or [] when it left nothing down."""
    slot, tracking, keys = 0, {}, {}
    frame_contacts, last_frame_contacts = 0, 0
    for _, etype, code, value in events:
        if etype == EV_ABS and code == ABS_MT_SLOT:
            slot = value
        elif etype == EV_ABS and code == ABS_MT_TRACKING_ID:
            tracking[slot] = value
        elif etype == EV_KEY:
            keys[code] = value
        elif etype == EV_SYN and code == SYN_MT_REPORT:
            frame_contacts += 1
        elif etype == EV_SYN and code == SYN_REPORT:
            last_frame_contacts, frame_contacts = frame_contacts, 0
    protocol_a = any(e[1] == EV_SYN and e[2] == SYN_MT_REPORT for e in events)
    protocol_b = any(e[1] == EV_ABS and e[2] == ABS_MT_SLOT for e in events)
    close = []
    if protocol_b or not protocol_a:
        for s in sorted(tracking):
            if tracking[s] >= 0:
                close += [(EV_ABS, ABS_MT_SLOT, s), (EV_ABS, ABS_MT_TRACKING_ID, -1)]
        if protocol_b and (close or slot != 0):
            close.append((EV_ABS, ABS_MT_SLOT, 0))
    if protocol_a and last_frame_contacts > 0:
        close.append((EV_SYN, SYN_MT_REPORT, 0))  # a frame with no contact: every contact lifted
    for code in sorted(keys):
        if keys[code] != 0:
            close.append((EV_KEY, code, 0))
    if close:
        close.append((EV_SYN, SYN_REPORT, 0))
    return close


def find_devices(folder, wanted=None):
    """{device name: (header, [(path, events)])}, recordings in name order; only recordings
    with events (a description alone, or a recording of no event, is left out)."""
    paths = []
    for root, _, files in os.walk(folder):
        paths += [os.path.join(root, f) for f in files if f.endswith(".events")]
    devices = {}
    for path in sorted(paths):
        header, events = read_recording(path)
        name = device_name(header or [])
        if not events or name is None or (wanted and name not in wanted):
            continue
        entry = devices.setdefault(name, (header, []))
        entry[1].append((path, events))
    return devices


def write_loop(out_path, header, recordings, seconds, gap):
    """Writes the looped recording; returns (loops, events written, one loop's length)."""
    # One loop: each recording from its own time 0, its closing frame 10 ms after its last
    # event, then the gap.
    loop, at = [], 0.0
    for _, events in recordings:
        t0 = events[0][0]
        for t, etype, code, value in events:
            loop.append((at + (t - t0), etype, code, value))
        end = at + (events[-1][0] - t0)
        close = closing_frame(events)
        if close:
            end += 0.01
            loop += [(end, etype, code, value) for etype, code, value in close]
        at = end + gap
    period = at
    loops = max(1, math.ceil(seconds / period))
    written = 0
    with open(out_path, "w", encoding="utf-8") as out:
        out.write("# EVEMU 1.3\n# evroute soak: %s, looped %d times (scripts/loop-recordings.py)\n"
                  % (", ".join(os.path.basename(p) for p, _ in recordings), loops))
        for line in header:
            out.write(line + "\n")
        for k in range(loops):
            shift = 1.0 + k * period
            out.writelines("E: %.6f %04x %04x %d\n" % (t + shift, etype, code, value)
                           for t, etype, code, value in loop)
            written += len(loop)
    return loops, written, period


def safe_name(name):
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")


def main():
    parser = argparse.ArgumentParser(description="Loop each device's real recordings into one long recording.")
    parser.add_argument("--recordings", required=True, help="folder of evemu recordings (searched recursively)")
    parser.add_argument("--out", required=True, help="folder to write the looped recordings to")
    parser.add_argument("--seconds", type=float, required=True, help="the least time each looped recording spans")
    parser.add_argument("--gap", type=float, default=0.3, help="seconds between two recordings (default 0.3)")
    parser.add_argument("--devices", nargs="*", help="device names (the N: line) to loop; default every device")
    args = parser.parse_args()

    devices = find_devices(args.recordings, set(args.devices) if args.devices else None)
    if not devices:
        sys.exit(f"loop-recordings: no recording with events under {args.recordings}")
    os.makedirs(args.out, exist_ok=True)
    for name, (header, recordings) in sorted(devices.items()):
        out_path = os.path.join(args.out, safe_name(name) + ".soak.events")
        loops, written, period = write_loop(out_path, header, recordings, args.seconds, args.gap)
        print(f"{out_path}\t{name}\t{len(recordings)} recording(s), {period:.2f} s a loop, {loops} loops, {written} events")


if __name__ == "__main__":
    main()
