#!/bin/sh
# vm/ab.sh — evroute builds side by side in the real-kernel guest (91-evroute-ab): each phase's
# readers on the same paced replays, CPU time per reader and replay.
#
#   vm/ab.sh [--reps N] [--profile "NAME..."] PHASE...
#
# PHASE: one quoted argument per phase, "NAME=READER ...", readers in the order they start (the
# order the kernel wakes them in); READER:
#   PATH           an evroute binary (copied in once per path), with vm/guest/config/regions.yaml
#   PATH@CONFIG    the same with another layout (a file on the host)
#   evemu-record   the peer evemu-record
#   floor          vm-evlat, the bare C reader
# --profile: readers of the first phase to profile over one more replay (builds the perf image).
# Example (the first evroute in the wake order pays for its code being cold; put a copy of
# each build after a first reader that is not measured):
#   vm/ab.sh "first=OLD old=OLD new=NEW evemu=evemu-record" "first=NEW new=NEW old=OLD evemu=evemu-record"
# Output: the EVROUTE-VM PERF lines (also in vm/out/perf.txt). The image's own evroute (for the
# libraries it needs) is the first binary named.
set -eu
VM_DIR=$(cd "$(dirname "$0")" && pwd)
REPS=2 PROFILE=""
while [ $# -gt 0 ]; do
	case $1 in
	--reps) REPS=$2; shift 2 ;;
	--profile) PROFILE=$2; shift 2 ;;
	-h|--help) sed -n '2,/^[^#]/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "vm/ab.sh: no phase (see --help)" >&2; exit 2; }
AB=$(mktemp -d)
trap 'rm -rf "$AB"' EXIT
echo "$REPS" >"$AB/reps"
[ -n "$PROFILE" ] && echo "$PROFILE" >"$AB/profile.1"
n=0 files=0 first=""
for phase in "$@"; do
	n=$((n + 1))
	: >"$AB/phase.$n"
	for reader in $phase; do
		name=${reader%%=*} spec=${reader#*=}
		[ "$name" != "$reader" ] || { echo "vm/ab.sh: '$reader' is not NAME=READER" >&2; exit 2; }
		case $spec in
		evemu-record|floor) echo "$name $spec" >>"$AB/phase.$n"; continue ;;
		esac
		bin=${spec%@*} cfg=/vm/config/regions.yaml
		if [ "$bin" != "$spec" ]; then
			[ -f "${spec#*@}" ] || { echo "vm/ab.sh: no layout ${spec#*@}" >&2; exit 2; }
			files=$((files + 1)); cp "${spec#*@}" "$AB/layout-$files.yaml"; cfg=/vm/ab/layout-$files.yaml
		fi
		[ -x "$bin" ] || { echo "vm/ab.sh: $bin is not an executable" >&2; exit 2; }
		# one copy per binary: readers of the same binary share its pages (and the guest's
		# translated code), as the daemon and the dry-run do in 90-evroute-perf
		key=$(printf '%s' "$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" | cksum | cut -d' ' -f1)
		[ -f "$AB/evroute-$key" ] || cp "$bin" "$AB/evroute-$key"
		[ -n "$first" ] || first=$bin
		echo "$name evroute /vm/ab/evroute-$key $cfg" >>"$AB/phase.$n"
	done
done
perf=$([ -n "$PROFILE" ] && echo 1 || echo 0)
mkdir -p "$VM_DIR/out"
build_log=$VM_DIR/out/ab-build.log
if ! { make -s -C "$VM_DIR/.." vm-host-tools && EVROUTE_VM_PERF=$perf "$VM_DIR/fetch.sh" &&
	EVROUTE_VM_AB=$AB EVROUTE_VM_PERF=$perf EVROUTE_BIN=$first "$VM_DIR/build-initramfs.sh"; } >"$build_log" 2>&1; then
	tail -n 20 "$build_log" >&2
	echo "vm/ab.sh: building the image failed (all of it in $build_log)" >&2
	exit 1
fi
timeout=$((120 + n * (REPS + 1) * 40))
# the profile's Swift symbols demangled when a toolchain is at hand
demangle() { if command -v swift >/dev/null 2>&1; then swift demangle --simplified; else cat; fi; }
"$VM_DIR/run.sh" --scenario-timeout "$timeout" 91-evroute-ab | grep -E '^EVROUTE-VM (PERF|AB-PROFILE|RESULT)|^91-evroute-ab' | demangle || true
