#!/bin/sh
# Builds the binary Debian package of evroute from an existing build: a staged `make install`
# (PREFIX=/usr, the distribution's unit, sysusers.d and tmpfiles.d directories), the binary
# stripped, man pages compressed, the Debian doc files, maintainer scripts, then dpkg-deb.
#
#   scripts/make-deb.sh BIN [OUTDIR]      (`make deb` runs it after `make release`)
#
# Depends: is computed by dpkg-shlibdeps from the libraries the binary links (libc6, libevdev2,
# libudev1, libyaml-0-2, libxkbcommon0, libstdc++6 …), plus xkb-data (the keymaps text is typed
# with); libx11-data (the compose tables: dead keys, compose sequences) is recommended. The maintainer scripts create the user and directories
# (systemd-sysusers, systemd-tmpfiles) and run `systemctl daemon-reload`, but never enable or
# start the service: a kiosk's layout must be written first.
set -eu
umask 022   # dpkg-deb wants 0755 directories whatever the caller's umask

bin=${1:?usage: scripts/make-deb.sh BIN [OUTDIR]}
out=${2:-.}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

test -x "$bin" || { echo "make-deb: no executable $bin (run 'make release' first)" >&2; exit 1; }
for tool in dpkg-deb dpkg-shlibdeps strip gzip; do
    command -v $tool >/dev/null || { echo "make-deb: $tool is missing (Debian packages dpkg-dev, binutils, gzip)" >&2; exit 1; }
done

version=$(sed -n 's/^public let evrouteVersion = "\(.*\)"$/\1/p' Sources/EvrouteCore/Version.swift)
test -n "$version" || { echo "make-deb: no version in Sources/EvrouteCore/Version.swift" >&2; exit 1; }
revision=1
# Who answers for the package: DEB_MAINTAINER overrides (a site's own build).
maintainer=${DEB_MAINTAINER:-evroute developers <evroute@example.org>}
arch=$(dpkg --print-architecture)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root

make --no-print-directory -s install BIN="$bin" DESTDIR="$root" PREFIX=/usr \
    UNITDIR=/usr/lib/systemd/system SYSUSERSDIR=/usr/lib/sysusers.d TMPFILESDIR=/usr/lib/tmpfiles.d CATALOGDIR=/usr/lib/systemd/catalog \
    UDEVRULESDIR=/usr/lib/udev/rules.d MODULESLOADDIR=/usr/lib/modules-load.d >/dev/null
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/evroute"
gzip -9n "$root"/usr/share/man/man1/*.1
gzip -9n "$root"/usr/share/man/man5/*.5
# The Debian layout puts zsh's vendor completions here too; bash-completion's directory is the
# one bash-completion reads; fish reads vendor_completions.d.
doc=$root/usr/share/doc/evroute
# Examples are documentation: not executable (lintian: executable files in /usr/share/doc).
chmod 0644 "$doc"/examples/*
# The documentation as Debian ships it: the upstream changelog as changelog.gz, large text
# compressed (README.md and the pages under docs/; the examples stay as they are, to be copied).
mv "$doc/CHANGELOG.md" "$doc/changelog"
gzip -9n "$doc/changelog" "$doc/README.md" "$doc"/docs/*.md

# The copyright file (DEP-5): the MIT licence of LICENSE at the repository's root. The test
# recordings (Tests/Fixtures/recordings/, not in the package) keep their own MIT licence, from
# the evemu-devices database; their stanza says so.
cat > "$doc/copyright" <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: evroute

Files: *
Copyright: 2026 the evroute authors
License: MIT

Files: Tests/Fixtures/recordings/*
Copyright: 2012-2013 Red Hat, Inc.
License: MIT
Comment: evemu recordings of real touchscreens and keyboards from the public evemu-devices
 database, used by the tests only (not installed by this package); their own licence is
 Tests/Fixtures/recordings/LICENSE in the source.

License: MIT
 Permission is hereby granted, free of charge, to any person obtaining a copy
 of this software and associated documentation files (the "Software"), to deal
 in the Software without restriction, including without limitation the rights
 to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 copies of the Software, and to permit persons to whom the Software is
 furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in all
 copies or substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
 SOFTWARE.
EOF

date=$(date -R -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")
gzip -9n > "$doc/changelog.Debian.gz" <<EOF
evroute ($version-$revision) unstable; urgency=medium

  * Built from the evroute repository by \`make deb\`.

 -- $maintainer  $date
EOF

mkdir -p "$root/DEBIAN"
# conffiles: the example config, kept across upgrades when edited.
echo /etc/evroute/evroute.yaml > "$root/DEBIAN/conffiles"

cat > "$root/DEBIAN/postinst" <<'EOF'
#!/bin/sh
# evroute: create the evroute user and /run/evroute, tell systemd about the unit. The service
# is not enabled or started: write /etc/evroute/evroute.yaml, then
# `systemctl enable --now evroute`.
set -e
if [ "$1" = configure ]; then
    if command -v systemd-sysusers >/dev/null 2>&1; then
        systemd-sysusers evroute.conf
    fi
    if command -v systemd-tmpfiles >/dev/null 2>&1; then
        systemd-tmpfiles --create evroute.conf || true
    fi
    # The journal's message catalog (journalctl -x explains evroute's MESSAGE_IDs).
    if command -v journalctl >/dev/null 2>&1; then
        journalctl --update-catalog || true
    fi
    # Forwarding's /dev/uinput: the module loaded now (modules-load.d does it at boot) and the
    # node given to the evroute-uinput group (70-evroute-uinput.rules).
    if [ -d /run/udev ]; then
        modprobe uinput 2>/dev/null || true
        udevadm control --reload-rules 2>/dev/null || true
        udevadm trigger --subsystem-match=misc --sysname-match=uinput 2>/dev/null || true
    fi
    if [ -d /run/systemd/system ]; then
        systemctl --system daemon-reload >/dev/null || true
        # An upgrade restarts a service that is running, on the new binary.
        if [ -n "$2" ] && systemctl is-active --quiet evroute.service; then
            systemctl try-restart evroute.service || true
        fi
    fi
fi
exit 0
EOF

cat > "$root/DEBIAN/prerm" <<'EOF'
#!/bin/sh
# evroute: stop the service before its binary goes away (not on upgrade: postinst restarts it).
set -e
if [ "$1" = remove ] && [ -d /run/systemd/system ]; then
    systemctl stop evroute.service >/dev/null 2>&1 || true
fi
exit 0
EOF

cat > "$root/DEBIAN/postrm" <<'EOF'
#!/bin/sh
# evroute: forget the unit after removal. The evroute user stays (files it owns may remain);
# purge removes /etc/evroute.
set -e
if [ -d /run/systemd/system ]; then
    systemctl --system daemon-reload >/dev/null || true
fi
if command -v journalctl >/dev/null 2>&1; then
    journalctl --update-catalog || true
fi
if [ "$1" = purge ]; then
    rm -rf /etc/evroute
fi
exit 0
EOF
chmod 0755 "$root/DEBIAN/postinst" "$root/DEBIAN/prerm" "$root/DEBIAN/postrm"

# Depends from the libraries the binary links, as Debian computes them.
mkdir -p "$work/debian"
printf 'Source: evroute\n\nPackage: evroute\nArchitecture: any\n' > "$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O -e"$root/usr/bin/evroute" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
test -n "$depends" || { echo "make-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)

cat > "$root/DEBIAN/control" <<EOF
Package: evroute
Version: $version-$revision
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends, xkb-data
Recommends: systemd, libx11-data
Section: misc
Priority: optional
Description: touchscreen and keyboard event router for touch kiosks
 evroute reads touchscreens and keyboards through evdev, keeps each touch bound
 to the screen region it began in, hit-tests a configured tree of regions and
 routes every event along a UIKit-style responder chain to handlers: commands,
 Unix-socket clients (the kiosk's UI), helper processes, the journal.
 .
 The package installs the daemon, its hardened systemd unit (not enabled),
 its system user, man pages, shell completions, the documentation, example
 layouts, a Grafana dashboard and Prometheus alert rules.
EOF

# md5sums: what dpkg --verify (debsums) checks the installed files against.
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums"

mkdir -p "$out"
deb=$out/evroute_${version}-${revision}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
