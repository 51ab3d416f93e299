#!/bin/sh
# 85-systemd-unit — the shipped unit under Debian's systemd as PID 1 (this
# scenario runs after /init has exec'd systemd: "# boot: systemd"):
#   - install: the tree `make install DESTDIR=… PREFIX=/usr` staged (/vm/install)
#     is copied into the root; systemd-sysusers creates user and group evroute
#     (member of input), systemd-tmpfiles --create makes /run/evroute and
#     /etc/evroute; systemd-analyze security: exposure <= 2.0 (printed);
#   - systemctl start evroute reaches active (Type=notify: start returns after
#     READY=1); the daemon runs as evroute with no capabilities, seccomp, no
#     new privileges, and a /proc mounted hidepid=invisible,subset=pid
#     (an operator's /proc/PID is invisible to it);
#   - a touchscreen (present at start) and a keyboard (plugged in later: the
#     udev monitor works in the sandbox) are routed: the UI (a user in group
#     evroute) gets touches on /run/evroute/ui.sock; Enter runs an exec
#     handler as user evroute under the same restrictions (/etc read-only);
#   - systemctl reload with a touch held: done when systemctl returns
#     (ExecReload=evroute reload), the touch stays in its old region, a new
#     touch binds to the new layout; a broken config fails `systemctl reload`
#     and the daemon keeps running the previous one;
#   - an operator whose supplementary group is evroute runs `evroute status`
#     and `evroute ctl state`; a user outside it is refused (by the socket's
#     mode, and by the daemon itself when the mode would let it in);
#   - journalctl: the daemon's lines carry priorities (PRIORITY 3 for the
#     config error, 4 for the refusal, 6 for info; -p warning filters); they
#     come through journald's native protocol (_TRANSPORT=journal) with a
#     MESSAGE_ID per kind and EVROUTE_* fields: `journalctl -u evroute
#     EVROUTE_DEVICE=touch` finds the touchscreen opened, `MESSAGE_ID=…` one
#     kind; the shipped catalog explains them (journalctl --list-catalog);
#   - metrics under the hardened unit: tmpfiles.d makes /var/lib/evroute/metrics
#     (evroute's; the unit's only ReadWritePaths=), the daemon writes
#     evroute.prom there every second (metrics: interval-s 1), and its
#     evroute_touches_total equals the touches replayed; the file is 0644
#     under the unit's UMask=0077, and Debian's node_exporter, running as its
#     own user prometheus and reading it through the link the fleet recipe
#     makes, serves it without a scrape error;
#   - the watchdog (WatchdogSec=30 in the unit) restarts a daemon that stops
#     answering (SIGSTOP): NRestarts 1, a new main pid, active again;
#   - systemctl stop with a touch held: its cancelled reaches the UI, the
#     daemon exits 0, Result=success.
#   - forwarding under the hardened unit (config/systemd-forward.yaml): the
#     shipped udev rule gives /dev/uinput to group evroute-uinput (sysusers
#     makes evroute a member); the restarted daemon makes the virtual
#     touchscreen; libinput reads a forwarded touch's down and up on it, a
#     kept touch never; `systemctl stop` cancels a held forwarded touch and
#     the virtual device goes.
# SKIP without evroute, vm-unix or systemd in the image.
#
# boot: systemd
# timeout: 200
# weight: 42
# rec: touchscreens/Atmel maXTouch Touchscreen.desc
# rec: keyboards/Razer Razer BlackWidow 2013.keyboard.desc
. /vm/lib.sh

need evroute vm-unix systemctl journalctl systemd-analyze systemd-sysusers systemd-tmpfiles libinput
[ "$(cat /proc/1/comm)" = systemd ] || skip "PID 1 is $(cat /proc/1/comm), not systemd"
[ -d /vm/install/usr/lib/systemd/system ] || skip "no staged install (/vm/install) in the image"
UNIT=evroute
T0=$(cut -d' ' -f1 /proc/uptime)
since() { awk -v a="$1" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }'; }
prop() { systemctl show -p "$1" --value "$UNIT"; }
# poll_until SECONDS CMD...   like wait_until, polling every 0.5 s (systemctl is not cheap under TCG)
poll_until() {
	_n=$(($1 * 2)); shift
	while [ $_n -gt 0 ]; do "$@" 2>/dev/null && return 0; sleep 0.5; _n=$((_n - 1)); done
	return 1
}
# as USER CMD   a shell command as USER (busybox su: the user's groups from /etc/group)
as() { _u=$1; shift; su "$_u" -s /bin/sh -c "$*"; }
note "systemd: $(systemctl --version | head -n1); system $(systemctl is-system-running 2>&1)"

# ---- install, users, directories
check "no evroute user before sysusers" "$(grep -c '^evroute:' /etc/passwd)" -eq 0
tar -C /vm/install -cf - . | tar -C / -xf -
check "unit installed" "$(test -f /usr/lib/systemd/system/evroute.service && echo yes)" = yes
check "unit ExecStart is the installed binary" "$(grep -c '^ExecStart=/usr/bin/evroute ' /usr/lib/systemd/system/evroute.service)" -eq 1
systemd-sysusers >sysusers.out 2>&1
check "systemd-sysusers exit" "$?" -eq 0
check "user evroute created" "$(id -un evroute 2>/dev/null)" = evroute
check "evroute is a member of input" "$(id -Gn evroute 2>/dev/null | tr ' ' '\n' | grep -cx input)" -eq 1
systemd-tmpfiles --create >tmpfiles.out 2>&1
note "systemd-tmpfiles --create exit $? ($(wc -l <tmpfiles.out) lines of output)"
check "tmpfiles: /run/evroute owned by evroute" "$(stat -c '%U:%G %a' /run/evroute 2>/dev/null)" = "evroute:evroute 755"
check "tmpfiles: /etc/evroute" "$(stat -c '%U %a' /etc/evroute 2>/dev/null)" = "root 755"
check "tmpfiles: /var/lib/evroute/metrics owned by evroute" "$(stat -c '%U:%G %a' /var/lib/evroute/metrics 2>/dev/null)" = "evroute:evroute 755"
check "unit: ReadWritePaths= only the metrics directory" "$(grep '^ReadWritePaths=' /usr/lib/systemd/system/evroute.service)" = "ReadWritePaths=-/var/lib/evroute/metrics"
journalctl --update-catalog >catalog.out 2>&1
check "catalog: journalctl --update-catalog exit" "$?" -eq 0
# every entry of the shipped catalog (one per LogKind: the unit tests hold the catalog to LogKind)
kinds=$(grep -c '^-- ' /usr/lib/systemd/catalog/evroute.catalog)
check "catalog: the shipped catalog's entries" "$kinds" -ge 27
check "catalog: evroute's MESSAGE_IDs listed (all $kinds kinds)" "$(journalctl --list-catalog 2>/dev/null | grep -c ' evroute ')" -eq "$kinds"
cp /vm/config/systemd-v1.yaml /etc/evroute/evroute.yaml
# people: an operator (supplementary group evroute), the kiosk UI (same), a visitor (no group)
EVGID=$(sed -n 's/^evroute:x:\([0-9]*\):.*/\1/p' /etc/group)
# (the image's own kiosk user, the Wayland session's, is kept)
for u in operator:1001 kiosk:1003 visitor:1002; do
	grep -q "^${u%%:*}:" /etc/passwd && continue
	echo "${u%%:*}:x:${u#*:}:${u#*:}:${u%%:*}:/nonexistent:/bin/sh" >>/etc/passwd
	echo "${u%%:*}:x:${u#*:}:" >>/etc/group
done
awk -F: -v OFS=: '$1 == "evroute" { $4 = ($4 == "" ? "operator,kiosk" : $4 ",operator,kiosk") } 1' /etc/group >group.new &&
	cat group.new >/etc/group
note "groups: operator $(id -Gn operator), kiosk $(id -Gn kiosk), visitor $(id -Gn visitor)"

systemctl daemon-reload
check "systemd sees the installed unit" "$(prop FragmentPath)" = /usr/lib/systemd/system/evroute.service
# exposure, as systemd-analyze measures it here (online; the offline check as a fallback)
systemd-analyze security "$UNIT.service" >security.txt 2>&1 ||
	systemd-analyze security --offline=yes /usr/lib/systemd/system/evroute.service >security.txt 2>&1
EXPOSURE=$(sed -n 's/.*Overall exposure level for evroute.service: \([0-9.]*\).*/\1/p' security.txt)
note "systemd-analyze security: $(grep 'Overall exposure' security.txt)"
check "exposure <= 2.0" "$(awk -v e="${EXPOSURE:-99}" 'BEGIN { print (e <= 2.0) ? "yes" : "no (" e ")" }')" = yes
[ -n "$EXPOSURE" ] || { note "systemd-analyze output:"; sed 's/^/    /' security.txt | tail -n 20; }

# ---- start with the touchscreen present; the keyboard comes later (hotplug)
create_device "$TS/Atmel maXTouch Touchscreen.desc"; TSNODE=$DEVNODE   # 800x480 -> 1280x800: x * 1.6
t=$(cut -d' ' -f1 /proc/uptime)
systemctl start "$UNIT"
check "systemctl start exit" "$?" -eq 0
START_S=$(since "$t")
check "active after start (Type=notify: READY=1 came)" "$(systemctl is-active "$UNIT")" = active
check "unit type" "$(prop Type)" = notify
check "status text from the daemon" "$(prop StatusText | grep -c 'routing 1 device(s)')" -eq 1
MAIN=$(prop MainPID)
note "started in ${START_S}s: main pid $MAIN; $(prop StatusText)"
grep -E '^(Uid|Gid|Groups|NoNewPrivs|Seccomp|CapEff):' /proc/$MAIN/status | tr '\t' ' ' >daemon-creds.txt
sed 's/^/    /' daemon-creds.txt
check "daemon runs as evroute" "$(stat -c %U /proc/$MAIN)" = evroute
check "daemon: no capabilities" "$(sed -n 's/^CapEff: *//p' daemon-creds.txt)" = 0000000000000000
check "daemon: no new privileges" "$(sed -n 's/^NoNewPrivs: *//p' daemon-creds.txt)" = 1
check "daemon: seccomp filter" "$(sed -n 's/^Seccomp: *//p' daemon-creds.txt)" = 2
PROCMNT=$(awk '$5 == "/proc" { line = $0 } END { print line }' /proc/$MAIN/mountinfo)
note "the daemon's /proc: ${PROCMNT##* - }"
check "daemon's /proc: hidepid=invisible (ProtectProc=invisible)" "$(echo "$PROCMNT" | grep -c 'hidepid=invisible')" -eq 1
check "daemon's /proc: subset=pid (ProcSubset=pid)" "$(echo "$PROCMNT" | grep -c 'subset=pid')" -eq 1
check "daemon opened the touchscreen" "$(has_open "$MAIN" "$TSNODE" && echo yes)" = yes
# in the daemon's mount namespace, as its user, an operator's process is invisible: the
# daemon cannot read a client's /proc/PID/status (its groups come from SO_PEERGROUPS)
as operator sleep 20 & SLEEPER=$!
_bg_pids="$_bg_pids $SLEEPER"
sleep 0.3
check "root sees the operator's process" "$(test -e /proc/$SLEEPER && echo visible)" = visible
check "daemon's view: an operator's /proc/PID is hidden" \
	"$(nsenter -t "$MAIN" -m su evroute -s /bin/sh -c "test -e /proc/$SLEEPER && echo visible || echo hidden")" = hidden
kill "$SLEEPER" 2>/dev/null
# hotplug under the sandbox (udev's netlink monitor: no PrivateNetwork=)
create_device "$KB/Razer Razer BlackWidow 2013.keyboard.desc"; KBNODE=$DEVNODE
wait_until 10 has_open "$MAIN" "$KBNODE"
check "daemon opened the hot-plugged keyboard" "$(has_open "$MAIN" "$KBNODE" && echo yes)" = yes
check "status: 2 devices" "$(evroute status --format json | grep -o '"rule" *: *"[a-z]*"' | sort | tr -d ' \n')" = '"rule":"keys""rule":"touch"'

# the UI: a client in group evroute on the 0660 socket
check "ui.sock: mode 660, group evroute" "$(stat -c '%a %G' /run/evroute/ui.sock 2>/dev/null)" = "660 evroute"
start_ui() {
	su kiosk -s /bin/sh -c 'exec vm-unix -w 10 /run/evroute/ui.sock' >"$1.out" 2>"$1.err" &
	UI_PID=$!
	_bg_pids="$_bg_pids $UI_PID"
	wait_until 12 grep -q connected "$1.err" || fail "kiosk client did not connect: $(cat "$1.err")"
	note "kiosk UI client connected (pid $UI_PID)"
}
start_ui ui

# ---- touch A held at device x=300 (display 480: left in v1, right in v2)
mt_down "$TSNODE" 0 100 300 200
wait_lines ui.out '"phase" *: *"began"' 1 10
check "touch A began in left (v1), reached the kiosk UI" "$(json_count ui.out type touch phase began region home/root/left)" -eq 1

# ---- Enter twice: the exec handler runs as evroute, hardened
for i in 1 2; do
	emit "$KBNODE" EV_KEY KEY_ENTER 1 sync
	emit "$KBNODE" EV_KEY KEY_ENTER 0 sync
done
wait_lines /run/evroute/exec.log 'KEY_ENTER down' 2 15
note "exec handler ran:"; sed 's/^/    /' /run/evroute/exec.log
check "exec ran for each Enter down" "$(count_lines /run/evroute/exec.log 'KEY_ENTER down')" -eq 2
check "exec ran as user evroute" "$(count_lines /run/evroute/exec.log 'down user=evroute ')" -eq 2
check "exec: groups evroute, input and evroute-uinput" "$(count_lines /run/evroute/exec.log 'KEY_ENTER down .*groups=evroute,input,evroute-uinput ')" -eq 2
check "exec: no capabilities, no new privileges, seccomp" \
	"$(count_lines /run/evroute/exec.log 'KEY_ENTER down .*CapEff:0000000000000000 NoNewPrivs:1 Seccomp:2 ')" -eq 2
check "exec: /etc is read-only to it" "$(count_lines /run/evroute/exec.log 'KEY_ENTER down .*etc=read-only')" -eq 2

# ---- reload with A held (ExecReload=evroute reload: systemctl returns once it is done)
cp /vm/config/systemd-v2.yaml /etc/evroute/evroute.yaml
systemctl reload "$UNIT"
check "systemctl reload exit" "$?" -eq 0
check "reloaded when systemctl returns (status reloads)" "$(evroute status --format json | grep -c '"reloads" *: *1')" -eq 1
check "same main pid after reload" "$(prop MainPID)" = "$MAIN"
check "UI still connected after reload" "$(_gone "$UI_PID" && echo gone || echo connected)" = connected
emit "$TSNODE" EV_ABS ABS_MT_SLOT 0
emit "$TSNODE" EV_ABS ABS_MT_POSITION_X 310
emit "$TSNODE" EV_ABS ABS_X 310 sync
wait_lines ui.out '"phase" *: *"moved"' 1 10
check "held touch A moved, still in left (old layout)" "$(json_count ui.out type touch phase moved region home/root/left)" -ge 1
mt_down "$TSNODE" 1 101 300 300
wait_lines ui.out '"phase" *: *"began"' 2 10
check "new touch B began in right (v2)" "$(json_count ui.out type touch phase began region home/root/right)" -eq 1
mt_up "$TSNODE" 1
mt_up "$TSNODE" 0
wait_lines ui.out '"phase" *: *"ended"' 2 10
check "A ended in left, B in right" \
	"$(json_count ui.out type touch phase ended region home/root/left) $(json_count ui.out type touch phase ended region home/root/right)" = "1 1"

# ---- metrics: the textfile under the hardened unit (interval-s 1; counters go on across the reload)
PROM=/var/lib/evroute/metrics/evroute.prom
touches_in_file() { sed -n 's/^evroute_touches_total{device="touch"} //p' "$PROM" 2>/dev/null; }
poll_until 10 test "$(touches_in_file)" = 2
check "metrics: textfile written by the daemon (owner evroute)" "$(stat -c %U "$PROM" 2>/dev/null)" = evroute
check "metrics: evroute_touches_total{device=\"touch\"} = the 2 touches replayed" "$(touches_in_file)" = 2
check "metrics: device present" "$(grep -c '^evroute_device_present{device="touch",kind="touchscreen"} 1$' "$PROM")" -eq 1
check "metrics: no temp file left" "$(ls -A /var/lib/evroute/metrics | tr '\n' ' ')" = "evroute.prom "
check "metrics: mode 644 under the unit's UMask=0077" "$(stat -c %a "$PROM")" = 644
check "metrics: another user reads the file" "$(as visitor cat "$PROM" 2>&1 | grep -c '^evroute_touches_total{device="touch"} 2$')" -eq 1
# the fleet recipe (docs/deployment.md, "A fleet"): Debian's node_exporter as its own user
# prometheus, its textfile directory holding a link to the daemon's file (tmpfiles.d L line)
if command -v prometheus-node-exporter >/dev/null; then
	echo "prometheus:x:1004:1004:prometheus:/var/lib/prometheus:/bin/sh" >>/etc/passwd
	echo "prometheus:x:1004:" >>/etc/group
	mkdir -p /var/lib/prometheus/node-exporter && chown -R prometheus:prometheus /var/lib/prometheus
	mkdir -p /etc/tmpfiles.d
	echo 'L /var/lib/prometheus/node-exporter/evroute.prom - - - - /var/lib/evroute/metrics/evroute.prom' \
		>/etc/tmpfiles.d/evroute-metrics.conf
	systemd-tmpfiles --create evroute-metrics.conf
	ip link set lo up 2>/dev/null
	systemd-run --unit=node-exporter -p User=prometheus -p Group=prometheus /usr/bin/prometheus-node-exporter \
		--collector.disable-defaults --collector.textfile --collector.textfile.directory=/var/lib/prometheus/node-exporter \
		--web.listen-address=127.0.0.1:9100 >node-exporter.out 2>&1
	poll_until 30 sh -c 'wget -q -O scrape.out http://127.0.0.1:9100/metrics && grep -q "^node_textfile_scrape_error" scrape.out'
	check "node_exporter: runs as prometheus" "$(systemctl show -p User --value node-exporter)" = prometheus
	check "node_exporter: node_textfile_scrape_error 0" "$(sed -n 's/^node_textfile_scrape_error //p' scrape.out)" = 0
	check "node_exporter: serves evroute_touches_total" "$(grep -c '^evroute_touches_total{device="touch"} 2$' scrape.out)" -eq 1
	check "node_exporter: serves evroute_build_info" "$(grep -c '^evroute_build_info{version=' scrape.out)" -eq 1
	check "node_exporter: the link the recipe makes" "$(readlink /var/lib/prometheus/node-exporter/evroute.prom)" = "$PROM"
	grep -q '^evroute_build_info' scrape.out || {
		note "node_exporter: $(ls -la /var/lib/prometheus/node-exporter | tr '\n' ';')"
		grep '^node_textfile' scrape.out | sed 's/^/    /'
		journalctl -u node-exporter -o cat | tail -n 10 | sed 's/^/    /'
	}
	systemctl stop node-exporter
else
	note "no prometheus-node-exporter in the image: the file's mode and another user's read stand for it"
fi

# ---- a broken config: systemctl reload fails, the daemon keeps running the previous one
cp /etc/evroute/evroute.yaml good.yaml
sed 's/display: main$/display: nowhere/' good.yaml >/etc/evroute/evroute.yaml
systemctl reload "$UNIT" >reload-bad.out 2>&1
check "systemctl reload of a broken config fails" "$?" -ne 0
note "systemctl reload: $(cat reload-bad.out)"
check "still active, same main pid" "$(systemctl is-active "$UNIT") $(prop MainPID)" = "active $MAIN"
check "status: failed_reloads 1" "$(evroute status --format json | grep -c '"failed_reloads" *: *1')" -eq 1
cp good.yaml /etc/evroute/evroute.yaml

# ---- operator access (supplementary group evroute), a visitor refused
as operator evroute status >operator-status.out 2>&1
check "operator: evroute status exit" "$?" -eq 0
check "operator: status names the daemon" "$(grep -c "daemon, pid $MAIN" operator-status.out)" -eq 1
as operator evroute ctl state >operator-ctl.out 2>&1
check "operator: evroute ctl state exit" "$?" -eq 0
note "operator's ctl state:"; sed 's/^/    /' operator-ctl.out
as visitor evroute status >visitor-mode.out 2>&1
check "visitor refused (socket mode 0660)" "$? $(grep -c 'Permission denied' visitor-mode.out)" = "1 1"
# with the mode opened up, the daemon's own check (SO_PEERGROUPS) still refuses the visitor
chmod 0666 /run/evroute/control.sock
as visitor evroute status >visitor-daemon.out 2>&1
check "visitor refused by the daemon" "$? $(grep -c 'permission denied' visitor-daemon.out)" = "1 1"
as operator evroute ctl state >/dev/null 2>&1
check "operator still served" "$?" -eq 0
chmod 0660 /run/evroute/control.sock

# ---- the journal's priorities
poll_until 10 sh -c "journalctl -u $UNIT -o cat | grep -q 'refused a client'"
journalctl -u "$UNIT" _COMM=evroute -o json >journal.json 2>&1
check "journal: the refusal at PRIORITY 4 (warning)" \
	"$(grep 'refused a client without permission' journal.json | grep -c '"PRIORITY":"4"')" -eq 1
check "journal: info lines at PRIORITY 6" "$(grep 'listening on /run/evroute/ui.sock' journal.json | grep -c '"PRIORITY":"6"')" -ge 1
check "journal: exec output logged" "$(grep -c 'user=evroute' journal.json)" -ge 2
journalctl -u "$UNIT" _COMM=evroute -p warning -o cat >journal-warning.txt 2>&1
check "journal: the broken config's file:line:col error at PRIORITY 3" \
	"$(grep 'evroute.yaml:[0-9]*:[0-9]*: error: ' journal.json | grep -c '"PRIORITY":"3"')" -ge 1
check "journalctl -p warning: the refusal, no info line" \
	"$(grep -c 'refused a client' journal-warning.txt) $(grep -c 'listening on' journal-warning.txt)" = "1 0"
note "journalctl -u evroute -p warning:"; sed 's/^/    /' journal-warning.txt
# structured entries: the native protocol, a MESSAGE_ID per kind, EVROUTE_* fields
ID_READY=c4e50ad70f5745978032396f71ee0e41
ID_DEVICE_ADDED=8e41ffdb62a14681845de28d6f1667ce
ID_REFUSED=587952c655664be48e32075c16cbbbbc
ID_PLUGIN_STARTED=02f650ab5afe40c3a98c393c94160c82
journalctl -u "$UNIT" EVROUTE_DEVICE=touch -o json >journal-touch.json 2>&1
check "journal: EVROUTE_DEVICE=touch finds the touchscreen opened" \
	"$(grep "\"MESSAGE_ID\":\"$ID_DEVICE_ADDED\"" journal-touch.json | grep -c 'device added: .*Atmel maXTouch Touchscreen.*rule touch')" -ge 1
check "journal: EVROUTE_DEVICE=touch: only the touchscreen's entries" "$(grep -c 'rule keys' journal-touch.json)" -eq 0
check "journal: the keyboard under EVROUTE_DEVICE=keys" \
	"$(journalctl -u "$UNIT" EVROUTE_DEVICE=keys MESSAGE_ID=$ID_DEVICE_ADDED -o cat | grep -c 'Razer Razer BlackWidow 2013')" -ge 1
check "journal: MESSAGE_ID=ready: one start so far, at PRIORITY 5, native protocol" \
	"$(journalctl -u "$UNIT" MESSAGE_ID=$ID_READY -o json | grep '"PRIORITY":"5"' | grep '"SYSLOG_IDENTIFIER":"evroute"' | grep -c '"_TRANSPORT":"journal"')" -eq 1
check "journal: MESSAGE_ID + EVROUTE_PLUGIN=ui: the socket listening" \
	"$(journalctl -u "$UNIT" MESSAGE_ID=$ID_PLUGIN_STARTED EVROUTE_PLUGIN=ui -o cat | grep -c 'listening on /run/evroute/ui.sock')" -ge 1
check "journal: -p warning MESSAGE_ID=refused: the refusal" \
	"$(journalctl -u "$UNIT" -p warning MESSAGE_ID=$ID_REFUSED -o cat | grep -c 'refused a client without permission')" -eq 1
check "journal: no stream lines from the daemon itself (all native)" \
	"$(journalctl -u "$UNIT" _PID=$MAIN _TRANSPORT=stdout -o cat | wc -l)" -eq 0
note "journalctl -u evroute EVROUTE_DEVICE=touch:"; journalctl -u "$UNIT" EVROUTE_DEVICE=touch -o cat | sed 's/^/    /'

# ---- the watchdog: a daemon that stops answering is restarted
check "unit WatchdogSec=30" "$(prop WatchdogUSec)" = 30s
check "no restart yet" "$(prop NRestarts)" = 0
t=$(cut -d' ' -f1 /proc/uptime)
kill -STOP "$MAIN"
note "SIGSTOP to $MAIN; waiting for the watchdog"
# The watchdog ends the stopped daemon up to 30 s after its last ping: wait for that by looking at
# /proc (a systemctl per look, for that long, cost more guest CPU than the rest of the case), then
# for the restart.
poll_until 75 _gone "$MAIN"
restarted() { [ "$(prop NRestarts)" = 1 ] && [ "$(systemctl is-active "$UNIT")" = active ]; }
poll_until 30 restarted
WATCHDOG_S=$(since "$t")
MAIN2=$(prop MainPID)
note "after ${WATCHDOG_S}s: NRestarts $(prop NRestarts), main pid $MAIN2, $(systemctl is-active "$UNIT")"
check "watchdog restart: NRestarts" "$(prop NRestarts)" = 1
check "restarted: active, a new main pid" "$(systemctl is-active "$UNIT") $([ "$MAIN2" != "$MAIN" ] && [ "$MAIN2" != 0 ] && echo new)" = "active new"
check "journal: watchdog timeout" "$(journalctl -u "$UNIT" -o cat | grep -ci 'watchdog timeout')" -ge 1
check "the old daemon is gone" "$(test -e /proc/$MAIN && echo present || echo gone)" = gone

# ---- systemctl stop with a touch held
start_ui ui2
mt_down "$TSNODE" 0 102 100 200
wait_lines ui2.out '"phase" *: *"began"' 1 10
check "touch C began (restarted daemon)" "$(json_count ui2.out type touch phase began region home/root/left)" -eq 1
systemctl stop "$UNIT"
check "systemctl stop exit" "$?" -eq 0
wait_until 5 _gone "$UI_PID"
check "touch C cancelled, reached the UI" "$(json_count ui2.out type touch phase cancelled region home/root/left)" -eq 1
check "stopped: inactive" "$(systemctl is-active "$UNIT")" = inactive
check "daemon exit status 0" "$(prop ExecMainStatus)" = 0
check "result success" "$(prop Result)" = success
check "/run/evroute removed (RuntimeDirectory)" "$(test -e /run/evroute && echo present || echo removed)" = removed
mt_up "$TSNODE" 0

# ---- forwarding under the hardened unit
udevadm control --reload 2>/dev/null
modprobe uinput 2>/dev/null
udevadm trigger --subsystem-match=misc --sysname-match=uinput 2>/dev/null
udevadm settle --timeout=10
check "forward: /dev/uinput given to evroute-uinput (shipped udev rule)" "$(stat -c '%G %a' /dev/uinput 2>/dev/null)" = "evroute-uinput 660"
check "forward: evroute is a member of evroute-uinput (sysusers)" "$(id -Gn evroute 2>/dev/null | tr ' ' '\n' | grep -cx evroute-uinput)" -eq 1
cp /vm/config/systemd-forward.yaml /etc/evroute/evroute.yaml
systemctl start "$UNIT"
check "forward: started" "$(systemctl is-active "$UNIT")" = active
vname="Atmel maXTouch Touchscreen (evroute)"
fwnode() { for d in /sys/class/input/event*; do [ "$(cat "$d/device/name" 2>/dev/null)" = "$vname" ] && echo "/dev/input/$(basename "$d")"; done; }
poll_until 10 test -n "$(fwnode)"
VNODE=$(fwnode)
check "forward: the virtual touchscreen exists under the unit" "${VNODE:-none}" != none
if [ -n "$VNODE" ]; then
	start_reader fwd "$VNODE" libinput debug-events --device "$VNODE"
	mt_down "$TSNODE" 0 201 100 200      # left half: kept (log)
	mt_up "$TSNODE" 0
	mt_down "$TSNODE" 0 202 600 200      # right half: forwarded
	mt_up "$TSNODE" 0
	wait_until 5 _has_lines fwd.out TOUCH_UP 1
	check "forward: libinput on the virtual device: one down, one up (the kept touch never appears)" "$(count_lines fwd.out TOUCH_DOWN)/$(count_lines fwd.out TOUCH_UP)" = 1/1
	mt_down "$TSNODE" 0 203 600 200
	wait_until 5 _has_lines fwd.out TOUCH_DOWN 2
	systemctl stop "$UNIT"
	wait_until 5 _has_lines fwd.out TOUCH_CANCEL 1
	check "forward: systemctl stop cancels the held forwarded touch" "$(count_lines fwd.out TOUCH_CANCEL)" -eq 1
	check "forward: the virtual device goes with the daemon" "$(fwnode)" = ""
	stop_reader fwd
	mt_up "$TSNODE" 0
fi
check "forward: journal names the virtual device" "$(journalctl -u "$UNIT" -o cat | grep -c 'forward: \"Atmel maXTouch Touchscreen (evroute)\" made')" -ge 1

if [ -n "$_failures" ]; then
	note "journal (last 40 lines):"; journalctl -u "$UNIT" -o short-monotonic --no-pager | tail -n 40 | sed 's/^/    /'
fi
finish "exposure $EXPOSURE, start ${START_S}s, watchdog restart ${WATCHDOG_S}s after SIGSTOP, scenario $(since "$T0")s"
