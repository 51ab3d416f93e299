#!/bin/sh
# vm/fetch.sh — download (apt-get download) and extract (dpkg-deb -x, no root)
# the Debian packages the real-kernel test VM needs, into vm/cache/.
#
#   vm/cache/debs/   the .deb files
#   vm/cache/root/   all of them extracted on top of each other
#   vm/cache/kernel-version   e.g. 6.1.0-56-amd64
#
# Idempotent: a package whose .deb is already in vm/cache/debs is not fetched
# again, and a .deb already extracted (stamp in vm/cache/root/.extracted/) is
# not extracted again. Root is only needed if `apt-get download` fails and the
# package lists must be refreshed (`apt-get update`, via sudo when not root).
#
# Env: EVROUTE_VM_KERNEL=linux-image-6.1.0-NN-amd64 pins the kernel package.
#
#   vm/fetch.sh --perf   (or EVROUTE_VM_PERF=1) also python3.11, strace,
#                        tslib (ts_uinput), interception-tools (the forwarding peers),
#                        linux-perf and python3-evdev for the perf image (90-evroute-perf's
#                        python-evdev peer): 5 more debs, ~4.7 MB
set -eu
# What this builds is read by other users (the guest's unprivileged users, dpkg): modes must not
# depend on the caller's umask (CI may run under 077).
umask 022
PERF=${EVROUTE_VM_PERF:-0}
[ "${1:-}" = --perf ] && PERF=1

VM_DIR=$(cd "$(dirname "$0")" && pwd)
CACHE=$VM_DIR/cache
DEBS=$CACHE/debs
ROOT=$CACHE/root
mkdir -p "$DEBS" "$ROOT/.extracted"

log() { echo "fetch: $*" >&2; }

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
		log "need root for: $*"; return 1; fi
}

# The current bookworm 6.1 kernel: what the linux-image-amd64 metapackage
# depends on (falls back to the highest linux-image-6.1.0-N-amd64 known).
pick_kernel() {
	if [ -n "${EVROUTE_VM_KERNEL:-}" ]; then echo "$EVROUTE_VM_KERNEL"; return; fi
	k=$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-6\.1\.0-[0-9]*-amd64\)$/\1/p' | head -n1)
	if [ -z "$k" ]; then
		k=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64$' |
			awk '{print $1}' | sort -t- -k4,4n | tail -n1)
	fi
	[ -n "$k" ] || { log "no linux-image-6.1.0-*-amd64 in apt-cache (run apt-get update?)"; exit 1; }
	echo "$k"
}

KERNEL_PKG=$(pick_kernel)

# Everything the guest runs. Libraries are listed explicitly so the guest
# userland comes from these packages, not from whatever the host has; the
# ldd check at the end reports anything still missing. systemd (PID 1,
# journald, systemctl, journalctl, sysusers, tmpfiles, systemd-analyze) is
# for the scenarios that boot it (85-systemd-unit: "# boot: systemd").
# libxkbcommon0, xkb-data and libx11-data are evroute's text: the library,
# the keymaps and the compose tables. prometheus-node-exporter scrapes the
# metrics text file as its own user in 85-systemd-unit (the fleet recipe).
PKGS="$KERNEL_PKG
busybox-static
evemu-tools libevemu3 libevdev2 libyaml-0-2
libxkbcommon0 xkb-data libx11-data
udev libudev1
libinput-tools libinput-bin libinput10 libmtdev1 libwacom9 libwacom-common
libgudev-1.0-0 libglib2.0-0
evtest
coreutils
libc6 libgcc-s1 libstdc++6
libacl1 libblkid1 libcap2 libkmod2 libselinux1 libpcre2-8-0 libffi8 libmount1
zlib1g liblzma5 libzstd1 libssl3
systemd libsystemd-shared libsystemd0
libapparmor1 libaudit1 libcap-ng0 libcrypt1 libgcrypt20 libgpg-error0 libip4tc2 liblz4-1
libpam0g libseccomp2
prometheus-node-exporter"
[ "$PERF" = 1 ] && PKGS="$PKGS
python3.11-minimal libpython3.11-minimal libpython3.11-stdlib python3-evdev libexpat1
strace libunwind8
linux-perf libbabeltrace1 libdw1 libelf1 libnuma1 libopencsd1 libperl5.36 libpython3.11 libslang2 libuuid1 libcrypt1
libts0 libts-bin interception-tools libyaml-cpp0.7"

# The Wayland session of 67-evroute-cage and 68-evroute-weston: cage (wlroots
# 0.15), wev, seatd and xwayland (Debian's cage refuses to start without
# /usr/bin/Xwayland; it is never run, but its libraries are here so it would
# load), weston 10 (its DRM backend and kiosk shell, on qemu's bochs display),
# and their libraries; no mesa drivers (the compositors draw with pixman).
PKGS="$PKGS
cage wev seatd libseat1 libwlroots10 xwayland
libpixman-1-0 libwayland-server0 libwayland-client0 libdrm2 libgbm1 libexpat1
libegl1 libgles2 libgl1 libglx0 libglvnd0 libepoxy0
libx11-6 libxcb1 libxau6 libxdmcp6 libbsd0 libmd0 libxcb-composite0 libxcb-dri3-0 libxcb-icccm4
libxcb-present0 libxcb-render-util0 libxcb-render0 libxcb-res0 libxcb-shm0 libxcb-xfixes0
libxcb-xinput0 libxcb-randr0 libxshmfence1
libtirpc3 libgssapi-krb5-2 libkrb5-3 libk5crypto3 libkrb5support0 libcom-err2 libkeyutils1
libxcvt0 libxfont2 libfontenc1 libfreetype6 libpng16-16 libbrotli1 libbz2-1.0
weston libweston-10-0 libva2 libva-drm2 libdbus-1-3"
WAYLAND_BINS="usr/bin/cage usr/bin/wev usr/sbin/seatd usr/bin/Xwayland usr/bin/weston
usr/lib/x86_64-linux-gnu/libweston-10/drm-backend.so usr/lib/x86_64-linux-gnu/weston/kiosk-shell.so"

have_deb() { ls "$DEBS/$1"_*.deb >/dev/null 2>&1; }

download() {
	# apt-get download writes into the current directory
	# (as root, apt would warn that its _apt sandbox user cannot write here)
	if [ "$(id -u)" = 0 ]; then sb="-o APT::Sandbox::User=root"; else sb=; fi
	(cd "$DEBS" && apt-get download $sb "$@")
}

missing=""
for p in $PKGS; do have_deb "$p" || missing="$missing $p"; done
if [ -n "$missing" ]; then
	log "downloading:$missing"
	if ! download $missing; then
		log "apt-get download failed; refreshing package lists"
		as_root apt-get update
		download $missing
	fi
else
	log "all $(echo $PKGS | wc -w) packages cached"
fi

for deb in "$DEBS"/*.deb; do
	stamp=$ROOT/.extracted/$(basename "$deb")
	[ -e "$stamp" ] && continue
	log "extracting $(basename "$deb")"
	dpkg-deb -x "$deb" "$ROOT"
	: >"$stamp"
done

kver=${KERNEL_PKG#linux-image-}
echo "$kver" >"$CACHE/kernel-version"
[ -f "$ROOT/boot/vmlinuz-$kver" ] || { log "kernel image missing: boot/vmlinuz-$kver"; exit 1; }

# Check that every binary the guest runs finds all its libraries in the
# extracted tree (ldd of the host, with the cache's lib dirs first).
LIBPATH=$ROOT/lib/x86_64-linux-gnu:$ROOT/usr/lib/x86_64-linux-gnu:$ROOT/usr/lib/x86_64-linux-gnu/systemd:$ROOT/usr/lib/x86_64-linux-gnu/weston
bad=0
for b in $WAYLAND_BINS usr/bin/evemu-device usr/bin/evemu-play usr/bin/evemu-record usr/bin/evemu-event \
	bin/udevadm usr/bin/evtest usr/libexec/libinput/libinput-debug-events \
	lib/systemd/systemd lib/systemd/systemd-journald bin/systemctl bin/journalctl \
	bin/systemd-sysusers bin/systemd-tmpfiles usr/bin/systemd-analyze usr/bin/prometheus-node-exporter \
	$([ "$PERF" = 1 ] && echo usr/bin/python3.11 usr/bin/strace usr/bin/perf usr/bin/ts_uinput usr/bin/interception usr/bin/uinput); do
	[ -e "$ROOT/$b" ] || { log "missing binary $b"; bad=1; continue; }
	nf=$(LD_LIBRARY_PATH=$LIBPATH ldd "$ROOT/$b" 2>&1 | grep 'not found' || true)
	if [ -n "$nf" ]; then log "$b: unresolved libraries:"; echo "$nf" >&2; bad=1; fi
done
[ $bad = 0 ] || { log "add the packages providing the libraries above to PKGS"; exit 1; }
log "ok: kernel $kver, $(ls "$DEBS" | wc -l) debs, $(du -sh "$DEBS" | cut -f1)"
