#!/usr/bin/env python3
"""Write the seed corpus of the byte-coded fuzz targets: Fuzz/Corpus/FuzzDecoders/*.bin and
Fuzz/Corpus/FuzzRouter/*.bin (docs/fuzzing.md).

Each seed is one short, plain story that reaches the code its target names, and no more: the
fuzzer is to grow coverage from there (`make fuzz` fails a target whose coverage does not grow
beyond its seeds'). The byte formats are the targets' own, documented at the top of
Fuzz/Sources/FuzzDecoders/FuzzDecoders.swift and Fuzz/Sources/FuzzRouter/FuzzRouter.swift.
"""
import os
import struct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# FuzzDecoders: 8 bytes an event. The devices, in FuzzLayouts.kioskDevices() order.
B, B_LIVE, A, SINGLE, KEYBOARD = range(5)
SYN, KEY, ABS = 0, 1, 2
SYN_REPORT, SYN_MT_REPORT = 0, 2
BTN_TOUCH, KEY_A, KEY_ENTER = 330, 30, 28
ABS_X, ABS_Y, ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID = 0, 1, 47, 53, 54, 57


def event(device, ms, selector, code, value):
    """One event: any code (bit 7 of byte 3), the value as given (bit 6 clear)."""
    return bytes([device + 5 * ms, selector, code & 0xFF, 0x80 | (code >> 8)]) + struct.pack("<i", value)


def at(x, y):
    """A point of the 1280x800 display on the demo touchscreen's 0..4095 axes."""
    return round(x * 4095 / 1280), round(y * 4095 / 800)


def decoders_seed():
    out = b""
    x, y = at(1030, 50)   # kiosk.yaml's search field: a tap focuses it
    for code, value in [(ABS_MT_SLOT, 0), (ABS_MT_TRACKING_ID, 1), (ABS_MT_POSITION_X, x), (ABS_MT_POSITION_Y, y)]:
        out += event(B, 0, ABS, code, value)
    out += event(B, 0, KEY, BTN_TOUCH, 1) + event(B, 0, SYN, SYN_REPORT, 0)
    out += event(B, 40, ABS, ABS_MT_TRACKING_ID, -1) + event(B, 0, KEY, BTN_TOUCH, 0) + event(B, 0, SYN, SYN_REPORT, 0)
    for key in (KEY_A, KEY_ENTER):   # typed into it
        for value in (1, 0):
            out += event(KEYBOARD, 20, KEY, key, value) + event(KEYBOARD, 0, SYN, SYN_REPORT, 0)
    x, y = at(100, 200)   # the video region, on the protocol-A touchscreen: down, then lifted
    out += event(A, 30, ABS, ABS_MT_POSITION_X, x) + event(A, 0, ABS, ABS_MT_POSITION_Y, y)
    out += event(A, 0, SYN, SYN_MT_REPORT, 0) + event(A, 0, SYN, SYN_REPORT, 0)
    out += event(A, 30, SYN, SYN_MT_REPORT, 0) + event(A, 0, SYN, SYN_REPORT, 0)
    x, y = at(200, 750)   # nav-home, on the single-touch one
    out += event(SINGLE, 30, KEY, BTN_TOUCH, 1) + event(SINGLE, 0, ABS, ABS_X, x) + event(SINGLE, 0, ABS, ABS_Y, y)
    out += event(SINGLE, 0, SYN, SYN_REPORT, 0)
    out += event(SINGLE, 30, KEY, BTN_TOUCH, 0) + event(SINGLE, 0, SYN, SYN_REPORT, 0)
    return out


# FuzzRouter: 4 bytes a step (operation, argument, x, y); x = byte * 5.2, y = byte * 3.2.
DOWN_MOVE, END, KEY_ENTER_OP, PRESENT_OR_DISMISS = 0, 2, 4, 5


def step(op, argument, x, y):
    return bytes([op, argument, round(x / 5.2), round(y / 3.2)])


def router_seed():
    out = step(DOWN_MOVE, 0, 300, 300)           # contact 0 down in the content
    out += step(DOWN_MOVE, 1, 1030, 50)          # contact 1 down on the search field
    out += step(DOWN_MOVE, 0, 330, 310)          # contact 0 moves
    out += step(END, 1, 1030, 50)                # contact 1 lifts: a tap
    out += step(KEY_ENTER_OP, 0, 0, 0) + step(KEY_ENTER_OP, 1, 0, 0)   # Enter down, up
    out += step(PRESENT_OR_DISMISS, 1, 0, 0)     # admin presented over home
    out += step(END, 0, 330, 310)                # contact 0 lifts
    out += step(PRESENT_OR_DISMISS, 0, 0, 0)     # dismissed
    return out


def write(target, name, data):
    os.makedirs(os.path.join(ROOT, "Fuzz", "Corpus", target), exist_ok=True)
    path = os.path.join(ROOT, "Fuzz", "Corpus", target, name)
    with open(path, "wb") as f:
        f.write(data)
    print(f"{path}: {len(data)} bytes")


write("FuzzDecoders", "tap-type-and-three-protocols.bin", decoders_seed())
write("FuzzRouter", "touches.bin", router_seed())
