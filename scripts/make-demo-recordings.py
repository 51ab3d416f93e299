#!/usr/bin/env python3
"""Generate evroute's demo input: demo/touchscreen.events and demo/keyboard.events.

Both files are EVEMU 1.3 recordings in the layout evemu-record writes (a `#` comment block,
then N: I: P: B: A: description lines, then `E: sec.usec type code value` events with a
comment each), of two synthetic devices:

- an "evroute Demo Touchscreen": multi-touch protocol B, 10 slots, a 0..4095 x 0..4095
  digitizer (INPUT_PROP_DIRECT), meant to be mapped onto the 1280x800 display of
  config/demo.yaml;
- an "evroute Demo Keyboard": a USB keyboard (full key set, EV_MSC/MSC_SCAN, LEDs, EV_REP).

They share one time base (starting at 100.000000 s), so replaying both together shows the
story of config/demo.yaml:

  100.0  tap the back button               -> exec handler `echo back`
  100.6  tap the title                     -> nobody handles it: it walks to the fallback
  101.3  tap the search field              -> it becomes first responder
  101.9  type "demo" (the o held: repeats) and Enter on the keyboard -> the search field
  103.9  tap the home button in the nav bar
  104.6  double tap the info button        -> the second tap has tap count 2
  105.6  drag from the volume slider down into the content area -> stays bound to the slider
  107.2  two fingers in the content area   -> two touches, released in different frames
  108.5  long press (1 s) in the top-right admin corner

The kernel's behaviour is mimicked where a reader could notice it: values that do not
change are dropped (per slot for ABS_MT_*, ABS_MT_SLOT only when the slot changes), frames
whose events were all dropped are not reported, ABS_X/ABS_Y/ABS_PRESSURE and BTN_TOUCH are
the pointer emulation of the oldest contact (input_mt_report_pointer_emulation), tracking IDs
count up per new contact, and autorepeat frames end in SYN_REPORT with value 1.

Deterministic: a fixed-seed PRNG of our own (xorshift64*), integer microseconds, no wall
clock. Running it again rewrites the committed files byte for byte.

usage: scripts/make-demo-recordings.py [OUTPUT_DIR]     (default: demo/ next to scripts/)
"""

import os
import sys

# --- event codes (linux/input-event-codes.h) ---------------------------------------------

EV_SYN, EV_KEY, EV_REL, EV_ABS, EV_MSC, EV_SW, EV_LED, EV_SND, EV_REP, EV_FF = (
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x11, 0x12, 0x14, 0x15)
TYPE_NAMES = {EV_SYN: "EV_SYN", EV_KEY: "EV_KEY", EV_REL: "EV_REL", EV_ABS: "EV_ABS",
              EV_MSC: "EV_MSC", EV_SW: "EV_SW", EV_LED: "EV_LED", EV_SND: "EV_SND",
              EV_REP: "EV_REP", EV_FF: "EV_FF"}
# Highest code of each type: evemu writes one B: line per 8 bytes of each type's bitmask,
# for these types, whether or not the device has any code of the type.
TYPE_MAX = [(EV_SYN, 0x0f), (EV_KEY, 0x2ff), (EV_REL, 0x0f), (EV_ABS, 0x3f), (EV_MSC, 0x07),
            (EV_SW, 0x10), (EV_LED, 0x0f), (EV_SND, 0x07), (EV_REP, 0x01), (EV_FF, 0x7f)]

SYN_REPORT, SYN_CONFIG, SYN_MT_REPORT, SYN_DROPPED = 0, 1, 2, 3
SYN_NAMES = {0: "SYN_REPORT", 1: "SYN_CONFIG", 2: "SYN_MT_REPORT", 3: "SYN_DROPPED"}

BTN_TOUCH = 0x14a
ABS_X, ABS_Y, ABS_PRESSURE = 0x00, 0x01, 0x18
ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y = 0x2f, 0x35, 0x36
ABS_MT_TRACKING_ID, ABS_MT_PRESSURE = 0x39, 0x3a
ABS_NAMES = {ABS_X: "ABS_X", ABS_Y: "ABS_Y", ABS_PRESSURE: "ABS_PRESSURE",
             ABS_MT_SLOT: "ABS_MT_SLOT", ABS_MT_POSITION_X: "ABS_MT_POSITION_X",
             ABS_MT_POSITION_Y: "ABS_MT_POSITION_Y", ABS_MT_TRACKING_ID: "ABS_MT_TRACKING_ID",
             ABS_MT_PRESSURE: "ABS_MT_PRESSURE"}
MSC_SCAN = 0x04
LED_NAMES = {0: "LED_NUML", 1: "LED_CAPSL", 2: "LED_SCROLLL", 3: "LED_COMPOSE", 4: "LED_KANA"}
REP_NAMES = {0: "REP_DELAY", 1: "REP_PERIOD"}
INPUT_PROP_DIRECT = 0x01
BUS_USB = 0x03


def _key_names():
    names = {1: "KEY_ESC"}
    for i, d in enumerate("1234567890"):
        names[2 + i] = "KEY_" + d
    names.update({12: "KEY_MINUS", 13: "KEY_EQUAL", 14: "KEY_BACKSPACE", 15: "KEY_TAB"})
    for i, c in enumerate("QWERTYUIOP"):
        names[16 + i] = "KEY_" + c
    names.update({26: "KEY_LEFTBRACE", 27: "KEY_RIGHTBRACE", 28: "KEY_ENTER", 29: "KEY_LEFTCTRL"})
    for i, c in enumerate("ASDFGHJKL"):
        names[30 + i] = "KEY_" + c
    names.update({39: "KEY_SEMICOLON", 40: "KEY_APOSTROPHE", 41: "KEY_GRAVE", 42: "KEY_LEFTSHIFT",
                  43: "KEY_BACKSLASH"})
    for i, c in enumerate("ZXCVBNM"):
        names[44 + i] = "KEY_" + c
    names.update({51: "KEY_COMMA", 52: "KEY_DOT", 53: "KEY_SLASH", 54: "KEY_RIGHTSHIFT",
                  55: "KEY_KPASTERISK", 56: "KEY_LEFTALT", 57: "KEY_SPACE", 58: "KEY_CAPSLOCK"})
    for i in range(10):
        names[59 + i] = "KEY_F%d" % (i + 1)
    names.update({69: "KEY_NUMLOCK", 70: "KEY_SCROLLLOCK", 71: "KEY_KP7", 72: "KEY_KP8",
                  73: "KEY_KP9", 74: "KEY_KPMINUS", 75: "KEY_KP4", 76: "KEY_KP5", 77: "KEY_KP6",
                  78: "KEY_KPPLUS", 79: "KEY_KP1", 80: "KEY_KP2", 81: "KEY_KP3", 82: "KEY_KP0",
                  83: "KEY_KPDOT", 86: "KEY_102ND", 87: "KEY_F11", 88: "KEY_F12",
                  96: "KEY_KPENTER", 97: "KEY_RIGHTCTRL", 98: "KEY_KPSLASH", 99: "KEY_SYSRQ",
                  100: "KEY_RIGHTALT", 102: "KEY_HOME", 103: "KEY_UP", 104: "KEY_PAGEUP",
                  105: "KEY_LEFT", 106: "KEY_RIGHT", 107: "KEY_END", 108: "KEY_DOWN",
                  109: "KEY_PAGEDOWN", 110: "KEY_INSERT", 111: "KEY_DELETE", 119: "KEY_PAUSE",
                  125: "KEY_LEFTMETA", 126: "KEY_RIGHTMETA", 127: "KEY_COMPOSE"})
    return names


KEY_NAMES = _key_names()
KEY_NAMES[BTN_TOUCH] = "BTN_TOUCH"
KEY_CODE = {name: code for code, name in KEY_NAMES.items()}

# HID keyboard usages (page 0x07) of the keys the demo types, as MSC_SCAN reports them.
HID_USAGE = {"KEY_%s" % c: 0x04 + i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ")}
HID_USAGE.update({"KEY_ENTER": 0x28, "KEY_ESC": 0x29, "KEY_BACKSPACE": 0x2a, "KEY_SPACE": 0x2c})


def code_name(etype, code):
    if etype == EV_SYN:
        return SYN_NAMES.get(code, "(null)")
    if etype == EV_KEY:
        return KEY_NAMES[code]
    if etype == EV_ABS:
        return ABS_NAMES[code]
    if etype == EV_MSC:
        return {MSC_SCAN: "MSC_SCAN"}[code]
    if etype == EV_LED:
        return LED_NAMES[code]
    if etype == EV_REP:
        return REP_NAMES[code]
    raise KeyError((etype, code))


# --- a PRNG that is the same on every Python: xorshift64* ---------------------------------

class Rng:
    def __init__(self, seed):
        self.state = (seed * 0x9E3779B97F4A7C15 + 1) & 0xFFFFFFFFFFFFFFFF or 1

    def next(self):
        x = self.state
        x ^= x >> 12
        x ^= (x << 25) & 0xFFFFFFFFFFFFFFFF
        x ^= x >> 27
        self.state = x
        return (x * 0x2545F4914F6CDD1D) & 0xFFFFFFFFFFFFFFFF

    def int(self, lo, hi):
        """An integer in lo...hi (inclusive)."""
        return lo + (self.next() >> 11) % (hi - lo + 1)


# --- evemu writing ----------------------------------------------------------------------

class Device:
    """A device description and the events it produced, written like evemu-record 1.3."""

    def __init__(self, name, bus, vendor, product, version, props, codes, absinfo):
        self.name, self.bus, self.vendor, self.product, self.version = name, bus, vendor, product, version
        self.props = props            # set of INPUT_PROP_*
        self.codes = codes            # {type: set(codes)}; EV_SYN is implied
        self.absinfo = absinfo        # {code: (min, max, fuzz, flat, resolution)}
        self.events = []              # (usec, type, code, value)

    def emit(self, usec, etype, code, value):
        self.events.append((usec, etype, code, value))

    def header(self):
        out = ["# EVEMU 1.3",
               "# Kernel: 6.1.0-demo (synthetic: scripts/make-demo-recordings.py)",
               '# Input device name: "%s"' % self.name,
               "# Input device ID: bus %#x vendor %#x product %#x version %#x"
               % (self.bus, self.vendor, self.product, self.version),
               "# Supported events:",
               "#   Event type 0 (EV_SYN)"]
        for c in range(15):
            out.append("#     Event code %d (%s)" % (c, SYN_NAMES.get(c, "(null)")))
        for etype in sorted(self.codes):
            out.append("#   Event type %d (%s)" % (etype, TYPE_NAMES[etype]))
            for code in sorted(self.codes[etype]):
                out.append("#     Event code %d (%s)" % (code, code_name(etype, code)))
                if etype == EV_ABS:
                    lo, hi, fuzz, flat, res = self.absinfo[code]
                    out += ["#       Value   %6d" % 0, "#       Min     %6d" % lo,
                            "#       Max     %6d" % hi, "#       Fuzz    %6d" % fuzz,
                            "#       Flat    %6d" % flat, "#       Resolution %3d" % res]
        out.append("# Properties:")
        for p in sorted(self.props):
            out.append("#   Property  type %d (%s)" % (p, {INPUT_PROP_DIRECT: "INPUT_PROP_DIRECT"}[p]))
        out.append("N: %s" % self.name)
        out.append("I: %04x %04x %04x %04x" % (self.bus, self.vendor, self.product, self.version))
        out.append("P: " + " ".join("%02x" % b for b in bitmask(self.props, 0x1f)))
        for etype, maxcode in TYPE_MAX:
            if etype == EV_SYN:
                present = {SYN_REPORT, SYN_CONFIG, SYN_DROPPED}   # what libevdev reports for EV_SYN
            else:
                present = self.codes.get(etype, set())
            mask = bitmask(present, maxcode)
            for i in range(0, len(mask), 8):
                out.append("B: %02x " % etype + " ".join("%02x" % b for b in mask[i:i + 8]))
        for code in sorted(self.absinfo):
            out.append("A: %02x %d %d %d %d %d" % ((code,) + self.absinfo[code]))
        return out

    def render(self):
        lines = self.header()
        last_syn = None
        for usec, etype, code, value in self.events:
            stamp = "E: %d.%06d %04x %04x %04d\t" % (usec // 1000000, usec % 1000000, etype, code, value)
            if etype == EV_SYN and code == SYN_REPORT:
                delta = 0 if last_syn is None else (usec - last_syn) // 1000
                last_syn = usec
                lines.append(stamp + "# ------------ SYN_REPORT (%d) ---------- +%dms" % (value, delta))
            else:
                lines.append(stamp + "# %s / %-20s %d" % (TYPE_NAMES[etype], code_name(etype, code), value))
        return "\n".join(lines) + "\n"


def bitmask(codes, maxcode):
    """The kernel's bitmask of `codes`, padded to whole 8-byte chunks."""
    nbytes = (maxcode + 8) // 8
    nbytes = (nbytes + 7) // 8 * 8
    mask = [0] * nbytes
    for c in codes:
        mask[c // 8] |= 1 << (c % 8)
    return mask


# --- the touchscreen --------------------------------------------------------------------

DISPLAY_W, DISPLAY_H = 1280, 800
TOUCH_MAX = 4095
SLOTS = 10


class Touchscreen(Device):
    """Protocol B with the input core's filtering and pointer emulation."""

    def __init__(self):
        super().__init__(
            name="evroute Demo Touchscreen", bus=BUS_USB, vendor=0x1209, product=0x0001, version=0x0110,
            props={INPUT_PROP_DIRECT},
            codes={EV_KEY: {BTN_TOUCH},
                   EV_ABS: {ABS_X, ABS_Y, ABS_PRESSURE, ABS_MT_SLOT, ABS_MT_POSITION_X,
                            ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID, ABS_MT_PRESSURE}},
            absinfo={ABS_X: (0, TOUCH_MAX, 0, 0, 19), ABS_Y: (0, TOUCH_MAX, 0, 0, 30),
                     ABS_PRESSURE: (0, 255, 0, 0, 0), ABS_MT_SLOT: (0, SLOTS - 1, 0, 0, 0),
                     ABS_MT_POSITION_X: (0, TOUCH_MAX, 0, 0, 19),
                     ABS_MT_POSITION_Y: (0, TOUCH_MAX, 0, 0, 30),
                     ABS_MT_TRACKING_ID: (0, 65535, 0, 0, 0), ABS_MT_PRESSURE: (0, 255, 0, 0, 0)})
        # The input core's state: per-slot ABS_MT values (kept after a lift), current slot,
        # last values of the single-touch axes and BTN_TOUCH.
        self.slot_values = [{ABS_MT_TRACKING_ID: -1, ABS_MT_POSITION_X: 0, ABS_MT_POSITION_Y: 0,
                             ABS_MT_PRESSURE: 0} for _ in range(SLOTS)]
        self.current_slot = 0
        self.axis = {ABS_X: 0, ABS_Y: 0, ABS_PRESSURE: 0}
        self.btn_touch = 0
        self.next_tracking_id = 412
        self.order = []               # active slots, oldest contact first
        self.pending = []

    def _abs_mt(self, slot, code, value):
        if self.slot_values[slot][code] == value:
            return                    # the kernel drops unchanged values
        if slot != self.current_slot:
            self.pending.append((EV_ABS, ABS_MT_SLOT, slot))
            self.current_slot = slot
        self.slot_values[slot][code] = value
        self.pending.append((EV_ABS, code, value))

    def frame(self, usec, contacts):
        """One hardware frame. `contacts`: {slot: (x, y, pressure) in device units, or None to lift}."""
        self.pending = []
        for slot in sorted(contacts):
            state = contacts[slot]
            if state is None:
                self._abs_mt(slot, ABS_MT_TRACKING_ID, -1)
                self.order.remove(slot)
                continue
            if slot not in self.order:
                self._abs_mt(slot, ABS_MT_TRACKING_ID, self.next_tracking_id)
                self.next_tracking_id += 1
                self.order.append(slot)
            x, y, p = state
            self._abs_mt(slot, ABS_MT_POSITION_X, x)
            self._abs_mt(slot, ABS_MT_POSITION_Y, y)
            self._abs_mt(slot, ABS_MT_PRESSURE, p)
        # Pointer emulation: BTN_TOUCH, then the oldest contact on ABS_X/ABS_Y/ABS_PRESSURE.
        touching = 1 if self.order else 0
        if touching != self.btn_touch:
            self.btn_touch = touching
            self.pending.append((EV_KEY, BTN_TOUCH, touching))
        if self.order:
            v = self.slot_values[self.order[0]]
            single = [(ABS_X, v[ABS_MT_POSITION_X]), (ABS_Y, v[ABS_MT_POSITION_Y]),
                      (ABS_PRESSURE, v[ABS_MT_PRESSURE])]
        else:
            single = [(ABS_PRESSURE, 0)]
        for code, value in single:
            if self.axis[code] != value:
                self.axis[code] = value
                self.pending.append((EV_ABS, code, value))
        if not self.pending:
            return                    # nothing changed: the kernel reports no frame
        for etype, code, value in self.pending:
            self.emit(usec, etype, code, value)
        self.emit(usec, EV_SYN, SYN_REPORT, 0)


def to_device(x, y):
    """Display units -> digitizer units (the inverse of libinput's scaling onto 1280x800)."""
    dx = int(x * (TOUCH_MAX + 1) / DISPLAY_W + 0.5)
    dy = int(y * (TOUCH_MAX + 1) / DISPLAY_H + 0.5)
    return min(max(dx, 0), TOUCH_MAX), min(max(dy, 0), TOUCH_MAX)


class Contact:
    """One finger: down at `down`, up at `up` (microseconds), following `path`:
    [(t_usec, x, y), ...] in display units, linearly interpolated."""

    def __init__(self, slot, down, up, path, jitter=2, pressure=(70, 110)):
        self.slot, self.down, self.up, self.path = slot, down, up, path
        self.jitter, self.pressure = jitter, pressure

    def position(self, t):
        pts = self.path
        if t <= pts[0][0]:
            return pts[0][1], pts[0][2]
        for (t0, x0, y0), (t1, x1, y1) in zip(pts, pts[1:]):
            if t <= t1:
                f = (t - t0) / (t1 - t0)
                return x0 + (x1 - x0) * f, y0 + (y1 - y0) * f
        return pts[-1][1], pts[-1][2]


def play(ts, rng, start, contacts):
    """Scans the contacts at the panel's frame rate (8-12 ms) from `start` until all are up."""
    t = start
    end = max(c.up for c in contacts)
    state = {}                        # slot -> frames since down
    while True:
        frame = {}
        for c in contacts:
            if c.down <= t < c.up:
                n = state.get(c.slot, 0)
                state[c.slot] = n + 1
                x, y = c.position(t)
                dx, dy = to_device(x, y)
                j = c.jitter
                lo, hi = c.pressure
                ramp = min(n, 3)      # the pressure builds up over the first frames
                p = lo + (hi - lo) * ramp // 3 + rng.int(-4, 4)
                frame[c.slot] = (dx + rng.int(-j, j), dy + rng.int(-j, j), max(1, min(255, p)))
            elif t >= c.up and c.slot in state:
                del state[c.slot]
                frame[c.slot] = None
        ts.frame(t, frame)
        if t >= end and not state:
            return t
        t += rng.int(8000, 12000)


def tap(slot, start, x, y, hold):
    return Contact(slot, start, start + hold, [(start, x, y)])


def make_touchscreen(rng):
    ts = Touchscreen()
    S = 100_000_000                   # 100.000000 s, the shared time base
    ms = 1000
    # Single taps: back button, title (no handler: fallback), search field.
    play(ts, rng, S, [tap(0, S, 78, 52, 95 * ms)])
    t = S + 650 * ms
    play(ts, rng, t, [tap(0, t, 640, 48, 90 * ms)])
    t = S + 1300 * ms
    play(ts, rng, t, [tap(0, t, 1010, 50, 110 * ms)])
    # (the keyboard types into the search field from 101.9 s to about 103.2 s)
    # Tap the home button, then double tap the info button (second tap 140 ms after the first ends).
    t = S + 3900 * ms
    play(ts, rng, t, [tap(0, t, 213, 750, 85 * ms)])
    t = S + 4600 * ms
    end = play(ts, rng, t, [tap(0, t, 640, 748, 90 * ms)])
    t = end + 140 * ms
    play(ts, rng, t, [tap(0, t, 643, 751, 80 * ms)])
    # Drag: starts on the volume slider, slides right along it, then down out of it into content.
    t = S + 5600 * ms
    path = [(t, 900, 182), (t + 60 * ms, 900, 182), (t + 460 * ms, 1120, 178),
            (t + 810 * ms, 1160, 430)]
    play(ts, rng, t, [Contact(0, t, t + 860 * ms, path, jitter=3)])
    # Two fingers in the content area: the second lands 24 ms after the first, they spread a
    # little, the second lifts first and the first 50 ms later.
    t = S + 7200 * ms
    a = Contact(0, t, t + 470 * ms, [(t, 420, 430), (t + 80 * ms, 420, 430), (t + 400 * ms, 380, 420)])
    b = Contact(1, t + 24 * ms, t + 420 * ms,
                [(t + 24 * ms, 700, 470), (t + 80 * ms, 700, 470), (t + 400 * ms, 760, 480)])
    play(ts, rng, t, [a, b])
    # Long press in the admin corner (top right): held still for one second.
    t = S + 8500 * ms
    play(ts, rng, t, [Contact(0, t, t + 1000 * ms, [(t, 1235, 45)], jitter=3)])
    return ts


# --- the keyboard -----------------------------------------------------------------------

REPEAT_DELAY, REPEAT_PERIOD = 250_000, 33_000   # the kernel's defaults for USB keyboards


def make_keyboard(rng):
    keys = set(c for c in KEY_NAMES if c != BTN_TOUCH)
    kb = Device(name="evroute Demo Keyboard", bus=BUS_USB, vendor=0x1209, product=0x0002, version=0x0111,
                props=set(),
                codes={EV_KEY: keys, EV_MSC: {MSC_SCAN}, EV_LED: set(LED_NAMES),
                       # libevdev reports REP_DELAY only (as real keyboards' recordings show)
                       EV_REP: {0}},
                absinfo={})

    def press(usec, name, value):
        if value != 2:
            kb.emit(usec, EV_MSC, MSC_SCAN, 0x70000 + HID_USAGE[name])
        kb.emit(usec, EV_KEY, KEY_CODE[name], value)
        kb.emit(usec, EV_SYN, SYN_REPORT, 1 if value == 2 else 0)

    # "demo", the o held long enough to repeat, then Enter. The e goes down before the d is
    # up (rollover, as fast typists do). (key, press at ms after 101.9 s, held ms)
    script = [("KEY_D", 0, 95), ("KEY_E", 70, 80), ("KEY_M", 290, 90), ("KEY_O", 540, 520),
              ("KEY_ENTER", 1440, 110)]
    base = 101_900_000
    for name, at_ms, hold_ms in script:
        down = base + at_ms * 1000 + rng.int(0, 6000)
        up = down + hold_ms * 1000 + rng.int(0, 6000)
        press(down, name, 1)
        r = down + REPEAT_DELAY       # autorepeat of the last key pressed, while it is held
        while r < up:
            press(r, name, 2)
            r += REPEAT_PERIOD
        press(up, name, 0)
    kb.events.sort(key=lambda e: e[0])    # stable: the events of one frame keep their order
    return kb


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "demo")
    os.makedirs(out, exist_ok=True)
    rng = Rng(20240611)
    ts = make_touchscreen(rng)
    kb = make_keyboard(rng)
    for dev, fname in ((ts, "touchscreen.events"), (kb, "keyboard.events")):
        path = os.path.join(out, fname)
        with open(path, "w", encoding="ascii", newline="\n") as f:
            f.write(dev.render())
        ev = dev.events
        frames = sum(1 for e in ev if e[1] == EV_SYN)
        print("%-40s %4d events, %3d frames, %d.%06d .. %d.%06d s  (%s)" % (
            os.path.relpath(path), len(ev), frames, ev[0][0] // 1000000, ev[0][0] % 1000000,
            ev[-1][0] // 1000000, ev[-1][0] % 1000000, dev.name))
    touches = sum(1 for e in ts.events if e[1] == EV_ABS and e[2] == ABS_MT_TRACKING_ID and e[3] >= 0)
    repeats = sum(1 for e in kb.events if e[1] == EV_KEY and e[3] == 2)
    presses = [KEY_NAMES[e[2]] for e in kb.events if e[1] == EV_KEY and e[3] == 1]
    print("touchscreen: %d contacts (taps: back, title, search, home, info x2; drag from the volume "
          "slider; two fingers in content; 1 s long press in the admin corner)" % touches)
    print("keyboard: %s, %d autorepeats" % (" ".join(presses), repeats))


if __name__ == "__main__":
    main()
