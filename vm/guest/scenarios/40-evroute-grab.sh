#!/bin/sh
# 40-evroute-grab — STUB, reports SKIP until written.
# Plan: config with `grab: true` for the touchscreen rule (vm/guest/config/);
# start evroute --config … --dry-run --format json, then evtest on the same
# node; replay taps; evroute sees every contact, evtest sees no events
# (EVIOCGRAB); stop evroute; a second replay reaches evtest (grab released).
# Also: `evtest --query`/EVIOCGRAB from a second grabber fails while held.
. /vm/lib.sh
skip "stub: grab scenario not written yet"
