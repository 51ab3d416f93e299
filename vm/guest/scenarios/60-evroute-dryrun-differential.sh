#!/bin/sh
# 60-evroute-dryrun-differential — STUB, reports SKIP until written.
# Plan: for each protocol-B / protocol-A / single-touch recording, run
#   evroute --dry-run --replay REC --format json            (file input)
#   evroute --dry-run --format json  + evemu-play REC        (live, real kernel)
# and compare the touch lines (phase, touch ordinal, x, y, region, handled_by;
# not time, not absolute ids). Expected differences come only from the kernel
# dropping repeated values (see notes/real-kernel-vm.md); anything else is a
# decoder bug on one side. N-Trig (protocol A) exercises the mtdev path.
. /vm/lib.sh
skip "stub: dry-run differential not written yet"
