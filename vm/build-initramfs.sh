#!/bin/sh
# vm/build-initramfs.sh — build the guest for the real-kernel tests.
#
#   vm/build-initramfs.sh [--evroute PATH] [--rec FILE]... [--perf]
#
# --perf (or EVROUTE_VM_PERF=1): also python3 + python3-evdev (for
# 90-evroute-perf; vm/fetch.sh --perf fetches them), ~+5 MB gzip'd.
#
# Output (vm/out/, gitignored):
#   vmlinux          uncompressed kernel, pulled out of the Debian bzImage
#   initramfs.cpio   cpio (newc), not compressed: the guest's kernel would inflate it under the
#                    emulator at each boot, which costs more than qemu reading it whole
#   initramfs.list   what went into it
#
# Inputs: vm/cache/root (vm/fetch.sh), vm/guest/ (init, lib.sh, scenarios),
# $EVROUTE_VM_AB (a directory vm/ab.sh prepares: /vm/ab in the image),
# the evroute binary (--evroute or $EVROUTE_BIN; left out when missing), and
# recordings: every "# rec: SUBDIR/FILE" line in a scenario script plus any
# --rec FILE, looked up in $EVROUTE_RECORDINGS (default: the repository's
# Tests/Fixtures/recordings). They are copied into the image under
# /rec/SUBDIR/FILE.
set -eu
# What this builds is read by other users (the guest's unprivileged users, dpkg): modes must not
# depend on the caller's umask (CI may run under 077).
umask 022

VM_DIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$VM_DIR/.." && pwd)
CACHE=$VM_DIR/cache
ROOT=$CACHE/root
OUT=$VM_DIR/out
STAGE=$OUT/initramfs-root

log() { echo "initramfs: $*" >&2; }
die() { log "error: $*"; exit 1; }

EVROUTE=${EVROUTE_BIN:-}
PERF=${EVROUTE_VM_PERF:-0}
EXTRA_REC=$(mktemp); trap 'rm -f "$EXTRA_REC"' EXIT
while [ $# -gt 0 ]; do
	case $1 in
	--evroute) EVROUTE=$2; shift 2 ;;
	--rec) printf '%s\n' "$2" >>"$EXTRA_REC"; shift 2 ;;
	--perf) PERF=1; shift ;;
	-h|--help) sed -n '2,21p' "$0"; exit 0 ;;
	*) die "unknown argument $1" ;;
	esac
done

# absolute, before we cd into the staging dir
case $EVROUTE in ""|/*) ;; *) EVROUTE=$(pwd)/$EVROUTE ;; esac

EVROUTE_RECORDINGS=${EVROUTE_RECORDINGS:-$REPO/Tests/Fixtures/recordings}
[ -d "$EVROUTE_RECORDINGS" ] || die "no recordings at $EVROUTE_RECORDINGS"
EVROUTE_RECORDINGS=$(cd "$EVROUTE_RECORDINGS" && pwd)

[ -f "$CACHE/kernel-version" ] || die "run vm/fetch.sh first"
KVER=$(cat "$CACHE/kernel-version")
MODDIR=lib/modules/$KVER/kernel/drivers/input
mkdir -p "$OUT"

# --- kernel: the bzImage carries the kernel as an xz stream; find the xz
# magic (FD 37 7A 58 5A 00), decompress from there, keep the first try that
# yields an ELF file. (xz complains about the trailing bzImage bytes; fine.)
extract_vmlinux() {
	bz=$1 dst=$2
	for off in $(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$bz" | cut -d: -f1); do
		tail -c +$((off + 1)) "$bz" | xz -dc >"$dst.tmp" 2>/dev/null || true
		if [ "$(head -c 4 "$dst.tmp" | od -An -c | tr -d ' ')" = '177ELF' ]; then
			mv "$dst.tmp" "$dst"; return 0
		fi
	done
	rm -f "$dst.tmp"; return 1
}
BZ=$ROOT/boot/vmlinuz-$KVER
if [ ! -s "$OUT/vmlinux" ] || [ "$BZ" -nt "$OUT/vmlinux" ]; then
	log "extracting vmlinux from $(basename "$BZ")"
	extract_vmlinux "$BZ" "$OUT/vmlinux" || die "no xz-compressed ELF kernel in $BZ"
fi
cp "$BZ" "$OUT/bzImage"   # fallback for run.sh --bzimage

# --- stage the root
rm -rf "$STAGE"
mkdir -p "$STAGE"
cd "$STAGE"
mkdir -p bin sbin usr/bin usr/sbin usr/libexec/libinput lib/udev/rules.d lib/systemd \
	etc/udev/rules.d proc sys dev run tmp root rec vm/scenarios "$MODDIR/misc" usr/share

# copy FILE from the cache root (or an absolute host path) to the same path in the image
put() {
	src=$1 dst=${2:-$1}
	case $src in /*) ;; *) src=$ROOT/$src ;; esac
	[ -e "$src" ] || die "missing $src"
	mkdir -p "$(dirname "./$dst")"
	cp -L "$src" "./$dst"
}

# busybox and every applet as a link (existing files win)
put bin/busybox
for a in $("$ROOT/bin/busybox" --list-full); do
	[ -e "./$a" ] || [ -L "./$a" ] || { mkdir -p "$(dirname "./$a")"; ln -s /bin/busybox "./$a"; }
done

# kernel modules (uncompressed, no dependencies in this kernel)
put "$MODDIR/evdev.ko"
put "$MODDIR/misc/uinput.ko"

# udev: udevadm doubles as the daemon when called systemd-udevd
put bin/udevadm
ln -s /bin/udevadm lib/systemd/systemd-udevd
ln -s /bin/udevadm sbin/udevadm
for r in 50-udev-default 60-input-id 60-persistent-input 60-evdev \
	80-libinput-device-groups 90-libinput-fuzz-override; do
	put "lib/udev/rules.d/$r.rules"
done
for h in libinput-device-group libinput-fuzz-extract libinput-fuzz-to-zero; do
	put "lib/udev/$h"
done

# systemd, for the scenarios that boot it as PID 1 ("# boot: systemd"; /init
# execs it after the others): the manager, journald, the tools a deployment
# uses (systemctl, journalctl, sysusers, tmpfiles, systemd-analyze,
# systemd-run), the few sysinit helpers a plain boot runs, Debian's units,
# sysusers.d and tmpfiles.d. Generators are left out (no getty on the console,
# no fstab). Without systemd in vm/cache those scenarios SKIP.
HAVE_SYSTEMD=0
if [ -x "$ROOT/lib/systemd/systemd" ]; then
	HAVE_SYSTEMD=1
	for b in systemd systemd-journald systemd-shutdown systemd-sysctl systemd-remount-fs \
		systemd-update-utmp systemd-random-seed systemd-modules-load; do
		put "lib/systemd/$b"
	done
	for b in bin/systemctl bin/journalctl bin/systemd-sysusers bin/systemd-tmpfiles bin/systemd-notify \
		bin/systemd-escape usr/bin/systemd-analyze usr/bin/systemd-run; do
		put "$b"
	done
	# node_exporter, for the fleet recipe under the unit (85-systemd-unit; it notes its absence)
	[ -x "$ROOT/usr/bin/prometheus-node-exporter" ] && put usr/bin/prometheus-node-exporter
	mkdir -p lib/systemd/system usr/lib/sysusers.d usr/lib/tmpfiles.d etc/systemd/system etc/systemd/system.conf.d
	cp -a "$ROOT/lib/systemd/system/." lib/systemd/system/
	cp -a "$ROOT/usr/lib/sysusers.d/." usr/lib/sysusers.d/
	cp -a "$ROOT/usr/lib/tmpfiles.d/." usr/lib/tmpfiles.d/
	put lib/udev/rules.d/99-systemd.rules
	cp "$VM_DIR/guest/systemd/evroute-vm.target" "$VM_DIR/guest/systemd/evroute-vm.service" etc/systemd/system/
	ln -s evroute-vm.target etc/systemd/system/default.target
	cp "$VM_DIR/guest/systemd/system.conf" etc/systemd/system.conf.d/evroute-vm.conf
	# not a first boot (systemd-firstboot would prompt on the console)
	echo 6f1c0e3a8b0d4b5e9c2a7d1e4f3b2a10 >etc/machine-id
	mkdir -p var/tmp var/log var/lib/systemd
	chmod 1777 var/tmp
else
	log "systemd: not in vm/cache (run vm/fetch.sh); the \"# boot: systemd\" scenarios will SKIP"
fi

# test peers
for b in evemu-device evemu-play evemu-record evemu-event evemu-describe evtest libinput; do
	put "usr/bin/$b"
done
# stdbuf (+ its LD_PRELOAD helper) makes the readers' stdout line-buffered
put usr/bin/stdbuf
put usr/libexec/coreutils/libstdbuf.so
for b in debug-events list-devices record; do
	put "usr/libexec/libinput/libinput-$b"
done
cp -r "$ROOT/usr/share/libinput" usr/share/   # quirks: libinput refuses to start without them
cp -r "$ROOT/usr/share/libwacom" usr/share/   # libwacom database (libinput loads it for Wacom devices)
# evroute's text (libxkbcommon): the keymaps (xkb-data) and libX11's compose tables (libx11-data)
mkdir -p usr/share/X11
for d in xkb locale; do
	[ -d "$ROOT/usr/share/X11/$d" ] && cp -r "$ROOT/usr/share/X11/$d" usr/share/X11/
done

# a Wayland compositor and client for 67-evroute-cage: cage (wlroots 0.15, the pixman
# renderer, the headless and libinput backends), wev (prints every wl_touch and
# wl_keyboard event it gets), seatd (the seat: opens the input nodes for cage) and
# Xwayland (Debian's cage will not start without /usr/bin/Xwayland; nothing runs it)
HAVE_WAYLAND=0
if [ -x "$ROOT/usr/bin/cage" ]; then
	HAVE_WAYLAND=1
	for b in usr/bin/cage usr/bin/wev usr/sbin/seatd usr/bin/Xwayland; do put "$b"; done
	# weston 10 for 68-evroute-weston (its DRM backend on qemu's bochs display, the pixman
	# renderer, the kiosk shell; the backend and shell are dlopen'ed: put them, ldd follows
	# them below) and the DRM modules of the bochs display (drm, its helpers, bochs)
	if [ -x "$ROOT/usr/bin/weston" ]; then
		put usr/bin/weston
		put usr/lib/x86_64-linux-gnu/libweston-10/drm-backend.so
		put usr/lib/x86_64-linux-gnu/weston/kiosk-shell.so
		chmod +x usr/lib/x86_64-linux-gnu/libweston-10/drm-backend.so usr/lib/x86_64-linux-gnu/weston/kiosk-shell.so
		for m in drm drm_kms_helper ttm/ttm drm_ttm_helper drm_vram_helper tiny/bochs; do
			put "lib/modules/$KVER/kernel/drivers/gpu/drm/$m.ko"
		done
	fi
else
	log "cage: not in vm/cache (run vm/fetch.sh); 67-evroute-cage will SKIP"
fi

# evroute, when there is one
if [ -n "$EVROUTE" ] && [ ! -x "$EVROUTE" ]; then
	die "evroute binary $EVROUTE does not exist or is not executable"
elif [ -n "$EVROUTE" ]; then
	# stripped (the release binary is mostly symbols), unless EVROUTE_VM_NOSTRIP=1
	if [ "${EVROUTE_VM_NOSTRIP:-0}" != 1 ] && command -v strip >/dev/null; then
		strip -o usr/bin/evroute "$EVROUTE"
	else
		put "$EVROUTE" usr/bin/evroute
	fi
	log "evroute: $EVROUTE ($(du -k usr/bin/evroute | cut -f1) KiB in the image)"
	# the staged install the systemd scenario installs into the guest root
	# (`make install DESTDIR=…` with a distribution layout); its binary is the
	# same file as /usr/bin/evroute (a hard link: stored once in the image)
	INSTALL_STAGE=$OUT/install-root
	rm -rf "$INSTALL_STAGE"
	make -s -C "$REPO" install DESTDIR="$INSTALL_STAGE" BIN="$STAGE/usr/bin/evroute" \
		PREFIX=/usr UNITDIR=/usr/lib/systemd/system >"$OUT/install.log" 2>&1 ||
		die "make install DESTDIR=$INSTALL_STAGE failed: $(tail -n 5 "$OUT/install.log")"
	mkdir -p vm/install
	cp -a "$INSTALL_STAGE/." vm/install/
	rm vm/install/usr/bin/evroute
	ln usr/bin/evroute vm/install/usr/bin/evroute
	log "evroute: make install DESTDIR staged at /vm/install ($(find vm/install -type f | wc -l) files)"
else
	log "evroute: not included (no --evroute / EVROUTE_BIN); its scenarios will SKIP"
fi

# perf image (--perf / EVROUTE_VM_PERF=1, vm/fetch.sh --perf first): python3
# with the modules a python-evdev read loop needs, for 90-perf's peer
if [ "$PERF" = 1 ]; then
	[ -x "$ROOT/usr/bin/python3.11" ] || die "no python3.11 in vm/cache/root: run vm/fetch.sh --perf"
	put usr/bin/python3.11
	ln -s python3.11 usr/bin/python3
	mkdir -p usr/lib/python3.11 usr/lib/python3/dist-packages
	(cd "$ROOT/usr/lib/python3.11" && tar cf - --exclude=test --exclude=tests --exclude=idlelib \
		--exclude=tkinter --exclude=ensurepip --exclude=lib2to3 --exclude=pydoc_data \
		--exclude=__pycache__ --exclude=config-3.11-x86_64-linux-gnu .) | (cd usr/lib/python3.11 && tar xf -)
	cp -r "$ROOT/usr/lib/python3/dist-packages/evdev" usr/lib/python3/dist-packages/
	# strace -c (system calls per reader) and perf record (where the daemon's CPU goes)
	put usr/bin/strace
	put usr/bin/perf
	# the forwarding peers: tslib's ts_uinput with its input module, and
	# interception-tools' interception | uinput
	put usr/bin/ts_uinput
	mkdir -p usr/lib/x86_64-linux-gnu/ts0
	put usr/lib/x86_64-linux-gnu/ts0/input.so
	put usr/bin/interception
	put usr/bin/uinput
	log "perf: python3 + python3-evdev ($(du -sk usr/lib/python3.11 usr/lib/python3 usr/bin/python3.11 | awk '{k += $1} END {print k}') KiB unpacked)"
fi

# shared libraries: whatever ldd lists for every ELF file staged, resolved in
# the cache root first, then on the host (evroute links host-built objects).
LIBPATH=$ROOT/lib/x86_64-linux-gnu:$ROOT/usr/lib/x86_64-linux-gnu:$ROOT/usr/lib/x86_64-linux-gnu/systemd:$ROOT/usr/lib/x86_64-linux-gnu/weston
libs=$(
	find . -type f -perm -u+x | while read -r f; do
		[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
		out=$(LD_LIBRARY_PATH=$LIBPATH ldd "$f" 2>&1) || continue   # static: "not a dynamic executable"
		echo "$out" | while read -r l; do
			case $l in
			*'not found'*) echo "MISSING $f: $l" ;;
			*'=> /'*) echo "$l" | sed 's/.*=> \([^ ]*\) .*/\1/' ;;
			/*) echo "$l" | sed 's/ .*//' ;;   # the dynamic loader
			esac
		done
	done | sort -u
)
if echo "$libs" | grep -q '^MISSING'; then
	echo "$libs" | grep '^MISSING' >&2; die "unresolved libraries"
fi
for l in $libs; do
	case $l in
	"$ROOT"/*) put "${l#"$ROOT"/}" ;;
	# the loader must match the cache's libc, not the host's
	/lib64/ld-linux-x86-64.so.2) put lib64/ld-linux-x86-64.so.2 ;;
	*) put "$l" "${l#/}" ;;
	esac
done
# the loader is asked for as /lib64/ld-linux-x86-64.so.2
[ -e lib64/ld-linux-x86-64.so.2 ] || put lib64/ld-linux-x86-64.so.2

# minimal /etc: udev rules name these groups; libraries look for these files. kiosk is
# the Wayland session's user (cage refuses to run as root): in group video, which
# seatd gives its socket to (seatd -g video, as Debian's seatd.service); /init makes
# its XDG_RUNTIME_DIR, /run/user/1000
cat >etc/passwd <<'P'
root:x:0:0:root:/root:/bin/sh
kiosk:x:1000:1000:kiosk session:/run/user/1000:/bin/sh
P
cat >etc/group <<'G'
root:x:0:
tty:x:5:
disk:x:6:
kmem:x:9:
dialout:x:20:
audio:x:29:
video:x:44:kiosk
input:x:101:
render:x:102:
kvm:x:103:
sgx:x:104:
kiosk:x:1000:
G
echo evroute-vm >etc/hostname
: >etc/fstab
printf 'PRETTY_NAME="evroute test VM (Debian bookworm packages)"\nNAME="evroute test VM"\nID=debian\nVERSION_ID=12\n' >etc/os-release
printf '/bin/sh\n' >etc/shells

# guest scripts
cp "$VM_DIR/guest/init" init
chmod 755 init
cp "$VM_DIR/guest/lib.sh" vm/lib.sh
cp "$VM_DIR/guest/wayland.sh" vm/wayland.sh
cp "$VM_DIR/guest/runner.sh" vm/runner.sh
cp "$VM_DIR/guest/systemd-stage.sh" vm/systemd-stage.sh
chmod 755 vm/systemd-stage.sh
cp "$VM_DIR"/guest/scenarios/*.sh vm/scenarios/
chmod 755 vm/scenarios/*.sh
[ -d "$VM_DIR/guest/config" ] && cp -r "$VM_DIR/guest/config" vm/config
[ -d "$VM_DIR/guest/perf" ] && cp -r "$VM_DIR/guest/perf" vm/perf
# vm/ab.sh's readers and their binaries (91-evroute-ab)
[ -n "${EVROUTE_VM_AB:-}" ] && cp -r "$EVROUTE_VM_AB" vm/ab

# helpers from vm/helpers/*.c (vm-unix: a Unix-socket client), built static
# with the host's C compiler ($CC, else cc, else the Swift toolchain's clang) and
# the flags of a source's " * cflags:" line; left out when none works (the
# scenarios that need one SKIP)
HCC=${CC:-}
[ -n "$HCC" ] || for c in cc gcc clang; do command -v "$c" >/dev/null && { HCC=$c; break; }; done
mkdir -p "$OUT/helpers"
for src in "$VM_DIR"/helpers/*.c; do
	[ -f "$src" ] || continue
	h=$(basename "$src" .c)
	if [ -n "$HCC" ] && { [ "$OUT/helpers/$h" -nt "$src" ] ||
		"$HCC" -static -O2 -Wall -o "$OUT/helpers/$h" "$src" $(sed -n 's/^ \* cflags: *//p' "$src") 2>"$OUT/helpers/$h.log"; }; then
		cp "$OUT/helpers/$h" usr/bin/"$h"
		strip usr/bin/"$h" 2>/dev/null || true
	else
		log "helper $h not built (${HCC:-no C compiler}; see $OUT/helpers/$h.log): its scenarios will SKIP"
	fi
done

# recordings
nrec=0
{ sed -n 's/^# rec: *//p' "$VM_DIR"/guest/scenarios/*.sh; cat "$EXTRA_REC"; } | sort -u |
while IFS= read -r r; do
	[ -n "$r" ] || continue
	case $r in /*) src=$r; dst=rec/$(basename "$r") ;;
	*) src=$EVROUTE_RECORDINGS/$r; dst=rec/$r ;; esac
	[ -f "$src" ] || die "recording not found: $src (set EVROUTE_RECORDINGS)"
	mkdir -p "$(dirname "$dst")"
	cp "$src" "$dst"
done
# synthesized device descriptions of the repository's tests ("# rec-repo: PATH" lines, PATH
# relative to the repo root; no such device is among the real recordings: a consumer-control
# interface, an IR receiver, accelerometers) at /rec/repo/FILE
sed -n 's/^# rec-repo: *//p' "$VM_DIR"/guest/scenarios/*.sh | sort -u |
while IFS= read -r r; do
	[ -n "$r" ] || continue
	[ -f "$REPO/$r" ] || die "description not found: $REPO/$r"
	mkdir -p rec/repo
	cp "$REPO/$r" "rec/repo/$(basename "$r")"
done
# single-touch recordings derived from multi-touch ones ("# rec-single-touch:
# SUBDIR/FILE" lines; vm/derive-single-touch.sh) at /rec/single-touch/FILE
sed -n 's/^# rec-single-touch: *//p' "$VM_DIR"/guest/scenarios/*.sh | sort -u |
while IFS= read -r r; do
	[ -n "$r" ] || continue
	src=$EVROUTE_RECORDINGS/$r
	[ -f "$src" ] || die "recording not found: $src (set EVROUTE_RECORDINGS)"
	mkdir -p rec/single-touch
	"$VM_DIR/derive-single-touch.sh" "$src" "rec/single-touch/$(basename "$r")"
done

# --- pack
# The repository's files (scenarios, configs, recordings, the evroute binary and helpers built
# here) keep the modes of the checkout and the build, which a umask of 077 leaves unreadable to
# the guest's unprivileged users: the image reads as one built under umask 022 whatever the caller's.
chmod -R go+rX .
find . | sort >"$OUT/initramfs.list"
rm -f "$OUT/initramfs.gz"   # the compressed image of earlier builds
find . | sort | cpio -o -H newc --quiet -R 0:0 >"$OUT/initramfs.cpio.tmp"
mv "$OUT/initramfs.cpio.tmp" "$OUT/initramfs.cpio"
log "ok: $OUT/initramfs.cpio $(du -k "$OUT/initramfs.cpio" | cut -f1) KiB ($(du -sk . | cut -f1) KiB unpacked, $(find rec -type f | wc -l) recordings), kernel $KVER"
