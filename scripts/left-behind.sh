#!/bin/sh
# left-behind.sh before FILE | after FILE: what a test run left under /tmp and /run/evroute.
# `before` lists evroute's names there into FILE; `after` lists them again and fails, naming
# them, when something new is still there. Every test keeps its files under its process's own
# /tmp/evroute-tests-PID (Tests/EvrouteTestSupport/Paths.swift), removed at its exit: that is
# what is looked at, with /run/evroute. Only names a test process makes are looked at; whatever
# was there before (another run's, alive or long dead — its PID may since belong to anything)
# is not counted, nor a directory whose process still runs (another run's, on a shared
# machine), so a build, a soak or another test run beside this one never fails it.
set -eu
# list [live]: the names; with `live`, not those of a test process still running
list() {
	for e in /tmp/evroute-tests-* /run/evroute/*; do
		[ -e "$e" ] || [ -L "$e" ] || continue
		case "$e" in
		/tmp/evroute-tests-*) pid=${e##*-}; [ "${1:-}" = live ] && kill -0 "$pid" 2>/dev/null && continue ;;
		esac
		echo "$e"
	done | sort
}
case "${1:-}" in
before) list > "$2" ;;
after)
	new=$(list live | comm -13 "$2" -)
	rm -f "$2"
	if [ -n "$new" ]; then
		echo "left behind by the tests (each test keeps its files in its own temporary directory):"
		echo "$new" | sed 's/^/  /'
		exit 1
	fi ;;
*) echo "usage: $0 before|after FILE" >&2; exit 2 ;;
esac
