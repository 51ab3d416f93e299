#!/bin/sh
# 50-evroute-keyboard-exec — STUB, reports SKIP until written.
# Plan: evemu-device from keyboards/CHICONY USB Keyboard.desc (udev
# ID_INPUT_KEYBOARD=1); config with an exec handler on key:KEY_ENTER that runs
# `touch /tmp/work/50-evroute-keyboard-exec/fired.$EVROUTE_…` (not dry-run);
# emit KEY_ENTER down/up with evemu-event; the file appears once per press,
# routing is not blocked by a slow command (a `sleep 5` handler must not
# delay the next key's JSON line), and unplugging with a key held yields
# phase cancelled.
. /vm/lib.sh
skip "stub: keyboard exec scenario not written yet"
