#!/usr/bin/python3
# vm/guest/perf/evdev-hit.py — the python-evdev script a kiosk builder writes
# today, as 90-evroute-perf's peer: read a touchscreen (protocol B), scale to
# the 1280x800 display, hit-test each new contact against the regions of
# config/regions.yaml (deepest, last declared first) and print one line per
# contact per frame: "id phase x y region".
import sys
import evdev
from evdev import ecodes as e

W, H = 1280, 800
# (path, x, y, w, h) in display coordinates, parents before children
REGIONS = [
    ("home/root", 0, 0, 1280, 800),
    ("home/root/header", 0, 0, 1280, 100),
    ("home/root/header/back", 0, 0, 160, 100),
    ("home/root/grid", 0, 100, 1280, 600),
    ("home/root/grid/a", 0, 100, 426, 300),
    ("home/root/grid/b", 426, 100, 428, 300),
    ("home/root/grid/c", 854, 100, 426, 300),
    ("home/root/grid/d", 0, 400, 426, 300),
    ("home/root/grid/d/button", 100, 500, 226, 100),
    ("home/root/grid/e", 426, 400, 428, 300),
    ("home/root/grid/f", 854, 400, 426, 300),
    ("home/root/footer", 0, 700, 1280, 100),
]


def hit(x, y):
    # children come after their parent and siblings do not overlap: the last
    # region containing the point is the deepest
    for path, rx, ry, rw, rh in reversed(REGIONS):
        if rx <= x < rx + rw and ry <= y < ry + rh:
            return path
    return None


dev = evdev.InputDevice(sys.argv[1])
ax, ay = dev.absinfo(e.ABS_MT_POSITION_X), dev.absinfo(e.ABS_MT_POSITION_Y)
sx, sy = W / (ax.max - ax.min + 1), H / (ay.max - ay.min + 1)
slot, slots, changed = 0, {}, set()
for ev in dev.read_loop():
    if ev.type == e.EV_ABS:
        if ev.code == e.ABS_MT_SLOT:
            slot = ev.value
        elif ev.code == e.ABS_MT_TRACKING_ID:
            if ev.value < 0:
                if slot in slots:
                    slots[slot]["phase"] = "ended"
            else:
                slots[slot] = {"id": ev.value, "x": 0, "y": 0, "phase": "began", "region": None}
            changed.add(slot)
        elif ev.code == e.ABS_MT_POSITION_X and slot in slots:
            slots[slot]["x"] = (ev.value - ax.min) * sx
            changed.add(slot)
        elif ev.code == e.ABS_MT_POSITION_Y and slot in slots:
            slots[slot]["y"] = (ev.value - ay.min) * sy
            changed.add(slot)
    elif ev.type == e.EV_SYN and ev.code == e.SYN_REPORT:
        for s in changed:
            t = slots.get(s)
            if t is None:
                continue
            if t["phase"] == "began":
                t["region"] = hit(t["x"], t["y"])
            print(t["id"], t["phase"], round(t["x"], 2), round(t["y"], 2), t["region"])
            if t["phase"] == "ended":
                del slots[s]
            else:
                t["phase"] = "moved" if t["phase"] == "began" else t["phase"]
        changed.clear()
