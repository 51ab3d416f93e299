#!/bin/sh
# Checks a built evroute .deb for what lintian does not fail on (`make deb-check` runs it):
# the binary linked with BIND_NOW, DEBIAN/md5sums covering every file, the documentation, the
# Grafana dashboard and the alert rules shipped under /usr/share/doc/evroute.
set -eu
deb=${1:?usage: scripts/check-deb.sh DEB}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dpkg-deb -R "$deb" "$work/root"
fail=0
bad() { echo "check-deb: $*" >&2; fail=1; }
readelf -d "$work/root/usr/bin/evroute" | grep -Eq 'BIND_NOW|Flags:.* NOW( |$)' || bad "usr/bin/evroute is not linked with BIND_NOW"
test -s "$work/root/DEBIAN/md5sums" || bad "no DEBIAN/md5sums"
files=$(cd "$work/root" && find . -path ./DEBIAN -prune -o -type f -print | wc -l)
sums=$(wc -l < "$work/root/DEBIAN/md5sums")
[ "$files" = "$sums" ] || bad "md5sums lists $sums files, the package has $files"
(cd "$work/root" && md5sum --quiet -c DEBIAN/md5sums) || bad "md5sums does not match the files"
doc=$work/root/usr/share/doc/evroute
for f in copyright changelog.gz changelog.Debian.gz README.md.gz docs/config.md.gz docs/deployment.md.gz \
         examples/browser-kiosk.yaml examples/grafana-dashboard.json examples/evroute.rules.yml; do
    test -e "$doc/$f" || bad "not shipped: /usr/share/doc/evroute/$f"
done
[ "$fail" = 0 ] && echo "check-deb: $deb: BIND_NOW, md5sums ($sums files), docs, dashboard and alert rules"
exit $fail
